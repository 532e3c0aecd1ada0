#include "compiler/driver/Progress.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

namespace pt2c {

void StageTimer::done(const std::string &stage, const std::string &detail) {
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (!quiet_)
    llvm::errs() << "pt2c: " << llvm::left_justify(stage, 8) << " " << detail << " ("
                 << llvm::format("%.2f", seconds) << " s)\n";
  restart();
}

std::string humanBytes(uint64_t bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB"};
  double v = bytes;
  int u = 0;
  while (v >= 1024 && u < 3)
    v /= 1024, ++u;
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format(u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return os.str();
}

} // namespace pt2c
