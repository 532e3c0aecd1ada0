// gpt2_generate: greedy decoding from C++ with a decoder compiled by pt2c, no Python.
//
//   gpt2_generate MODEL.so --prompt 3,14,15,92 [--prompt 6,5 ...] [--new-tokens 20]
//                 [--threads N] [--timing]
//
// MODEL.so is a decoder exported the way transformers exports one with a static KV cache
// (model.py: TorchExportableModuleWithStaticCache): forward(input_ids, inputs_embeds,
// cache_position) returns logits [1, n, vocab] and keeps the cache as model state. Per
// prompt: reset the state (a new sequence), run the prompt at positions 0..n-1 (the
// model.so picks its prefill graph by the length), take the argmax of the last logits,
// then feed each new token at the next position (the one-token decode graph). Prints one
// line per prompt: "prompt: 3 14 15 92 -> 7 7 301 ...". --timing adds the prefill time
// and the median milliseconds per decode step.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "pt2c/pt2c.hpp"

namespace {

// The slots of forward(): which one takes the token ids and which the positions.
struct Slots {
  size_t count = 0;
  int ids = -1, positions = -1;
};

Slots find_slots(const pt2c::Model& model) {
  Slots slots;
  std::vector<pt2c::TensorInfo> inputs = model.graph_inputs(0);
  slots.count = inputs.size();
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].name == "input_ids") slots.ids = static_cast<int>(i);
    if (inputs[i].name == "cache_position") slots.positions = static_cast<int>(i);
  }
  if (slots.ids < 0 || slots.positions < 0)
    throw pt2c::Error(PT2C_ERROR_INVALID_ARGUMENT,
                      "gpt2_generate: the model's forward takes no input_ids and cache_position");
  return slots;
}

float to_float(pt2c_dtype dtype, const unsigned char* p, size_t i) {
  uint16_t h;
  uint32_t bits;
  float f;
  switch (dtype) {
    case PT2C_F32:
      std::memcpy(&f, p + 4 * i, 4);
      return f;
    case PT2C_BF16:
      std::memcpy(&h, p + 2 * i, 2);
      bits = static_cast<uint32_t>(h) << 16;
      std::memcpy(&f, &bits, 4);
      return f;
    case PT2C_F16: {
      std::memcpy(&h, p + 2 * i, 2);
      uint32_t sign = (h & 0x8000u) << 16, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
      if (exponent == 0x1f) {
        bits = sign | 0x7f800000u | (mantissa << 13);
      } else if (exponent != 0) {
        bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
      } else {  // zero or subnormal: mantissa * 2^-24
        f = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
        return sign ? -f : f;
      }
      std::memcpy(&f, &bits, 4);
      return f;
    }
    default:
      throw pt2c::Error(PT2C_ERROR_UNSUPPORTED, "gpt2_generate: logits must be f32, f16 or bf16");
  }
}

// One forward step: `tokens` at positions start, start + 1, ...; returns the argmax of
// the last position's logits.
int64_t step(pt2c::Model& model, const Slots& slots, const std::vector<int64_t>& tokens,
             int64_t start) {
  int64_t n = static_cast<int64_t>(tokens.size());
  std::vector<int64_t> ids = tokens, positions(tokens.size());
  for (int64_t i = 0; i < n; ++i) positions[i] = start + i;
  std::vector<int64_t> ids_dims{1, n}, positions_dims{n};  // the views point at these
  std::vector<pt2c_tensor> inputs(slots.count, pt2c::absent());
  inputs[slots.ids] = pt2c::tensor_view(ids.data(), PT2C_I64, ids_dims);
  inputs[slots.positions] = pt2c::tensor_view(positions.data(), PT2C_I64, positions_dims);
  int32_t graph = model.find_graph("", inputs);
  pt2c::TensorInfo info = model.graph_outputs(graph)[0];
  info.dims = model.graph_output_shape(graph, inputs, 0);
  std::vector<unsigned char> logits(info.nbytes());
  std::vector<pt2c_tensor> outputs{pt2c::tensor_view(logits.data(), info.dtype, info.dims)};
  model.run_method("", inputs, outputs);
  int64_t vocab = info.dims.back();
  size_t last = static_cast<size_t>((n - 1) * vocab);
  int64_t best = 0;
  float best_value = to_float(info.dtype, logits.data(), last);
  for (int64_t v = 1; v < vocab; ++v) {
    float value = to_float(info.dtype, logits.data(), last + v);
    if (value > best_value) best = v, best_value = value;  // the first maximum, as argmax
  }
  return best;
}

