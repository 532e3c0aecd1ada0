"""A sweep of transformers architectures: each built from a small random config (hidden
size 32, 2 layers, 4 heads, a vocabulary of 128), compiled by pt2c and compared with
PyTorch eager: the model's first output (logits, or last_hidden_state for a bare
encoder) within max|diff| / max|ref| <= 1e-4.

Every model is built the same way (model_source): `ModelClass(ModelClass.config_class(
**config))` in eval mode, called with keywords from its inputs (token ids (2, 16) and
decoder token ids (2, 8), pixel values, audio samples or features), no cache. A model
whose inputs are all token ids is compared on fresh random ids (test_transformers'
check_token_model; no special tokens, see FIRST_ID); others on fresh random floating inputs (harness.check_against_eager,
which copies integer inputs such as Whisper's decoder ids). Which architectures run
(harness.sweep_selection):

- by default the fixed sample SAMPLE;
- otherwise as harness.sweep_selection says (CI's daily draw, PT2C_SWEEP=all or names);
  harness.sweep_params makes the failures docs/zoo_sweeps.json records xfail (results:
  docs/ZOO.md, "Sweeps"; tools/sweep_report.py records them).
tests/e2e/test_transformers.py keeps its own models (BERT, GPT-2, Llama with a padding
mask, t5-small's config)."""
import pytest

from harness import check_against_eager, sweep_params, write_model
from test_transformers import check_token_model

ENCODER, DECODER, SEQ2SEQ, VISION, AUDIO = (
    "encoder", "decoder", "encoder-decoder", "vision", "audio")

VOCAB = 128
# Token ids are drawn from FIRST_ID..VOCAB-1, never a special token (pad, bos and eos are
# 0, 1 or 2 in every config here): transformers reads whether an input starts or ends
# with the pad token (to warn about a missing attention mask), which the trace records
# as a guard; a fresh draw with a pad token at an end would fail the guard, correctly.
FIRST_ID = 3
_H = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64)
_TEXT = dict(_H, vocab_size=VOCAB, max_position_embeddings=64)
_DECODER = dict(_TEXT, use_cache=False)
_GQA = dict(_DECODER, num_key_value_heads=2)  # 4 query heads share 2 key/value heads
_GPT2 = dict(vocab_size=VOCAB, n_embd=32, n_layer=2, n_head=4, n_positions=64,
             bos_token_id=1, eos_token_id=2, use_cache=False)
_BART = dict(vocab_size=VOCAB, d_model=32, encoder_layers=2, decoder_layers=2,
             encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64,
             decoder_ffn_dim=64, max_position_embeddings=64, use_cache=False,
             pad_token_id=1, bos_token_id=0, eos_token_id=2, decoder_start_token_id=2)
_VISION = dict(_H, image_size=32, patch_size=8, num_channels=3)
_SWIN = dict(image_size=32, patch_size=2, embed_dim=16, depths=[1, 1], num_heads=[2, 4],
             window_size=4)
_STAGES = dict(num_channels=3, num_stages=2, hidden_sizes=[16, 32], depths=[1, 1])
_WAV2VEC2 = dict(_H, conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3),
                 num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2)

IDS = ("input_ids",)
SEQ2SEQ_IDS = ("input_ids", "decoder_input_ids")
PIXELS = ("pixel_values",)
SAMPLES = ("input_values",)

