"""Reading what a ROCm model.so carries, without an AMD GPU: the code object table
(runtime/include/pt2c/rocm_code_objects.h), each code object's ELF header, kernel symbols
and AMDGPU metadata through llvm-readobj-19, and running a model.so through the fake HIP
library (tests/unit/testdata/fake_hip.c), checking that it launches exactly the kernels
of its plan with the arguments its code objects declare."""
import os
import shutil
import struct

import yaml

from conftest import BIN, run
from cuda_artifacts import embedded_symbol, read_plan

FAKE_HIP = BIN / "tests" / "unit" / "libfake_hip.so"
FAKE_HIPBLASLT = BIN / "tests" / "unit" / "libfake_hipblaslt.so"
FAKE_MIOPEN = BIN / "tests" / "unit" / "libfake_miopen.so"
STEP_KERNEL, STEP_GEMM, STEP_CONV = 0, 1, 2
ROCM = 2  # pt2c_device PT2C_DEVICE_ROCM

# What each architecture gives one workgroup, and the register files: LLVM's AMDGPU
# backend never goes past them (the test checks that it did not), and a launch of more
# threads than a kernel's .max_flat_workgroup_size fails on the GPU.
LDS_BYTES = 65536
MAX_SGPRS = 108  # .sgpr_count counts VCC, FLAT_SCRATCH and XNACK_MASK: 102 + 6 on GFX9
MAX_VGPRS = {"gfx908": 512, "gfx90a": 512, "gfx940": 512, "gfx941": 512, "gfx942": 512}
MAX_VGPRS_RDNA = 256  # per lane at wave32 on GFX10/11 (wave64 halves it)
MACH = {"gfx908": 0x30, "gfx90a": 0x3F, "gfx940": 0x40, "gfx941": 0x4B, "gfx942": 0x4C,
        "gfx1030": 0x36, "gfx1100": 0x41, "gfx1101": 0x46, "gfx1102": 0x47}


def find_llvm_tool(name):
    """llvm-readobj / llvm-objdump of LLVM 19 (Debian's llvm-19), or None."""
    return (shutil.which(f"{name}-19") or
            next((p for p in [f"/usr/lib/llvm-19/bin/{name}"] if os.path.exists(p)), None))


def code_objects_of(so):
    """[(arch, wave_size, elf bytes)] of the table a ROCm model.so embeds, checked against
    the recorded size and the table's layout."""
    table, address = embedded_symbol(so, "__pt2c_rocm_code_objects")
    size_bytes, _ = embedded_symbol(so, "__pt2c_rocm_code_objects_size")
    assert struct.unpack("<Q", size_bytes)[0] == len(table)
    assert address % 8 == 0
    magic, version, count = struct.unpack_from("<8sII", table, 0)
    assert magic == b"PT2CHSA1" and version == 1 and count > 0, (magic, version, count)
    objects = []
    for i in range(count):
        arch, wave, reserved, offset, size = struct.unpack_from("<32sIIQQ", table, 16 + 56 * i)
        assert reserved == 0 and offset % 64 == 0 and offset + size <= len(table)
        objects.append((arch.rstrip(b"\0").decode(), wave, table[offset:offset + size]))
    return objects


def readobj(path, *flags):
    tool = find_llvm_tool("llvm-readobj")
    assert tool, "llvm-readobj-19 is not installed (Debian package llvm-19)"
    result = run([tool, *flags, path])
    assert result.returncode == 0, result.stderr
    return result.stdout


def amdgpu_metadata(path):
    """The code object's AMDGPU metadata note (amdhsa.kernels, amdhsa.target, ...)."""
    text = readobj(path, "--notes")
    start = text.index("AMDGPU Metadata: ---") + len("AMDGPU Metadata: ")
    end = text.index("\n...", start)
    return yaml.safe_load(text[start:end])


