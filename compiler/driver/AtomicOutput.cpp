#include "compiler/driver/AtomicOutput.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

namespace pt2c {

llvm::Expected<AtomicOutput> AtomicOutput::create(const std::string& target) {
  llvm::SmallString<256> dir(llvm::sys::path::parent_path(target));
  if (dir.empty()) dir = ".";
  if (!llvm::sys::fs::is_directory(dir))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot write " + target + ": directory " + std::string(dir) +
                                       " does not exist");
  llvm::SmallString<256> model(target);
  model += ".tmp-%%%%%%";
  int fd;
  llvm::SmallString<256> temp;
  if (auto ec = llvm::sys::fs::createUniqueFile(model, fd, temp))
    return llvm::createStringError(ec, "cannot write " + target + ": " + ec.message());
  llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  return AtomicOutput(target, std::string(temp));
}

AtomicOutput::AtomicOutput(AtomicOutput&& other) noexcept
    : target_(std::move(other.target_)), temp_(std::move(other.temp_)),
      committed_(other.committed_) {
  other.committed_ = true;
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) llvm::sys::fs::remove(temp_);
}

llvm::Error AtomicOutput::commit() {
  if (auto ec = llvm::sys::fs::rename(temp_, target_))
    return llvm::createStringError(ec, "cannot write " + target_ + ": " + ec.message());
  committed_ = true;
  return llvm::Error::success();
}

}  // namespace pt2c
