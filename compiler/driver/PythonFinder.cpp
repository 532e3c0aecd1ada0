#include "compiler/driver/PythonFinder.h"

#include <cstdlib>
#include <vector>

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

namespace pt2c {
namespace {

enum class Probe { kHasTorch, kNoTorch, kMissing };

// find_spec does not import torch, so a probe costs milliseconds, not seconds.
Probe probe(const std::string &python) {
  auto path = llvm::sys::findProgramByName(python);
  if (!path || !llvm::sys::fs::can_execute(*path))
    return Probe::kMissing;
  llvm::StringRef argv[] = {*path, "-c",
                            "import importlib.util, sys; "
                            "sys.exit(0 if importlib.util.find_spec('torch') else 1)"};
  std::optional<llvm::StringRef> quiet[] = {llvm::StringRef(), llvm::StringRef(),
                                            llvm::StringRef()};
  return llvm::sys::ExecuteAndWait(*path, argv, std::nullopt, quiet) == 0 ? Probe::kHasTorch
                                                                          : Probe::kNoTorch;
}

std::string projectPython() {
  if (const char *venv = std::getenv("PT2C_VENV"))
    return std::string(venv) + "/bin/python";
  llvm::SmallString<256> home;
  if (const char *h = std::getenv("HOME"))
    home = h;
  llvm::sys::path::append(home, ".cache", "pt2c", "venv");
  llvm::sys::path::append(home, "bin", "python");
  return std::string(home);
}

llvm::Error refuse(const std::string &python, const char *source, Probe p) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "the Python given by " + std::string(source) + " (" + python + ") " +
          (p == Probe::kMissing ? "does not exist" : "cannot import torch"));
}

} // namespace

llvm::Expected<std::string> findPythonWithTorch(const std::string &explicitPython) {
  if (!explicitPython.empty()) {
    Probe p = probe(explicitPython);
    if (p != Probe::kHasTorch)
      return refuse(explicitPython, "--python", p);
    return explicitPython;
  }
  if (const char *env = std::getenv("PT2C_PYTHON")) {
    Probe p = probe(env);
    if (p != Probe::kHasTorch)
      return refuse(env, "PT2C_PYTHON", p);
    return std::string(env);
  }
  std::string tried;
  for (const std::string &candidate :
       {projectPython(), std::string("python3"), std::string("/usr/bin/python3")}) {
    Probe p = probe(candidate);
    if (p == Probe::kHasTorch)
      return candidate;
    tried += "\n  " + candidate + (p == Probe::kMissing ? ": not found" : ": no torch");
  }
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "no Python with torch found; tried:" + tried +
                                     "\nrun tools/setup.sh, or pass --python / set PT2C_PYTHON");
}

} // namespace pt2c
