// gpt2_generate: greedy decoding from C++ with a decoder compiled by pt2c, no Python.
//
//   gpt2_generate MODEL.so --prompt 3,14,15,92 [--prompt 6,5 ...] [--new-tokens 20]
//                 [--threads N] [--timing]
//
// MODEL.so is a decoder exported the way transformers exports one with a static KV cache
// (model.py here); the loop is examples/greedy_decoding. Each prompt starts a new
// sequence (the cache is reset). Prints one line per prompt, "prompt: 3 14 15 92 -> 7 7
// 301 ...", and with --timing the prefill time and the median milliseconds per decode
// step.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "examples/greedy_decoding/greedy_decoding.h"
#include "pt2c/pt2c.hpp"

namespace {

void print_tokens(const char *label, const std::vector<int64_t> &tokens) {
  std::printf("%s", label);
  for (int64_t t : tokens)
    std::printf(" %lld", static_cast<long long>(t));
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"Greedy decoding with a pt2c-compiled decoder that keeps its KV cache as state"};
  std::string path;
  std::vector<std::string> prompts;
  int new_tokens = 20, threads = 0;
  bool timing = false;
  app.add_option("model", path, "the model.so")->required();
  app.add_option("--prompt", prompts, "comma-separated token ids; repeat for several prompts")
      ->required();
  app.add_option("--new-tokens", new_tokens, "tokens to generate per prompt")
      ->check(CLI::PositiveNumber);
  app.add_option("--threads", threads, "CPU threads (pt2c_set_num_threads)");
  app.add_flag("--timing", timing, "print prefill time and median ms per decode step");
  CLI11_PARSE(app, argc, argv);
  try {
    pt2c::Library library(path);
    if (threads > 0)
      library.set_num_threads(threads);
    pt2c::Model model = library.create_model();
    greedy::Slots slots = greedy::find_slots(model);
    for (const std::string &text : prompts) {
      std::vector<int64_t> prompt = greedy::parse_tokens(text);
      greedy::Timing times;
      std::vector<int64_t> generated =
          greedy::decode(model, slots, prompt, new_tokens, nullptr, &times);
      print_tokens("prompt:", prompt);
      print_tokens(" ->", generated);
      std::printf("\n");
      if (timing && !times.decode_ms.empty()) {
        std::sort(times.decode_ms.begin(), times.decode_ms.end());
        std::printf("timing: prefill %.3f ms (%zu tokens), decode %.3f ms/token (median of %zu)\n",
                    times.prefill_ms, prompt.size(), times.decode_ms[times.decode_ms.size() / 2],
                    times.decode_ms.size());
      }
    }
  } catch (const std::exception &e) { // pt2c::Error and bad --prompt text
    std::fprintf(stderr, "gpt2_generate: %s\n", e.what());
    return 1;
  }
  return 0;
}
