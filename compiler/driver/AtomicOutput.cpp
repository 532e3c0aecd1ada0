#include "compiler/driver/AtomicOutput.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "compiler/driver/ExitCleanup.h"
#include "compiler/driver/StaleRuns.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace pt2c {

llvm::Expected<AtomicOutput> AtomicOutput::create(const std::string &target) {
  llvm::SmallString<256> dir(llvm::sys::path::parent_path(target));
  if (dir.empty())
    dir = ".";
  if (!llvm::sys::fs::is_directory(dir))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot write " + target + ": directory " + std::string(dir) +
                                       " does not exist");
  sweepStaleOutputTemps(target);
  // The pid in the name lets a later run tell a SIGKILLed run's leftover (StaleRuns.h).
  std::string model = target + ".tmp-" + std::to_string(getpid()) + "-%%%%%%";
  for (int attempt = 0; attempt < 128; ++attempt) {
    llvm::SmallString<256> temp;
    llvm::sys::fs::createUniquePath(model, temp, /*MakeAbsolute=*/false);
    // Registered before it exists: no moment when an interrupt could leave it behind.
    int handle = exit_cleanup::protect(std::string(temp), exit_cleanup::Kind::kFile);
    int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      close(fd);
      return AtomicOutput(target, std::string(temp), handle);
    }
    int e = errno;
    exit_cleanup::release(handle);
    if (e != EEXIST)
      return llvm::createStringError(std::error_code(e, std::generic_category()),
                                     "cannot write " + target + ": " + strerror(e));
  }
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "cannot write " + target + ": no free temporary name beside it");
}

AtomicOutput::AtomicOutput(AtomicOutput &&other) noexcept
    : target_(std::move(other.target_)), temp_(std::move(other.temp_)),
      cleanupHandle_(other.cleanupHandle_), committed_(other.committed_) {
  other.committed_ = true;
  other.cleanupHandle_ = -1;
}

AtomicOutput::~AtomicOutput() {
  if (!committed_)
    llvm::sys::fs::remove(temp_);
  exit_cleanup::release(cleanupHandle_);
}

llvm::Error AtomicOutput::commit() {
  if (auto ec = llvm::sys::fs::rename(temp_, target_))
    return llvm::createStringError(ec, "cannot write " + target_ + ": " + ec.message());
  committed_ = true;
  exit_cleanup::release(cleanupHandle_);
  cleanupHandle_ = -1;
  return llvm::Error::success();
}

llvm::Expected<AtomicOutput>
writeAtomicOutput(const std::string &path, llvm::function_ref<void(llvm::raw_ostream &)> write) {
  auto output = AtomicOutput::create(path);
  if (!output)
    return output.takeError();
  std::error_code ec;
  llvm::raw_fd_ostream out(output->tempPath(), ec);
  if (!ec)
    write(out);
  out.close();
  if (ec || out.has_error())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot write " + path + ": " +
                                       (ec ? ec.message() : out.error().message()));
  return std::move(*output);
}

} // namespace pt2c
