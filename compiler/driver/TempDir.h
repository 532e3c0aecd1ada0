// The run's private temporary folder: every temporary file of one pt2c run lives in
// $TMPDIR/pt2c-<pid>-XXXXXX (mode 0700, mkdtemp), which goes when the run ends, however
// it ends short of SIGKILL (ExitCleanup.h); the next run removes what a SIGKILLed one
// left (StaleRuns.h).
//
// The folder is flock()ed for the whole run: the kernel drops that lock when the process
// dies, even by SIGKILL, so "can I take the lock" tells a dead run's folder from a live
// one without trusting pids (reused, or from another pid namespace sharing /tmp).
//
// While it exists, TMPDIR names it (and PT2C_RUN_DIR, the marker RunProcesses.h finds
// leftover processes by): what LLVM (createTemporaryFile: the object file, the weights
// scratch, the linker's log), the exporter and model.py make there goes with the folder.
#ifndef PT2C_COMPILER_DRIVER_TEMPDIR_H_
#define PT2C_COMPILER_DRIVER_TEMPDIR_H_

#include <memory>
#include <string>

#include "llvm/Support/Error.h"

namespace pt2c {

class RunTempDir {
public:
  // Sweeps stale folders of earlier runs, then makes this run's.
  static llvm::Expected<std::unique_ptr<RunTempDir>> create();
  ~RunTempDir();
  RunTempDir(const RunTempDir &) = delete;
  RunTempDir &operator=(const RunTempDir &) = delete;

  const std::string &path() const { return path_; }
  std::string file(const std::string &name) const { return path_ + "/" + name; }

private:
  RunTempDir(std::string path, int lockFd, int cleanupHandle, const char *oldTmpdir)
      : path_(std::move(path)), lockFd_(lockFd), cleanupHandle_(cleanupHandle),
        hadTmpdir_(oldTmpdir != nullptr), oldTmpdir_(oldTmpdir ? oldTmpdir : "") {}
  std::string path_;
  int lockFd_;
  int cleanupHandle_;
  bool hadTmpdir_;
  std::string oldTmpdir_;
};

} // namespace pt2c

#endif // PT2C_COMPILER_DRIVER_TEMPDIR_H_
