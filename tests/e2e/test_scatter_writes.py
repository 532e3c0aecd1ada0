"""Writes at computed positions and through strided views, compiled by pt2c against
PyTorch eager on fresh random inputs (max|diff| / max|ref| <= 1e-4): index_put_
(x[idx] = v, x[:, idx] = v, x[i, j] = v, x[mask] = c, accumulate=True), index_fill_,
a KV-style cache buffer written by index_put_ at a step counter over several runs
and at a position passed at run time,
writes through slices with a step and through diagonal(), scatter_, scatter_add_ and
index_add_,
max pooling whose indices feed MaxUnpool2d (tiling and overlapping windows, and a
SegNet-style encoder-decoder on a 64 x 64 map) and a gather, and sorts longer than the 64-step selection (a full
sort of 1000 logits, top-100); the writes that stay unsupported fail with the
op, the model.py line and the reason.

Most index tensors are constants of the model (a traced index is a constant of the
graph, like every tensor the model makes without its inputs); the decode step takes its
position as an input. Repeated indices are tested with accumulate=True only, where
eager's result does not depend on the write order."""
import numpy as np
import torch

from conftest import env_without_python, load_model_file, run
from harness import check_against_eager, compile_model, write_model
from test_errors import assert_fails_cleanly


def test_index_put_forms(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, """
        import torch

        class M(torch.nn.Module):
            def forward(self, x, v, rows):
                idx = torch.tensor([0, 2, -1])
                a = x.clone()
                a[idx] = v                                 # rows, negative index
                b = x.clone()
                b[:, torch.tensor([1, 4])] = rows          # columns, broadcast value
                c = x.clone()
                c[torch.tensor([0, 3]), torch.tensor([5, 1])] = 7.0   # single elements
                d = x.clone()
                d.index_put_((torch.tensor([1, 1, 4, 1]),), v.repeat(2, 1)[:4],
                             accumulate=True)              # repeated rows add up
                e = x.clone()
                e[x > 0.5] = -1.0                          # bool mask, one value
                f = x.clone()
                f[:, torch.tensor([0, 2])] *= 2            # read-modify-write
                return a, b, c, d, e, f

        model = M()
        example_inputs = (torch.randn(5, 6), torch.randn(3, 6), torch.randn(5, 1))
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)


def test_index_put_non_adjacent_dims_and_index_fill(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, """
        import torch

        class M(torch.nn.Module):
            def forward(self, x, v):
                a = x.clone()
                a[torch.tensor([1, 0]), :, torch.tensor([3, 2])] = v   # index dims lead
                b = x.clone()
                b[:, torch.tensor([0, 2])] = 0.25                      # index_fill_
                c = x.clone()
                c.index_fill_(2, torch.tensor([-1, 1]), -3.0)
                return a * 1.0, b, c

        model = M()
        example_inputs = (torch.randn(2, 3, 4), torch.randn(2, 3))
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)


def test_strided_and_diagonal_writes(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, """
        import torch

        class M(torch.nn.Module):
            def forward(self, x, y):
                a = x.clone()
                a[:, ::2] = y                   # copy_ into a step-2 slice
                b = x.clone()
                b[1::3] += 1                    # add_ through a step-3 slice
                c = x.clone()
                c.diagonal().fill_(0)
                d = x.clone()
                d.diagonal(offset=-1).mul_(10)  # below the diagonal
                e = x.clone().unsqueeze(0).repeat(2, 1, 1)
                e.diagonal(1, 1, 2).add_(x[:2, 1:] * 3)   # batched, above it
                f = x.clone()
                f.expand(1, 6, 6).mul_(2)       # an expand that adds a unit dim
                return a, b, c, d, e, f

        model = M()
        example_inputs = (torch.randn(6, 6), torch.randn(6, 3))
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)


def test_max_pool_indices_unpool_and_gather(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, """
        import torch
        from torch import nn

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 4, 3, padding=1)
                self.pool = nn.MaxPool2d(2, return_indices=True)
                self.unpool = nn.MaxUnpool2d(2)
                self.overlap = nn.MaxPool2d(3, stride=2, padding=1, return_indices=True)

            def forward(self, x):
                y = self.conv(x)
                pooled, at = self.pool(y)
                back = self.unpool(pooled, at)
                # ties: the first maximum of each window, as eager's loop keeps it
                steps = (y > 0).float()
                _, tie_at = self.pool(steps)
                low, low_at = self.overlap(y)
                picked = y.flatten(2).gather(2, low_at.flatten(2))
                # overlapping windows: the general one-hot unpooling
                spread = nn.functional.max_unpool2d(low, low_at, 3, 2, 1,
                                                    output_size=y.shape[2:])
                return back, at, tie_at, low_at, picked - low.flatten(2), spread

        def model():
            torch.manual_seed(0)
            return M()

        example_inputs = (torch.randn(2, 3, 8, 10),)
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)


