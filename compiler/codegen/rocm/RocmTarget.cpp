#include "compiler/codegen/rocm/RocmTarget.h"

#include <algorithm>

#include "llvm/ADT/SmallVector.h"

namespace pt2c {

const std::vector<AmdGpuArch> &supportedAmdGpuArchs() {
  // CDNA runs wave64 only; RDNA (gfx10+) defaults to wave32 in LLVM. Every architecture
  // here gives a workgroup 64 KiB of LDS; the fused kernels use at most 48 KiB.
  static const std::vector<AmdGpuArch> archs = {
      {"gfx908", 64, 65536, "CDNA 1, MI100"},    {"gfx90a", 64, 65536, "CDNA 2, MI200"},
      {"gfx940", 64, 65536, "CDNA 3, MI300"},    {"gfx941", 64, 65536, "CDNA 3, MI300"},
      {"gfx942", 64, 65536, "CDNA 3, MI300"},    {"gfx1030", 32, 65536, "RDNA 2, RX 6800"},
      {"gfx1100", 32, 65536, "RDNA 3, RX 7900"}, {"gfx1101", 32, 65536, "RDNA 3, RX 7800"},
      {"gfx1102", 32, 65536, "RDNA 3, RX 7600"},
  };
  return archs;
}

bool isRocmTarget(llvm::StringRef target) {
  return target == "rocm" || target.starts_with("rocm:");
}

llvm::Expected<std::vector<AmdGpuArch>> parseRocmTarget(llvm::StringRef target) {
  const std::vector<AmdGpuArch> &known = supportedAmdGpuArchs();
  auto find = [&](llvm::StringRef name) {
    return std::find_if(known.begin(), known.end(),
                        [&](const AmdGpuArch &a) { return name == a.name; });
  };
  auto fail = [&](const llvm::Twine &why) {
    std::string names;
    for (const AmdGpuArch &a : known)
      names += (names.empty() ? "" : ", ") + std::string(a.name);
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "bad target '" + target + "': " + why +
            " (expected rocm or rocm:gfx90a,gfx942,...; supported: " + names + ")");
  };
  if (!isRocmTarget(target))
    return fail("not a ROCm target");
  llvm::StringRef list = target == "rocm" ? "gfx90a,gfx942,gfx1100" : target.drop_front(5);
  llvm::SmallVector<llvm::StringRef> parts;
  list.split(parts, ',');
  std::vector<AmdGpuArch> archs;
  for (llvm::StringRef part : parts) {
    auto it = find(part);
    if (it == known.end())
      return fail("'" + part + "' is not a supported AMD GPU architecture");
    if (std::none_of(archs.begin(), archs.end(),
                     [&](const AmdGpuArch &a) { return part == a.name; }))
      archs.push_back(*it);
  }
  // In the table's order (oldest first), as the CUDA target sorts its SMs.
  std::sort(archs.begin(), archs.end(),
            [&](const AmdGpuArch &a, const AmdGpuArch &b) { return find(a.name) < find(b.name); });
  return archs;
}

} // namespace pt2c
