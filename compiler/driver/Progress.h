// One line per pipeline stage on stderr, with its duration: long steps are never silent.
#ifndef PT2C_COMPILER_DRIVER_PROGRESS_H_
#define PT2C_COMPILER_DRIVER_PROGRESS_H_

#include <chrono>
#include <string>

namespace pt2c {

class StageTimer {
public:
  explicit StageTimer(bool quiet) : quiet_(quiet) { restart(); }
  void restart() { start_ = std::chrono::steady_clock::now(); }
  // Prints "pt2c: <stage> <detail> (<seconds> s)" and restarts the clock.
  void done(const std::string &stage, const std::string &detail);

private:
  bool quiet_;
  std::chrono::steady_clock::time_point start_;
};

std::string humanBytes(uint64_t bytes);

} // namespace pt2c

#endif // PT2C_COMPILER_DRIVER_PROGRESS_H_
