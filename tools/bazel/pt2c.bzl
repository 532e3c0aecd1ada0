"""pt2c_model: compile a PyTorch model.py into a model .so as a step of a Bazel build.

    load("//tools/bazel:pt2c.bzl", "pt2c_model")

    pt2c_model(
        name = "classifier",
        src = "model.py",            # defines `model` and `example_inputs` (see pt2c --help)
        data = ["layers.py"],        # what model.py imports or reads
        target = "cpu",              # or "cuda", "cuda:sm_90", ...
        flags = ["--cpu", "x86-64-v3"],
    )

makes
  - `libclassifier.so` (also `:classifier_so`): the model library, for a program that
    opens it at run time (pt2c/pt2c.hpp; list it in `data` and find it in the runfiles);
  - `:classifier`: a cc_library that links the library and carries pt2c/pt2c.h and
    pt2c/pt2c.hpp, for a program that calls the C ABI directly. One linked model per
    program: every model library defines the same pt2c_* symbols (open several with
    pt2c.hpp instead).

The compile runs the pt2c built from this repository with the Python that has torch: the
project's environment (tools/setup.sh), found by @pt2c_python (python.bzl) from
$PT2C_PYTHON, $PT2C_VENV or ~/.cache/pt2c/venv. It runs unsandboxed: the export imports
torch and writes temporary files outside the execution root.
"""

load("@pt2c_python//:python.bzl", "PT2C_PYTHON")

def _pt2c_so_impl(ctx):
    out = ctx.outputs.out
    args = ctx.actions.args()
    args.add(ctx.file.src.path)
    args.add("-o", out.path)
    args.add("--target", ctx.attr.target)
    args.add("--quiet")
    if PT2C_PYTHON:
        args.add("--python", PT2C_PYTHON)
    args.add_all(ctx.attr.flags)
    ctx.actions.run(
        executable = ctx.executable._pt2c,
        arguments = [args],
        inputs = [ctx.file.src] + ctx.files.data,
        outputs = [out],
        mnemonic = "Pt2cCompile",
        progress_message = "pt2c: compiling %s for %s" % (ctx.file.src.short_path, ctx.attr.target),
        use_default_shell_env = True,
        execution_requirements = {"no-sandbox": "1", "no-remote": "1"},
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

_pt2c_so = rule(
    implementation = _pt2c_so_impl,
    attrs = {
        "src": attr.label(allow_single_file = [".py", ".pt2c"], mandatory = True),
        "data": attr.label_list(allow_files = True),
        "target": attr.string(default = "cpu"),
        "flags": attr.string_list(),
        "out": attr.output(mandatory = True),
        # The target configuration's pt2c, the one `bazel build //tools/pt2c` makes: the
        # exec configuration would build the whole compiler a second time. (pt2c runs
        # on the build machine either way: pt2c_model does not cross-compile.)
        "_pt2c": attr.label(
            default = Label("//tools/pt2c:pt2c"),
            executable = True,
            cfg = "target",
        ),
    },
)

def pt2c_model(name, src, data = [], target = "cpu", flags = [], visibility = None, **kwargs):
    """The model library lib<name>.so (:<name>_so) and a cc_library :<name> linking it.

    Args:
      name: the cc_library's name; the library is lib<name>.so.
      src: model.py (or an exported .pt2c artifact).
      data: files model.py imports or reads.
      target: pt2c --target: "cpu", "cuda" or "cuda:sm_XX,...".
      flags: more pt2c options (--cpu, --strict, --no-fold-weights, ...).
      visibility: of all three targets.
      **kwargs: passed to the compile rule (tags, testonly, ...).
    """
    library = "lib%s.so" % name
    _pt2c_so(
        name = name + "_so",
        src = src,
        data = data,
        target = target,
        flags = flags,
        out = library,
        visibility = visibility,
        **kwargs
    )
    native.cc_import(
        name = name + "_import",
        shared_library = library,
        visibility = ["//visibility:private"],
    )
    native.cc_library(
        name = name,
        deps = [name + "_import", Label("//runtime:headers")],
        visibility = visibility,
    )
