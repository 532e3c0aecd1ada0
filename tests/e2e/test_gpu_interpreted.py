"""The f32 attention kernels of the GPU, run on the CPU by gpu_interpreter.py (threads in
lockstep at barriers and shuffles) from pt2c-lower-fused-ops-to-gpu's output, against
NumPy: the chunk kernel (AttentionChunkKernel.cpp) in its shapes (32 or 16 rows a block,
chunks of 64 or 32 keys, the last chunk and the last block partial, value head sizes
that are not multiples of 16, grouped-query heads, the heads-inner layout, a bias and a
causal mask) and the tile kernel it leaves the short key sequences to. A race between
threads would show as a difference between two thread orders (--reverse). Also pointwise
loop nests through pt2c-map-parallel-loops-to-gpu (several neighbours a thread, several
blocks), where every element must be written once."""
import numpy as np
import pytest

from conftest import BIN, run
from gpu_interpreter import run_kernel

PT2C_OPT = BIN / "tools" / "pt2c-opt" / "pt2c-opt"


def tensor(shape):
    return "tensor<%sxf32>" % "x".join(map(str, shape))


def lowered(q, k, v, bias, causal, heads_inner, scale, sm_count=132):
    """The kernel function of one prim.attention, through pt2c-lower-fused-ops-to-gpu (for
    a GPU of `sm_count` multiprocessors), in generic form."""
    shapes = [q, k, v] + ([bias] if bias else [])
    args = ", ".join("%%a%d: %s" % (i, tensor(s)) for i, s in enumerate(shapes))
    out = list(q[:-1]) + [v[-1]]
    flags = ", ".join("true" if f else "false" for f in heads_inner)
    text = (
        "func.func private @attention(%s) -> %s attributes {pt2c.kernel} {\n"
        "  %%0 = prim.attention %%a0, %%a1, %%a2%s, scale = %s, causal = %s, "
        "heads_inner = [%s] : %s -> %s\n"
        "  return %%0 : %s\n}\n" % (
            args, tensor(out), " bias %a3" if bias else "", scale,
            "true" if causal else "false", flags, ", ".join(tensor(s) for s in shapes),
            tensor(out), tensor(out)))
    assert PT2C_OPT.exists(), "build //tools/pt2c-opt"
    result = run([PT2C_OPT, "-", f"--pt2c-lower-fused-ops-to-gpu=sm-count={sm_count}",
                  "--mlir-print-op-generic"],
                 input=text)
    assert result.returncode == 0, result.stderr
    return result.stdout


def reference(q, k, v, bias, causal, heads_inner, scale):
    """softmax(q k^T * scale + bias, causal) v in f64, in [b, h, row, column] order."""
    def canonical(x, inner):  # [b, row, h, col] -> [b, h, row, col]
        return x.transpose(0, 2, 1, 3) if inner else x
    q, k, v = (canonical(x.astype(np.float64), f) for x, f in zip((q, k, v), heads_inner))
    group = q.shape[1] // k.shape[1]
    k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
    s = np.einsum("bhqd,bhkd->bhqk", q, k) * scale
    if bias is not None:
        s = s + bias
    if causal:
        s = np.where(np.arange(s.shape[3])[None, :] > np.arange(s.shape[2])[:, None], -np.inf, s)
    p = np.exp(s - s.max(-1, keepdims=True))
    out = np.einsum("bhqk,bhkd->bhqd", p / p.sum(-1, keepdims=True), v)
    return canonical(out, heads_inner[3])


