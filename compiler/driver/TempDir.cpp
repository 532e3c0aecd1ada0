#include "compiler/driver/TempDir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "compiler/driver/ExitCleanup.h"
#include "compiler/driver/RemoveTree.h"
#include "compiler/driver/RunProcesses.h"
#include "compiler/driver/StaleRuns.h"

namespace pt2c {

llvm::Expected<std::unique_ptr<RunTempDir>> RunTempDir::create() {
  const char *tmp = getenv("TMPDIR");
  std::string base = tmp && *tmp ? tmp : "/tmp";
  while (base.size() > 1 && base.back() == '/')
    base.pop_back();
  sweepStaleRunDirs(base);

  std::string path = base + "/" + kRunDirPrefix + std::to_string(getpid()) + "-XXXXXX";
  if (!mkdtemp(path.data()))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot create a temporary folder in " + base + ": " +
                                       strerror(errno) + " (set TMPDIR to a writable folder)");
  int handle = exit_cleanup::protect(path, exit_cleanup::Kind::kRunDir);
  int lockFd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (lockFd < 0 || flock(lockFd, LOCK_EX | LOCK_NB) != 0) {
    int e = errno;
    if (lockFd >= 0)
      close(lockFd);
    exit_cleanup::release(handle);
    removeTree(path.c_str());
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot lock the temporary folder " + path + ": " + strerror(e));
  }
  auto dir = std::unique_ptr<RunTempDir>(new RunTempDir(path, lockFd, handle, tmp));
  setenv("TMPDIR", path.c_str(), 1);
  setenv(kRunDirMarker, path.c_str(), 1);
  return dir;
}

RunTempDir::~RunTempDir() {
  // What model.py started outside the exporter's process group ends with the run.
  killProcessesOfRun(path_.c_str());
  // Removed while still locked: a sweeping run never sees it unlocked and half gone.
  removeTree(path_.c_str());
  exit_cleanup::release(cleanupHandle_);
  close(lockFd_);
  unsetenv(kRunDirMarker);
  if (hadTmpdir_)
    setenv("TMPDIR", oldTmpdir_.c_str(), 1);
  else
    unsetenv("TMPDIR");
}

} // namespace pt2c
