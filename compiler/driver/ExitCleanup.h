// What pt2c undoes when it exits before finishing: the exporter's process group is
// stopped, temporary outputs beside their targets are unlinked, and the run's temporary
// folder is removed with the processes that still work for the run. The same undo runs
// on SIGINT, SIGTERM and SIGHUP (pt2c then dies of that signal, as shells expect), on
// crash signals of pt2c itself and SIGPIPE, and at exit(). The objects that own these
// things also undo them on the normal path, so every step is idempotent. SIGKILL cannot
// be caught: StaleRuns.h sweeps what it leaves behind.
//
// The signal handler may interrupt anything, so the registry is fixed-size storage read
// with atomics, and the undo uses only async-signal-safe calls.
#ifndef PT2C_COMPILER_DRIVER_EXITCLEANUP_H_
#define PT2C_COMPILER_DRIVER_EXITCLEANUP_H_

#include <sys/types.h>

#include <string>

namespace pt2c {
namespace exit_cleanup {

// Installs the signal handlers and the atexit hook (once; later calls do nothing).
void install();

// kRunDir: a run's folder (TempDir.h), removed after its processes (RunProcesses.h).
enum class Kind { kFile, kRunDir };
// Registers a path to remove if pt2c dies now; returns a handle for `release`, or -1 when
// the registry is full or the path too long (the owner's normal cleanup still runs).
int protect(const std::string &path, Kind kind);
void release(int handle);

// The process group of the running child (its leader's pid), stopped by the undo; 0: none.
void setChildGroup(pid_t leader);

// SIGTERM to the group led by `leader`, up to `graceMs` for the leader to exit, then
// SIGKILL to the whole group (what the leader left behind goes too). Does not reap the
// leader, so its pid, the group's id, cannot be reused meanwhile. Async-signal-safe.
void terminateGroup(pid_t leader, int graceMs);

// How long a child gets between SIGTERM and SIGKILL.
constexpr int kGraceMs = 2000;

} // namespace exit_cleanup
} // namespace pt2c

#endif // PT2C_COMPILER_DRIVER_EXITCLEANUP_H_
