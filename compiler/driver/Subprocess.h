// Runs a child process in a process group of its own, the way pt2c runs the exporter:
// the child's whole group (model.py may start processes of its own) is stopped on a
// timeout, when the child exits (what it left behind would hold pt2c's output pipes
// open), and by ExitCleanup.h when pt2c is interrupted. The child also dies with pt2c on
// SIGKILL (PR_SET_PDEATHSIG). Its stdout and stderr pass through pipes to pt2c's own, so
// nothing pt2c's caller reads from is left open by the child's leftovers; stdin is
// /dev/null (a process outside the terminal's foreground group that reads it would stop).
#ifndef PT2C_COMPILER_DRIVER_SUBPROCESS_H_
#define PT2C_COMPILER_DRIVER_SUBPROCESS_H_

#include <string>
#include <vector>

namespace pt2c {

struct ChildResult {
  enum Outcome { kExited, kSignaled, kTimedOut, kCannotStart } outcome = kExited;
  int code = 0;           // exit status, signal number, or errno of the failed start
  std::string stderrTail; // the last 64 KiB the child wrote to stderr
};

// argv[0] is the program's path; env the whole environment. timeoutSeconds 0: none.
ChildResult runInOwnGroup(const std::vector<std::string> &argv, const std::vector<std::string> &env,
                          unsigned timeoutSeconds);

} // namespace pt2c

#endif // PT2C_COMPILER_DRIVER_SUBPROCESS_H_
