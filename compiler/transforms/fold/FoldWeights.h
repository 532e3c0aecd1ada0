// pt2c-fold-weights: weights are constants, so whatever a model computes from weights
// alone is computed once, at compile time, and stored as a new weight.
//
// 1. Scale folding (FoldScales.cpp): a per-output-channel multiplication after a
//    convolution or a matrix product with a constant weight moves into that weight,
//    with the adds in between, so inference batch norm after conv/linear becomes
//    conv(x, W * s) + ((b - mean) * s + beta) (s = gamma / sqrt(var + eps)).
// 2. Evaluation (FoldWeights.cpp): every value computed only from weights and constants
//    by ops HostEvaluator.h knows is evaluated on the host and becomes a new argument of
//    the model function, a "derived weight" that carries its bytes as `pt2c.value`.
//    Values that would be bigger than the weights they come from (broadcasts of a
//    bias to an activation's shape) are not materialized: their small inputs are, and
//    the broadcast stays in the kernel that reads it. Values computed from no model
//    input at all are constants too: a decoder's attention mask built from positions
//    (iotas, a running sum, comparisons) or a rotary table is evaluated once here
//    instead of by a kernel on every call (up to 1 MiB when it is bigger than its
//    sources). Weight arguments nobody reads any more are removed, so they are left
//    out of the weights blob.
// 3. Causal masks (CausalMask.h, run before 2): a prim.attention bias that evaluates
//    to the causal mask becomes the op's `causal` flag.
// 4. Sibling projections (MergeProjections.h, GPU modules, run before 2): Linears
//    reading one activation with equal output sizes become one product whose joined
//    weight 2 folds.
#ifndef PT2C_COMPILER_TRANSFORMS_FOLD_FOLDWEIGHTS_H_
#define PT2C_COMPILER_TRANSFORMS_FOLD_FOLDWEIGHTS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "mlir/IR/Value.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringRef.h"

namespace pt2c {

// The name prefix of derived weights ("#fold0", ...): '#' never occurs in an FQN.
constexpr char kDerivedWeightPrefix[] = "#fold";

// The bytes of the artifact weight named `fqn` (the plan's layout); nullopt if unknown,
// which makes that weight opaque to evaluation (scale folding still applies).
using WeightBytes = std::function<std::optional<llvm::StringRef>(llvm::StringRef fqn)>;

// Whether `v` is computed from weights and constants alone by ops the evaluator knows
// (depth-bounded: a long chain counts as not constant).
bool isWeightOnly(mlir::Value v);

// createFoldWeightsPass() and createFoldWeightsPass(FoldWeightsPassOptions): its option
// max-elements is the largest tensor (in elements) evaluated at compile time; bigger
// values, and values computed through a bigger intermediate, stay at run time.
#define GEN_PASS_DECL_FOLDWEIGHTSPASS
#include "compiler/transforms/Passes.h.inc"

// The driver's form: weights without `pt2c.value` read from the artifact.
std::unique_ptr<mlir::Pass> createFoldWeightsPass(WeightBytes weightBytes,
                                                  const FoldWeightsPassOptions &options = {});

} // namespace pt2c

#endif // PT2C_COMPILER_TRANSFORMS_FOLD_FOLDWEIGHTS_H_
