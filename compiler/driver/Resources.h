// Finds the files pt2c needs next to its binary: the runtime archive and export list
// linked into every model.so, and the Python exporter. Three layouts are searched:
// $PT2C_RESOURCE_DIR, Bazel's runfiles tree (bazel-bin/tools/pt2c/pt2c.runfiles/pt2c),
// and an installed tree (PREFIX/bin/pt2c with PREFIX/lib/pt2c).
#ifndef PT2C_COMPILER_DRIVER_RESOURCES_H_
#define PT2C_COMPILER_DRIVER_RESOURCES_H_

#include <string>
#include <vector>

#include "llvm/Support/Error.h"

namespace pt2c {

struct Resources {
  std::string root;
  std::vector<std::string> runtimeArchives;
  std::string exportsMap;
  std::string exporterDir; // holds the pt2c_exporter package
  std::string protoPyDir;  // holds pt2c_pb2.py
};

// `argv0` is used where /proc/self/exe is unavailable.
llvm::Expected<Resources> findResources(const char *argv0);

} // namespace pt2c

#endif // PT2C_COMPILER_DRIVER_RESOURCES_H_
