#include "compiler/driver/Subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

#include "compiler/driver/ExitCleanup.h"

namespace pt2c {
namespace {

constexpr size_t kTailBytes = 64 * 1024;
// After the child exits, what its leftovers still write is not waited for beyond this.
constexpr size_t kDrainLimit = 1 << 20;

std::vector<char *> cStrings(const std::vector<std::string> &strings) {
  std::vector<char *> out;
  for (const std::string &s : strings)
    out.push_back(const_cast<char *>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

void writeAll(int fd, const char *data, size_t size) {
  while (size > 0) {
    ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return; // pt2c's own output is gone; keep reading so the child never blocks
    data += n;
    size -= static_cast<size_t>(n);
  }
}

// Between fork and exec only async-signal-safe calls: pt2c may have other threads.
[[noreturn]] void execChild(pid_t parent, int out, int err, int execError, char **argv,
                            char **envp) {
  setpgid(0, 0);
  // Dies with pt2c even on SIGKILL. If pt2c died before this line, the child is orphaned
  // already and the death signal would never come: checking the parent closes that race.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent)
    _exit(127);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT})
    signal(s, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  int devNull = open("/dev/null", O_RDONLY);
  if (devNull >= 0)
    dup2(devNull, STDIN_FILENO);
  dup2(out, STDOUT_FILENO);
  dup2(err, STDERR_FILENO);
  execve(argv[0], argv, envp);
  int e = errno;
  ssize_t ignored = write(execError, &e, sizeof e);
  (void)ignored;
  _exit(127);
}

struct Pipe {
  int read = -1, write = -1;
  bool open() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
      return false;
    read = fds[0];
    write = fds[1];
    return true;
  }
  void closeBoth() {
    if (read >= 0)
      close(read);
    if (write >= 0)
      close(write);
    read = write = -1;
  }
};

// Forwards what is readable on `from` to `to`; returns false at end of file.
bool forward(int from, int to, std::string *tail, size_t *budget = nullptr) {
  char buffer[16384];
  for (;;) {
    ssize_t n = read(from, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return errno == EAGAIN;
    if (n == 0)
      return false;
    writeAll(to, buffer, static_cast<size_t>(n));
    if (tail) {
      tail->append(buffer, static_cast<size_t>(n));
      if (tail->size() > 2 * kTailBytes)
        tail->erase(0, tail->size() - kTailBytes);
    }
    if (budget) {
      if (*budget <= static_cast<size_t>(n))
        return false;
      *budget -= static_cast<size_t>(n);
    }
  }
}

bool hasExited(pid_t pid) {
  siginfo_t info{};
  return waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

} // namespace

ChildResult runInOwnGroup(const std::vector<std::string> &argv, const std::vector<std::string> &env,
                          unsigned timeoutSeconds) {
  ChildResult result;
  Pipe out, err, execError;
  if (!out.open() || !err.open() || !execError.open()) {
    result.outcome = ChildResult::kCannotStart;
    result.code = errno;
    out.closeBoth(), err.closeBoth(), execError.closeBoth();
    return result;
  }
  std::vector<char *> cArgv = cStrings(argv), cEnv = cStrings(env);
  pid_t parent = getpid();
  // Blocked across fork, so that pt2c's handlers never run in the child before exec.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pid_t pid = fork();
  if (pid == 0)
    execChild(parent, out.write, err.write, execError.write, cArgv.data(), cEnv.data());
  int forkErrno = errno;
  if (pid > 0) {
    setpgid(pid, pid); // as the child does: whichever runs first, the group exists
    exit_cleanup::setChildGroup(pid);
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  close(out.write), close(err.write), close(execError.write);
  out.write = err.write = execError.write = -1;
  if (pid < 0) {
    result.outcome = ChildResult::kCannotStart;
    result.code = forkErrno;
    out.closeBoth(), err.closeBoth(), execError.closeBoth();
    return result;
  }

  // The exec-error pipe closes on a successful exec, or carries execve's errno.
  int execErrno = 0;
  ssize_t got;
  while ((got = read(execError.read, &execErrno, sizeof execErrno)) < 0 && errno == EINTR) {
  }
  execError.closeBoth();
  if (got == sizeof execErrno) {
    exit_cleanup::setChildGroup(0);
    waitpid(pid, nullptr, 0);
    out.closeBoth(), err.closeBoth();
    result.outcome = ChildResult::kCannotStart;
    result.code = execErrno;
    return result;
  }

  fcntl(out.read, F_SETFL, O_NONBLOCK);
  fcntl(err.read, F_SETFL, O_NONBLOCK);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSeconds);
  bool timedOut = false;
  pollfd fds[2] = {{out.read, POLLIN, 0}, {err.read, POLLIN, 0}};
  // Ends when the child exits, not at end of file: a process it started may hold the
  // pipes open for ever.
  while (!hasExited(pid)) {
    if (timeoutSeconds > 0 && std::chrono::steady_clock::now() >= deadline) {
      timedOut = true;
      exit_cleanup::terminateGroup(pid, exit_cleanup::kGraceMs);
      break;
    }
    if (poll(fds, 2, 100) <= 0)
      continue;
    if (fds[0].revents && !forward(fds[0].fd, STDOUT_FILENO, nullptr))
      fds[0].fd = -1;
    if (fds[1].revents && !forward(fds[1].fd, STDERR_FILENO, &result.stderrTail))
      fds[1].fd = -1;
  }
  // Whatever the child's group still holds goes now, then the last output is read.
  kill(-pid, SIGKILL);
  size_t budget = kDrainLimit;
  if (fds[0].fd >= 0)
    forward(fds[0].fd, STDOUT_FILENO, nullptr, &budget);
  if (fds[1].fd >= 0)
    forward(fds[1].fd, STDERR_FILENO, &result.stderrTail, &budget);
  out.closeBoth(), err.closeBoth();
  exit_cleanup::setChildGroup(0);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (result.stderrTail.size() > kTailBytes)
    result.stderrTail.erase(0, result.stderrTail.size() - kTailBytes);
  if (timedOut) {
    result.outcome = ChildResult::kTimedOut;
  } else if (WIFSIGNALED(status)) {
    result.outcome = ChildResult::kSignaled;
    result.code = WTERMSIG(status);
  } else {
    result.outcome = ChildResult::kExited;
    result.code = WEXITSTATUS(status);
  }
  return result;
}

} // namespace pt2c
