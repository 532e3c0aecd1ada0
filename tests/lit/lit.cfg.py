# lit configuration for pt2c's FileCheck tests of pass logic (docs/ARCHITECTURE.md, house style).
#
#   bazel build //tools/pt2c-opt && python3 /usr/lib/llvm-19/build/utils/lit/lit.py -v tests/lit
#
# Tools come from PATH, with pt2c-opt (bazel-bin, or $PT2C_OPT) and LLVM 19's tools
# (FileCheck, not, mlir-cpu-runner) put first. Output goes to $PT2C_LIT_OUT or a
# temporary folder, never into the source tree.
import os
import tempfile

import lit.formats

config.name = "pt2c"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = os.environ.get(
    "PT2C_LIT_OUT", os.path.join(tempfile.gettempdir(), "pt2c-lit"))

repo_root = os.path.dirname(os.path.dirname(config.test_source_root))
llvm_root = os.environ.get("PT2C_LLVM_ROOT", "/usr/lib/llvm-19")
pt2c_opt = os.environ.get(
    "PT2C_OPT", os.path.join(repo_root, "bazel-bin", "tools", "pt2c-opt", "pt2c-opt"))
if not os.path.exists(pt2c_opt):
    lit_config.fatal("pt2c-opt not found at %s: run `bazel build //tools/pt2c-opt` "
                     "or set PT2C_OPT" % pt2c_opt)

config.environment["PATH"] = os.pathsep.join(
    [os.path.dirname(os.path.abspath(pt2c_opt)), os.path.join(llvm_root, "bin"),
     os.environ.get("PATH", "")])
# Runtime libraries of mlir-cpu-runner (printMemrefF32 and friends).
config.substitutions.append(("%mlir_lib_dir", os.path.join(llvm_root, "lib")))
