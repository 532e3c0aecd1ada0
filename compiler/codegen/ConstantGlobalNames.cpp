#include "compiler/codegen/ConstantGlobalNames.h"

#include <map>
#include <string>

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

namespace pt2c {

#define GEN_PASS_DEF_NAMECONSTANTGLOBALSPASS
#include "compiler/codegen/Passes.h.inc"

namespace {

constexpr llvm::StringLiteral kPrefix = "__constant_";

// The name bufferization gives the first global of its type: `__constant_4x8xf32` for
// `__constant_4x8xf32_1` (a type's name never ends in `_<digits>`).
llvm::StringRef baseName(llvm::StringRef name) {
  size_t underscore = name.rfind('_');
  llvm::StringRef suffix = name.substr(underscore + 1);
  if (underscore > kPrefix.size() && !suffix.empty() &&
      llvm::all_of(suffix, [](char c) { return c >= '0' && c <= '9'; }))
    return name.take_front(underscore);
  return name;
}

class NameConstantGlobalsPass : public impl::NameConstantGlobalsPassBase<NameConstantGlobalsPass> {
public:
  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    llvm::SetVector<mlir::memref::GlobalOp> globals; // first use first
    mlir::SymbolTable table(module);
    module.walk<mlir::WalkOrder::PreOrder>([&](mlir::memref::GetGlobalOp get) {
      auto global = table.lookup<mlir::memref::GlobalOp>(get.getName());
      if (global && global.getConstant() && global.getSymName().starts_with(kPrefix))
        globals.insert(global);
    });
    // Unused ones keep their place after the used (their names must not clash either).
    for (auto global : module.getOps<mlir::memref::GlobalOp>())
      if (global.getConstant() && global.getSymName().starts_with(kPrefix))
        globals.insert(global);
    if (globals.empty())
      return;

    // Each global's new name, by its old one; then the globals and their uses renamed.
    std::map<std::string, unsigned> taken; // how many of each base name so far
    llvm::DenseMap<mlir::StringAttr, mlir::StringAttr> renamed;
    for (mlir::memref::GlobalOp global : globals) {
      std::string base = baseName(global.getSymName()).str();
      unsigned n = taken[base]++;
      renamed[global.getSymNameAttr()] =
          mlir::StringAttr::get(&getContext(), n == 0 ? base : base + "_" + std::to_string(n - 1));
    }
    for (mlir::memref::GlobalOp global : globals)
      global.setSymNameAttr(renamed.lookup(global.getSymNameAttr()));
    module.walk([&](mlir::memref::GetGlobalOp get) {
      if (mlir::StringAttr name = renamed.lookup(get.getNameAttr().getAttr()))
        get.setNameAttr(mlir::FlatSymbolRefAttr::get(name));
    });
    // Bufferization puts each new global first in the module: the last made leads.
    for (mlir::memref::GlobalOp global : globals)
      global->moveBefore(&module.getBody()->front());
  }
};

} // namespace

} // namespace pt2c
