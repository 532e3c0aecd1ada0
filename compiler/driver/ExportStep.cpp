// exportModel: runs the Python exporter (compiler/exporter) on model.py, in a process
// group of its own with a time limit (Subprocess.h), and says how it ended.
#include <signal.h>
#include <string.h>

#include <cstdlib>

#include "compiler/driver/Pipeline.h"
#include "compiler/driver/PythonFinder.h"
#include "compiler/driver/Subprocess.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"

extern char **environ;

namespace pt2c {
namespace {

llvm::Error fail(const std::string &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

// The innermost model.py frame of the stack faulthandler printed for a crash, lines like
//   File "/path/model.py", line 12 in forward
// ("most recent call first"), as "model.py:12"; empty if model.py is not on it.
std::string crashLocation(llvm::StringRef stderrTail, const std::string &modelPath) {
  size_t fatal = stderrTail.rfind("Fatal Python error");
  if (fatal == llvm::StringRef::npos)
    return "";
  llvm::SmallVector<llvm::StringRef> lines;
  stderrTail.substr(fatal).split(lines, '\n');
  for (llvm::StringRef line : lines) {
    line = line.trim();
    if (!line.consume_front("File \""))
      continue;
    auto [file, rest] = line.split("\", line ");
    unsigned number = 0;
    if (rest.take_while(llvm::isDigit).getAsInteger(10, number))
      continue;
    if (file == modelPath || llvm::sys::fs::equivalent(file, modelPath))
      return modelPath + ":" + std::to_string(number);
  }
  return "";
}

llvm::Error describeCrash(const ChildResult &r, const std::string &modelPath) {
  std::string where = crashLocation(r.stderrTail, modelPath);
  std::string message = modelPath + " crashed (" + strsignal(r.code) + ") while being exported";
  if (!where.empty())
    message += ", at " + where;
  if (r.stderrTail.find("Fatal Python error") != std::string::npos)
    message += " (its Python stack is printed above)";
  // The kernel's out-of-memory killer sends SIGKILL; nothing else in pt2c's run does.
  if (r.code == SIGKILL)
    message += "; out of memory?";
  return fail(message);
}

} // namespace

llvm::Error exportModel(const Resources &resources, const PipelineOptions &options,
                        const std::string &modelPath, const std::string &artifactPath) {
  if (!llvm::sys::fs::exists(modelPath))
    return fail("model file " + modelPath + " does not exist");
  auto python = findPythonWithTorch(options.python);
  if (!python)
    return python.takeError();
  auto pythonPath = llvm::sys::findProgramByName(*python);
  if (!pythonPath)
    return llvm::errorCodeToError(pythonPath.getError());

  // The exporter writes atomically itself; it gets the final path.
  std::vector<std::string> env;
  std::string pythonPathVar = "PYTHONPATH=" + resources.exporterDir + ":" + resources.protoPyDir;
  if (const char *old = std::getenv("PYTHONPATH"))
    pythonPathVar += std::string(":") + old;
  env.push_back(pythonPathVar);
  for (char **e = environ; *e; ++e)
    if (!llvm::StringRef(*e).starts_with("PYTHONPATH="))
      env.push_back(*e);

  // -X faulthandler: a crash in model.py (or in torch under it) prints the Python stack.
  std::vector<std::string> args = {*pythonPath,     "-X",      "faulthandler", "-m",
                                   "pt2c_exporter", modelPath, "-o",           artifactPath};
  if (options.quiet)
    args.push_back("--quiet");
  if (options.strict)
    args.push_back("--strict");
  if (options.printReport)
    args.push_back("--print-report");
  ChildResult r = runInOwnGroup(args, env, options.exportTimeoutSeconds);
  switch (r.outcome) {
  case ChildResult::kExited:
    if (r.code == 0)
      return llvm::Error::success();
    return fail("export of " + modelPath + " failed (see the messages above)");
  case ChildResult::kSignaled:
    return describeCrash(r, modelPath);
  case ChildResult::kTimedOut:
    return fail("export of " + modelPath + " did not finish within " +
                std::to_string(options.exportTimeoutSeconds) +
                " s and was stopped (--export-timeout " +
                std::to_string(options.exportTimeoutSeconds) +
                "; pass a larger --export-timeout SECONDS, or 0 for no limit)");
  case ChildResult::kCannotStart:
    return fail("cannot run " + *pythonPath + ": " + strerror(r.code));
  }
  return llvm::Error::success();
}

} // namespace pt2c
