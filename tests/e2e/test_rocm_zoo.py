"""Every model of the e2e zoo (test_cuda_zoo.py's: examples/*/model.py, the transformers
models, the torchvision CNNs, vit_b_16, the RNNs and the timm models) compiles for
--target rocm: one code object per default architecture, each checked with llvm-readobj
(rocm_artifacts.check_plan_against_code_objects), and, through the fake HIP, its model.so
launches exactly the kernels of its plan. The models are selected as test_cuda_zoo.py
selects them (harness.sweep_selection); CI's daily draw of CI_DRAW models takes none of
those the CUDA zoo's draw took that day (both compile the same kernel IR), so that
together they cover more of the zoo."""
import pytest

from conftest import REPO, run
from harness import sweep_selection
from rocm_artifacts import (check_code_objects, check_plan_against_code_objects, find_llvm_tool,
                            run_on_fake_hip)
import test_cuda_zoo
from test_cuda_zoo import SAMPLE, cuda_zoo, write_model_py


CI_DRAW = 6
CUDA_SELECTION = sweep_selection(cuda_zoo(), SAMPLE, test_cuda_zoo.CI_DRAW)


@pytest.mark.parametrize("name", sweep_selection(cuda_zoo(), SAMPLE, CI_DRAW, exclude=CUDA_SELECTION))
def test_zoo_model_compiles_for_rocm(name, pt2c, cpp_host, python, tmp_path):
    if not find_llvm_tool("llvm-readobj"):
        pytest.skip("no llvm-readobj-19 (Debian package llvm-19)")
    model_py = write_model_py(cuda_zoo()[name], tmp_path)
    so = tmp_path / "model_rocm.so"
    result = run([pt2c, model_py, "--target", "rocm", "-o", so])
    assert result.returncode == 0, result.stderr
    if "def signatures(" in model_py.read_text():
        # A plan set (several graphs): the code objects are checked, the plans not
        # (read_plan reads one graph's); its own C++ program runs it (test_generate.py).
        check_code_objects(so, tmp_path)
        return
    check_plan_against_code_objects(so, tmp_path)
    data = tmp_path / "data"  # inputs of the right dtypes and shapes (token ids too)
    made = run([python, REPO / "tools" / "eager_reference.py", model_py, data, "--seed", "7"])
    assert made.returncode == 0, made.stderr
    inputs = sorted(data.glob("input*.npy"), key=lambda p: int(p.stem[5:]))
    out = tmp_path / "fake"
    out.mkdir()
    run_on_fake_hip(cpp_host, so, inputs, out)
