#include "compiler/driver/RemoveTree.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "compiler/driver/DirEntries.h"

namespace pt2c {
namespace {

// Deeper trees than this are not made by pt2c or the exporter; the bound keeps the stack
// use of a signal handler small (one 4 KiB buffer per level).
constexpr int kMaxDepth = 16;

// Empties the directory open as `dir`. Entries removed while reading may make
// getdents64 skip others, so it reads again from the start until a pass finds nothing.
void removeContents(int dir, int depth) {
  for (int pass = 0; pass < 8; ++pass) {
    if (lseek(dir, 0, SEEK_SET) < 0)
      return;
    bool sawEntry = false;
    forEachDirEntry(dir, [&](const char *name) {
      sawEntry = true;
      if (unlinkat(dir, name, 0) == 0 || errno != EISDIR || depth >= kMaxDepth)
        return;
      int sub = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub < 0)
        return;
      removeContents(sub, depth + 1);
      close(sub);
      unlinkat(dir, name, AT_REMOVEDIR);
    });
    if (!sawEntry)
      return;
  }
}

} // namespace

bool removeTree(const char *path) {
  int dir = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0)
    return errno == ENOENT;
  removeContents(dir, 0);
  close(dir);
  return rmdir(path) == 0 || errno == ENOENT;
}

} // namespace pt2c