std::vector<int64_t> parse_tokens(const std::string& text) {
  std::vector<int64_t> tokens;
  std::stringstream stream(text);
  std::string piece;
  while (std::getline(stream, piece, ',')) tokens.push_back(std::stoll(piece));
  if (tokens.empty()) throw std::invalid_argument("empty prompt");
  return tokens;
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Greedy decoding with a pt2c-compiled decoder that keeps its KV cache as state"};
  std::string path;
  std::vector<std::string> prompts;
  int new_tokens = 20, threads = 0;
  bool timing = false;
  app.add_option("model", path, "the model.so")->required();
  app.add_option("--prompt", prompts, "comma-separated token ids; repeat for several prompts")
      ->required();
  app.add_option("--new-tokens", new_tokens, "tokens to generate per prompt")->check(CLI::PositiveNumber);
  app.add_option("--threads", threads, "CPU threads (pt2c_set_num_threads)");
  app.add_flag("--timing", timing, "print prefill time and median ms per decode step");
  CLI11_PARSE(app, argc, argv);
  try {
    pt2c::Library library(path);
    if (threads > 0) library.set_num_threads(threads);
    pt2c::Model model = library.create_model();
    Slots slots = find_slots(model);
    // The cache holds as many tokens as the longest prompt the prefill graph takes.
    int64_t capacity = 0;
    for (const pt2c::Model::DynamicDim& dim : model.dynamic_dims())
      capacity = std::max(capacity, dim.max);
    for (const std::string& text : prompts) {
      std::vector<int64_t> prompt = parse_tokens(text), generated;
      if (capacity > 0 && static_cast<int64_t>(prompt.size()) + new_tokens > capacity)
        throw pt2c::Error(PT2C_ERROR_INVALID_ARGUMENT,
                          "a prompt of " + std::to_string(prompt.size()) + " tokens and " +
                              std::to_string(new_tokens) + " new ones exceed the model's " +
                              std::to_string(capacity) + "-token cache");
      model.reset_state();  // a new sequence: an empty cache
      auto start = std::chrono::steady_clock::now();
      generated.push_back(step(model, slots, prompt, 0));
      double prefill_ms = ms_since(start);
      std::vector<double> decode_ms;
      while (static_cast<int>(generated.size()) < new_tokens) {
        start = std::chrono::steady_clock::now();
        int64_t position = static_cast<int64_t>(prompt.size() + generated.size()) - 1;
        generated.push_back(step(model, slots, {generated.back()}, position));
        decode_ms.push_back(ms_since(start));
      }
      std::printf("prompt:");
      for (int64_t t : prompt) std::printf(" %lld", static_cast<long long>(t));
      std::printf(" ->");
      for (int64_t t : generated) std::printf(" %lld", static_cast<long long>(t));
      std::printf("\n");
      if (timing && !decode_ms.empty()) {
        std::sort(decode_ms.begin(), decode_ms.end());
        std::printf("timing: prefill %.3f ms (%zu tokens), decode %.3f ms/token (median of %zu)\n",
                    prefill_ms, prompt.size(), decode_ms[decode_ms.size() / 2], decode_ms.size());
      }
    }
  } catch (const pt2c::Error& e) {
    std::fprintf(stderr, "gpt2_generate: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpt2_generate: %s\n", e.what());
    return 1;
  }
  return 0;
}