def check_code_object(path, arch, wave_size):
    """Checks one code object as the GPU's loader would need it; returns its kernels'
    metadata by name."""
    headers = readobj(path, "--file-headers")
    assert "Format: elf64-amdgpu" in headers and "Arch: amdgcn" in headers, headers
    assert "OS/ABI: AMDGPU_HSA (0x40)" in headers
    assert "Type: SharedObject (0x3)" in headers
    assert f"EF_AMDGPU_MACH_AMDGCN_{arch.upper()} (0x{MACH[arch]:X})" in headers, headers
    metadata = amdgpu_metadata(path)
    assert metadata["amdhsa.target"].startswith(f"amdgcn-amd-amdhsa--{arch}")
    assert metadata["amdhsa.version"] == [1, 1]  # code object version 4
    symbols = readobj(path, "--symbols")
    kernels = {}
    for kernel in metadata["amdhsa.kernels"]:
        name = kernel[".name"]
        # The kernel descriptor the loader reads: a 64-byte object symbol NAME.kd.
        assert kernel[".symbol"] == name + ".kd"
        assert f"Name: {name}.kd (" in symbols, name
        assert kernel[".wavefront_size"] == wave_size, (arch, name)
        assert kernel[".group_segment_fixed_size"] <= LDS_BYTES, (arch, name)
        assert kernel[".sgpr_count"] <= MAX_SGPRS, (arch, name)
        limit = MAX_VGPRS.get(arch, MAX_VGPRS_RDNA)
        assert kernel[".vgpr_count"] + kernel.get(".agpr_count", 0) <= limit, (arch, name)
        assert kernel[".vgpr_spill_count"] == 0 and kernel[".sgpr_spill_count"] == 0, (arch, name)
        kernels[name] = kernel
    return kernels


def explicit_args(kernel):
    """The arguments a launch passes (not the hidden ones the runtime appends)."""
    return [a for a in kernel.get(".args", []) if not a[".value_kind"].startswith("hidden_")]


def check_code_objects(so, tmp_path):
    """Checks every code object of `so` (check_code_object); {arch: kernels}."""
    found = {}
    for arch, wave, elf in code_objects_of(so):
        path = tmp_path / f"{arch}.hsaco"
        path.write_bytes(elf)
        found[arch] = check_code_object(path, arch, wave)
    return found


def check_plan_against_code_objects(so, tmp_path):
    """Every code object is well formed (check_code_object) and has every kernel of the
    plan (a single graph's), taking one 8-byte global pointer per step argument and
    launched with at most its maximum workgroup size. Returns (plan, {arch: kernels})."""
    plan = read_plan(embedded_symbol(so, "__pt2c_plan")[0])
    assert plan["device"] == ROCM
    found = check_code_objects(so, tmp_path)
    for arch, kernels in found.items():
        for step in plan["steps"]:
            if step["kind"] != 0:  # GEMM and convolution steps: their fallback launches follow
                continue
            config = plan["gpu_kernels"][step["kernel"]]
            kernel = kernels[config["name"]]
            args = explicit_args(kernel)
            assert len(args) == len(step["args"]), (arch, config["name"])
            assert all(a[".size"] == 8 and a[".value_kind"] == "global_buffer" for a in args)
            threads = config["block"][0] * config["block"][1] * config["block"][2]
            assert threads <= kernel[".max_flat_workgroup_size"], (arch, config["name"])
            assert config["shared"] + kernel[".group_segment_fixed_size"] <= LDS_BYTES
    return plan, found


def fake_hip_env(tmp_path, **extra):
    """The environment of a run on the fake HIP, logging to tmp_path / "log". No hipBLASLt
    or MIOpen unless `extra` names one: a real one (on a machine with ROCm) must not be
    handed the fake HIP's host memory."""
    env = dict(os.environ, PT2C_LIBAMDHIP64=str(FAKE_HIP), FAKE_HIP_LOG=str(tmp_path / "log"),
               PT2C_LIBHIPBLASLT="/nonexistent/libhipblaslt.so",
               PT2C_LIBMIOPEN="/nonexistent/libMIOpen.so")
    env.update(extra)
    return env


def fake_libraries_env(tmp_path, **extra):
    """fake_hip_env with the fake hipBLASLt and MIOpen (tests/unit/testdata) to load."""
    for library in (FAKE_HIPBLASLT, FAKE_MIOPEN):
        assert library.exists(), f"run `bazel build //tests/unit:{library.name}`"
    libraries = {"PT2C_LIBHIPBLASLT": str(FAKE_HIPBLASLT), "PT2C_LIBMIOPEN": str(FAKE_MIOPEN)}
    return fake_hip_env(tmp_path, **{**libraries, **extra})


