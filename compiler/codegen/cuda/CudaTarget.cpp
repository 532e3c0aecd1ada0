#include "compiler/codegen/cuda/CudaTarget.h"

#include <algorithm>

#include "compiler/codegen/cuda/PtxCompiler.h"
#include "llvm/ADT/SmallVector.h"

namespace pt2c {

bool isCudaTarget(llvm::StringRef target) {
  return target == "cuda" || target.starts_with("cuda:");
}

llvm::Expected<std::vector<unsigned>> parseCudaTarget(llvm::StringRef target) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "bad target '" + target + "': " + why +
                                       " (expected cuda or cuda:sm_80,sm_90,...; supported: "
                                       "sm_75, sm_80, sm_86, sm_87, sm_89, sm_90)");
  };
  if (!isCudaTarget(target))
    return fail("not a CUDA target");
  if (target == "cuda")
    return std::vector<unsigned>{80, 90};
  llvm::SmallVector<llvm::StringRef> parts;
  target.drop_front(5).split(parts, ',');
  std::vector<unsigned> sms;
  for (llvm::StringRef part : parts) {
    unsigned sm = 0;
    if (!part.consume_front("sm_") || part.getAsInteger(10, sm))
      return fail("'" + part + "' is not an architecture like sm_90");
    if (!isSupportedSm(sm))
      return fail("sm_" + llvm::Twine(sm) +
                  " is not supported by LLVM 19's NVPTX backend; GPUs "
                  "newer than the newest listed architecture run its PTX");
    sms.push_back(sm);
  }
  std::sort(sms.begin(), sms.end());
  sms.erase(std::unique(sms.begin(), sms.end()), sms.end());
  return sms;
}

} // namespace pt2c
