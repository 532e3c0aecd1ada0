// exportModel: spawns the Python exporter (compiler/exporter) on model.py.
#include <cstdlib>

#include "compiler/driver/AtomicOutput.h"
#include "compiler/driver/Pipeline.h"
#include "compiler/driver/Progress.h"
#include "compiler/driver/PythonFinder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"

extern char** environ;

namespace pt2c {

llvm::Error exportModel(const Resources& resources, const PipelineOptions& options,
                        const std::string& modelPath, const std::string& artifactPath) {
  if (!llvm::sys::fs::exists(modelPath))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "model file " + modelPath + " does not exist");
  auto python = findPythonWithTorch(options.python);
  if (!python) return python.takeError();
  auto pythonPath = llvm::sys::findProgramByName(*python);
  if (!pythonPath) return llvm::errorCodeToError(pythonPath.getError());

  // The exporter writes atomically itself; it gets the final path.
  std::vector<std::string> env;
  std::string pythonPathVar = "PYTHONPATH=" + resources.exporterDir + ":" + resources.protoPyDir;
  if (const char* old = std::getenv("PYTHONPATH")) pythonPathVar += std::string(":") + old;
  env.push_back(pythonPathVar);
  for (char** e = environ; *e; ++e)
    if (llvm::StringRef(*e).starts_with("PYTHONPATH=") == false) env.push_back(*e);
  std::vector<llvm::StringRef> envRefs(env.begin(), env.end());

  std::vector<std::string> args = {*pythonPath, "-m", "pt2c_exporter", modelPath, "-o",
                                   artifactPath};
  if (options.quiet) args.push_back("--quiet");
  if (options.strict) args.push_back("--strict");
  if (options.printReport) args.push_back("--print-report");
  std::vector<llvm::StringRef> argv(args.begin(), args.end());
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(*pythonPath, argv, envRefs, {}, 0, 0, &execError);
  if (rc != 0)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        execError.empty() ? "export of " + modelPath + " failed (see the messages above)"
                          : "cannot run " + *python + ": " + execError);
  return llvm::Error::success();
}

}  // namespace pt2c
