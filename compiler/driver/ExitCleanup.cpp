#include "compiler/driver/ExitCleanup.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>

#include "compiler/driver/RemoveTree.h"
#include "compiler/driver/RunProcesses.h"

namespace pt2c {
namespace exit_cleanup {
namespace {

// A run holds one folder and a few outputs (model.so, and the --external-weights files).
constexpr int kSlots = 8;
enum State : int { kFree, kWriting, kActive };

struct Slot {
  std::atomic<int> state{kFree};
  Kind kind = Kind::kFile;
  char path[PATH_MAX];
};

Slot slots[kSlots];
std::atomic<pid_t> childGroup{0};
std::atomic<bool> undoing{false};
// The handlers are inherited by a child between fork and exec; only pt2c itself undoes.
pid_t ownerPid = 0;

void sleepMs(long ms) {
  timespec t{ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&t, &t) != 0 && errno == EINTR) {
  }
}

void undo() {
  int savedErrno = errno;
  if (pid_t leader = childGroup.exchange(0); leader > 0)
    terminateGroup(leader, kGraceMs);
  for (Slot &slot : slots) {
    if (slot.state.load(std::memory_order_acquire) != kActive)
      continue;
    if (slot.kind == Kind::kFile) {
      unlink(slot.path);
    } else {
      killProcessesOfRun(slot.path);
      removeTree(slot.path);
    }
  }
  errno = savedErrno;
}

void writeStderr(const char *text) {
  ssize_t ignored = write(STDERR_FILENO, text, strlen(text));
  (void)ignored;
}

const char *signalName(int sig) { // strsignal is not async-signal-safe
  switch (sig) {
  case SIGINT:
    return "SIGINT";
  case SIGTERM:
    return "SIGTERM";
  case SIGHUP:
    return "SIGHUP";
  default:
    return "a fatal signal";
  }
}

void onSignal(int sig) {
  if (getpid() != ownerPid)
    _exit(128 + sig);
  // The handled signals are blocked while this runs (sa_mask); a second fatal signal of
  // another kind finds the undo started and just dies.
  if (!undoing.exchange(true)) {
    if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
      writeStderr("pt2c: stopped by ");
      writeStderr(signalName(sig));
      writeStderr("; cleaning up\n");
    }
    undo();
  }
  // Die of the same signal: it is delivered again once this handler returns (for a crash,
  // the faulting instruction runs again), now with the default action.
  signal(sig, SIG_DFL);
  raise(sig);
}

void atExit() {
  if (!undoing.exchange(true))
    undo();
}

} // namespace

void install() {
  static bool installed = false;
  if (installed)
    return;
  installed = true;
  ownerPid = getpid();
  struct sigaction action{};
  action.sa_handler = onSignal;
  sigemptyset(&action.sa_mask);
  for (int s : {SIGINT, SIGTERM, SIGHUP})
    sigaddset(&action.sa_mask, s);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) {
    // A signal ignored by whoever started pt2c (nohup, a background job) stays ignored.
    struct sigaction old{};
    if (sigaction(s, nullptr, &old) == 0 && old.sa_handler == SIG_IGN)
      continue;
    sigaction(s, &action, nullptr);
  }
  // SIGPIPE too: pt2c forwards the exporter's output, and a reader that went away
  // (`pt2c ... 2>&1 | head`) kills pt2c as it always did, now after the cleanup.
  for (int s : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGPIPE})
    sigaction(s, &action, nullptr);
  std::atexit(atExit);
}

int protect(const std::string &path, Kind kind) {
  if (path.size() >= PATH_MAX)
    return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!slots[i].state.compare_exchange_strong(expected, kWriting))
      continue;
    slots[i].kind = kind;
    memcpy(slots[i].path, path.c_str(), path.size() + 1);
    slots[i].state.store(kActive, std::memory_order_release);
    return i;
  }
  return -1;
}

void release(int handle) {
  if (handle >= 0 && handle < kSlots)
    slots[handle].state.store(kFree, std::memory_order_release);
}

void setChildGroup(pid_t leader) { childGroup.store(leader); }

void terminateGroup(pid_t leader, int graceMs) {
  kill(-leader, SIGTERM);
  for (int waited = 0; waited < graceMs; waited += 20) {
    siginfo_t info{};
    int rc = waitid(P_PID, leader, &info, WEXITED | WNOHANG | WNOWAIT);
    if ((rc == 0 && info.si_pid == leader) || (rc < 0 && errno == ECHILD))
      break;
    sleepMs(20);
  }
  kill(-leader, SIGKILL);
}

} // namespace exit_cleanup
} // namespace pt2c
