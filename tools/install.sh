#!/usr/bin/env bash
# Installs pt2c into PREFIX, for use outside this repository (and by CMake projects):
#   PREFIX/bin/pt2c                    the compiler
#   PREFIX/lib/pt2c/...                what it reads at run time (the runtime archive and
#                                      its exports map, the Python exporter; pt2c finds
#                                      them here from its own path: Resources.cpp)
#   PREFIX/include/pt2c/               pt2c.h (the C ABI) and pt2c.hpp (C++ wrapper)
#   PREFIX/lib/cmake/pt2c/             find_package(pt2c): pt2c_add_model() (tools/cmake)
#
#   tools/install.sh PREFIX      (builds //tools/pt2c first)
#
# pt2c still needs the Debian LLVM 19 and protobuf libraries (tools/setup.sh) and, to
# export model.py files, a Python with torch (the project's environment by default).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: tools/install.sh PREFIX" >&2; exit 2; }
prefix=$1
bazel build //tools/pt2c:pt2c >/dev/null 2>&1 || { echo "install: bazel build //tools/pt2c failed" >&2; exit 1; }
runfiles=bazel-bin/tools/pt2c/pt2c.runfiles/pt2c
mkdir -p "$prefix/bin" "$prefix/lib/pt2c" "$prefix/include/pt2c" "$prefix/lib/cmake/pt2c"
# the resources: every runfile but the binary itself and Bazel's library symlinks
(cd "$runfiles" && find -L . -type f -not -path "./_solib_*" -not -path "./tools/*" \
   -not -name "*.pyc") | while read -r f; do
  install -D -m 644 "$runfiles/$f" "$prefix/lib/pt2c/$f"
done
install -m 755 bazel-bin/tools/pt2c/pt2c "$prefix/bin/pt2c"
install -m 644 runtime/include/pt2c/pt2c.h runtime/include/pt2c/pt2c.hpp "$prefix/include/pt2c/"
abi=$(sed -n 's/^#define PT2C_ABI_VERSION \([0-9]*\)u$/\1/p' runtime/include/pt2c/pt2c.h)
install -m 644 tools/cmake/pt2cConfig.cmake "$prefix/lib/cmake/pt2c/"
sed "s/@PT2C_ABI_VERSION@/$abi/" tools/cmake/pt2cConfigVersion.cmake.in \
  > "$prefix/lib/cmake/pt2c/pt2cConfigVersion.cmake"
echo "pt2c installed in $prefix (ABI version $abi)"
