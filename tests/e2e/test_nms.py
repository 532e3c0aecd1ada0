"""torchvision.ops.nms compiled for the CPU: the exporter makes the kept-box count a
data-dependent symbol (like nonzero's row count), pt2c computes it with torchvision's
greedy CPU kernel (prim.nms_keep, then a prim.nonzero that binds the count), and the
run returns eager's indices, in eager's order, for boxes that keep other counts than the
traced ones did.

    python -m pytest tests/e2e/test_nms.py
"""
import numpy as np
import torch

from conftest import load_model_file
from harness import compile_model, eager_data, run_against_references, write_model

# Boxes from two random [N, 2] tensors (corners, then sizes: x2 > x1, y2 > y1, many
# overlaps), scores rounded to halves so that many tie (the stable order decides), nms at
# three thresholds, over f64 boxes, and over a selection of the boxes that is empty at
# times (0 boxes to nms, 0 kept).
MODEL = """
    import torch
    import torchvision

    class Detect(torch.nn.Module):
        def forward(self, corners, sizes, scores):
            boxes = torch.cat([corners, corners + sizes.abs() + 0.1], dim=1) * 10
            ties = torch.round(scores * 2) / 2
            kept = [torchvision.ops.nms(boxes, ties, t) for t in (0.3, 0.5, 0.7)]
            wide = torchvision.ops.nms(boxes.double(), scores.double(), 0.5)
            sure = scores > 1.0
            picked = torchvision.ops.nms(boxes[sure], scores[sure], 0.5)
            return (*kept, wide, picked, boxes[kept[1]])

    model = Detect()
    example_inputs = (torch.randn(40, 2), torch.randn(40, 2), torch.randn(40))
"""


def references(model_py, data_dir, inputs):
    """Writes `inputs` (numpy arrays) and eager's outputs for them; their paths."""
    model, _ = load_model_file(model_py)
    data_dir.mkdir()
    paths = []
    for i, array in enumerate(inputs):
        paths.append(data_dir / f"input{i}.npy")
        np.save(paths[-1], array)
    with torch.no_grad():
        outputs = model(*[torch.from_numpy(a) for a in inputs])
    refs = []
    for i, t in enumerate(outputs):
        refs.append(data_dir / f"ref{i}.npy")
        np.save(refs[-1], t.contiguous().numpy())
    return paths, refs


def test_nms_matches_eager(pt2c, cpp_host, python, tmp_path):
    model_py = write_model(tmp_path, MODEL)
    so = compile_model(pt2c, model_py, tmp_path)
    counts = set()
    # Fresh random inputs: other boxes, other counts kept at each threshold.
    for seed in (7, 8, 9):
        inputs, refs = eager_data(python, model_py, tmp_path / f"data{seed}", seed)
        run_against_references(cpp_host, so, inputs, refs, tmp_path / f"out{seed}", 0)
        counts.add(tuple(np.load(r).shape[0] for r in refs[:5]))
    rng = np.random.default_rng(0)
    n = 40
    # Boxes far apart (every one kept) with scores below the selection's cut (0 boxes to
    # the last nms); and one box repeated (one kept by each nms), every score tied.
    apart = (np.stack([np.arange(n) * 3.0, np.zeros(n)], 1).astype(np.float32),
             np.full((n, 2), 0.05, np.float32), rng.uniform(-1, 0.9, n).astype(np.float32))
    same = (np.zeros((n, 2), np.float32), np.ones((n, 2), np.float32),
            np.full(n, 1.5, np.float32))
    for name, inputs in (("apart", apart), ("same", same)):
        paths, refs = references(model_py, tmp_path / name, inputs)
        run_against_references(cpp_host, so, paths, refs, tmp_path / f"out_{name}", 0)
        counts.add(tuple(np.load(r).shape[0] for r in refs[:5]))
    assert (n, n, n, n, 0) in counts and (1, 1, 1, 1, 1) in counts
    assert len(counts) >= 4, counts  # the random seeds kept different counts too


def test_batched_nms_matches_eager(pt2c, cpp_host, python, tmp_path):
    # Per-class nms as detection heads call it after a score filter (RetinaNet, FCOS,
    # Faster R-CNN's box predictor): the exporter traces batched_nms as one nms over
    # boxes offset per class, and the kept count follows the filtered count.
    model_py = write_model(tmp_path, """
        import torch
        import torchvision

        class PostProcess(torch.nn.Module):
            def forward(self, corners, sizes, logits):
                boxes = torch.cat([corners, corners + sizes.abs() + 0.1], dim=1) * 10
                scores, labels = logits.softmax(-1).max(-1)
                sure = scores > 0.4
                boxes, scores, labels = boxes[sure], scores[sure], labels[sure]
                keep = torchvision.ops.batched_nms(boxes, scores, labels, 0.5)
                return boxes[keep], scores[keep], labels[keep]

        model = PostProcess()
        example_inputs = (torch.randn(60, 2), torch.randn(60, 2), torch.randn(60, 3) * 2)
    """)
    so = compile_model(pt2c, model_py, tmp_path)
    kept = set()
    for seed in (7, 8, 9):
        inputs, refs = eager_data(python, model_py, tmp_path / f"data{seed}", seed)
        # Softmax may round its last bit otherwise; an index off by one is far above this.
        run_against_references(cpp_host, so, inputs, refs, tmp_path / f"out{seed}", 1e-6)
        kept.add(np.load(refs[0]).shape[0])
    assert len(kept) > 1, kept
