"""The walking skeleton end to end: examples/mlp/model.py -> model.so -> C++ host,
compared with PyTorch eager on fresh random inputs."""
import numpy as np
import torch

from conftest import REPO, env_without_python, load_model_file, run

MLP = REPO / "examples" / "mlp" / "model.py"


def compile_mlp(pt2c, tmp_path):
    so = tmp_path / "mlp.so"
    result = run([pt2c, MLP, "-o", so])
    assert result.returncode == 0, result.stderr
    return so


def test_mlp_matches_eager_on_fresh_inputs(pt2c, cpp_host, tmp_path):
    so = compile_mlp(pt2c, tmp_path)
    model, example = load_model_file(MLP)
    for seed in (11, 12, 13):
        x = torch.randn(example[0].shape, generator=torch.Generator().manual_seed(seed)) * 3
        with torch.no_grad():
            ref = model(x).numpy()
        np.save(tmp_path / "x.npy", x.numpy())
        np.save(tmp_path / "ref.npy", ref)
        out = tmp_path / f"out{seed}"
        out.mkdir()
        # No Python anywhere in this process: the .so needs only libc and libm.
        result = run([cpp_host, so, "--input", tmp_path / "x.npy", "--output-dir", out,
                      "--reference", tmp_path / "ref.npy", "--tolerance", "1e-5"],
                     env=env_without_python())
        assert result.returncode == 0, result.stdout + result.stderr
        got = np.load(out / "0.npy")
        rel = np.abs(got - ref).max() / np.abs(ref).max()
        assert rel <= 1e-5, rel


def test_pt2c_run_writes_outputs(pt2c, tmp_path):
    so = compile_mlp(pt2c, tmp_path)
    x = np.random.default_rng(5).standard_normal((8, 64)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "out"
    out.mkdir()
    result = run([pt2c, "run", so, "--input", tmp_path / "x.npy", "--output-dir", out])
    assert result.returncode == 0, result.stderr
    model, _ = load_model_file(MLP)
    with torch.no_grad():
        ref = model(torch.from_numpy(x)).numpy()
    got = np.load(out / "0.npy")
    assert got.shape == (8, 10)
    assert np.abs(got - ref).max() / np.abs(ref).max() <= 1e-5


def test_needed_libraries_are_only_libc_and_libm(pt2c, tmp_path):
    so = compile_mlp(pt2c, tmp_path)
    dynamic = run(["readelf", "-d", so]).stdout
    needed = sorted(line.split("[")[1].rstrip("]") for line in dynamic.splitlines()
                    if "(NEEDED)" in line)
    assert needed, dynamic
    allowed = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0"}
    assert set(needed) <= allowed, needed


def test_only_abi_symbols_are_exported(pt2c, tmp_path):
    so = compile_mlp(pt2c, tmp_path)
    symbols = run(["nm", "-D", "--defined-only", so]).stdout.split()
    exported = sorted(s for s in symbols if s.startswith("pt2c_"))
    assert "pt2c_model_run" in exported and "pt2c_model_create" in exported
    others = [s for s in symbols[2::3] if not s.startswith("pt2c_")]
    assert others == [], others


def test_output_is_deterministic(pt2c, tmp_path):
    a = compile_mlp(pt2c, tmp_path)
    (tmp_path / "again").mkdir()
    b = tmp_path / "again" / a.name  # the file name is the soname, so keep it
    assert run([pt2c, MLP, "-o", b]).returncode == 0
    assert a.read_bytes() == b.read_bytes()


def test_split_export_then_compile(pt2c, tmp_path):
    artifact = tmp_path / "mlp.pt2c"
    assert run([pt2c, "export", MLP, "-o", artifact]).returncode == 0
    so = tmp_path / "mlp.so"
    result = run([pt2c, "compile", artifact, "-o", so])
    assert result.returncode == 0, result.stderr
    for stage in ("import", "prim", "plan", "codegen", "link"):
        assert f"pt2c: {stage}" in result.stderr
    assert so.exists()


def test_emit_prints_each_stage(pt2c, tmp_path):
    artifact = tmp_path / "mlp.pt2c"
    assert run([pt2c, "export", MLP, "-o", artifact]).returncode == 0
    aten = run([pt2c, "compile", artifact, "--emit", "aten"])
    assert aten.returncode == 0 and "aten.addmm" in aten.stdout and "aten.gelu" in aten.stdout
    prim = run([pt2c, "compile", artifact, "--emit", "prim"])
    assert prim.returncode == 0 and "prim.dot_general" in prim.stdout
    assert "aten." not in prim.stdout
    llvm = run([pt2c, "compile", artifact, "--emit", "llvm"])
    assert llvm.returncode == 0 and "define" in llvm.stdout and "__pt2c_kernels" in llvm.stdout
