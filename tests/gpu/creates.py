#!/usr/bin/env python3
"""Creates a pt2c model several times in one process and times each instance: what varies
from one create to the next (cuDNN's algorithm search runs at every create).

    python3 creates.py BUNDLE [--creates 8] [--variant NAME:VAR=VALUE[,VAR=VALUE]]...
                       [--runs 200] [--warmup 20] [--profile]

The bundle is the one bench.py takes. Each --variant is a set of runtime environment
variables (read at create, as bench.py's columns), for example
`--variant nhwc:PT2C_CUDNN_NHWC=1`; without any, one variant with none. The variants
alternate, one create of each per round, so that a slow stretch of the GPU does not fall
on one of them only. Prints each instance's median ms (CUDA events, as bench.py), then
per variant the medians in order. --profile lists the kernels and the idle time between
them (profile_kernels.py) of the fastest and the slowest instance.
Set PT2C_CUDNN_VERBOSE=1 to see each create's convolution algorithms.
"""
import argparse
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from bench import Pt2cRunner, add_bundle_arguments, median_ms, open_bundle  # noqa: E402
from profile_kernels import kernel_table, print_gaps, print_table, profile  # noqa: E402


def variant(text):
    """NAME:VAR=VALUE[,VAR=VALUE] -> (NAME, {VAR: VALUE})."""
    name, _, assignments = text.partition(":")
    env = {}
    for item in filter(None, assignments.split(",")):
        var, sep, value = item.partition("=")
        if not sep or not var:
            raise argparse.ArgumentTypeError(f"expected NAME:VAR=VALUE[,VAR=VALUE], got {text!r}")
        env[var] = value
    if not name:
        raise argparse.ArgumentTypeError(f"a variant needs a name: {text!r}")
    return name, env


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_bundle_arguments(parser)
    parser.add_argument("--creates", type=int, default=8, help="creates of each variant")
    parser.add_argument("--variant", type=variant, action="append", default=[])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    variants = args.variant or [("default", {})]
    _, so, xs = open_bundle(args)
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}; {so.name}")
    instances = []  # (ms, variant name, create number, runner)
    for create in range(args.creates):
        for name, env in variants:
            runner = Pt2cRunner(so, xs, env)
            ms = median_ms(runner, args.runs, args.warmup)
            print(f"{name} create {create}: {ms:.4f} ms", flush=True)
            # Only --profile needs the instances afterwards; each holds its GPU memory.
            instances.append((ms, name, create, runner if args.profile else None))
    print()
    for name, _ in variants:
        print(f"{name}: " + " ".join(f"{ms:.4f}" for ms, n, _, _ in instances if n == name))
    if args.profile:
        ordered = sorted(instances, key=lambda i: i[0])
        for ms, name, create, runner in (ordered[0], ordered[-1]):
            title = f"{name} create {create} ({ms:.4f} ms)"
            kernels = profile(runner, 20)
            print_table(title, kernel_table(kernels, 20), 12)
            print_gaps(title, kernels, 20, 6)


if __name__ == "__main__":
    main()
