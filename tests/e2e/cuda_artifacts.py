"""Reading what a CUDA model.so carries, without CUDA: the bytes of an embedded symbol
(a tiny ELF64 reader) and the table of contents of a fatbin (the layout of
runtime/src/cuda/cuda_fatbin.c), plus cuobjdump when one is installed; and running a
model.so through the fake driver (tests/unit/testdata/fake_cuda.c), checking that it
launches exactly the kernels of its plan with the parameters its cubins expect."""
import os
import pathlib
import shutil
import struct

from conftest import BIN, run

PTX, CUBIN = 1, 2
FAKE_DRIVER = BIN / "tests" / "unit" / "libfake_cuda.so"


def embedded_symbol(so_path, name):
    """The bytes of the (local or global) object symbol `name` in an x86-64 ELF file."""
    data = pathlib.Path(so_path).read_bytes()
    assert data[:4] == b"\x7fELF" and data[4] == 2, "not an ELF64 file"
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
                for i in range(shnum)]
    for _, sh_type, _, _, offset, size, link, _, _, entsize in sections:
        if sh_type != 2:  # SHT_SYMTAB
            continue
        strtab = sections[link]
        for at in range(offset, offset + size, entsize):
            st_name, _, _, shndx, value, st_size = struct.unpack_from("<IBBHQQ", data, at)
            start = strtab[4] + st_name
            symbol = data[start:data.index(b"\0", start)].decode()
            if symbol != name:
                continue
            _, _, _, addr, sec_offset, _, _, _, _, _ = sections[shndx]
            file_offset = sec_offset + (value - addr)
            return data[file_offset:file_offset + st_size], value
    raise KeyError(f"{name} is not in the symbol table of {so_path}")


def fatbin_images(fatbin):
    """[(kind, sm)] of a fatbin; raises AssertionError if it is malformed."""
    magic, _, header_size, images_size = struct.unpack_from("<IHHQ", fatbin, 0)
    assert magic == 0xBA55ED50, hex(magic)
    assert header_size + images_size <= len(fatbin)
    images, offset, end = [], header_size, header_size + images_size
    while offset < end:
        kind, _, image_header, payload = struct.unpack_from("<HHIQ", fatbin, offset)
        sm, = struct.unpack_from("<I", fatbin, offset + 28)
        images.append((kind, sm))
        offset += image_header + payload
    assert offset == end, "images overrun the fatbin"
    return images


def find_cuda_toolkit():
    """The CUDA toolkit pt2c would use (compiler/codegen/cuda/CudaToolkit.cpp), or None."""
    roots = [os.environ.get("PT2C_CUDA_HOME"), os.environ.get("CUDA_HOME"), "/usr/local/cuda"]
    ptxas = shutil.which("ptxas")
    if ptxas:
        roots.append(str(pathlib.Path(ptxas).resolve().parent.parent))
    for root in filter(None, roots):
        if all(os.access(pathlib.Path(root) / "bin" / tool, os.X_OK)
               for tool in ("ptxas", "fatbinary")):
            return root
    return None


def find_cuobjdump():
    """cuobjdump from the CUDA toolkit, PATH, or the Triton wheel in the test venv."""
    home = os.environ.get("PT2C_CUDA_HOME") or os.environ.get("CUDA_HOME") or "/usr/local/cuda"
    candidates = [pathlib.Path(home) / "bin" / "cuobjdump", shutil.which("cuobjdump")]
    try:
        import triton  # the PyPI torch pulls it in; it ships CUDA's binary tools
        candidates.append(pathlib.Path(triton.__file__).parent / "backends/nvidia/bin/cuobjdump")
    except ImportError:
        pass
    for c in candidates:
        if c and os.access(c, os.X_OK):
            return str(c)
    return None


def fatbin_payloads(fatbin):
    """[(kind, sm, payload bytes)]; compressed payloads come back as they are."""
    _, _, header_size, images_size = struct.unpack_from("<IHHQ", fatbin, 0)
    out, offset = [], header_size
    while offset < header_size + images_size:
        kind, _, image_header, payload = struct.unpack_from("<HHIQ", fatbin, offset)
        sm, = struct.unpack_from("<I", fatbin, offset + 28)
        start = offset + image_header
        out.append((kind, sm, fatbin[start:start + payload]))
        offset = start + payload
    return out


