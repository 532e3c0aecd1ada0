#!/usr/bin/env python3
"""Runs bench.py over every model of a zoo bundle (tests/gpu/make_zoo_cuda_bundle.sh) and
prints one table: per model, pt2c's numerics against the CPU eager fp32 references (max
|out - ref| / max|ref|, bound --tolerance) and the median ms per run of pt2c, torch
eager, torch.compile and reduce-overhead (bench.py's variants, same GPU, one process per
model).

    python3 bench_zoo.py BUNDLE [NAME...] [--runs 200] [--warmup 20] [--tolerance 1e-3]
                         [--skip-own-kernels] [--quick] [--kernels TOP]
                         [--timeout 400]

Each model runs in its own process (BUNDLE/NAME/bench.py BUNDLE/NAME), so a crash or a
hang (--timeout seconds) fails that model only. Ends with `N passed, N failed`; exit
status 1 on any failure.

A model compiled with --external-weights (tests/gpu/make_big_cuda_bundle.sh) comes
without its weights file, only the compile's recipe (NAME_cuda.so.weights.json) and the
exporter: its weights file is made here first, from model.py with this machine's torch
(`python -m pt2c_exporter weights`, which checks every piece against the recipe and
names the tensors that differ), beside the .so where the runtime looks for it.
"""
import argparse
import os
import pathlib
import subprocess
import sys
import time


def models_of(bundle, names):
    found = sorted(p.parent.name for p in bundle.glob("*/*_cuda.so"))
    missing = [n for n in names if n not in found]
    if missing:
        sys.exit(f"not in {bundle}: {', '.join(missing)} (it has {', '.join(found)})")
    return names or found


def make_weights(folder, timeout):
    """Makes the weights file of an --external-weights model in `folder`; -> (ok, message)."""
    recipe = next(iter(sorted(folder.glob("*_cuda.so.weights.json"))), None)
    if recipe is None:
        return True, None  # the .so embeds its weights
    weights = recipe.with_suffix("")  # NAME_cuda.so.weights
    command = [sys.executable, "-m", "pt2c_exporter", "weights", str(folder / "model.py"),
               "--recipe", str(recipe), "-o", str(weights)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(folder), os.environ.get("PYTHONPATH")])))
    try:
        result = subprocess.run(command, capture_output=True, text=True, env=env,
                                timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, f"making {weights.name} timed out after {timeout:.0f} s"
    lines = (result.stdout + result.stderr).strip().splitlines() or ["(no output)"]
    return result.returncode == 0, "\n   ".join(lines[-3:])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bundle", type=pathlib.Path)
    parser.add_argument("names", nargs="*")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--tolerance", type=float, default=1e-3)
    parser.add_argument("--timeout", type=float, default=400)
    parser.add_argument("--skip-own-kernels", action="store_true",
                        help="passed to bench.py: check but do not time our fallback kernels "
                             "(seconds per CNN run)")
    parser.add_argument("--quick", action="store_true",
                        help="passed to bench.py: time pt2c, torch eager and reduce-overhead only")
    parser.add_argument("--kernels", type=int, metavar="TOP", default=0,
                        help="passed to bench.py: kernel counts of pt2c and reduce-overhead "
                             "and the TOP kernels of each by GPU time (kept in BUNDLE/NAME/"
                             "bench.log)")
    args = parser.parse_args()
    bundle = args.bundle.resolve()
    header, rows, failed = None, [], []
    for name in models_of(bundle, args.names):
        folder = bundle / name
        command = [sys.executable, str(folder / "bench.py"), str(folder), "--runs",
                   str(args.runs), "--warmup", str(args.warmup), "--tolerance",
                   str(args.tolerance)] + (["--skip-own-kernels"] if args.skip_own_kernels else [])
        command += (["--quick"] if args.quick else []) + (
            ["--kernels", str(args.kernels)] if args.kernels else [])
        print(f"== {name}", flush=True)
        start = time.monotonic()
        made, message = make_weights(folder, args.timeout)
        if message:
            print("   " + message, flush=True)
        if not made:
            failed.append(name)
            print("   FAILED: no weights file")
            continue
        try:
            result = subprocess.run(command, capture_output=True, text=True,
                                    timeout=args.timeout)
            output, status = result.stdout + result.stderr, result.returncode
        except subprocess.TimeoutExpired as e:
            output = (e.stdout or b"").decode(errors="replace") if isinstance(
                e.stdout, bytes) else (e.stdout or "")
            status = f"timeout after {args.timeout:.0f} s"
        (folder / "bench.log").write_text(output)
        lines = output.splitlines()
        for line in lines:
            if line.startswith(("PASS", "FAIL", "cuDNN", "pt2c vs", "kernels per pass")):
                print("   " + line)
        table = [line for line in lines if line.startswith("| ")]
        if len(table) >= 2:
            header = header or table[0]
            rows.append(table[1])
        if status != 0:
            failed.append(name)
            print(f"   FAILED ({status}); the last lines:")
            print("\n".join("   | " + line for line in lines[-15:]))
        print(f"   {time.monotonic() - start:.0f} s", flush=True)

    if header:
        print(f"\nms per run, median of {args.runs} after {args.warmup} warm-up runs "
              f"(max rel error vs CPU eager fp32)\n")
        print(header)
        print("|---" * (header.count("|") - 1) + "|")
        print("\n".join(rows))
    total = len(models_of(bundle, args.names))
    print(f"\n{total - len(failed)} passed, {len(failed)} failed"
          + (f": {', '.join(failed)}" if failed else ""))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
