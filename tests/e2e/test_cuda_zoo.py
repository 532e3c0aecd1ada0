"""Every model of the e2e zoo compiles for --target cuda (sm_80 and sm_90 cubins plus
PTX), and, through the fake driver, its model.so launches exactly the kernels of its
plan with the parameters its cubins expect (cuda_artifacts.run_on_fake_driver). No GPU:
numbers on one come from the bundle of tests/gpu/make_zoo_cuda_bundle.sh.

The zoo is tools/zoo_report.py's (examples/*/model.py, the transformers models, the
torchvision CNNs) plus the models only the e2e tests compile: vit_b_16, nn.LSTM/GRU
(test_rnn.py) and the timm models; their sources are imported from those files. A
quick sample runs by default: a constant copied into an output (the LSTM's zero state,
which once failed), row reductions (softmax, layer norm, pooling), convolutions and
attention with a padding mask. PT2C_FULL_SWEEP=1 (CI) adds CI_DRAW more drawn by the
day's date (harness.sweep_selection), so CI goes round the whole zoo in a few days
within its time limit; PT2C_SWEEP=all runs every model (T5's integer math.absi, which
also once failed, among them).

    python tests/e2e/test_cuda_zoo.py --write-models DIR [NAME...]

writes DIR/NAME/model.py for the named models (all by default), for
tests/gpu/make_zoo_cuda_bundle.sh.
"""
import argparse
import pathlib
import re
import sys
import textwrap

import pytest

from conftest import REPO, run
from harness import sweep_selection
from cuda_artifacts import (CUBIN, PTX, fatbin_images, fatbin_of, find_cuda_toolkit,
                            run_on_fake_driver)

SAMPLE = ["gpt_block", "lstm_bidirectional", "resnet18", "transformer"]


def cuda_zoo():
    """name -> model.py (a path, or source text), in a stable order."""
    import test_rnn
    import test_timm
    import test_vit
    import zoo_report

    models = zoo_report.zoo()
    models["vit_b_16"] = test_vit.VIT_B_16
    models.update(test_rnn.MODELS)
    for name in test_timm.MODELS:
        models["timm_" + name] = test_timm.timm_model_source(name)
    return models


def write_model_py(source, directory):
    """The model.py of a zoo entry, written into `directory` when it is source text."""
    if isinstance(source, pathlib.Path):
        return source
    path = pathlib.Path(directory) / "model.py"
    path.write_text(textwrap.dedent(source))
    return path


# How many zoo models CI's daily draw adds to the sample (each compile for two GPU
# architectures takes up to a minute on the 2-core CI machine).
CI_DRAW = 10


@pytest.mark.parametrize("name", sweep_selection(cuda_zoo(), SAMPLE, CI_DRAW))
def test_zoo_model_compiles_for_cuda(name, pt2c, cpp_host, python, tmp_path):
    if not find_cuda_toolkit():
        pytest.skip("no CUDA toolkit (ptxas, fatbinary): set PT2C_CUDA_HOME")
    model_py = write_model_py(cuda_zoo()[name], tmp_path)
    so = tmp_path / "model_cuda.so"
    result = run([pt2c, model_py, "--target", "cuda", "-o", so])
    assert result.returncode == 0, result.stderr
    assert sorted(fatbin_images(fatbin_of(so))) == [(PTX, 90), (CUBIN, 80), (CUBIN, 90)]
    if "def signatures(" in model_py.read_text():
        # A multi-graph model (the generation examples) is run by its own C++ program:
        # test_generate.py drives it through the fake driver, tests/gpu on a GPU.
        return
    data = tmp_path / "data"  # inputs of the right dtypes and shapes (token ids too)
    made = run([python, REPO / "tools" / "eager_reference.py", model_py, data, "--seed", "7"])
    assert made.returncode == 0, made.stderr
    inputs = sorted(data.glob("input*.npy"), key=lambda p: int(p.stem[5:]))
    out = tmp_path / "fake"
    out.mkdir()
    run_on_fake_driver(cpp_host, so, inputs, out)


def main():
    parser = argparse.ArgumentParser(description="Write the CUDA zoo's model.py files.")
    parser.add_argument("--write-models", type=pathlib.Path, required=True, metavar="DIR")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    zoo = cuda_zoo()
    unknown = [n for n in args.names if n not in zoo]
    if unknown:
        sys.exit(f"not in the zoo: {', '.join(unknown)} (the zoo: {', '.join(zoo)})")
    for name in args.names or zoo:
        directory = args.write_models / name
        directory.mkdir(parents=True, exist_ok=True)
        source = zoo[name]
        text = source.read_text() if isinstance(source, pathlib.Path) else textwrap.dedent(source)
        (directory / "model.py").write_text(text)
        if isinstance(source, pathlib.Path):
            write_neighbours(source, text, args.write_models)
        print(name)


def write_neighbours(source, text, out):
    """What an example's model.py loads from beside its folder (resnet18_fp16 reads
    "resnet18"/model.py, the fp16 BERT "seeded_weights.py"), written beside it in `out`."""
    examples = source.parent.parent
    for quoted in set(re.findall(r'"([A-Za-z0-9_.]+)"', text)):
        found = examples / quoted
        if found.is_file() and found.suffix == ".py":
            (out / quoted).write_text(found.read_text())
        elif (found / "model.py").is_file() and found != source.parent:
            (out / quoted).mkdir(parents=True, exist_ok=True)
            (out / quoted / "model.py").write_text((found / "model.py").read_text())


if __name__ == "__main__":
    main()
