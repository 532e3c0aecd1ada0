#include "compiler/codegen/rocm/DeviceFunctions.h"

#include <map>

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"

namespace pt2c {
namespace {

// ocml's one-operand functions that are LLVM intrinsics (the AMDGPU backend selects each
// for f16, f32 and f64: v_sqrt, v_floor, ... or their IEEE-exact expansions); rsqrt is
// 1 / sqrt (correctly rounded sqrt, then a correctly rounded division), not v_rsq.
const std::map<std::string, llvm::Intrinsic::ID> &unaryIntrinsics() {
  static const std::map<std::string, llvm::Intrinsic::ID> table = {
      {"fabs", llvm::Intrinsic::fabs},   {"sqrt", llvm::Intrinsic::sqrt},
      {"rsqrt", llvm::Intrinsic::sqrt},  {"floor", llvm::Intrinsic::floor},
      {"ceil", llvm::Intrinsic::ceil},   {"trunc", llvm::Intrinsic::trunc},
      {"rint", llvm::Intrinsic::rint},   {"round", llvm::Intrinsic::round},
      {"exp2", llvm::Intrinsic::exp2},   {"log2", llvm::Intrinsic::log2},
      {"exp", llvm::Intrinsic::exp},     {"log", llvm::Intrinsic::log},
      {"log10", llvm::Intrinsic::log10},
  };
  return table;
}

// ocml's two-operand functions that are LLVM instructions or intrinsics (fmod, which
// arith.remf becomes, is LLVM's frem, which the AMDGPU backend expands exactly).
llvm::Value *binary(llvm::IRBuilder<> &b, const std::string &name, llvm::Value *x, llvm::Value *y) {
  if (name == "fmod")
    return b.CreateFRem(x, y);
  if (name == "copysign")
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, x, y);
  if (name == "fmin")
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, x, y);
  if (name == "fmax")
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, x, y);
  return nullptr;
}

// "__ocml_sqrt_f32" -> "sqrt", if the suffix is a float type the function has.
std::optional<std::string> ocmlBaseName(const llvm::Function &f) {
  llvm::StringRef name = f.getName();
  if (!name.consume_front("__ocml_"))
    return std::nullopt;
  for (llvm::StringRef suffix : {"_f16", "_f32", "_f64"})
    if (name.consume_back(suffix))
      return name.str();
  return std::nullopt;
}

// __ockl_get_local_size(dim) (the block size) and __ockl_get_num_groups(dim) (the grid
// size in blocks) from the kernel's HSA dispatch packet: workgroup_size_x/y/z are 16-bit
// at bytes 4, 6, 8 and grid_size_x/y/z (in work-items) 32-bit at bytes 12, 16, 20. HIP
// launches whole blocks (the grid is a multiple of the block), so the local size is the
// block's everywhere and the group count the grid's size divided by it.
bool defineWorkItemQuery(llvm::Function &f) {
  bool local = f.getName() == "__ockl_get_local_size";
  if (!(local || f.getName() == "__ockl_get_num_groups") || f.arg_size() != 1 ||
      !f.getArg(0)->getType()->isIntegerTy(32) || !f.getReturnType()->isIntegerTy(64))
    return false;
  llvm::LLVMContext &context = f.getContext();
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", &f));
  llvm::Value *packet = b.CreateIntrinsic(llvm::Intrinsic::amdgcn_dispatch_ptr, {}, {});
  auto field = [&](unsigned base, unsigned bytes) -> llvm::Value * {
    llvm::Value *offset =
        b.CreateAdd(b.getInt32(base), b.CreateMul(f.getArg(0), b.getInt32(bytes)));
    llvm::Value *at = b.CreateGEP(b.getInt8Ty(), packet, offset);
    llvm::Type *type = b.getIntNTy(8 * bytes);
    return b.CreateZExt(b.CreateAlignedLoad(type, at, llvm::Align(bytes)), b.getInt64Ty());
  };
  llvm::Value *blockSize = field(4, 2);
  if (local) {
    b.CreateRet(blockSize);
  } else {
    llvm::Value *gridSize = field(12, 4);
    llvm::Value *rounded = b.CreateAdd(gridSize, b.CreateSub(blockSize, b.getInt64(1)));
    b.CreateRet(b.CreateUDiv(rounded, blockSize));
  }
  f.setLinkage(llvm::GlobalValue::InternalLinkage);
  return true;
}

} // namespace

std::vector<std::string> defineDeviceFunctions(llvm::Module &m) {
  std::vector<std::string> undefined;
  for (llvm::Function &f : m.functions()) {
    if (!f.isDeclaration())
      continue;
    if (f.getName().starts_with("__ockl_")) {
      if (!defineWorkItemQuery(f))
        undefined.push_back(f.getName().str());
      continue;
    }
    std::optional<std::string> base = ocmlBaseName(f);
    if (!base)
      continue;
    auto it = unaryIntrinsics().find(*base);
    llvm::Type *type = f.getReturnType();
    bool floats = type->isFloatingPointTy() &&
                  llvm::all_of(f.args(), [&](llvm::Argument &a) { return a.getType() == type; });
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(m.getContext(), "entry", &f));
    llvm::Value *result = nullptr;
    if (floats && f.arg_size() == 1 && it != unaryIntrinsics().end()) {
      result = b.CreateUnaryIntrinsic(it->second, f.getArg(0));
      if (*base == "rsqrt")
        result = b.CreateFDiv(llvm::ConstantFP::get(type, 1.0), result);
    } else if (floats && f.arg_size() == 2) {
      result = binary(b, *base, f.getArg(0), f.getArg(1));
    }
    if (result == nullptr) {
      f.getEntryBlock().eraseFromParent(); // stays a declaration
      undefined.push_back(f.getName().str());
      continue;
    }
    b.CreateRet(result);
    f.setLinkage(llvm::GlobalValue::InternalLinkage);
  }
  return undefined;
}

} // namespace pt2c
