"""What test_interruption.py and interrupt_stress.py share: model.py files that hang or
misbehave, and the census of what an interrupted pt2c run may have left behind.

Each run gets a root folder whose `tmp` is pt2c's TMPDIR, so its temporary folder
(pt2c-<pid>-XXXXXX) lands there, and every process it starts carries the root in its
environment (TMPDIR and PT2C_RUN_DIR point inside it): that is how leftovers are found.
"""
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import time

TINY_MODEL = """
import torch
model = torch.nn.Linear(4, 3)
example_inputs = (torch.randn(2, 4),)
"""

# Starts a process in the exporter's group and one in a session of its own (which the
# group kill cannot reach), says so with a `started` file, then sleeps.
SLEEPING_MODEL = """
import pathlib, subprocess, sys, time
nap = [sys.executable, "-c", "import time; time.sleep(600)"]
subprocess.Popen(nap)
subprocess.Popen(nap, start_new_session=True)
pathlib.Path(__file__).with_name("started").touch()
time.sleep(600)
"""


def workspace(root):
    """(root, environment with TMPDIR=root/tmp)."""
    root = pathlib.Path(root)
    (root / "tmp").mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, TMPDIR=str(root / "tmp"))
    env.pop("PT2C_RUN_DIR", None)
    return root, env


def write(root, name, source):
    path = pathlib.Path(root) / name
    path.write_text(textwrap.dedent(source))
    return path


def _default_interrupts():
    # pt2c keeps SIGINT/SIGTERM ignored when its parent ignored them (nohup, a background
    # job of a script: bash starts those with SIGINT ignored), by design. The tests want
    # a pt2c started as from a terminal, whatever started the test run.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def start(pt2c, model, out, env, *extra):
    """pt2c model -o out, in the background, its output in files beside `out`."""
    out = pathlib.Path(out)
    return subprocess.Popen([str(pt2c), str(model), "-o", str(out), *extra], env=env,
                            stdout=open(str(out) + ".stdout", "w"),
                            stderr=open(str(out) + ".stderr", "w"),
                            preexec_fn=_default_interrupts)


def stderr_of(out):
    return pathlib.Path(str(out) + ".stderr").read_text()


def wait_for(path, proc, timeout=120):
    deadline = time.monotonic() + timeout
    while not pathlib.Path(path).exists():
        if proc.poll() is not None:
            raise AssertionError("pt2c ended before %s appeared (exit %s)" % (path, proc.returncode))
        if time.monotonic() > deadline:
            raise AssertionError("%s did not appear in %d s" % (path, timeout))
        time.sleep(0.05)


def processes_of(root):
    """Pids of this user's live processes whose environment mentions `root`."""
    needle = str(root).encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open("/proc/%s/environ" % entry, "rb") as f:
                if needle in f.read():
                    found.append(int(entry))
        except OSError:
            pass  # gone, or not ours
    return found


def leftovers(root, out=None, settle=5.0):
    """Files in root/tmp, temporaries beside `out`, and processes of the run, as text;
    processes killed a moment ago get `settle` seconds to disappear."""
    deadline = time.monotonic() + settle
    while processes_of(root) and time.monotonic() < deadline:
        time.sleep(0.05)
    found = ["process %d: %s" % (pid, _cmdline(pid)) for pid in processes_of(root)]
    found += ["file " + str(p) for p in sorted(pathlib.Path(root, "tmp").rglob("*"))]
    if out is not None:
        out = pathlib.Path(out)
        found += ["file " + str(p) for p in out.parent.glob(out.name + ".tmp*")]
    return found


def kill_processes_of(root):
    for pid in processes_of(root):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def dead_pid():
    """A pid that no process has now (that of a process just reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid
