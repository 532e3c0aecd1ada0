"""examples/gpt2_generate's GPT-2 with a cache of 1088 positions instead of 128, for the
decode benchmark on a GPU at contexts up to 1024 (tests/gpu/README.md, "Decode latency").
The model, its graphs and their dynamic ranges are the example's own: only MAX_LEN (the
cache and position table length) differs.

    pt2c tests/gpu/decode/gpt2_model.py --target cuda -o gpt2_cuda.so
"""
import importlib.util
import pathlib

_EXAMPLE = pathlib.Path(__file__).resolve().parents[3] / "examples" / "gpt2_generate" / "model.py"
_spec = importlib.util.spec_from_file_location("gpt2_generate_model", _EXAMPLE)
_example = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_example)
_example.MAX_LEN = 1088

VOCAB = _example.VOCAB
MAX_LEN = _example.MAX_LEN
model = _example.model
signatures = _example.signatures