def _elf_sections(data):
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
               for i in range(shnum)]
    names = headers[shstrndx][4]
    sections = {}
    for name, _, _, _, offset, size, _, _, _, _ in headers:
        text = data[names + name:data.index(b"\0", names + name)].decode()
        sections[text] = data[offset:offset + size]
    return sections


def cubin_param_bytes(cubin):
    """{kernel: bytes of its parameters} from a cubin's .nv.info.<kernel> sections (the
    EIATTR_CBANK_PARAM_SIZE attribute; attributes are u8 format, u8 id, then a u16
    value (format HVAL) or a u16 size and that many bytes (format SVAL))."""
    NVAL, BVAL, HVAL, SVAL = 1, 2, 3, 4
    CBANK_PARAM_SIZE = 0x19
    result = {}
    for name, body in _elf_sections(cubin).items():
        if not name.startswith(".nv.info."):
            continue
        offset = 0
        while offset + 4 <= len(body):
            fmt, attr, value = struct.unpack_from("<BBH", body, offset)
            if fmt == HVAL and attr == CBANK_PARAM_SIZE:
                result[name[len(".nv.info."):]] = value
            offset += 4 + (value if fmt == SVAL else 0)
            assert fmt in (NVAL, BVAL, HVAL, SVAL), f"unknown .nv.info format {fmt}"
    return result


def read_plan(blob):
    """The parts of an execution plan (runtime/include/pt2c/plan_format.h, version 10 (9: the
    same without derived symbols; 8: the sym table's flags then reserved); 7:
    the same without the state table and its header count; 5: also without the sym
    table and its two header counts) the CUDA tests look at."""
    magic, version = struct.unpack_from("<8sI", blob, 0)
    assert magic == b"PT2CPLN1" and version in (5, 6, 7, 8, 9, 10), (magic, version)
    counts = {5: 2, 6: 4, 7: 6, 8: 6, 9: 6, 10: 6}[version]  # uint32 counts after the three uint64 sizes
    fields = struct.unpack_from("<8s10I3Q%dI" % counts, blob, 0)
    (num_inputs, num_outputs, num_buffers, num_steps, num_step_args, num_dims, num_kernels,
     num_guards, device) = fields[2:11]
    strings_size, arena_size, weights_size, num_gemms = fields[11:15]
    num_syms, num_sym_words, num_convs = fields[15:18] if version >= 6 else (0, 0, fields[15])
    num_states = fields[18] if version >= 7 else 0
    pad = lambda n: (n + 7) // 8 * 8  # noqa: E731
    offset = 72 + 4 * counts + 24 * (num_inputs + num_outputs)
    buffers = [struct.unpack_from("<IIQQ", blob, offset + 24 * i) for i in range(num_buffers)]
    offset += 24 * num_buffers
    steps = [struct.unpack_from("<IIII", blob, offset + 16 * i) for i in range(num_steps)]
    offset += 16 * num_steps + 24 * num_guards
    gpu_kernels = []
    if device in (1, 2):  # CUDA, ROCm: the GPU kernel table
        gpu_kernels = [struct.unpack_from("<8I", blob, offset + 32 * i) for i in range(num_kernels)]
        offset += 32 * num_kernels
    gemm_fields = ("dtype", "epilogue", "transpose_a", "transpose_b", "m", "n", "k", "batch",
                   "ld_a", "ld_b", "ld_d", "stride_a", "stride_b", "stride_d",
                   "num_fallback_steps", "input_dtype")
    gemms = [dict(zip(gemm_fields, struct.unpack_from("<4I10Q2I", blob, offset + 104 * i)))
             for i in range(num_gemms)]
    offset += 104 * num_gemms
    conv_fields = ("dtype", "epilogue", "spatial_rank", "groups", "batch", "in_channels",
                   "out_channels", "input", "kernel", "output", "stride", "padding",
                   "dilation", "num_fallback_steps", "layout")
    convs = []
    for i in range(num_convs):
        values = struct.unpack_from("<4I21Q2I", blob, offset + 192 * i)
        arrays = [tuple(values[7 + 3 * a:10 + 3 * a]) for a in range(6)]
        convs.append(dict(zip(conv_fields, values[:7] + tuple(arrays) + values[25:27])))
    offset += 192 * num_convs + 32 * num_syms + 24 * num_states
    step_args = struct.unpack_from(f"<{num_step_args}I", blob, offset)
    offset += pad(4 * num_step_args) + 8 * num_dims + 8 * num_sym_words
    strings = blob[offset:offset + strings_size]
    name = lambda at: strings[at:strings.index(b"\0", at)].decode()  # noqa: E731
    return {
        "device": device,
        "num_guards": num_guards,
        "arena_size": arena_size,
        "weights_size": weights_size,
        "buffers": buffers,
        "steps": [{"kernel": k, "kind": kind, "args": step_args[first:first + n]}
                  for k, n, first, kind in steps],
        "gemms": gemms,
        "convs": convs,
        "gpu_kernels": [{"name": name(k[0]), "shared": k[1], "grid": tuple(k[2:5]),
                         "block": tuple(k[5:8])} for k in gpu_kernels],
    }


