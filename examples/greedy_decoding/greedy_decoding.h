// Greedy decoding with a decoder compiled by pt2c whose KV cache is model state: a model
// exported the way transformers exports one with a static cache (examples/gpt2_generate
// and examples/whisper_transcribe, model.py): forward(input_ids or decoder_input_ids,
// [encoder_hidden_states,] cache_position, ...) returns logits [1, n, vocab] and writes
// the keys and values of its n tokens into the cache at those positions. A prompt runs
// as one call (the model.so picks its prefill graph by the length), every new token as
// one call at the next position (its one-token decode graph).
#ifndef PT2C_EXAMPLES_GREEDY_DECODING_H_
#define PT2C_EXAMPLES_GREEDY_DECODING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "pt2c/pt2c.hpp"

namespace greedy {

// Which of forward()'s inputs ("slots") takes what; found by the parameter names.
struct Slots {
  size_t count = 0;
  int ids = -1, positions = -1;
  int encoder_states = -1; // -1: a decoder-only model
};
Slots find_slots(const pt2c::Model &model);

// The longest sequence the cache holds: the largest range of graph 0's dynamic dims
// (the prefill's prompt length); 0 if it has none.
int64_t cache_capacity(const pt2c::Model &model);

struct Timing {
  double prefill_ms = 0;
  std::vector<double> decode_ms; // one per decode step
};

// Resets the model state (a new sequence), runs `prompt` at positions 0..n-1, then
// feeds back the argmax token (the first maximum, as torch.argmax) until `new_tokens`
// are made. `encoder_states`: the encoder's output for encoder-decoder models (else
// null). Throws pt2c::Error on any failure.
std::vector<int64_t> decode(pt2c::Model &model, const Slots &slots,
                            const std::vector<int64_t> &prompt, int new_tokens,
                            const pt2c_tensor *encoder_states, Timing *timing = nullptr);

// "3,14,15" -> {3, 14, 15}; throws std::invalid_argument for an empty or malformed list.
std::vector<int64_t> parse_tokens(const std::string &text);

} // namespace greedy

#endif // PT2C_EXAMPLES_GREEDY_DECODING_H_
