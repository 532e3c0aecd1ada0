"""Writes fresh random inputs for a model.py and PyTorch eager's outputs for them, as
.npy files: input0.npy, input1.npy, ... and ref0.npy, ref1.npy, ...

    python tools/eager_reference.py examples/mlp/model.py OUT_DIR [--seed 7]

Inputs have the shapes and dtypes of the model's example_inputs (floating inputs are
drawn from a normal distribution, integer inputs copied), so they differ from the
examples the model was traced with. bf16 inputs are written as their bits (uint16, which
pt2c reads as bf16), bf16 references widened to f32.
"""
import argparse
import importlib.util
import pathlib

import numpy as np
import torch


def load(path):
    spec = importlib.util.spec_from_file_location("user_model", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model = module.model if isinstance(module.model, torch.nn.Module) else module.model()
    inputs = module.example_inputs
    return model.eval(), tuple(inputs() if callable(inputs) else inputs)


def flatten(value):
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in flatten(v)]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in flatten(v)]
    return []


def npy_array(tensor):
    """The tensor as a NumPy array; NumPy has no bfloat16, so bf16 becomes its bit patterns
    as uint16, which pt2c's .npy reader takes as bf16 (tools/host/npy.h)."""
    if tensor.dtype == torch.bfloat16:
        return tensor.contiguous().view(torch.int16).numpy().view(np.uint16)
    return tensor.numpy()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("out_dir")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    out = pathlib.Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model, examples = load(args.model)
    generator = torch.Generator().manual_seed(args.seed)
    inputs = [torch.randn(e.shape, generator=generator, dtype=e.dtype)
              if e.is_floating_point() else e.clone() for e in examples]
    for i, t in enumerate(inputs):  # before the run: a model may write its inputs
        np.save(out / f"input{i}.npy", npy_array(t))
    with torch.no_grad():
        outputs = flatten(model(*inputs))
    for i, t in enumerate(outputs):  # bf16 references widened to f32 (exact)
        np.save(out / f"ref{i}.npy", (t.float() if t.dtype == torch.bfloat16 else t).numpy())
    print(f"wrote {len(inputs)} inputs and {len(outputs)} references to {out}")


if __name__ == "__main__":
    main()
