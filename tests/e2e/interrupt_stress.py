#!/usr/bin/env python3
"""Interrupts N compiles (default 20) and counts what they leave behind (issue 15).

    tests/e2e/interrupt_stress.py [--runs 20] [--pt2c bazel-bin/tools/pt2c/pt2c] [--keep]

Signals cycle SIGINT, SIGTERM, SIGKILL. Odd runs compile a model.py that starts two
processes (one in a session of its own) and sleeps, and are signalled once it sleeps;
even runs compile a real model and are signalled after a random part of the time an
uninterrupted compile of it takes (measured first), so that some land in the exporter's
start-up and some in compilation or linking; one that finishes first is run again with
half the delay. A SIGKILLed run is followed
by another compile to the same output, which must sweep what the killed one left.
Prints one line per run and the totals: leftover files (in pt2c's TMPDIR, and *.tmp-*
beside the outputs) and leftover processes (those whose environment names the work folder).
Exit status 1 if anything is left.
"""
import argparse
import pathlib
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from interruption import (SLEEPING_MODEL, TINY_MODEL, kill_processes_of, leftovers,  # noqa: E402
                          start, stderr_of, wait_for, workspace, write)

REPO = pathlib.Path(__file__).resolve().parents[2]
# A few layers: export and compile take long enough for a random signal to land anywhere.
REAL_MODEL = """
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(),
                            torch.nn.Linear(256, 256), torch.nn.GELU(), torch.nn.Linear(256, 10))
example_inputs = (torch.randn(8, 64),)
"""
SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGKILL]


def signalled(pt2c, root, env, sig, out, delay):
    """Starts a compile and signals it (delay None: once model.py sleeps); -> (exit, when),
    exit None if it finished first."""
    (root / "started").unlink(missing_ok=True)
    proc = start(pt2c, root / ("sleep.py" if delay is None else "real.py"), out, env)
    if delay is None:
        wait_for(root / "started", proc)
        when = "sleeping in model.py"
    else:
        time.sleep(delay)
        when = "after %.2f s" % delay
    if proc.poll() is not None:
        return None, when
    proc.send_signal(sig)
    return proc.wait(timeout=60), when


def stage_reached(out):
    """The stage the signal interrupted, from pt2c's progress lines."""
    stages = [line.split()[1] for line in stderr_of(out).splitlines()
              if line.startswith("pt2c: ") and len(line.split()) > 2]
    done = [s for s in stages if s in ("exported", "import", "prim", "plan", "codegen", "link")]
    following = {"exported": "import", "import": "prim", "prim": "plan", "plan": "codegen",
                 "codegen": "link", "link": "weights"}
    return following[done[-1]] if done else "export"


def one_run(i, pt2c, root, env, rng, full):
    sig = SIGNALS[i % len(SIGNALS)]
    out = root / ("out%d.so" % i)
    begin = time.monotonic()
    delay = None if i % 2 == 1 else rng.uniform(0.05, 0.95) * full
    rc, when = signalled(pt2c, root, env, sig, out, delay)
    while rc is None:  # it finished first: nothing was interrupted
        out.unlink(missing_ok=True)
        delay /= 2
        rc, when = signalled(pt2c, root, env, sig, out, delay)
    note = "exit %d in %s" % (rc, stage_reached(out))
    if sig == signal.SIGKILL:
        follow = subprocess.run([str(pt2c), str(root / "tiny.py"), "-o", str(out)], env=env,
                                capture_output=True, text=True, timeout=600)
        note += ", next compile exit %d" % follow.returncode
        if follow.returncode != 0:
            note += " (" + follow.stderr.strip().splitlines()[-1] + ")"
    left = leftovers(root, out)
    print("run %2d  %-7s %-22s %-40s %5.1f s  leftovers: %d" % (
        i + 1, signal.Signals(sig).name, when, note, time.monotonic() - begin, len(left)),
        flush=True)
    for item in left:
        print("        " + item)
    return sig, left


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--pt2c", default=str(REPO / "bazel-bin/tools/pt2c/pt2c"))
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    args = parser.parse_args()
    root, env = workspace(tempfile.mkdtemp(prefix="pt2c-stress-"))
    write(root, "sleep.py", SLEEPING_MODEL)
    write(root, "real.py", REAL_MODEL)
    write(root, "tiny.py", TINY_MODEL)
    rng = random.Random(args.seed)
    begin = time.monotonic()
    baseline = subprocess.run([args.pt2c, str(root / "real.py"), "-o", str(root / "base.so")],
                              env=env, capture_output=True, text=True, timeout=600)
    if baseline.returncode != 0:
        sys.exit("the uninterrupted compile failed:\n" + baseline.stderr)
    full = time.monotonic() - begin
    (root / "base.so").unlink()
    print("an uninterrupted compile of the real model takes %.1f s" % full)
    counts = {}
    files = processes = 0
    try:
        for i in range(args.runs):
            sig, left = one_run(i, args.pt2c, root, env, rng, full)
            counts[sig.name] = counts.get(sig.name, 0) + 1
            files += sum(item.startswith("file ") for item in left)
            processes += sum(item.startswith("process ") for item in left)
            kill_processes_of(root)  # one run's leftovers must not count against the next
            for p in root.glob("out*.so*"):
                p.unlink()
            shutil.rmtree(root / "tmp")
            (root / "tmp").mkdir()
    finally:
        kill_processes_of(root)
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    print("%d interrupted compiles (%s): %d leftover files, %d leftover processes" % (
        args.runs, ", ".join("%d %s" % (n, s) for s, n in counts.items()), files, processes))
    return 1 if files or processes else 0


if __name__ == "__main__":
    sys.exit(main())
