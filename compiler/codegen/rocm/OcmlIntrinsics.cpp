#include "compiler/codegen/rocm/OcmlIntrinsics.h"

#include <map>

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"

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

} // namespace

std::vector<std::string> defineOcmlAsIntrinsics(llvm::Module &m) {
  std::vector<std::string> undefined;
  for (llvm::Function &f : m.functions()) {
    if (!f.isDeclaration())
      continue;
    std::optional<std::string> base = ocmlBaseName(f);
    if (!base)
      continue;
    auto it = unaryIntrinsics().find(*base);
    llvm::Type *type = f.getReturnType();
    if (it == unaryIntrinsics().end() || f.arg_size() != 1 || !type->isFloatingPointTy() ||
        f.getArg(0)->getType() != type) {
      undefined.push_back(f.getName().str());
      continue;
    }
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(m.getContext(), "entry", &f));
    llvm::Value *result = b.CreateUnaryIntrinsic(it->second, f.getArg(0));
    if (*base == "rsqrt")
      result = b.CreateFDiv(llvm::ConstantFP::get(type, 1.0), result);
    b.CreateRet(result);
    f.setLinkage(llvm::GlobalValue::InternalLinkage);
  }
  return undefined;
}

} // namespace pt2c
