#!/usr/bin/env python3
"""Per-token decode latency of a decoder whose KV cache is model state (a model.py like
examples/gpt2_generate's: forward(input_ids, inputs_embeds=None, cache_position) on a
static cache), pt2c against PyTorch, in one process, on the same tokens and threads.

    ~/.cache/pt2c/venv/bin/python tools/bench_decode.py MODEL.py MODEL.so
        [--context 16,64,96] [--steps 32] [--threads 1,2] [--no-compile]
        [--device cuda] [--state STATE.pt]

For each context length C: the prompt is C - 1 tokens, run once (pt2c: its prefill
graph), then `--steps` one-token decode steps at positions C - 1, C, ... are timed one by
one, greedy (each step feeds the previous step's argmax), and the median is reported.
The systems: pt2c (the model.so through ctypes: pt2c_model_reset_state, then
pt2c_model_run on the tensors' memory), eager (model.py's module under no_grad: the same
static-cache forward) and compile (torch.compile(mode="reduce-overhead") of that module;
on the CPU it compiles as the default mode does). Each system decodes the same tokens as
eager (checked: the token sequences must match), and each starts from an empty cache
(pt2c: reset_state; PyTorch: a new module). Prints a markdown table with eager/pt2c and
compile/pt2c (above 1: pt2c is faster).

--device cuda: MODEL.so is a CUDA build; every tensor lives on the GPU, pt2c runs with
pt2c_model_run_device on PyTorch's current stream, and each step ends when its argmax
reaches the host (as a generation loop's would): --threads does not apply. --state loads
a state_dict saved where MODEL.so was compiled (torch.save(model().state_dict())), so
that PyTorch runs the very weights the .so holds even where another transformers version
initializes a seeded model differently.
"""
import argparse
import ctypes
import importlib.util
import os
import platform
import statistics
import sys
import time

import torch


class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int), ("rank", ctypes.c_int32),
                ("dims", ctypes.POINTER(ctypes.c_int64))]


PT2C_DTYPES = {torch.float32: 1, torch.float16: 3, torch.bfloat16: 4, torch.int64: 5}


def view(t, keep):
    dims = (ctypes.c_int64 * max(t.dim(), 1))(*t.shape)
    keep.append(dims)
    return Tensor(t.data_ptr(), PT2C_DTYPES[t.dtype], t.dim(), dims)


class Pt2c:
    """The .so as a step function: tokens [1, n] at positions [n] -> logits [1, n, vocab]."""

    def __init__(self, path, vocab, logits_dtype, device):
        self.lib = ctypes.CDLL(os.path.abspath(path))
        self.lib.pt2c_last_error.restype = ctypes.c_char_p
        self.model = ctypes.c_void_p()
        self.check(self.lib.pt2c_model_create(ctypes.byref(self.model)), "create")
        self.vocab, self.logits_dtype, self.device = vocab, logits_dtype, device

    def check(self, status, what):
        if status != 0:
            raise RuntimeError("pt2c %s: %s" % (what, self.lib.pt2c_last_error().decode()))

    def reset(self):
        self.check(self.lib.pt2c_model_reset_state(self.model), "reset_state")

    def __call__(self, ids, positions):
        keep = []
        inputs = (Tensor * 3)(view(ids, keep), Tensor(), view(positions, keep))
        logits = torch.empty(1, ids.shape[1], self.vocab, dtype=self.logits_dtype,
                             device=self.device)
        output = view(logits, keep)
        if self.device == "cuda":
            stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
            status = self.lib.pt2c_model_run_device(self.model, inputs, 3, ctypes.byref(output),
                                                    1, stream)
        else:
            status = self.lib.pt2c_model_run(self.model, inputs, 3, ctypes.byref(output), 1)
        self.check(status, "run")
        return logits


