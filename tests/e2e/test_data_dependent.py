"""Data-dependent sizes compiled for the CPU: torch.nonzero, boolean-mask indexing and
masked_select, whose row counts depend on the input values. The exporter makes each count
a symbol (u0, u1, ...) bounded by the element count; the run binds it once the op's
kernel computed it, so one .so gives eager's result (shapes included) for inputs that
select other elements than the traced ones did. Each check runs at two fresh seeds from
the C++ host, which sizes outputs at the bounds and reads the run's sizes back
(pt2c_model_last_output_shape).

    python -m pytest tests/e2e/test_data_dependent.py
"""
from conftest import run
from harness import check_against_eager, check_at_seeds, write_model


def test_nonzero_and_mask_indexing_match_eager(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, """
        import torch

        class Select(torch.nn.Module):
            def forward(self, x, boxes, scores):
                coords = torch.nonzero(x > 0.3)                  # [u0, 2]
                picked = x[x > 0] * 2                            # 1-D, [u1]
                kept = boxes[scores > 0.5] + 1                   # rows of a 2-D tensor
                where = torch.where(scores < -0.5)[0]            # nonzero, then its column
                both = torch.cat([x[x < -1], picked])            # u + u
                chosen = torch.masked_select(x, scores[:4, None] > 0)  # broadcast mask
                return coords, picked, kept, where, both, chosen, picked.sum(), kept.mean(0)

        model = Select()
        example_inputs = (torch.randn(4, 6), torch.randn(10, 4), torch.randn(10))
    """)
    refs = check_at_seeds(pt2c, cpp_host, python, model, tmp_path)
    # The two seeds selected different numbers of elements: sizes really vary.
    assert [r[0].shape for r in refs][0] != [r[0].shape for r in refs][1] or \
        [r[1].shape for r in refs][0] != [r[1].shape for r in refs][1]


def test_selection_of_nothing_and_of_everything(pt2c, cpp_host, python, tmp_path):
    # Counts at both ends of the range: 0 rows (the bound's buffer, nothing written) and
    # every element (the bound itself).
    model = write_model(tmp_path, """
        import torch

        class Ends(torch.nn.Module):
            def forward(self, x):
                return x[x > 1e9], torch.nonzero(x.abs() >= 0), x[x.abs() >= 0].sum()

        model = Ends()
        example_inputs = (torch.randn(3, 5),)
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path)


def test_selections_of_selections(pt2c, cpp_host, python, tmp_path):
    # A mask over an earlier selection (detection post-processing filters boxes twice):
    # the second count is bounded by the first's bound and counted over the rows the
    # first selection has in this run.
    model = write_model(tmp_path, """
        import torch

        class Twice(torch.nn.Module):
            def forward(self, boxes, scores):
                keep = scores > -0.5
                boxes, scores = boxes[keep], scores[keep]
                wide = boxes[:, 2] > boxes[:, 0]
                return boxes[wide] * 2, scores[wide], torch.nonzero(boxes > 0)

        model = Twice()
        example_inputs = (torch.randn(12, 4), torch.randn(12))
    """)
    check_at_seeds(pt2c, cpp_host, python, model, tmp_path)


def test_gpu_targets_say_data_dependent_sizes_are_cpu_only(pt2c, tmp_path):
    model = write_model(tmp_path, """
        import torch

        class Pick(torch.nn.Module):
            def forward(self, x):
                return x[x > 0]

        model = Pick()
        example_inputs = (torch.randn(8),)
    """)
    result = run([pt2c, model, "--target", "cuda:sm_90", "-o", tmp_path / "pick.so"])
    assert result.returncode != 0
    assert "model.py:6" in result.stderr and "--target cpu only" in result.stderr, result.stderr
    assert not (tmp_path / "pick.so").exists()
