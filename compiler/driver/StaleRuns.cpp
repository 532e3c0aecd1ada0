#include "compiler/driver/StaleRuns.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <functional>

#include "compiler/driver/RemoveTree.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

namespace pt2c {
namespace {

constexpr time_t kYoungSeconds = 60;

bool pidAlive(pid_t pid) { return kill(pid, 0) == 0 || errno == EPERM; }

// "<pid>-<rest>" -> pid; 0 if `name` does not start that way.
pid_t leadingPid(llvm::StringRef name) {
  auto [digits, rest] = name.split('-');
  unsigned long pid = 0;
  if (rest.empty() || digits.getAsInteger(10, pid) || pid == 0) return 0;
  return static_cast<pid_t>(pid);
}

void forEachEntry(const std::string& dir, const std::function<void(llvm::StringRef)>& fn) {
  DIR* d = opendir(dir.c_str());
  if (!d) return;
  while (dirent* e = readdir(d)) fn(e->d_name);
  closedir(d);
}

bool ownedDirectory(const std::string& path, struct stat& st) {
  return lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid();
}

// SIGKILL to this user's processes whose environment holds MARKER=dir. A pidfd taken
// before reading the environment keeps a reused pid from receiving the signal.
void killMarkedProcesses(const std::string& dir) {
  std::string needle = std::string(kRunDirMarker) + "=" + dir;
  needle.push_back('\0');
  forEachEntry("/proc", [&](llvm::StringRef name) {
    unsigned long pid = 0;
    if (name.getAsInteger(10, pid) || static_cast<pid_t>(pid) == getpid()) return;
    struct stat st;
    std::string proc = "/proc/" + name.str();
    if (stat(proc.c_str(), &st) != 0 || st.st_uid != getuid()) return;
    int pidfd = static_cast<int>(syscall(SYS_pidfd_open, static_cast<pid_t>(pid), 0));
    auto envFile = llvm::MemoryBuffer::getFileAsStream(proc + "/environ");
    if (envFile) {
      llvm::StringRef env = (*envFile)->getBuffer();
      bool marked = env.starts_with(needle) || env.contains(std::string(1, '\0') + needle);
      if (marked) {
        if (pidfd >= 0)
          syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0);
        else
          kill(static_cast<pid_t>(pid), SIGKILL);
      }
    }
    if (pidfd >= 0) close(pidfd);
  });
}

}  // namespace

void sweepStaleRunDirs(const std::string& base) {
  forEachEntry(base, [&](llvm::StringRef name) {
    if (!name.consume_front(kRunDirPrefix)) return;
    pid_t pid = leadingPid(name);
    if (pid == 0) return;
    std::string path = base + "/" + kRunDirPrefix + name.str();
    struct stat st;
    if (!ownedDirectory(path, st)) return;
    int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    bool young = time(nullptr) - st.st_mtime < kYoungSeconds;
    if (flock(fd, LOCK_EX | LOCK_NB) == 0 && !(young && pidAlive(pid))) {
      killMarkedProcesses(path);
      removeTree(path.c_str());  // under the lock: no other sweeper works on it meanwhile
    }
    close(fd);
  });
}

void sweepStaleOutputTemps(const std::string& target) {
  std::string dir = llvm::sys::path::parent_path(target).str();
  if (dir.empty()) dir = ".";
  std::string prefix = llvm::sys::path::filename(target).str() + ".tmp-";
  forEachEntry(dir, [&](llvm::StringRef name) {
    llvm::StringRef rest = name;
    if (!rest.consume_front(prefix)) return;
    pid_t pid = leadingPid(rest);
    if (pid == 0 || pid == getpid() || pidAlive(pid)) return;
    std::string path = dir + "/" + name.str();
    struct stat st;
    if (lstat(path.c_str(), &st) == 0 && !S_ISDIR(st.st_mode) && st.st_uid == getuid())
      unlink(path.c_str());
  });
}

}  // namespace pt2c