def decode(step, prompt, steps):
    """-> (tokens, per-step ms): the prompt in one call, then `steps` timed decode calls."""
    n, device = prompt.shape[1], prompt.device
    token = int(step(prompt, torch.arange(n, device=device))[0, -1].argmax())
    tokens, times = [token], []
    for i in range(steps):
        start = time.perf_counter()
        logits = step(torch.tensor([[token]], device=device), torch.tensor([n + i], device=device))
        token = int(logits[0, -1].argmax())
        times.append((time.perf_counter() - start) * 1e3)
        tokens.append(token)
    return tokens, statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model_py")
    parser.add_argument("so")
    parser.add_argument("--context", default="16,64,96")
    parser.add_argument("--steps", type=int, default=32)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--no-compile", action="store_true")
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--state", help="a state_dict for model.py's model()")
    args = parser.parse_args()
    spec = importlib.util.spec_from_file_location("decoder_model", args.model_py)
    source = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(source)
    # The weights of model() as built here (seeded), unless --state gives them.
    weights = torch.load(args.state) if args.state else source.model().state_dict()

    def make():
        # Built on the device, so that the static cache (not always a registered buffer,
        # which .to() would move) is allocated there too; then the weights.
        with torch.device(args.device):
            module = source.model()
        missing, _ = module.load_state_dict(weights, strict=False)
        unloaded = sorted(set(missing) & {name for name, _ in module.named_parameters()})
        if unloaded:
            sys.exit("the state has no values for %s" % ", ".join(unloaded[:5]))
        return module

    probe = make()
    vocab = probe.model.config.vocab_size
    logits_dtype = probe.model.lm_head.weight.dtype
    cache = probe.key_cache_0.shape[2]  # the StaticCache's length (TorchExportable... buffers)
    for context in [int(c) for c in args.context.split(",")]:
        if context - 1 + args.steps > cache:
            parser.error("context %d and %d steps need %d cache positions; the model has %d"
                         % (context, args.steps, context - 1 + args.steps, cache))
    ours = Pt2c(args.so, vocab, logits_dtype, args.device)
    print("machine: %s, %d cores, load %.2f; torch %s" % (
        platform.processor() or platform.machine(), os.cpu_count(), os.getloadavg()[0],
        torch.__version__))
    if args.device == "cuda":
        print("GPU: %s" % torch.cuda.get_device_name())
        args.threads = "1"
    print("| threads | context | pt2c ms/token | eager | compile | eager/pt2c | compile/pt2c |")
    print("|---|---|---|---|---|---|---|")
    failed = False
    for threads in [int(t) for t in args.threads.split(",")]:
        torch.set_num_threads(threads)
        ours.lib.pt2c_set_num_threads(threads)
        for context in [int(c) for c in args.context.split(",")]:
            prompt = torch.randint(0, vocab, (1, context - 1),
                                   generator=torch.Generator().manual_seed(context)).to(args.device)
            with torch.no_grad():
                reference, eager_ms = decode(lambda i, p, m=make(): m(i, None, p), prompt,
                                             args.steps)
                ours.reset()
                tokens, ours_ms = decode(ours, prompt, args.steps)
                compile_ms, compiled_tokens = float("nan"), None
                if not args.no_compile:
                    compiled = torch.compile(make(), mode="reduce-overhead")
                    decode(lambda i, p: compiled(i, None, p), prompt, 4)  # compile, warm up
                    compiled = torch.compile(make(), mode="reduce-overhead")
                    compiled_tokens, compile_ms = decode(lambda i, p: compiled(i, None, p),
                                                         prompt, args.steps)
            if tokens != reference:
                failed = True
                first = next(i for i, (a, b) in enumerate(zip(tokens, reference)) if a != b)
                print("pt2c's tokens differ from eager's at context %d from token %d (0: the "
                      "prefill's): pt2c %s, eager %s; compile's %s eager's" % (
                          context, first, tokens[first:first + 4], reference[first:first + 4],
                          "match" if compiled_tokens == reference else "differ from"),
                      file=sys.stderr)
            print("| %d | %d | %.3f | %.3f | %.3f | %.2fx | %.2fx |" % (
                threads, context, ours_ms, eager_ms, compile_ms, eager_ms / ours_ms,
                compile_ms / ours_ms))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
