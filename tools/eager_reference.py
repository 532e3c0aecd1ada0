"""Writes fresh random inputs for a model.py and PyTorch eager's outputs for them, as
.npy files: input0.npy, input1.npy, ... and ref0.npy, ref1.npy, ...

    python tools/eager_reference.py examples/mlp/model.py OUT_DIR [--seed 7]

Inputs have the shapes and dtypes of the model's example_inputs (floating inputs are
drawn from a normal distribution, integer inputs copied), so they differ from the
examples the model was traced with. `--shapes` draws inputs of other sizes for a model
with dynamic_shapes: floating inputs as above, integer inputs uniformly from the range
of the example's values (token ids stay ids, 0/1 masks stay masks). bf16 inputs are written as their bits (uint16, which
pt2c reads as bf16), bf16 references widened to f32.
"""
import argparse
import json
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


def fresh_input(example, shape, generator):
    if example.is_floating_point():
        return torch.randn(shape, generator=generator, dtype=example.dtype)
    if list(shape) == list(example.shape):
        return example.clone()
    low, high = int(example.min()), int(example.max())
    return torch.randint(low, high + 1, shape, generator=generator, dtype=example.dtype)


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
    parser.add_argument("--shapes", type=json.loads, default=None,
                        help='each input\'s shape, as JSON: "[[3, 5, 16], [3, 5]]"')
    args = parser.parse_args()
    out = pathlib.Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model, examples = load(args.model)
    generator = torch.Generator().manual_seed(args.seed)
    shapes = args.shapes or [list(e.shape) for e in examples]
    inputs = [fresh_input(e, shape, generator) for e, shape in zip(examples, shapes)]
    for i, t in enumerate(inputs):  # before the run: a model may write its inputs
        np.save(out / f"input{i}.npy", npy_array(t))
    with torch.no_grad():
        outputs = flatten(model(*inputs))
    # bf16 references widened to f32 (exact); in C order, the only one pt2c's .npy reader
    # takes (torch.nonzero's result, a transposed output, are column-major)
    for i, t in enumerate(outputs):
        t = t.float() if t.dtype == torch.bfloat16 else t
        np.save(out / f"ref{i}.npy", t.contiguous().numpy())
    print(f"wrote {len(inputs)} inputs and {len(outputs)} references to {out}")


if __name__ == "__main__":
    main()
