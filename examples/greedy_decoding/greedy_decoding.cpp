#include "examples/greedy_decoding/greedy_decoding.h"

#include <algorithm>
#include <chrono>
#include <sstream>
#include <stdexcept>
#include <string>

#include "tools/host/tensor_compare.h"

namespace greedy {
namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// One call: `tokens` at positions start, start + 1, ...; the argmax of the last logits.
int64_t step(pt2c::Model &model, const Slots &slots, const std::vector<int64_t> &tokens,
             int64_t start, const pt2c_tensor *encoder_states) {
  int64_t n = static_cast<int64_t>(tokens.size());
  std::vector<int64_t> ids = tokens, positions(tokens.size());
  for (int64_t i = 0; i < n; ++i)
    positions[i] = start + i;
  std::vector<int64_t> ids_dims{1, n}, positions_dims{n}; // the views point at these
  std::vector<pt2c_tensor> inputs(slots.count, pt2c::absent());
  inputs[slots.ids] = pt2c::tensor_view(ids.data(), PT2C_I64, ids_dims);
  inputs[slots.positions] = pt2c::tensor_view(positions.data(), PT2C_I64, positions_dims);
  if (slots.encoder_states >= 0)
    inputs[slots.encoder_states] = *encoder_states;
  int32_t graph = model.find_graph("", inputs);
  pt2c::TensorInfo info = model.graph_outputs(graph)[0];
  info.dims = model.graph_output_shape(graph, inputs, 0);
  std::vector<unsigned char> logits(info.nbytes());
  std::vector<pt2c_tensor> outputs{pt2c::tensor_view(logits.data(), info.dtype, info.dims)};
  model.run_method("", inputs, outputs);
  int64_t vocab = info.dims.back();
  size_t last = static_cast<size_t>((n - 1) * vocab);
  int64_t best = 0;
  double best_value = pt2c::host::element_to_double(info.dtype, logits.data(), last);
  for (int64_t v = 1; v < vocab; ++v) {
    double value = pt2c::host::element_to_double(info.dtype, logits.data(), last + v);
    if (value > best_value)
      best = v, best_value = value;
  }
  return best;
}

} // namespace

std::vector<int64_t> parse_tokens(const std::string &text) {
  std::vector<int64_t> tokens;
  std::stringstream stream(text);
  std::string piece;
  while (std::getline(stream, piece, ','))
    tokens.push_back(std::stoll(piece));
  if (tokens.empty())
    throw std::invalid_argument("empty prompt");
  return tokens;
}

Slots find_slots(const pt2c::Model &model) {
  Slots slots;
  std::vector<pt2c::TensorInfo> inputs = model.graph_inputs(0);
  slots.count = inputs.size();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string &name = inputs[i].name;
    int index = static_cast<int>(i);
    if (name == "input_ids" || name == "decoder_input_ids")
      slots.ids = index;
    if (name == "cache_position")
      slots.positions = index;
    if (name == "encoder_hidden_states")
      slots.encoder_states = index;
  }
  if (slots.ids < 0 || slots.positions < 0)
    throw pt2c::Error(PT2C_ERROR_INVALID_ARGUMENT,
                      "the model's forward takes no input_ids (or decoder_input_ids) and "
                      "cache_position: not a decoder exported with a static cache");
  return slots;
}

int64_t cache_capacity(const pt2c::Model &model) {
  int64_t capacity = 0;
  for (const pt2c::Model::DynamicDim &dim : model.dynamic_dims())
    capacity = std::max(capacity, dim.max);
  return capacity;
}

std::vector<int64_t> decode(pt2c::Model &model, const Slots &slots,
                            const std::vector<int64_t> &prompt, int new_tokens,
                            const pt2c_tensor *encoder_states, Timing *timing) {
  if (slots.encoder_states >= 0 && encoder_states == nullptr)
    throw pt2c::Error(PT2C_ERROR_INVALID_ARGUMENT, "an encoder-decoder model needs encoder states");
  int64_t capacity = cache_capacity(model);
  if (capacity > 0 && static_cast<int64_t>(prompt.size()) + new_tokens > capacity)
    throw pt2c::Error(PT2C_ERROR_INVALID_ARGUMENT, "a prompt of " + std::to_string(prompt.size()) +
                                                       " tokens and " + std::to_string(new_tokens) +
                                                       " new ones exceed the model's " +
                                                       std::to_string(capacity) + "-token cache");
  model.reset_state(); // a new sequence: an empty cache
  std::vector<int64_t> generated;
  auto start = std::chrono::steady_clock::now();
  generated.push_back(step(model, slots, prompt, 0, encoder_states));
  if (timing != nullptr)
    timing->prefill_ms = ms_since(start);
  while (static_cast<int>(generated.size()) < new_tokens) {
    start = std::chrono::steady_clock::now();
    int64_t position = static_cast<int64_t>(prompt.size() + generated.size()) - 1;
    generated.push_back(step(model, slots, {generated.back()}, position, encoder_states));
    if (timing != nullptr)
      timing->decode_ms.push_back(ms_since(start));
  }
  return generated;
}

} // namespace greedy
