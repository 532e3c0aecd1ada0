#include "compiler/driver/Resources.h"

#include <cstdlib>

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

namespace pt2c {
namespace {

// Relative to the resource root, the same in every layout.
constexpr const char *kRuntimeArchive = "runtime/libpt2c_runtime.a";
constexpr const char *kExportsMap = "runtime/exports.map";
constexpr const char *kExporterDir = "compiler/exporter";
constexpr const char *kProtoPyDir = "ir/artifact";

std::string join(const std::string &root, const char *rel) {
  llvm::SmallString<256> p(root);
  llvm::sys::path::append(p, rel);
  return std::string(p);
}

bool looksComplete(const std::string &root) {
  return llvm::sys::fs::exists(join(root, kRuntimeArchive)) &&
         llvm::sys::fs::exists(join(root, kExportsMap));
}

} // namespace

llvm::Expected<Resources> findResources(const char *argv0) {
  std::vector<std::string> candidates;
  if (const char *env = std::getenv("PT2C_RESOURCE_DIR"))
    candidates.push_back(env);
  std::string exe = llvm::sys::fs::getMainExecutable(argv0, (void *)&findResources);
  candidates.push_back(exe + ".runfiles/pt2c");
  llvm::SmallString<256> installed(llvm::sys::path::parent_path(llvm::sys::path::parent_path(exe)));
  llvm::sys::path::append(installed, "lib", "pt2c");
  candidates.push_back(std::string(installed));

  for (const std::string &root : candidates) {
    if (!looksComplete(root))
      continue;
    Resources r;
    r.root = root;
    r.runtimeArchives = {join(root, kRuntimeArchive)};
    r.exportsMap = join(root, kExportsMap);
    r.exporterDir = join(root, kExporterDir);
    r.protoPyDir = join(root, kProtoPyDir);
    return r;
  }
  std::string tried;
  for (const auto &c : candidates)
    tried += "\n  " + c;
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "cannot find pt2c's runtime files (" +
                                     std::string(kRuntimeArchive) + "); looked in:" + tried +
                                     "\nrun pt2c from its Bazel build or an installed tree, "
                                     "or set PT2C_RESOURCE_DIR");
}

} // namespace pt2c
