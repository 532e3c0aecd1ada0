// The model contract in MLIR: every `pt2c.*` attribute that one compiler stage sets and
// a later stage reads, named once here (docs/ARCHITECTURE.md data flow). Each entry says
// who sets it and who reads it, so that changing what an attribute means starts here.
//
// Stages, in order: the importer (compiler/import), pt2c-functionalize, the
// decompositions (compiler/transforms/decompose), pt2c-fold-weights (fold/),
// pt2c-symbolic-shapes (symbolic/), pt2c-form-kernels (kernels/), the execution plan
// and weights blob (compiler/codegen), the target pipelines (compiler/codegen, cuda/).
// The constants live in namespace pt2c itself: the stages are all in it, so they use
// the bare names.
#ifndef PT2C_IR_CONTRACT_MODELCONTRACT_H_
#define PT2C_IR_CONTRACT_MODELCONTRACT_H_

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace pt2c {

// ---- The model function's signature (one public func.func per graph) ----------------
//
// Every argument carries exactly one of pt2c.input, pt2c.weight and pt2c.state, every
// result one of pt2c.output, pt2c.writeback, pt2c.input_writeback and pt2c.guard. Set by
// the importer (from the artifact's InputSpec/OutputSpec kinds and guards); kept in place
// by every pass after it.

// Argument: a user input, `pt2c.input = "<InputSpec.name>"`; the function's user inputs
// are the graph's inputs in order. Read by functionalize (writes into inputs need a
// write-back), form-kernels (an input's own write-back), the execution plan and the
// multi-graph plan (the inputs a graph binds).
constexpr char kInputAttr[] = "pt2c.input";

// Argument: a constant weight, `pt2c.weight = "<fqn>"` (a parameter or constant
// tensor of the artifact, or a derived weight "#foldN" that fold-weights adds). Read by
// functionalize (writing one is an error), fold-weights (what is constant), the
// execution plan and the weights blob (whose bytes go into the .so).
constexpr char kWeightAttr[] = "pt2c.weight";

// Argument of a weight that holds its own bytes, `pt2c.value = <ElementsAttr>`:
// dense_resource for the derived weights fold-weights makes, dense<...> in lit tests. A
// weight without it is the artifact's weight of that FQN. Read by fold-weights and the
// weights blob.
constexpr char kWeightValueAttr[] = "pt2c.value";

// Model state: an argument marked `pt2c.state = "<fqn>"` is a module buffer the model
// writes in place (in every graph that uses it: one graph writes a cache that another
// only reads); the result marked `pt2c.writeback = "<fqn>"` is its new value, which a
// copy kernel at the very end (after every read of the old value) writes back. Set by
// the importer; read by functionalize (a buffer written in place must have its
// write-back), form-kernels (the final copy), the execution plan (STATE buffers) and the
// weights blob (state's initial value).
constexpr char kStateAttr[] = "pt2c.state";
constexpr char kWritebackAttr[] = "pt2c.writeback";

// Input mutation: the result marked `pt2c.input_writeback = "<input name>"` is the new
// value of that user input, which a copy kernel at the very end writes into the
// caller's input memory (as PyTorch leaves the new value in the tensor passed in). Set
// by the importer; read by functionalize, form-kernels and the execution plan.
constexpr char kInputWritebackAttr[] = "pt2c.input_writeback";

// Result: a user output, `pt2c.output = "<OutputSpec.name>"`. Read by the execution plan.
constexpr char kOutputAttr[] = "pt2c.output";

// Result: a guard value, not a user output, `pt2c.guard = {expected = <f64>, message =
// "<what was assumed, where>"}`; guards are extra results after the outputs. Set by the
// importer; read by form-kernels (a guard needs no copy of its own) and the execution
// plan (the plan's guard checks).
constexpr char kGuardAttr[] = "pt2c.guard";

// ---- Symbolic sizes (models with dynamic dimensions; ir/symbolic/SymbolicIR.h) ------

// Model function: `pt2c.symbols = [{name, min, max, input, dim}, ...]` (input: the
// pt2c.input name of the input whose dim gives the symbol; a data-dependent size has
// `produced` instead, a clamp `derived = "min(u0, 100)"`, its expression over the
// symbols before it). Set by the importer; read by
// the symbolic IR helpers, symbolic-shapes, form-kernels, the driver and the execution
// plan (the plan's symbol table).
constexpr char kSymbolsAttr[] = "pt2c.symbols";

// Argument: `pt2c.dims = ["batch", "16"]`, one per dim (static ones as numbers). Set by
// the importer; read by the symbolic IR helpers and symbolic-shapes.
constexpr char kDimsAttr[] = "pt2c.dims";

// Op: `pt2c.result_dims = [["batch", "16"], ...]`, one per result. Set by the importer
// on aten ops (the sizes the trace recorded) and by symbolic-shapes on prim ops; read by
// the decompositions (PrimBuilder), symbolic-shapes and form-kernels.
constexpr char kResultDimsAttr[] = "pt2c.result_dims";

// Aten op: `pt2c.sym.<arg> = "seq"` or `["batch*seq", ""]`, the symbolic entries of an int
// or int-list argument (whose attribute then holds a placeholder). Set by the importer;
// read by the decompositions (PrimBuilder::symbolicInt). A prefix: the argument's name
// follows.
constexpr char kSymArgPrefix[] = "pt2c.sym.";

// Kernel function: `pt2c.symbol_names = ["batch", "seq"]`, the symbols its sizes use.
// Set by form-kernels; read by the symbolic IR helpers, pt2c-dynamic-kernel-abi and
// the CPU codegen (which kernels take symbol values).
constexpr char kSymbolNamesAttr[] = "pt2c.symbol_names";

// Kernel function: `pt2c.kernel_dims = [dims or [] per argument, then per result]` ([]
// = static). Set by form-kernels; read by pt2c-dynamic-kernel-abi.
constexpr char kKernelDimsAttr[] = "pt2c.kernel_dims";

// Kernel function: `pt2c.symbol_ranges = array<i64: min0, max0, min1, max1, ...>`, the
// inclusive range of each symbol of pt2c.symbol_names. Set by form-kernels; read by the
// GPU lowering, which sizes buffers and launch grids of dynamic kernels at the maxima.
constexpr char kSymbolRangesAttr[] = "pt2c.symbol_ranges";

// Kernel function argument (GPU lowering of a dynamic kernel): the device buffer of the
// run's symbol values (int64, in pt2c.symbol_names order), which its GPU kernels read.
// Set by pt2c-gpu-bound-dynamic-buffers; read by the launch table.
constexpr char kSymbolValuesAttr[] = "pt2c.symbol_values";

// ---- Kernels -----------------------------------------------------------------------

// Private func.func: an outlined kernel (one step of the execution plan). Set by
// form-kernels; read by the driver and the multi-graph plan (model functions are the
// public functions without it).
constexpr char kKernelAttr[] = "pt2c.kernel";

// Module: `pt2c.kernel_splits = {kernel = [extent, work]}`, the outer loop each CPU
// kernel splits over the runtime's thread pool. Set by pt2c-split-kernel-loops; read by
// kernelSplits() for the CPU codegen's __pt2c_kernel_splits table (SplitKernelLoops.h).
constexpr char kKernelSplitsAttr[] = "pt2c.kernel_splits";

// ---- Compile-time hints --------------------------------------------------------------

// Aten op with optional tensors in a Tensor?[] argument (index.Tensor's `x[:, idx]`):
// `pt2c.present_<arg> = array<i64: ...>`, the positions of the tensors present (the
// operands hold only those). Set by the importer (kPresentPrefix + the argument name);
// read for `indices` by the aten shape rules and the indexing and scatter
// decompositions.
constexpr char kPresentPrefix[] = "pt2c.present_";
constexpr char kPresentIndicesAttr[] = "pt2c.present_indices";

// Module: asks the decompositions for prim.attention and prim.layer_norm, and the prim
// rewrites for the GPU's forms (RMS norms, transposes sunk, data movement computed
// elementwise). Set by the driver for the CUDA and ROCm targets, which have fused
// kernels for them (prim::kFusedAttentionMaxKeys says which fit); read through
// inFusedOpsModule.
constexpr char kFusedOpsAttr[] = "pt2c.fused_ops";

// Whether `op` is in a module marked kFusedOpsAttr.
inline bool inFusedOpsModule(mlir::Operation *op) {
  auto module = op->getParentOfType<mlir::ModuleOp>();
  return module && module->hasAttr(kFusedOpsAttr);
}

// ---- Reading the signature -----------------------------------------------------------

// The name argument `i` of a model function has as a user input, a weight or model
// state; null if it is not one.
inline mlir::StringAttr userInputName(mlir::FunctionOpInterface func, unsigned i) {
  return func.getArgAttrOfType<mlir::StringAttr>(i, kInputAttr);
}
inline mlir::StringAttr weightFqn(mlir::FunctionOpInterface func, unsigned i) {
  return func.getArgAttrOfType<mlir::StringAttr>(i, kWeightAttr);
}
inline mlir::StringAttr stateFqn(mlir::FunctionOpInterface func, unsigned i) {
  return func.getArgAttrOfType<mlir::StringAttr>(i, kStateAttr);
}

} // namespace pt2c

#endif // PT2C_IR_CONTRACT_MODELCONTRACT_H_