def test_segnet_style_unpooling_of_a_large_map(pt2c, cpp_host, python, tmp_path):
    # 8 channels of 64 x 64: a one-hot unpooling table would have 8 * 1024 * 4096
    # entries (over pt2c's bound); tiling windows unpool in O(H * W) instead.
    model = write_model(tmp_path, """
        import torch
        from torch import nn

        class EncoderDecoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.enc = nn.Conv2d(3, 8, 3, padding=1)
                self.pool = nn.MaxPool2d(2, 2, return_indices=True)
                self.mid = nn.Conv2d(8, 8, 3, padding=1)
                self.unpool = nn.MaxUnpool2d(2, 2)
                self.dec = nn.Conv2d(8, 2, 3, padding=1)

            def forward(self, x):
                y, at = self.pool(torch.relu(self.enc(x)))
                return self.dec(self.unpool(torch.relu(self.mid(y)), at))

        def model():
            torch.manual_seed(0)
            return EncoderDecoder()

        example_inputs = (torch.randn(1, 3, 64, 64),)
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)


def test_scatter_scatter_add_and_index_add(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, """
        import torch

        class M(torch.nn.Module):
            def forward(self, x, src):
                labels = torch.tensor([[3], [0], [4]])
                one_hot = torch.zeros(3, 5).scatter_(1, labels, 1.0)
                rows = torch.tensor([[2, 0, 1, 2], [1, 2, 0, 0]])
                placed = x.scatter(0, rows, src)        # src larger than index
                counts = torch.zeros(3, 4).scatter_add_(0, rows, src[:2] * 2)
                per_row = x.scatter_add(1, rows.t()[:3], src[:, :2])   # repeats add up
                columns = x.index_add(1, torch.tensor([0, 3, 0]), src[:, :3], alpha=0.5)
                y = x.clone()
                y.index_add_(0, torch.tensor([2, 2]), src[:2, 1:])
                return one_hot, placed, counts, per_row, columns, y

        model = M()
        example_inputs = (torch.randn(3, 4), torch.randn(3, 5))
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)


