// Writes an output file all-or-nothing: work goes to a temporary file beside the target,
// renamed over it only on success, so a failed run never leaves a half-written file.
// The temporary, TARGET.tmp-<pid>-XXXXXX, is also removed when pt2c is interrupted
// (ExitCleanup.h), and by the next run for this target when pt2c was SIGKILLed.
#ifndef PT2C_COMPILER_DRIVER_ATOMICOUTPUT_H_
#define PT2C_COMPILER_DRIVER_ATOMICOUTPUT_H_

#include <string>

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace pt2c {

class AtomicOutput {
public:
  static llvm::Expected<AtomicOutput> create(const std::string &target);
  AtomicOutput(AtomicOutput &&other) noexcept;
  ~AtomicOutput(); // removes the temporary unless committed

  const std::string &tempPath() const { return temp_; }
  llvm::Error commit();

private:
  AtomicOutput(std::string target, std::string temp, int cleanupHandle)
      : target_(target), temp_(temp), cleanupHandle_(cleanupHandle) {}
  std::string target_, temp_;
  int cleanupHandle_; // ExitCleanup.h's, until committed
  bool committed_ = false;
};

// An AtomicOutput for `path` whose temporary holds what `write` wrote, not yet committed
// (the caller commits it, alone or together with others).
llvm::Expected<AtomicOutput> writeAtomicOutput(const std::string &path,
                                               llvm::function_ref<void(llvm::raw_ostream &)> write);

} // namespace pt2c

#endif // PT2C_COMPILER_DRIVER_ATOMICOUTPUT_H_
