"""Build machine side of tests/gpu/multigraph: the steps check.py runs on the GPU, in
order on one model, with eager's outputs for them (the running sum carries over between
steps, as in the module): writes DIR/steps.json and DIR/*.npy.

    python make_steps.py MODEL_PY DIR
"""
import importlib.util
import json
import os
import sys

import numpy as np
import torch


def main():
    model_py, out = sys.argv[1], sys.argv[2]
    spec = importlib.util.spec_from_file_location("multigraph_model", model_py)
    source = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(source)
    module = source.model.eval()
    g = torch.Generator().manual_seed(5)
    width = module.big.in_features
    x2, x8 = torch.randn(2, width, generator=g), torch.randn(8, width, generator=g)
    mask = torch.rand(2, 8, generator=g) > 0.5
    plan = [("forward", [x2, mask]), ("forward", [x2, None]), ("forward", [x8, None]),
            ("encode", [x2]), ("total", [torch.zeros(8)]), ("forward", [x8, None]),
            ("total", [torch.zeros(8)])]
    steps = []
    with torch.no_grad():
        for i, (method, inputs) in enumerate(plan):
            names = []
            for j, t in enumerate(inputs):
                if t is None:
                    names.append(None)
                    continue
                names.append("in%d_%d.npy" % (i, j))
                np.save(os.path.join(out, names[-1]), t.numpy())
            ref = getattr(module, method)(*inputs)
            np.save(os.path.join(out, "ref%d.npy" % i), ref.numpy())
            steps.append({"method": method, "inputs": names, "ref": "ref%d.npy" % i})
    weights = sum(p.numel() * 4 for p in module.parameters())
    with open(os.path.join(out, "steps.json"), "w") as f:
        json.dump({"steps": steps, "weights_bytes": weights}, f, indent=1)


if __name__ == "__main__":
    main()