def fatbin_of(so):
    """The fatbin a CUDA model.so embeds (checked against its recorded size)."""
    fatbin, address = embedded_symbol(so, "__pt2c_cuda_fatbin")
    size_bytes, _ = embedded_symbol(so, "__pt2c_cuda_fatbin_size")
    assert struct.unpack("<Q", size_bytes)[0] == len(fatbin)
    assert address % 8 == 0
    return fatbin


def fake_driver_env(tmp_path, **extra):
    # No cuBLASLt or cuDNN unless a test asks for the fake ones: GEMM and convolution
    # steps run their fallback.
    env = dict(os.environ, PT2C_LIBCUDA=str(FAKE_DRIVER), FAKE_CUDA_LOG=str(tmp_path / "log"),
               PT2C_LIBCUBLASLT="/nonexistent/libcublasLt.so",
               PT2C_LIBCUDNN="/nonexistent/libcudnn.so.9")
    env.update(extra)
    return env


def run_on_fake_driver(cpp_host, so, inputs, tmp_path, sm="80"):
    """Runs `so` through the fake driver and checks what it launched against the plan:
    every plan step is one launch of its kernel, configured as the plan says, passing one
    8-byte device pointer per parameter the cubins declare. The fake driver computes
    nothing, so a guard on computed data (checked after the last step) reads zeros: for a
    plan with guards, a run that fails on a guard still has its launches checked.
    Returns (plan, log lines)."""
    assert FAKE_DRIVER.exists(), "run `bazel build //tests/unit:libfake_cuda.so`"
    command = [cpp_host, so, "--output-dir", tmp_path]
    for path in inputs:
        command += ["--input", path]
    result = run(command, env=fake_driver_env(tmp_path, FAKE_CUDA_SM=sm))
    log = (tmp_path / "log").read_text().splitlines()
    plan = read_plan(embedded_symbol(so, "__pt2c_plan")[0])
    guard_failed = plan["num_guards"] > 0 and "guard failed: " in result.stdout + result.stderr
    assert result.returncode == 0 or guard_failed, result.stdout + result.stderr
    assert plan["device"] == 1

    launches = [line.split() for line in log if line.startswith("launch ")]
    kernel_steps = [step for step in plan["steps"] if step["kind"] == 0]  # not GEMM steps
    assert len(launches) == len(kernel_steps) > 0
    for launch, step in zip(launches, kernel_steps):
        kernel = plan["gpu_kernels"][step["kernel"]]
        assert launch[1] == kernel["name"]
        assert tuple(map(int, launch[2:5])) == kernel["grid"]
        assert tuple(map(int, launch[5:8])) == kernel["block"]

    for kind, sm, payload in fatbin_payloads(fatbin_of(so)):
        if kind != CUBIN:
            continue
        param_bytes = cubin_param_bytes(payload)
        for step in kernel_steps:
            name = plan["gpu_kernels"][step["kernel"]]["name"]
            assert param_bytes[name] == 8 * len(step["args"]), (sm, name)
    return plan, log
