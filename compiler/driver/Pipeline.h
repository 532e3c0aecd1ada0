// The pt2c pipeline (docs/ARCHITECTURE.md, data flow): model.py -> .pt2c (exporter, in Python) and
// .pt2c -> aten -> prim -> kernels + plan -> x86-64 object (or, for --target cuda, a
// fatbin of GPU kernels in a data-only object) -> model.so.
#ifndef PT2C_COMPILER_DRIVER_PIPELINE_H_
#define PT2C_COMPILER_DRIVER_PIPELINE_H_

#include <string>

#include "compiler/driver/Resources.h"
#include "llvm/Support/Error.h"

namespace pt2c {

struct PipelineOptions {
  std::string python; // --python; empty: search (PythonFinder.h)
  std::string target =
      "cpu"; // or "cuda[:sm_80,...]" (CudaTarget.h), "rocm[:gfx90a,...]" (RocmTarget.h)
  std::string cpu = "x86-64-v2";
  std::string emit; // "", "aten", "prim" or "llvm": print that stage and stop
  bool quiet = false;
  bool strict = false;      // --strict: any draft report finding fails the export
  bool printReport = false; // the exporter prints the whole report (temporary artifact)
  // --export-timeout: seconds the exporter may run before its process group is stopped
  // (0: no limit). Ten minutes is 7x the slowest export in docs/ZOO.md (86 s on the
  // 2-core build box): a hung model.py is caught, a big model may need more.
  unsigned exportTimeoutSeconds = 600;
  bool foldWeights = true; // pt2c-fold-weights (off: --no-fold-weights)
  // --external-weights: the weights go to a file beside model.so (`weightsOut`, default
  // model.so.weights) with the recipe the exporter remakes it from (ExternalWeights.h).
  bool externalWeights = false;
  std::string weightsOut;
};

// Runs the exporter on model.py. Its own messages (tracebacks, progress) go to stderr;
// a crash, a time-out or an interruption stops everything it started (Subprocess.h).
llvm::Error exportModel(const Resources &resources, const PipelineOptions &options,
                        const std::string &modelPath, const std::string &artifactPath);

// Compiles an artifact into a shared library; with options.emit set, prints that stage
// to stdout instead and writes nothing.
llvm::Error compileArtifact(const Resources &resources, const PipelineOptions &options,
                            const std::string &artifactPath, const std::string &libraryPath);

} // namespace pt2c

#endif // PT2C_COMPILER_DRIVER_PIPELINE_H_
