"""Runs Debian's mlir-tblgen-19 over ODS files (DESIGN.md decision 1)."""

def mlir_tblgen(name, td_file, outs, td_srcs = []):
    """Generates one file per (flags, output) pair in `outs`.

    Args:
      name: target name; a filegroup of all outputs.
      td_file: the main .td file.
      outs: list of (list of mlir-tblgen flags, output file name).
      td_srcs: other .td files td_file includes.
    """
    gens = []
    for flags, out in outs:
        gen = name + "_" + out.replace("/", "_").replace(".", "_")
        native.genrule(
            name = gen,
            srcs = [td_file] + td_srcs + ["@llvm//:mlir_td_files"],
            outs = [out],
            tools = ["@llvm//:bin/mlir-tblgen"],
            cmd = ("$(location @llvm//:bin/mlir-tblgen) " + " ".join(flags) +
                   " -I external/llvm/include -I /usr/lib/llvm-19/include -I . -I $(GENDIR)" +
                   " $(location " + td_file + ") -o $@"),
        )
        gens.append(gen)
    native.filegroup(name = name, srcs = [":" + g for g in gens])
