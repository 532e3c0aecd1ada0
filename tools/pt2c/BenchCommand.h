// `pt2c bench MODEL.so [--input x.npy ...] [--runs N] [--warmup N] [--threads T]`: times
// pt2c_model_run on one set of inputs and prints the median, min and max milliseconds per
// run. Without --input, every input is synthetic (seeded uniform values in [-1, 1) for
// floating dtypes, zeros for integers and booleans, so token ids stay in range); dynamic
// dimensions then need --input. Host memory for every model: a CUDA model's time includes
// its copies in and out.
#ifndef PT2C_TOOLS_PT2C_BENCHCOMMAND_H_
#define PT2C_TOOLS_PT2C_BENCHCOMMAND_H_

#include <string>
#include <vector>

namespace pt2c {

struct BenchOptions {
  std::string library;
  std::vector<std::string> inputs; // .npy paths; empty: synthetic inputs
  std::string method;              // "": the default method
  std::string weights;             // an --external-weights model's file; "": its default
  int runs = 20, warmup = 3;
  int threads = 0; // 0: the runtime's default
};

// Returns the process exit code; errors are printed to stderr.
int benchModel(const BenchOptions &options);

} // namespace pt2c

#endif // PT2C_TOOLS_PT2C_BENCHCOMMAND_H_