def test_sort_and_topk_beyond_step_selection(pt2c, cpp_host, python, tmp_path):
    # The logits are the input itself: a computed one could round differently from
    # eager's and swap two nearly equal logits, which no tolerance forgives in indices.
    model = write_model(tmp_path, """
        import torch

        class RankLogits(torch.nn.Module):
            def forward(self, logits):
                ranked, classes = torch.sort(logits, dim=-1, descending=True)
                top, top_at = torch.topk(logits, 100, largest=False)
                # ties and NaNs: stable sort keeps positions, NaN sorts last
                coarse = (logits > 0).float() + (logits > 0.5).float()   # 0, 1, 2
                coarse = torch.where(logits > 1.5, torch.full_like(logits, float("nan")),
                                     coarse)
                tied, tied_at = torch.sort(coarse, dim=1, stable=True)
                down, down_at = torch.sort(coarse[:, :300].t(), dim=0, descending=True,
                                           stable=True)
                return (ranked, classes, top, top_at, tied, tied_at, down.contiguous(),
                        down_at.contiguous())

        model = RankLogits()
        example_inputs = (torch.randn(2, 1000),)
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)


KV_CACHE = """
    import torch
    from torch import nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("cache", torch.zeros(1, 2, 8, 4))
            self.register_buffer("hits", torch.zeros(8))
            self.register_buffer("pos", torch.zeros(1, dtype=torch.long))

        def forward(self, k):
            at = self.pos + torch.arange(2)
            at = torch.where(at >= 8, at - 8, at)     # wraps around
            self.cache[:, :, at] = k                   # index_put_ on a buffer
            self.hits.index_put_((at,), torch.ones(2), accumulate=True)
            self.pos.add_(2)
            self.pos.copy_(torch.where(self.pos >= 8, self.pos - 8, self.pos))
            return self.cache * 1.0, self.hits + 0.0

    def model():
        return M()

    example_inputs = (torch.randn(1, 2, 2, 4),)
"""


def test_index_put_into_a_buffer_over_runs(pt2c, cpp_host, tmp_path):
    model_py = write_model(tmp_path, KV_CACHE)
    so = compile_model(pt2c, model_py, tmp_path)
    k = torch.randn(1, 2, 2, 4, generator=torch.Generator().manual_seed(3))
    np.save(tmp_path / "k.npy", k.numpy())
    for runs in (1, 5):  # 5 runs wrap around the 8 cache positions
        module, _ = load_model_file(model_py)  # fresh state, as the .so starts with
        with torch.no_grad():
            for _ in range(runs):
                refs = module(k)
        assert float(refs[1].sum()) == 2 * runs
        cmd = [cpp_host, so, "--input", tmp_path / "k.npy", "--runs", str(runs),
               "--tolerance", "1e-5"]
        for i, r in enumerate(refs):
            np.save(tmp_path / f"ref{runs}_{i}.npy", r.numpy())
            cmd += ["--reference", tmp_path / f"ref{runs}_{i}.npy"]
        result = run(cmd, env=env_without_python())
        assert result.returncode == 0, result.stdout + result.stderr


def test_mask_write_of_several_values_is_refused(pt2c, tmp_path):
    # Which element takes which value depends on how many the mask selects.
    model = write_model(tmp_path, """
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                y = x.clone()
                y[x > 0] = torch.arange(4.0)
                return y

        model = M()
        example_inputs = (torch.tensor([[1.0, -1, 2, 3], [4, -5, -6, -7]]),)
    """)
    out = tmp_path / "model.so"
    result = run([pt2c, model, "-o", out])
    assert_fails_cleanly(result, out, "model.py:7: error:", "aten.index_put",
                         "x[mask] = v with a bool mask and a value of several elements")


def test_in_place_write_into_an_overlapping_expand_fails_as_in_eager(pt2c, tmp_path):
    # Eager refuses it while tracing; pt2c passes its message on with the line.
    model = write_model(tmp_path, """
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                y = x.clone()
                y.expand(4, 3).add_(1)
                return y

        model = M()
        example_inputs = (torch.randn(1, 3),)
    """)
    out = tmp_path / "model.so"
    result = run([pt2c, model, "-o", out])
    assert_fails_cleanly(result, out, "line 7", "more than one element of the written-to "
                         "tensor refers to a single memory location")


DECODE_STEP = """
    import torch
    from torch import nn

    class DecodeStep(nn.Module):
        # One decoding step: the new key goes into the cache at the position the caller
        # passes (a run-time index, not a constant of the graph), then attention reads
        # the whole cache.
        def __init__(self):
            super().__init__()
            self.register_buffer("cache", torch.zeros(1, 2, 8, 4))

        def forward(self, q, k, pos):
            self.cache[:, :, pos] = k
            scores = (q @ self.cache.transpose(-1, -2)).softmax(-1)
            return scores @ self.cache, self.cache * 1.0

    def model():
        return DecodeStep()

    example_inputs = (torch.randn(1, 2, 1, 4), torch.randn(1, 2, 1, 4),
                      torch.tensor([3]))
"""


def test_kv_cache_write_at_a_run_time_position(pt2c, cpp_host, tmp_path):
    model_py = write_model(tmp_path, DECODE_STEP)
    so = compile_model(pt2c, model_py, tmp_path)
    generator = torch.Generator().manual_seed(5)
    q, k = (torch.randn(1, 2, 1, 4, generator=generator) for _ in range(2))
    np.save(tmp_path / "q.npy", q.numpy())
    np.save(tmp_path / "k.npy", k.numpy())
    for pos in (0, 6, -1):  # -1: the last position, as in eager
        module, _ = load_model_file(model_py)
        with torch.no_grad():
            refs = module(q, k, torch.tensor([pos]))
        assert float(refs[1][0, :, pos].abs().sum()) > 0
        np.save(tmp_path / "pos.npy", np.array([pos], dtype=np.int64))
        cmd = [cpp_host, so, "--tolerance", "1e-5"]
        for name in ("q", "k", "pos"):
            cmd += ["--input", tmp_path / f"{name}.npy"]
        for i, r in enumerate(refs):
            np.save(tmp_path / f"ref{i}.npy", r.numpy())
            cmd += ["--reference", tmp_path / f"ref{i}.npy"]
        result = run(cmd, env=env_without_python())
        assert result.returncode == 0, result.stdout + result.stderr