def expected_launches(plan, gemms_served=False, convs_served=False):
    """The kernels a run launches, in order: every kernel step but the fallback steps of
    the GEMM (convolution) steps the library serves."""
    launches, skip = [], 0
    for step in plan["steps"]:
        if skip:
            skip -= 1
        elif step["kind"] == STEP_GEMM and gemms_served:
            skip = plan["gemms"][step["kernel"]]["num_fallback_steps"]
        elif step["kind"] == STEP_CONV and convs_served:
            skip = plan["convs"][step["kernel"]]["num_fallback_steps"]
        elif step["kind"] == STEP_KERNEL:
            launches.append(plan["gpu_kernels"][step["kernel"]])
    return launches


def matmul_line(gemm):
    """The fake hipBLASLt's log line for plan GEMM `gemm`: the library computes D^T, so its
    m and n are the plan's n and m, its A the plan's B (transa = transpose_b)."""
    return (f"hipblaslt matmul m={gemm['n']} n={gemm['m']} k={gemm['k']} "
            f"batch={gemm['batch']} transa={gemm['transpose_b']} transb={gemm['transpose_a']} "
            f"epilogue={ {0: 1, 1: 4, 2: 6, 3: 1, 4: 4}[gemm['epilogue']] } type=0 compute=2 "
            f"beta={1 if gemm['epilogue'] in (3, 4) else 0}")


def conv_line(conv, verb):
    """The fake MIOpen's log line (`verb` "solution" or "forward solution=24301") for plan
    convolution `conv` (2-d)."""
    join = lambda values: ",".join(str(v) for v in values)  # noqa: E731
    rank = conv["spatial_rank"]
    x = (conv["batch"], conv["in_channels"]) + conv["input"][:rank]
    w = (conv["out_channels"], conv["in_channels"] // conv["groups"]) + conv["kernel"][:rank]
    y = (conv["batch"], conv["out_channels"]) + conv["output"][:rank]
    return (f"miopen {verb} x={join(x)} w={join(w)} y={join(y)} "
            f"pad={join(conv['padding'][:rank])} stride={join(conv['stride'][:rank])} "
            f"dilation={join(conv['dilation'][:rank])} groups={conv['groups']}")


def run_on_fake_hip(cpp_host, so, inputs, tmp_path, arch="gfx90a", libraries=False, **extra):
    """Runs `so` through the fake HIP library (`libraries`: and the fake hipBLASLt and
    MIOpen, which must then serve every GEMM and convolution) and checks what it launched
    against the plan: every kernel step that runs is one launch of its kernel, configured
    as the plan says. Returns (plan, log lines)."""
    assert FAKE_HIP.exists(), "run `bazel build //tests/unit:libfake_hip.so`"
    command = [cpp_host, so, "--output-dir", tmp_path]
    for path in inputs:
        command += ["--input", path]
    make_env = fake_libraries_env if libraries else fake_hip_env
    result = run(command, env=make_env(tmp_path, FAKE_HIP_ARCH=arch, **extra))
    log = (tmp_path / "log").read_text().splitlines()
    plan = read_plan(embedded_symbol(so, "__pt2c_plan")[0])
    guard_failed = plan["num_guards"] > 0 and "guard failed: " in result.stdout + result.stderr
    assert result.returncode == 0 or guard_failed, result.stdout + result.stderr
    assert plan["device"] == ROCM
    launches = [line.split() for line in log if line.startswith("launch ")]
    kernels = expected_launches(plan, gemms_served=libraries, convs_served=libraries)
    assert len(launches) == len(kernels) and (libraries or kernels)
    for launch, kernel in zip(launches, kernels):
        assert launch[1] == kernel["name"]
        assert tuple(map(int, launch[2:5])) == kernel["grid"]
        assert tuple(map(int, launch[5:8])) == kernel["block"]
    return plan, log
