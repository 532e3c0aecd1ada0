// Reading a directory where malloc is off limits (pt2c's signal handlers): getdents64 into
// a stack buffer, where readdir would allocate its DIR. The driver's one way to list a
// directory: removeTree, killProcessesOfRun and the stale-run sweep use it.
#ifndef PT2C_COMPILER_DRIVER_DIRENTRIES_H_
#define PT2C_COMPILER_DRIVER_DIRENTRIES_H_

#include <dirent.h>
#include <unistd.h>

namespace pt2c {

// Calls fn(name) for every entry of the directory open as `dir`, from its current offset
// on, except "." and "..". Async-signal-safe when fn is; uses 4 KiB of stack.
template <typename Fn> void forEachDirEntry(int dir, Fn &&fn) {
  alignas(8) char buffer[4096];
  for (;;) {
    ssize_t n = getdents64(dir, buffer, sizeof buffer);
    if (n <= 0)
      return;
    for (ssize_t at = 0; at < n;) {
      auto *entry = reinterpret_cast<struct dirent64 *>(buffer + at);
      at += entry->d_reclen;
      const char *name = entry->d_name;
      if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
        continue;
      fn(name);
    }
  }
}

} // namespace pt2c

#endif // PT2C_COMPILER_DRIVER_DIRENTRIES_H_
