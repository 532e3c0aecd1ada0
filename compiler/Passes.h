// pt2c::registerAllPasses: every pt2c pass (compiler/transforms/Passes.td,
// compiler/codegen/Passes.td, compiler/codegen/cuda/Passes.td) and every named pipeline
// the driver runs, in MLIR's global registry, so that pt2c-opt offers exactly what
// `pt2c compile` runs. Upstream MLIR's passes are not included (mlir::registerAllPasses).
#ifndef PT2C_COMPILER_PASSES_H_
#define PT2C_COMPILER_PASSES_H_

namespace pt2c {

void registerAllPasses();

} // namespace pt2c

#endif // PT2C_COMPILER_PASSES_H_