# name -> (family, model class, config keyword arguments, forward's inputs)
ARCHITECTURES = {
    # encoders
    "bert": (ENCODER, "BertModel", _TEXT, IDS),
    "roberta": (ENCODER, "RobertaModel", _TEXT, IDS),
    "xlm_roberta": (ENCODER, "XLMRobertaModel", _TEXT, IDS),
    "deberta": (ENCODER, "DebertaModel", _TEXT, IDS),
    "deberta_v2": (ENCODER, "DebertaV2Model", _TEXT, IDS),
    "electra": (ENCODER, "ElectraModel", dict(_TEXT, embedding_size=32), IDS),
    "albert": (ENCODER, "AlbertModel", dict(_TEXT, embedding_size=16), IDS),
    "distilbert": (ENCODER, "DistilBertModel",
                   dict(vocab_size=VOCAB, dim=32, n_layers=2, n_heads=4, hidden_dim=64,
                        max_position_embeddings=64), IDS),
    "mpnet": (ENCODER, "MPNetModel", _TEXT, IDS),
    "modernbert": (ENCODER, "ModernBertModel",
                   dict(_TEXT, global_attn_every_n_layers=2, local_attention=16,
                        pad_token_id=0, bos_token_id=1, eos_token_id=2, cls_token_id=1,
                        sep_token_id=2), IDS),
    "convbert": (ENCODER, "ConvBertModel", dict(_TEXT, embedding_size=32), IDS),
    "roformer": (ENCODER, "RoFormerModel", dict(_TEXT, embedding_size=32), IDS),
    "esm": (ENCODER, "EsmModel", dict(_TEXT, pad_token_id=1), IDS),
    "megatron_bert": (ENCODER, "MegatronBertModel", _TEXT, IDS),
    "squeezebert": (ENCODER, "SqueezeBertModel",
                    dict(_TEXT, embedding_size=32, q_groups=2, k_groups=2, v_groups=2,
                         post_attention_groups=2, intermediate_groups=2, output_groups=2),
                    IDS),
    "clip_text": (ENCODER, "CLIPTextModel", dict(_TEXT, bos_token_id=0, eos_token_id=2),
                  IDS),
    # decoders (causal language models: logits)
    "llama": (DECODER, "LlamaForCausalLM", _GQA, IDS),
    "mistral": (DECODER, "MistralForCausalLM", _GQA, IDS),
    "qwen2": (DECODER, "Qwen2ForCausalLM", _GQA, IDS),
    "qwen3": (DECODER, "Qwen3ForCausalLM", dict(_GQA, head_dim=8), IDS),
    "gemma": (DECODER, "GemmaForCausalLM", dict(_GQA, head_dim=8), IDS),
    "gemma2": (DECODER, "Gemma2ForCausalLM", dict(_GQA, head_dim=8, sliding_window=8), IDS),
    "gemma3": (DECODER, "Gemma3ForCausalLM", dict(_GQA, head_dim=8, sliding_window=8), IDS),
    "phi": (DECODER, "PhiForCausalLM", _DECODER, IDS),
    "phi3": (DECODER, "Phi3ForCausalLM", dict(_GQA, pad_token_id=0), IDS),
    "gpt2": (DECODER, "GPT2LMHeadModel", _GPT2, IDS),
    "gpt_neo": (DECODER, "GPTNeoForCausalLM",
                dict(vocab_size=VOCAB, hidden_size=32, num_layers=2, num_heads=4,
                     attention_types=[[["global", "local"], 1]], window_size=8,
                     max_position_embeddings=64, use_cache=False), IDS),
    "gpt_neox": (DECODER, "GPTNeoXForCausalLM", _DECODER, IDS),
    "gptj": (DECODER, "GPTJForCausalLM", dict(_GPT2, rotary_dim=4), IDS),
    "gpt_bigcode": (DECODER, "GPTBigCodeForCausalLM", _GPT2, IDS),
    "codegen": (DECODER, "CodeGenForCausalLM", dict(_GPT2, rotary_dim=4, n_ctx=64), IDS),
    "falcon": (DECODER, "FalconForCausalLM",
               dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2,
                    num_attention_heads=4, use_cache=False), IDS),
    "opt": (DECODER, "OPTForCausalLM",
            dict(_DECODER, ffn_dim=64, word_embed_proj_dim=32), IDS),
    "bloom": (DECODER, "BloomForCausalLM",
              dict(vocab_size=VOCAB, hidden_size=32, n_layer=2, n_head=4, use_cache=False),
              IDS),
    "stablelm": (DECODER, "StableLmForCausalLM", _GQA, IDS),
    "olmo": (DECODER, "OlmoForCausalLM", _GQA, IDS),
    "olmo2": (DECODER, "Olmo2ForCausalLM", _GQA, IDS),
    "cohere": (DECODER, "CohereForCausalLM", _GQA, IDS),
    "granite": (DECODER, "GraniteForCausalLM", _GQA, IDS),
    "starcoder2": (DECODER, "Starcoder2ForCausalLM", _GQA, IDS),
    "persimmon": (DECODER, "PersimmonForCausalLM", _DECODER, IDS),
    "mpt": (DECODER, "MptForCausalLM",
            dict(vocab_size=VOCAB, d_model=32, n_layers=2, n_heads=4, max_seq_len=64,
                 use_cache=False), IDS),
    "xglm": (DECODER, "XGLMForCausalLM",
             dict(vocab_size=VOCAB, d_model=32, num_layers=2, attention_heads=4, ffn_dim=64,
                  max_position_embeddings=64, use_cache=False), IDS),
    # mixtures of experts: expected to fail today (tokens per expert are data-dependent)
    "mixtral": (DECODER, "MixtralForCausalLM",
                dict(_GQA, num_local_experts=4, num_experts_per_tok=2), IDS),
    "qwen2_moe": (DECODER, "Qwen2MoeForCausalLM",
                  dict(_GQA, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32,
                       shared_expert_intermediate_size=32), IDS),
    # encoder-decoders (logits)
    "t5": (SEQ2SEQ, "T5ForConditionalGeneration",
           dict(vocab_size=VOCAB, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
                decoder_start_token_id=0, use_cache=False), SEQ2SEQ_IDS),
    "bart": (SEQ2SEQ, "BartForConditionalGeneration", _BART, SEQ2SEQ_IDS),
    "mbart": (SEQ2SEQ, "MBartForConditionalGeneration", _BART, SEQ2SEQ_IDS),
    "marian": (SEQ2SEQ, "MarianMTModel",
               dict(_BART, pad_token_id=0, decoder_start_token_id=0), SEQ2SEQ_IDS),
    "pegasus": (SEQ2SEQ, "PegasusForConditionalGeneration",
                dict(_BART, pad_token_id=0, decoder_start_token_id=0), SEQ2SEQ_IDS),
    "blenderbot": (SEQ2SEQ, "BlenderbotForConditionalGeneration", _BART, SEQ2SEQ_IDS),
    "whisper": (SEQ2SEQ, "WhisperForConditionalGeneration",
                dict(_BART, num_mel_bins=16, max_source_positions=16,
                     max_target_positions=64, pad_token_id=0, decoder_start_token_id=1),
                ("input_features", "decoder_input_ids")),
    # vision (last_hidden_state)
    "vit": (VISION, "ViTModel", _VISION, PIXELS),
    "deit": (VISION, "DeiTModel", _VISION, PIXELS),
    "beit": (VISION, "BeitModel", dict(_VISION, use_relative_position_bias=True), PIXELS),
    "dinov2": (VISION, "Dinov2Model", _VISION, PIXELS),
    "clip_vision": (VISION, "CLIPVisionModel", _VISION, PIXELS),
    "siglip_vision": (VISION, "SiglipVisionModel", _VISION, PIXELS),
    "swin": (VISION, "SwinModel", _SWIN, PIXELS),
    "swinv2": (VISION, "Swinv2Model", _SWIN, PIXELS),
    "convnext": (VISION, "ConvNextModel", _STAGES, PIXELS),
    "convnextv2": (VISION, "ConvNextV2Model", _STAGES, PIXELS),
    "resnet": (VISION, "ResNetModel",
               dict(embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1]), PIXELS),
    "segformer": (VISION, "SegformerModel",
                  dict(num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1],
                       hidden_sizes=[16, 32], num_attention_heads=[1, 2], mlp_ratios=[2, 2],
                       patch_sizes=[7, 3], strides=[4, 2]), PIXELS),
    "mobilevit": (VISION, "MobileViTModel",
                  dict(image_size=64, hidden_sizes=[32, 40, 48],
                       neck_hidden_sizes=[8, 8, 16, 16, 24, 32, 64]), PIXELS),
    # audio (last_hidden_state)
    "wav2vec2": (AUDIO, "Wav2Vec2Model", _WAV2VEC2, SAMPLES),
    "hubert": (AUDIO, "HubertModel", _WAV2VEC2, SAMPLES),
    "wavlm": (AUDIO, "WavLMModel", dict(_WAV2VEC2, num_buckets=16), SAMPLES),
    "data2vec_audio": (AUDIO, "Data2VecAudioModel",
                       dict(_WAV2VEC2, num_conv_pos_embeddings=4, conv_pos_kernel_size=5),
                       SAMPLES),
    "ast": (AUDIO, "ASTModel",
            dict(_H, num_mel_bins=16, max_length=32, patch_size=8, frequency_stride=8,
                 time_stride=8), SAMPLES),
}

