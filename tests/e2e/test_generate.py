"""Generation driven from C++ (examples/gpt2_generate, examples/whisper_transcribe):
transformers' GPT-2 and Whisper with a static KV cache as model state, compiled with a
`prefill` graph for prompts of any length in its range and a one-token `decode` graph
(Whisper also an `encode` graph). The C++ programs run greedy decoding with no Python
and must print exactly the tokens of the same greedy loop in PyTorch eager, for prompts
of lengths the export never traced; each prompt starts from a reset cache."""
import numpy as np
import pytest

from conftest import REPO, _tool, env_without_python, run
from cuda_artifacts import fake_driver_env, find_cuda_toolkit
from harness import compile_model

EXAMPLE = REPO / "examples" / "gpt2_generate"
WHISPER = REPO / "examples" / "whisper_transcribe"
# Lengths 1 (the decode graph alone), 2 (the prefill's minimum) and others the export did
# not trace (it traced 8, 9 and 17); the last fills 120 of the cache's 128 positions.
PROMPTS = ["7", "100,200", "3,14,15,92,65", ",".join(str(t) for t in range(1, 34)),
           ",".join(str((37 * t) % 512) for t in range(96)), "3,14,15,92,65"]
NEW_TOKENS = 24


@pytest.fixture(scope="module")
def generate_so(pt2c, tmp_path_factory):
    return compile_model(pt2c, EXAMPLE / "model.py", tmp_path_factory.mktemp("gpt2_generate"))


@pytest.fixture(scope="module")
def generate():
    return _tool("examples/gpt2_generate/gpt2_generate")


def prompt_args():
    return [arg for p in PROMPTS for arg in ("--prompt", p)]


def test_tokens_match_eager_greedy_decoding(generate_so, generate, python):
    ours = run([generate, generate_so, *prompt_args(), "--new-tokens", NEW_TOKENS],
               env=env_without_python())
    assert ours.returncode == 0, ours.stderr
    eager = run([python, EXAMPLE / "reference.py", *prompt_args(), "--new-tokens", NEW_TOKENS])
    assert eager.returncode == 0, eager.stderr
    expected = [line for line in eager.stdout.splitlines() if line.startswith("prompt:")]
    assert len(expected) == len(PROMPTS)
    # The same prompt twice: the second starts from a reset cache, so it repeats the first.
    assert ours.stdout.splitlines() == expected


def test_lengths_outside_the_cache_are_clean_errors(generate_so, generate, cpp_host, tmp_path):
    too_long = ",".join(["5"] * 129)
    result = run([generate, generate_so, "--prompt", too_long, "--new-tokens", 1])
    assert result.returncode == 1
    assert "exceed the model's 128-token cache" in result.stderr
    # The model itself refuses a prompt no graph takes, naming its graphs' sizes.
    np.save(tmp_path / "ids.npy", np.full((1, 129), 5, dtype=np.int64))
    np.save(tmp_path / "pos.npy", np.arange(129, dtype=np.int64))
    result = run([cpp_host, generate_so, "--input", tmp_path / "ids.npy", "--input", "none",
                  "--input", tmp_path / "pos.npy", "--output-dir", tmp_path])
    assert result.returncode != 0
    assert "no graph of method 'forward' takes the inputs" in result.stderr
    assert "prefill(input_ids: i64[1, prompt 2..128], inputs_embeds: none, " \
           "cache_position: i64[prompt 2..128])" in result.stderr
    assert "decode(input_ids: i64[1, 1]" in result.stderr


@pytest.fixture(scope="module")
def whisper_so(pt2c, tmp_path_factory):
    return compile_model(pt2c, WHISPER / "model.py", tmp_path_factory.mktemp("whisper"))


# Start tokens of lengths 1 (the decode graph alone), 4 (the export's) and 9.
@pytest.mark.parametrize("prompt", ["1", "1,5,6,7", "1,5,6,7,9,11,13,15,17"])
def test_transcripts_match_eager_greedy_decoding(whisper_so, python, prompt, tmp_path):
    features = []
    for seed in range(2):
        path = tmp_path / ("mel%d.npy" % seed)
        np.save(path, np.random.default_rng(seed).standard_normal((1, 80, 200)).astype(np.float32))
        features += ["--features", path]
    args = [*features, "--prompt", prompt, "--new-tokens", 30]
    ours = run([_tool("examples/whisper_transcribe/whisper_transcribe"), whisper_so, *args],
               env=env_without_python())
    assert ours.returncode == 0, ours.stderr
    eager = run([python, WHISPER / "reference.py", *args])
    assert eager.returncode == 0, eager.stderr
    expected = [line for line in eager.stdout.splitlines() if line.startswith(str(tmp_path))]
    assert len(expected) == 2
    assert ours.stdout.splitlines() == expected


def test_cuda_build_runs_both_graphs_with_the_sizes_in_device_memory(pt2c, generate, tmp_path):
    """The same model.py for --target cuda (its prefill graph has a dynamic prompt length):
    through the fake driver (which computes nothing, so the tokens are zeros), a prompt of
    5 runs the prefill graph's launches and a decode step the decode graph's, and each
    prefill run first copies its one symbol value (8 bytes) to the device, where the GPU
    kernels read their sizes. Tokens on a real GPU: tests/gpu/README.md."""
    if not find_cuda_toolkit():
        pytest.skip("no CUDA toolkit (ptxas, fatbinary): set PT2C_CUDA_HOME")
    so = tmp_path / "gpt2_cuda.so"
    result = run([pt2c, EXAMPLE / "model.py", "--target", "cuda", "-o", so])
    assert result.returncode == 0, result.stderr
    for prompt, new_tokens in [("3,14,15,92,65", 1), ("3,14,15,92,65", 2), ("7", 2)]:
        ours = run([generate, so, "--prompt", prompt, "--new-tokens", new_tokens],
                   env=fake_driver_env(tmp_path, FAKE_CUDA_SM="90"))
        assert ours.returncode == 0, ours.stderr
        log = (tmp_path / "log").read_text().splitlines()
        (tmp_path / "log").unlink()
        symbol_copies = [line for line in log if line == "htod_async 8"]
        kernels = {line.split()[1] for line in log if line.startswith("launch ")}
        prefill = {k for k in kernels if k.startswith("prefill")}
        decode = {k for k in kernels if k.startswith("decode")}
        # One prefill run for a longer prompt; one-token prompts and later tokens decode.
        assert len(symbol_copies) == (1 if "," in prompt else 0)
        assert bool(prefill) == ("," in prompt)
        assert bool(decode) == ("," not in prompt or new_tokens > 1)
