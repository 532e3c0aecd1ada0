#include "compiler/driver/RunProcesses.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compiler/driver/DirEntries.h"

namespace pt2c {
namespace {

// Environment entries are NUL-terminated: "\0PT2C_RUN_DIR=<dir>\0" matches the whole entry
// (the first entry, with nothing before it, is matched by a NUL put before the data).
constexpr size_t kNeedleMax = PATH_MAX + 32;

size_t makeNeedle(const char *runDir, char *needle) {
  size_t marker = strlen(kRunDirMarker), dir = strlen(runDir);
  if (marker + dir + 3 > kNeedleMax)
    return 0;
  needle[0] = '\0';
  memcpy(needle + 1, kRunDirMarker, marker);
  needle[1 + marker] = '=';
  memcpy(needle + 2 + marker, runDir, dir);
  needle[2 + marker + dir] = '\0';
  return marker + dir + 3;
}

bool contains(const char *data, size_t size, const char *needle, size_t length) {
  for (size_t i = 0; i + length <= size; ++i)
    if (data[i] == needle[0] && memcmp(data + i, needle, length) == 0)
      return true;
  return false;
}

// Reads /proc/<pid>/environ in pieces, keeping the last length-1 bytes of each piece in
// front of the next so that a match across pieces is found.
bool environHolds(int procDir, const char *pid, const char *needle, size_t length) {
  char path[64] = {};
  size_t n = strlen(pid);
  if (n + 9 > sizeof path)
    return false;
  memcpy(path, pid, n);
  memcpy(path + n, "/environ", 9);
  int fd = openat(procDir, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  char buffer[kNeedleMax + 8192];
  buffer[0] = '\0';
  size_t kept = 1;
  bool found = false;
  for (;;) {
    ssize_t got = read(fd, buffer + kept, sizeof buffer - kept);
    if (got <= 0)
      break;
    size_t size = kept + static_cast<size_t>(got);
    if (contains(buffer, size, needle, length)) {
      found = true;
      break;
    }
    kept = size < length ? size : length - 1;
    memmove(buffer, buffer + size - kept, kept);
  }
  close(fd);
  return found;
}

bool allDigits(const char *s) {
  if (!*s)
    return false;
  for (; *s; ++s)
    if (*s < '0' || *s > '9')
      return false;
  return true;
}

pid_t parsePid(const char *s) {
  long v = 0;
  for (; *s; ++s)
    v = v * 10 + (*s - '0');
  return static_cast<pid_t>(v);
}

} // namespace

void killProcessesOfRun(const char *runDir) {
  char needle[kNeedleMax];
  size_t length = makeNeedle(runDir, needle);
  if (length == 0)
    return;
  int procDir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (procDir < 0)
    return;
  pid_t self = getpid();
  uid_t uid = getuid();
  forEachDirEntry(procDir, [&](const char *name) {
    if (!allDigits(name))
      return;
    pid_t pid = parsePid(name);
    struct stat st;
    if (pid == self || fstatat(procDir, name, &st, 0) != 0 || st.st_uid != uid)
      return;
    // A pidfd taken before the environment is read: if the pid is reused meanwhile, the
    // signal goes to the process that was read, which is gone, not the new one.
    int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
    if (environHolds(procDir, name, needle, length)) {
      if (pidfd >= 0)
        syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0);
      else
        kill(pid, SIGKILL);
    }
    if (pidfd >= 0)
      close(pidfd);
  });
  close(procDir);
}

} // namespace pt2c
