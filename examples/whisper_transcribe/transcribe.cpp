// whisper_transcribe: greedy transcription from C++ with an encoder-decoder compiled by
// pt2c (model.py here), no Python.
//
//   whisper_transcribe MODEL.so --features mel.npy [--features ...] --prompt 1,5,6,7
//                      [--new-tokens 20] [--threads N]
//
// Per features file (f32 [1, mels, frames] .npy): run the model's `encode` method once,
// then decode greedily with the encoder states (examples/greedy_decoding: a new
// sequence per file, the prompt as one call, each new token as one call). Prints
// "mel.npy: 1 5 6 7 -> 186 214 ..." per file.
#include <cstdio>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "examples/greedy_decoding/greedy_decoding.h"
#include "pt2c/pt2c.hpp"
#include "tools/host/npy.h"

namespace {

// The encoder's output for one features file, in memory the returned array owns.
pt2c::npy::Array encode(pt2c::Model &model, pt2c::npy::Array &features) {
  std::vector<pt2c_tensor> inputs{features.tensor()};
  int32_t graph = model.find_graph("encode", inputs);
  pt2c::TensorInfo info = model.graph_outputs(graph)[0];
  pt2c::npy::Array states;
  states.dtype = info.dtype;
  states.shape = model.graph_output_shape(graph, inputs, 0);
  states.data.resize(static_cast<size_t>(states.num_elements()) * pt2c::dtype_size(info.dtype));
  std::vector<pt2c_tensor> outputs{states.tensor()};
  model.run_method("encode", inputs, outputs);
  return states;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"Greedy transcription with a pt2c-compiled Whisper-style encoder-decoder"};
  std::string path, prompt_text;
  std::vector<std::string> feature_files;
  int new_tokens = 20, threads = 0;
  app.add_option("model", path, "the model.so")->required();
  app.add_option("--features", feature_files, "mel features, f32 [1, mels, frames] .npy; repeat")
      ->required();
  app.add_option("--prompt", prompt_text, "comma-separated start tokens")->required();
  app.add_option("--new-tokens", new_tokens, "tokens to generate per file")
      ->check(CLI::PositiveNumber);
  app.add_option("--threads", threads, "CPU threads (pt2c_set_num_threads)");
  CLI11_PARSE(app, argc, argv);
  try {
    pt2c::Library library(path);
    if (threads > 0)
      library.set_num_threads(threads);
    pt2c::Model model = library.create_model();
    greedy::Slots slots = greedy::find_slots(model);
    std::vector<int64_t> prompt = greedy::parse_tokens(prompt_text);
    for (const std::string &file : feature_files) {
      pt2c::npy::Array features = pt2c::npy::read(file);
      pt2c::npy::Array states = encode(model, features);
      pt2c_tensor states_view = states.tensor();
      std::vector<int64_t> generated =
          greedy::decode(model, slots, prompt, new_tokens, &states_view);
      std::printf("%s:", file.c_str());
      for (int64_t t : prompt)
        std::printf(" %lld", static_cast<long long>(t));
      std::printf(" ->");
      for (int64_t t : generated)
        std::printf(" %lld", static_cast<long long>(t));
      std::printf("\n");
    }
  } catch (const std::exception &e) { // pt2c::Error, .npy errors, bad --prompt text
    std::fprintf(stderr, "whisper_transcribe: %s\n", e.what());
    return 1;
  }
  return 0;
}
