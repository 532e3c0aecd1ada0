#include "compiler/driver/StaleRuns.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <functional>

#include "compiler/driver/DirEntries.h"
#include "compiler/driver/RemoveTree.h"
#include "compiler/driver/RunProcesses.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Path.h"

namespace pt2c {
namespace {

constexpr time_t kYoungSeconds = 60;

bool pidAlive(pid_t pid) { return kill(pid, 0) == 0 || errno == EPERM; }

// "<pid>-<rest>" -> pid; 0 if `name` does not start that way.
pid_t leadingPid(llvm::StringRef name) {
  auto [digits, rest] = name.split('-');
  unsigned long pid = 0;
  if (rest.empty() || digits.getAsInteger(10, pid) || pid == 0)
    return 0;
  return static_cast<pid_t>(pid);
}

void forEachEntry(const std::string &dir, const std::function<void(llvm::StringRef)> &fn) {
  int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return;
  forEachDirEntry(fd, [&](const char *name) { fn(name); });
  close(fd);
}

bool ownedDirectory(const std::string &path, struct stat &st) {
  return lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid();
}

} // namespace

void sweepStaleRunDirs(const std::string &base) {
  forEachEntry(base, [&](llvm::StringRef name) {
    if (!name.consume_front(kRunDirPrefix))
      return;
    pid_t pid = leadingPid(name);
    if (pid == 0)
      return;
    std::string path = base + "/" + kRunDirPrefix + name.str();
    struct stat st;
    if (!ownedDirectory(path, st))
      return;
    int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
      return;
    bool young = time(nullptr) - st.st_mtime < kYoungSeconds;
    if (flock(fd, LOCK_EX | LOCK_NB) == 0 && !(young && pidAlive(pid))) {
      killProcessesOfRun(path.c_str());
      removeTree(path.c_str()); // under the lock: no other sweeper works on it meanwhile
    }
    close(fd);
  });
}

void sweepStaleOutputTemps(const std::string &target) {
  std::string dir = llvm::sys::path::parent_path(target).str();
  if (dir.empty())
    dir = ".";
  std::string prefix = llvm::sys::path::filename(target).str() + ".tmp-";
  forEachEntry(dir, [&](llvm::StringRef name) {
    llvm::StringRef rest = name;
    if (!rest.consume_front(prefix))
      return;
    pid_t pid = leadingPid(rest);
    if (pid == 0 || pid == getpid() || pidAlive(pid))
      return;
    std::string path = dir + "/" + name.str();
    struct stat st;
    if (lstat(path.c_str(), &st) == 0 && !S_ISDIR(st.st_mode) && st.st_uid == getuid())
      unlink(path.c_str());
  });
}

} // namespace pt2c
