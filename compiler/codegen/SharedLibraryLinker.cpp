#include "compiler/codegen/SharedLibraryLinker.h"

#include <cstdlib>

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

namespace pt2c {

llvm::Expected<std::string> findLinker() {
  if (const char *env = std::getenv("PT2C_LLD"))
    return std::string(env);
  for (const char *candidate : {"/usr/lib/llvm-19/bin/ld.lld", "/usr/bin/ld.lld-19"})
    if (llvm::sys::fs::can_execute(candidate))
      return std::string(candidate);
  if (auto found = llvm::sys::findProgramByName("ld.lld-19"))
    return *found;
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "cannot find ld.lld (LLVM 19's linker, Debian package lld-19); "
                                 "install it or set PT2C_LLD");
}

llvm::Error linkSharedLibrary(const LinkInputs &in, const std::string &output) {
  auto lld = findLinker();
  if (!lld)
    return lld.takeError();
  std::vector<std::string> args = {*lld,
                                   "-shared",
                                   "-Bsymbolic",
                                   "-o",
                                   output,
                                   "--version-script=" + in.versionScript,
                                   "-soname",
                                   in.soname,
                                   "--hash-style=gnu",
                                   "--build-id=none",
                                   "-z",
                                   "noexecstack",
                                   "-z",
                                   "relro",
                                   "-z",
                                   "now",
                                   "--gc-sections",
                                   "--as-needed",
                                   "-L/usr/lib/x86_64-linux-gnu",
                                   "-L/lib/x86_64-linux-gnu"};
  for (const auto &o : in.objects)
    args.push_back(o);
  // Nothing in a model's object calls into the runtime; the ABI entry points must be
  // pulled in whole.
  args.push_back("--whole-archive");
  for (const auto &a : in.archives)
    args.push_back(a);
  args.push_back("--no-whole-archive");
  for (const char *lib : {"-lm", "-lc"})
    args.push_back(lib);

  llvm::SmallString<128> errorFile;
  if (auto ec = llvm::sys::fs::createTemporaryFile("pt2c-lld", "txt", errorFile))
    return llvm::errorCodeToError(ec);
  std::vector<llvm::StringRef> argv(args.begin(), args.end());
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, errorFile.str(), errorFile.str()};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(*lld, argv, std::nullopt, redirects, 0, 0, &execError);
  std::string log;
  if (auto buf = llvm::MemoryBuffer::getFile(errorFile))
    log = (*buf)->getBuffer().str();
  llvm::sys::fs::remove(errorFile);
  if (rc != 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "linking " + output + " failed" +
                                       (execError.empty() ? "" : ": " + execError) + "\n" + log);
  return llvm::Error::success();
}

} // namespace pt2c
