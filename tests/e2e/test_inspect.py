"""`pt2c inspect`: what a compiled model.so (CPU and CUDA) and an exported model.pt2c hold,
read from the files without running them; `--svg` draws a model.so's steps."""
import xml.etree.ElementTree as ET

from conftest import run
from harness import write_model

MODEL = """
    import torch
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, stride=2, padding=1)
            self.fc = nn.Linear(8 * 8 * 8, 5)

        def forward(self, x):
            y = torch.relu(self.conv(x))
            return self.fc(y.flatten(1))

    def model():
        torch.manual_seed(0)
        return Net().eval()

    def example_inputs():
        return (torch.randn(2, 3, 16, 16),)
"""


def test_inspect_a_cpu_library_and_draw_its_steps(tmp_path, pt2c):
    model_py = write_model(tmp_path, MODEL)
    so, svg = tmp_path / "net.so", tmp_path / "steps.svg"
    assert run([pt2c, model_py, "-o", so, "-q"]).returncode == 0
    result = run([pt2c, "inspect", so, "--svg", svg])
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "pt2c model library, C ABI version 9, CPU, 1 graph" in out
    assert "x f32 [2, 3, 16, 16]" in out
    assert "f32 [2, 5]" in out
    assert "conv f32 3->8 kernel 3x3 stride 2x2 pad 1x1 groups 1, input 16x16 + bias, relu" in out
    assert "gemm f32 m=2 n=5 k=512" in out and "(microkernels;" in out
    assert "[fallback of step" in out
    # The drawing: one box per input, output and step that runs (fallbacks left out).
    steps = [l for l in out.splitlines() if l.startswith("    ") and ": " in l and l.strip()[0].isdigit()]
    running = [l for l in steps if "[fallback of step" not in l]
    root = ET.parse(svg).getroot()
    rects = root.findall(".//{http://www.w3.org/2000/svg}rect")
    assert len(rects) == len(running) + 2
    assert len(root.findall(".//{http://www.w3.org/2000/svg}path")) >= len(running) + 1


def test_inspect_a_cuda_library_names_its_kernels_and_libraries(tmp_path, pt2c):
    so = tmp_path / "net_cuda.so"
    built = run([pt2c, write_model(tmp_path, MODEL), "-o", so, "--target", "cuda", "-q"])
    assert built.returncode == 0, built.stderr
    result = run([pt2c, "inspect", so])
    assert result.returncode == 0, result.stderr
    assert "CUDA, 1 graph" in result.stdout
    assert "GPU code: cubins for sm_80, sm_90" in result.stdout  # --target cuda's default
    assert "(cuDNN;" in result.stdout and "(cuBLASLt;" in result.stdout
    assert " grid " in result.stdout and " block " in result.stdout


def test_inspect_an_artifact_lists_ops_with_their_model_lines(tmp_path, pt2c):
    model_py = write_model(tmp_path, MODEL)
    artifact = tmp_path / "net.pt2c"
    assert run([pt2c, "export", model_py, "-o", artifact]).returncode == 0
    result = run([pt2c, "inspect", artifact])
    assert result.returncode == 0, result.stderr
    assert "pt2c artifact, 1 graph" in result.stdout
    assert "model.py:" in result.stdout and "aten::convolution" in result.stdout
    refused = run([pt2c, "inspect", artifact, "--svg", tmp_path / "x.svg"])
    assert refused.returncode == 1 and "--svg draws a compiled model.so" in refused.stderr
    assert not (tmp_path / "x.svg").exists()


def test_inspect_refuses_what_is_not_a_model(tmp_path, pt2c):
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"not a model at all")
    result = run([pt2c, "inspect", junk])
    assert result.returncode == 1 and "pt2c: error:" in result.stderr
    libc = "/lib/x86_64-linux-gnu/libc.so.6"
    result = run([pt2c, "inspect", libc])
    assert result.returncode == 1 and "holds no pt2c plan" in result.stderr