CASES = {
    # 40 rows: blocks of 32 (their 4 blocks cover a GPU of 4 multiprocessors), the second
    # partial; 130 keys: chunks of 64, the third partial.
    "chunk_bias": dict(q=(1, 2, 40, 36), k=(1, 2, 130, 36), bias=(1, 1, 40, 130),
                       causal=False, heads_inner=(False,) * 4, kernel="chunk", reverse=True,
                       sm_count=4, rows=32),
    # The same on an H100 (132): 16 rows a block, the third block partial.
    "chunk_bias_16_rows": dict(q=(1, 2, 40, 36), k=(1, 2, 130, 36), bias=(1, 1, 40, 130),
                               causal=False, heads_inner=(False,) * 4, kernel="chunk",
                               rows=16),
    # 20 rows: blocks of 16; head size 96: chunks of 32 fit, 64 do not; 6 columns a thread.
    "chunk_16_rows_32_keys": dict(q=(1, 2, 20, 96), k=(1, 2, 140, 96), bias=None,
                                  causal=False, heads_inner=(False,) * 4, kernel="chunk",
                                  rows=16),
    # 4 query heads on 2 key/value heads, [b, row, h, col] q and result, head size 20:
    # columns 16..31 of the second slot, 20 and up never stored; causal, rows 64..69 see
    # keys of the second chunk.
    "chunk_gqa_heads_inner": dict(q=(1, 70, 4, 20), k=(1, 2, 128, 20), bias=None,
                                  causal=True, heads_inner=(True, False, False, True),
                                  kernel="chunk", reverse=True),
    # 77 keys: the tile kernel.
    "tile": dict(q=(1, 2, 6, 24), k=(1, 2, 77, 24), bias=(1, 1, 6, 77), causal=True,
                 heads_inner=(False,) * 4, kernel="tile"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_f32_attention_kernel_matches_numpy(name):
    case = CASES[name]
    rng = np.random.default_rng(len(name))
    q = rng.standard_normal(case["q"]).astype(np.float32)
    k = rng.standard_normal(case["k"]).astype(np.float32)
    v = rng.standard_normal(case["k"]).astype(np.float32)
    bias = (rng.standard_normal(case["bias"]).astype(np.float32)
            if case["bias"] else None)
    scale = 0.125
    text = lowered(case["q"], case["k"], case["k"], case["bias"], case["causal"],
                   case["heads_inner"], scale, case.get("sm_count", 132))
    # The chunk kernel's shared arrays: q rows, K, V, scores, then max, sum and rescale.
    launch = next(line for line in text.splitlines() if line.strip().startswith("^bb0(%arg")
                  and "workgroup" in line)
    assert launch.count("workgroup>") == (7 if case["kernel"] == "chunk" else 5), launch
    if "rows" in case:  # the last three: max, sum and rescale per row of the block
        assert launch.rstrip(" :{").endswith(
            f"memref<{case['rows']}xf32, #gpu.address_space<workgroup>>)"), launch
    arrays = [q, k, v] + ([bias] if bias is not None else [])
    out = run_kernel(text, "attention", arrays)
    expected = reference(q, k, v, bias, case["causal"], case["heads_inner"], scale)
    assert not np.isnan(out).any(), "elements never stored"
    assert np.abs(out - expected).max() / np.abs(expected).max() <= 1e-5
    if case.get("reverse"):
        np.testing.assert_array_equal(run_kernel(text, "attention", arrays, reverse=True), out)


def pointwise(shape):
    """y = x * x over `shape` (f32), as the CUDA target maps a pointwise loop nest to a
    launch (pt2c-map-parallel-loops-to-gpu), in generic form."""
    rank = len(shape)
    dims = ", ".join("d%d" % i for i in range(rank))
    identity = "affine_map<(%s) -> (%s)>" % (dims, dims)
    memref = "memref<%sxf32>" % "x".join(map(str, shape))
    text = (
        "func.func @square(%%x: %s, %%y: %s) {\n"
        "  linalg.generic {indexing_maps = [%s, %s], iterator_types = [%s]}\n"
        "      ins(%%x : %s) outs(%%y : %s) {\n"
        "  ^bb0(%%in: f32, %%out: f32):\n"
        "    %%0 = arith.mulf %%in, %%in : f32\n"
        "    linalg.yield %%0 : f32\n"
        "  }\n  return\n}\n" % (memref, memref, identity, identity,
                                  ", ".join(['"parallel"'] * rank), memref, memref))
    assert PT2C_OPT.exists(), "build //tools/pt2c-opt"
    result = run([PT2C_OPT, "-", "--pass-pipeline=builtin.module(func.func("
                  "convert-linalg-to-parallel-loops,pt2c-map-parallel-loops-to-gpu,"
                  "convert-parallel-loops-to-gpu,lower-affine,canonicalize))",
                  "--mlir-print-op-generic"], input=text)
    assert result.returncode == 0, result.stderr
    return result.stdout


# One dimension of 1280: two neighbours a thread, 640 pairs over 3 blocks of 256 (the
# shape efficientnet_b0_fp16's average pool got wrong when a one-dimensional nest kept
# its step); 1000: 500 pairs, the second block partial; 1281: one element a thread; two
# dimensions, collapsed.
@pytest.mark.parametrize("shape", [(1280,), (1000,), (1281,), (3, 700)])
def test_pointwise_nest_writes_every_element(shape):
    x = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)
    out = run_kernel(pointwise(shape), "square", [x])
    assert not np.isnan(out).any(), "elements never stored: %s" % np.argwhere(np.isnan(out))[:4]
    np.testing.assert_array_equal(out, x * x)
