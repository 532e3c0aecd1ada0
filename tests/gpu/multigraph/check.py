#!/usr/bin/env python3
"""GPU machine side of tests/gpu/multigraph: runs steps.json's steps in order on one
CUDA model (pt2c_model_run_method through ctypes, host memory) and compares each output
with eager's (max|out - ref| / max|ref| <= 1e-3, TF32 off); then measures the device
memory the model takes after create (torch.cuda.mem_get_info in this process, which
shares pt2c's primary context) against the same model compiled with one graph: the
extra graphs may add their own scratch, not another copy of the weights. Also checks
pt2c_model_reset_state.

    python3 check.py DIR MODEL_cuda.so ONE_GRAPH_cuda.so

Prints PASS/FAIL per check and `N passed, N failed`; exit status 1 on a failure.
"""
import ctypes
import json
import os
import sys

import torch

from steps import run_steps


def create(so):
    """Device bytes pt2c_model_create takes for the .so, the library and the model (the
    one-graph baseline's model is kept alive too, so that both counts are clean)."""
    torch.cuda.synchronize()
    free_before, _ = torch.cuda.mem_get_info()
    lib = ctypes.CDLL(os.path.abspath(so))
    lib.pt2c_last_error.restype = ctypes.c_char_p
    model = ctypes.c_void_p()
    assert lib.pt2c_model_create(ctypes.byref(model)) == 0, lib.pt2c_last_error()
    torch.cuda.synchronize()
    return free_before - torch.cuda.mem_get_info()[0], lib, model


def main():
    folder, so, one_graph_so = sys.argv[1], sys.argv[2], sys.argv[3]
    spec = json.load(open(os.path.join(folder, "steps.json")))
    results = []

    def check(name, ok, detail=""):
        results.append(ok)
        print("%s %s %s" % ("PASS" if ok else "FAIL", name, detail))

    torch.zeros(1, device="cuda")  # the primary context, before measuring
    baseline, _, _ = create(one_graph_so)
    used, lib, model = create(so)
    weights = spec["weights_bytes"]
    graphs = lib.pt2c_model_num_graphs(model)
    check("weights on the GPU once", used - baseline < weights,
          "(%d graphs: %.1f MiB after create; one graph: %.1f MiB; weights %.1f MiB)"
          % (graphs, used / 2**20, baseline / 2**20, weights / 2**20))

    run_steps(lib, folder, spec["steps"], model, lib.pt2c_model_run_method, check)
    # A reset state starts the running sum again: the same steps give the same outputs.
    check("reset_state", lib.pt2c_model_reset_state(model) == 0)
    run_steps(lib, folder, spec["steps"], model, lib.pt2c_model_run_method, check)
    # A context starts from the compiled state too, and its graphs share its own.
    context = ctypes.c_void_p()
    check("context_create", lib.pt2c_context_create(model, ctypes.byref(context)) == 0)
    run_steps(lib, folder, spec["steps"], context, lib.pt2c_context_run_method, check)
    lib.pt2c_context_destroy(context)
    lib.pt2c_model_destroy(model)
    failed = results.count(False)
    print("%d passed, %d failed" % (len(results) - failed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
