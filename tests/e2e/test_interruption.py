"""pt2c stopped part-way (issue 15, interruption): a time-out, SIGINT, SIGTERM, SIGKILL, a
model.py that crashes or leaves processes behind. Each must end with a clear message and
leave no temporary file and no process (interruption.py takes the census). None needs a GPU."""
import fcntl
import os
import pathlib
import signal
import textwrap
import time

import pytest

from conftest import run
from interruption import (SLEEPING_MODEL, TINY_MODEL, dead_pid, kill_processes_of,
                          leftovers, processes_of, start, stderr_of, wait_for, workspace,
                          write)


@pytest.fixture
def ws(tmp_path):
    root, env = workspace(tmp_path)
    yield root, env
    kill_processes_of(root)  # a failing test leaves nothing running either


def test_export_timeout_stops_a_model_that_never_returns(pt2c, ws):
    root, env = ws
    model = write(root, "model.py", "while True:\n    pass\n")
    out = root / "m.so"
    begin = time.monotonic()
    result = run([pt2c, model, "-o", out, "--export-timeout", "2"], env=env, timeout=120)
    assert result.returncode == 1
    assert "did not finish within 2 s" in result.stderr, result.stderr
    assert "--export-timeout" in result.stderr
    assert "Traceback" not in result.stderr  # the exporter stops quietly; pt2c says why
    assert time.monotonic() - begin < 60
    assert not out.exists()
    assert leftovers(root, out) == []


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signal_during_export_stops_everything(pt2c, ws, sig):
    root, env = ws
    model = write(root, "model.py", SLEEPING_MODEL)
    out = root / "m.so"
    proc = start(pt2c, model, out, env)
    wait_for(root / "started", proc)
    assert list((root / "tmp").glob("pt2c-*"))  # the run's folder, while it runs
    proc.send_signal(sig)
    assert proc.wait(timeout=30) == -sig
    assert "stopped by " + signal.Signals(sig).name in stderr_of(out)
    assert not out.exists()
    assert leftovers(root, out) == []


def test_sigkill_leftovers_are_cleaned_by_the_next_run(pt2c, ws):
    root, env = ws
    model = write(root, "model.py", SLEEPING_MODEL)
    out = root / "m.so"
    proc = start(pt2c, model, out, env)
    wait_for(root / "started", proc)
    proc.kill()
    proc.wait(timeout=30)
    assert list((root / "tmp").glob("pt2c-*"))  # SIGKILL cannot be caught
    assert processes_of(root)  # the process model.py started in a session of its own
    # What a run SIGKILLed while linking leaves beside its output.
    stale_output = root / ("m.so.tmp-%d-abcdef" % dead_pid())
    stale_output.write_bytes(b"half a library")

    tiny = write(root, "tiny.py", TINY_MODEL)
    result = run([pt2c, tiny, "-o", out], env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    assert out.exists()
    assert leftovers(root, out) == []


def test_sweep_keeps_the_folder_of_a_live_run(pt2c, ws):
    root, env = ws
    live = root / "tmp" / ("pt2c-%d-live01" % os.getpid())
    live.mkdir()
    (live / "model.pt2c").write_text("in use")
    dead = root / "tmp" / ("pt2c-%d-dead01" % dead_pid())
    dead.mkdir()
    (dead / "model.pt2c").write_text("left behind")
    lock = os.open(live, os.O_RDONLY)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        result = run([pt2c, root / "nope.py", "-o", root / "m.so"], env=env, timeout=60)
        assert "does not exist" in result.stderr
        assert live.exists() and not dead.exists()
    finally:
        os.close(lock)


def test_processes_model_py_starts_do_not_hold_pt2c_up(pt2c, ws):
    root, env = ws
    # Both inherit the exporter's stdout and stderr; one escapes its process group.
    model = write(root, "model.py", textwrap.dedent("""
        import subprocess, sys
        nap = [sys.executable, "-c", "import time; time.sleep(600)"]
        subprocess.Popen(nap)
        subprocess.Popen(nap, start_new_session=True)
    """) + TINY_MODEL)
    out = root / "m.so"
    begin = time.monotonic()
    # capture_output: run() returns only when every holder of pt2c's pipes has closed them.
    result = run([pt2c, model, "-o", out], env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert time.monotonic() - begin < 60
    assert out.exists()
    assert leftovers(root, out) == []


def test_model_py_that_crashes_is_named_with_its_line(pt2c, ws):
    root, env = ws
    model = write(root, "model.py", """
        import ctypes

        def read_nothing():
            return ctypes.string_at(0)

        read_nothing()
    """)
    out = root / "m.so"
    result = run([pt2c, model, "-o", out], env=env, timeout=120)
    assert result.returncode == 1
    assert "model.py crashed (Segmentation fault) while being exported" in result.stderr
    assert "model.py:5" in result.stderr, result.stderr  # the innermost model.py frame
    assert "Fatal Python error" in result.stderr  # faulthandler's stack, passed through
    assert "cannot run" not in result.stderr
    assert leftovers(root, out) == []
