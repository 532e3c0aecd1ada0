"""Kernels whose bufferization leaves a memref.copy between strided views, which MLIR
lowers to a call of the runtime function memrefCopy (runtime/src/memref_copy.c): the
.so must load and match PyTorch eager. The trigger is Swin's attention-mask build,
constant writes into 2-D slices of a fresh tensor (torchvision swin_t has 45 such
copies); a concatenation of transposed and strided slices rides along."""
from harness import check_against_eager, write_model


def test_slice_writes_match_eager(pt2c, cpp_host, python, tmp_path):
    model = write_model(tmp_path, """
        import torch

        class M(torch.nn.Module):
            def forward(self, x, y):
                mask = x.new_zeros((6, 8))
                count = 0
                for h in ((0, -4), (-4, -2), (-2, None)):
                    for w in ((0, -4), (-4, -2), (-2, None)):
                        mask[h[0]:h[1], w[0]:w[1]] = count
                        count += 1
                joined = torch.cat([y.transpose(0, 1)[:, 1:], y[::2, :].t()], dim=1)
                return x + mask, joined * 2

        model = M()
        example_inputs = (torch.randn(2, 6, 8), torch.randn(6, 4))
    """)
    check_against_eager(pt2c, cpp_host, python, model, tmp_path, tolerance=1e-4)
