#include "compiler/driver/RemoveTree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

namespace pt2c {
namespace {

// Deeper trees than this are not made by pt2c or the exporter; the bound keeps the stack
// use of a signal handler small (one 4 KiB buffer per level).
constexpr int kMaxDepth = 16;

bool isDotOrDotDot(const char* name) {
  return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

// Empties the directory open as `dir`. Entries removed while reading may make
// getdents64 skip others, so it reads again from the start until a pass finds nothing.
void removeContents(int dir, int depth) {
  alignas(8) char buffer[4096];
  for (int pass = 0; pass < 8; ++pass) {
    if (lseek(dir, 0, SEEK_SET) < 0) return;
    bool sawEntry = false;
    for (;;) {
      ssize_t n = getdents64(dir, buffer, sizeof buffer);
      if (n <= 0) break;
      for (ssize_t at = 0; at < n;) {
        auto* entry = reinterpret_cast<struct dirent64*>(buffer + at);
        at += entry->d_reclen;
        if (isDotOrDotDot(entry->d_name)) continue;
        sawEntry = true;
        if (unlinkat(dir, entry->d_name, 0) == 0 || errno != EISDIR) continue;
        if (depth >= kMaxDepth) continue;
        int sub = openat(dir, entry->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0) continue;
        removeContents(sub, depth + 1);
        close(sub);
        unlinkat(dir, entry->d_name, AT_REMOVEDIR);
      }
    }
    if (!sawEntry) return;
  }
}

}  // namespace

bool removeTree(const char* path) {
  int dir = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0) return errno == ENOENT;
  removeContents(dir, 0);
  close(dir);
  return rmdir(path) == 0 || errno == ENOENT;
}

}  // namespace pt2c
