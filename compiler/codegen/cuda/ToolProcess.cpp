#include "compiler/codegen/cuda/ToolProcess.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

namespace pt2c {
namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

} // namespace

ScratchDir::~ScratchDir() {
  for (const std::string &f : files)
    llvm::sys::fs::remove(f);
  if (!dir.empty())
    llvm::sys::fs::remove(dir);
}

llvm::Error ScratchDir::create(llvm::StringRef prefix) {
  if (auto ec = llvm::sys::fs::createUniqueDirectory(prefix, dir))
    return fail("cannot create a temporary directory: " + ec.message());
  return llvm::Error::success();
}

std::string ScratchDir::path(const std::string &name) {
  llvm::SmallString<256> p(dir);
  llvm::sys::path::append(p, name);
  files.push_back(std::string(p));
  return files.back();
}

llvm::Error writeFile(const std::string &path, llvm::StringRef contents) {
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return fail("cannot write " + path + ": " + ec.message());
  out << contents;
  return llvm::Error::success();
}

llvm::Expected<std::string> readFile(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return fail("cannot read " + path + ": " + buffer.getError().message());
  return (*buffer)->getBuffer().str();
}

llvm::Error runTool(const std::vector<std::string> &args, ScratchDir &scratch) {
  std::string log = scratch.path("log.txt");
  std::vector<llvm::StringRef> argv(args.begin(), args.end());
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(log),
                                                llvm::StringRef(log)};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(args[0], argv, std::nullopt, redirects, 0, 0, &execError);
  if (rc == 0)
    return llvm::Error::success();
  std::string output;
  if (auto buffer = llvm::MemoryBuffer::getFile(log))
    output = (*buffer)->getBuffer().str();
  std::string command;
  for (const std::string &a : args)
    command += (command.empty() ? "" : " ") + a;
  return fail(llvm::sys::path::filename(args[0]) + " failed" +
              (execError.empty() ? "" : " (" + execError + ")") + ": " + command + "\n" + output);
}

} // namespace pt2c
