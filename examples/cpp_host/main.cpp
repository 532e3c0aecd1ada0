// cpp_host: runs a pt2c model.so on .npy inputs, the way any C++ host would: through
// pt2c/pt2c.hpp alone (dlopen), with no link-time dependency on the model.
//
//   cpp_host MODEL.so --input x.npy [--input y.npy|none ...] [--method NAME] [--weights W]
//            [--output-dir DIR] [--reference 0.npy ...] [--tolerance 1e-5] [--runs N]
//
// Prints the model's graphs (when it has several), inputs and outputs, runs the graph
// of the method (default: the model's default method) that the inputs select (`none`:
// an absent optional input), writes one .npy per output into DIR,
// and compares outputs with references (in output order). Exits 1 on any error or when
// an output's relative difference exceeds the tolerance.
#include <cstdio>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "pt2c/pt2c.hpp"
#include "tools/host/npy.h"
#include "tools/host/npy_run.h"
#include "tools/host/tensor_compare.h"

namespace {

struct Options {
  std::string model_path;
  std::string weights_path; // --external-weights models; "": the default file
  std::vector<std::string> inputs;
  std::string method;
  std::string output_dir;
  std::vector<std::string> references;
  double tolerance = 1e-5;
  int runs = 1;
};

void print_tensors(const char *title, const std::vector<pt2c::TensorInfo> &infos) {
  std::printf("%s:\n", title);
  for (size_t i = 0; i < infos.size(); ++i) {
    if (infos[i].dtype == PT2C_DTYPE_UNDEFINED) { // a slot the graph was traced with None
      std::printf("  %zu %s: none (absent)\n", i, infos[i].name.c_str());
      continue;
    }
    std::printf("  %zu %s: %s %s\n", i, infos[i].name.c_str(), pt2c::dtype_name(infos[i].dtype),
                pt2c::shape_string(infos[i].dims).c_str());
  }
}

// Prints one line per reference; returns false if any exceeds the tolerance.
bool compare_references(const Options &options, const std::vector<pt2c::TensorInfo> &infos,
                        const std::vector<pt2c::npy::Array> &outputs) {
  if (options.references.size() > outputs.size())
    throw std::runtime_error(std::to_string(options.references.size()) + " references for " +
                             std::to_string(outputs.size()) + " outputs");
  bool all_within = true;
  for (size_t i = 0; i < options.references.size(); ++i) {
    pt2c::npy::Array reference = pt2c::npy::read(options.references[i]);
    if (reference.shape != outputs[i].shape)
      throw std::runtime_error("output " + std::to_string(i) + " (" + infos[i].name + "): shape " +
                               pt2c::shape_string(outputs[i].shape) + ", but reference " +
                               options.references[i] + " has shape " +
                               pt2c::shape_string(reference.shape));
    pt2c::host::Comparison result =
        pt2c::host::compare(outputs[i].dtype, outputs[i].data.data(), reference.dtype,
                            reference.data.data(), static_cast<size_t>(reference.num_elements()));
    bool within = result.relative <= options.tolerance; // false for NaN
    std::printf("output %zu (%s): max|diff| = %.6g, max|ref| = %.6g, rel = %.6g%s\n", i,
                infos[i].name.c_str(), result.max_abs_diff, result.max_abs_ref, result.relative,
                within ? "" : "  FAILED");
    all_within = all_within && within;
  }
  return all_within;
}

int run(const Options &options) {
  pt2c::Library library(options.model_path);
  pt2c::Model model = library.create_model(options.weights_path);
  std::vector<pt2c::TensorInfo> input_infos = model.inputs();
  std::vector<pt2c::TensorInfo> output_infos = model.outputs();
  std::printf("model: %s\n", options.model_path.c_str());
  if (model.num_graphs() > 1) {
    std::printf("graphs:\n");
    for (const pt2c::GraphInfo &graph : model.graphs())
      std::printf("  %s: method %s, %d inputs, %d outputs\n", graph.name.c_str(),
                  graph.method.c_str(), graph.num_inputs, graph.num_outputs);
  }
  print_tensors("inputs", input_infos);
  print_tensors("outputs", output_infos);
  // -1 in a shape above: a dynamic dimension, any size in its range.
  for (const auto &dim : model.dynamic_dims())
    std::printf("dynamic %s: [%lld, %lld]\n", dim.name.c_str(), static_cast<long long>(dim.min),
                static_cast<long long>(dim.max));

  // Models with state (buffers written in place) give different outputs on each run; the
  // last run's outputs are the ones written and compared.
  std::vector<pt2c::npy::Array> outputs;
  for (int i = 0; i < options.runs; ++i)
    outputs = pt2c::host::run_on_npy_files(model, options.inputs, options.method, &output_infos);
  if (!options.output_dir.empty())
    pt2c::host::write_outputs(options.output_dir, output_infos, outputs, stdout);
  if (!compare_references(options, output_infos, outputs)) {
    std::fprintf(stderr, "error: an output differs from its reference by more than %g\n",
                 options.tolerance);
    return 1;
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  CLI::App app{"Runs a pt2c model.so on .npy inputs and checks its outputs."};
  app.add_option("model", options.model_path, "the model.so")->required();
  app.add_option("--input", options.inputs,
                 "an input .npy file, in input order; `none` for an absent optional input")
      ->allow_extra_args(false);
  app.add_option("--weights", options.weights_path,
                 "the weights file of a model compiled with --external-weights (default: "
                 "$PT2C_WEIGHTS, else MODEL.so.weights)");
  app.add_option("--method", options.method,
                 "the method (or graph name) to run; default: the model's default method");
  app.add_option("--output-dir", options.output_dir, "write <index>_<name>.npy per output here");
  app.add_option("--runs", options.runs, "run the model this many times (state carries over)")
      ->check(CLI::PositiveNumber);
  app.add_option("--reference", options.references, "expected output .npy, in output order")
      ->allow_extra_args(false);
  app.add_option("--tolerance", options.tolerance, "largest allowed max|diff| / max|ref|")
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &error) {
    return app.exit(error) == 0 ? 0 : 1;
  }
  try {
    return run(options);
  } catch (const std::exception &error) { // pt2c::Error, pt2c::npy::Error, I/O
    std::fprintf(stderr, "error: %s\n", error.what());
  }
  return 1;
}