# The default run's fixed sample: an encoder, a decoder and an encoder-decoder.
SAMPLE = ["deberta_v2", "qwen3", "whisper"]


def input_shape(name, config, inp):
    if inp == "input_ids":
        return (2, 16)
    if inp == "decoder_input_ids":
        return (2, 8)
    if inp == "pixel_values":
        size = config.get("image_size", 32)
        return (1, 3, size, size)
    if inp == "input_features":  # Whisper: mel bins x twice the encoder's positions
        return (1, config["num_mel_bins"], 2 * config["max_source_positions"])
    if inp == "input_values" and "max_length" in config:  # AST: frames x mel bins
        return (1, config["max_length"], config["num_mel_bins"])
    if inp == "input_values":  # raw audio samples
        return (1, 400)
    raise ValueError(f"{name}: no shape for input {inp}")


def model_source(name):
    """The model.py of architecture `name`: its class built from the small config,
    called with keywords, returning its first output."""
    _, cls, config, inputs = ARCHITECTURES[name]
    params = ", ".join(inputs)
    examples = []
    for inp in inputs:
        shape = input_shape(name, config, inp)
        if inp.endswith("_ids"):
            examples.append(f"torch.randint({FIRST_ID}, {VOCAB}, {shape}, generator=g)")
        else:
            examples.append(f"torch.randn({shape}, generator=g)")
    return f"""
        import torch
        import transformers

        class FirstOutput(torch.nn.Module):
            def __init__(self, net):
                super().__init__()
                self.net = net

            def forward(self, {params}):
                return self.net({", ".join(f"{i}={i}" for i in inputs)})[0]

        def model():
            torch.manual_seed(0)
            cls = transformers.{cls}
            config = cls.config_class(**{config!r})
            return FirstOutput(cls(config).eval())

        def example_inputs():
            g = torch.Generator().manual_seed(1)
            return ({", ".join(examples)},)
    """


@pytest.mark.parametrize("name", sweep_params("transformers", ARCHITECTURES, SAMPLE))
def test_transformers_architecture_matches_eager(name, pt2c, cpp_host, python, tmp_path):
    pytest.importorskip("transformers")
    inputs = ARCHITECTURES[name][3]
    source = model_source(name)
    if all(i.endswith("_ids") for i in inputs):  # compared on fresh token ids
        check_token_model(pt2c, cpp_host, tmp_path, source, VOCAB - FIRST_ID,
                          lambda ids, draw: [i + FIRST_ID for i in ids])
    else:
        check_against_eager(pt2c, cpp_host, python, write_model(tmp_path, source), tmp_path,
                            tolerance=1e-4)
