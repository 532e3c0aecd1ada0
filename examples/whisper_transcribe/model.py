"""transformers' Whisper (a small config, random weights seeded) for transcription driven
from C++: `encode` turns mel features into encoder states; forward() decodes with
cross-attention over them and a self-attention KV cache kept as model state, as a
`prefill` graph for the prompt (the start-of-transcript tokens) and a one-token `decode`
graph. transcribe.cpp runs greedy decoding with no Python.

    pt2c examples/whisper_transcribe/model.py -o whisper.so
    whisper_transcribe whisper.so --features mel.npy --prompt 1,5,6,7 --new-tokens 20

The self-attention cache is transformers' StaticCache with its tensors registered as
module buffers (the recipe of transformers.integrations.executorch); the cross-attention
keys and values are computed from the encoder states in every call (a fresh
DynamicCache), so nothing but the self-attention cache carries over between calls.
"""
import torch
from torch import nn
from transformers import WhisperConfig, WhisperForConditionalGeneration
from transformers.cache_utils import DynamicCache, EncoderDecoderCache, StaticCache

MAX_LEN = 64    # the self-attention cache: prompt and generated tokens together
FRAMES = 200    # mel frames of the input (Whisper takes exactly 2 * max_source_positions)
MELS = 80


def whisper():
    """The plain model, which the eager reference (reference.py) runs too."""
    torch.manual_seed(0)
    # init_std wider than Whisper's 0.02: a random model would otherwise repeat one
    # token, which would make comparing token sequences with eager a weak test.
    config = WhisperConfig(
        vocab_size=300, num_mel_bins=MELS, d_model=64, encoder_layers=2, decoder_layers=2,
        encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=128,
        decoder_ffn_dim=128, max_source_positions=FRAMES // 2, max_target_positions=MAX_LEN,
        init_std=0.3, decoder_start_token_id=1, pad_token_id=0, bos_token_id=1, eos_token_id=2,
        suppress_tokens=None, begin_suppress_tokens=None)
    return WhisperForConditionalGeneration(config).eval()


class Transcriber(nn.Module):
    def __init__(self, whisper_model):
        super().__init__()
        self.whisper = whisper_model
        config = whisper_model.config
        heads = config.decoder_attention_heads
        self.cache = StaticCache(config=config, max_cache_len=MAX_LEN)
        self.cache.early_initialization(1, heads, config.d_model // heads, torch.float32,
                                        torch.device("cpu"))
        for i, layer in enumerate(self.cache.layers):
            self.register_buffer(f"key_cache_{i}", layer.keys, persistent=False)
            self.register_buffer(f"value_cache_{i}", layer.values, persistent=False)
            self.register_buffer(f"cumulative_length_{i}", layer.cumulative_length,
                                 persistent=False)

    def encode(self, input_features):
        return self.whisper.get_encoder()(input_features).last_hidden_state

    def forward(self, decoder_input_ids, encoder_hidden_states, cache_position):
        for layer in self.cache.layers:
            layer.cumulative_length.copy_(cache_position[0])
        cache = EncoderDecoderCache(self.cache, DynamicCache(config=self.whisper.config))
        hidden = self.whisper.get_decoder()(
            input_ids=decoder_input_ids, encoder_hidden_states=encoder_hidden_states,
            past_key_values=cache, use_cache=True, cache_position=cache_position)[0]
        return self.whisper.proj_out(hidden)


def model():
    return Transcriber(whisper())


def signatures():
    generator = torch.Generator().manual_seed(1)
    features = torch.randn(1, MELS, FRAMES, generator=generator)
    states = torch.randn(1, FRAMES // 2, 64, generator=generator)
    prompt = torch.tensor([[1, 5, 6, 7]])
    return {
        "encode": {"method": "encode", "inputs": (features,)},
        # The prompt: 2..MAX_LEN tokens at positions 0..n-1 (one token is a decode step).
        "prefill": {"inputs": (prompt, states, torch.arange(4)),
                    "dynamic_shapes": {"decoder_input_ids": {1: ("prompt", 2, MAX_LEN)},
                                       "cache_position": {0: "prompt"}}},
        "decode": (prompt[:, :1], states, torch.tensor([4])),
    }
