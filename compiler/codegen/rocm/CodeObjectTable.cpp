#include "compiler/codegen/rocm/CodeObjectTable.h"

#include <cstring>

#include "pt2c/rocm_code_objects.h"

namespace pt2c {
namespace {

constexpr uint64_t kObjectAlignment = 64;

uint64_t alignUp(uint64_t n) {
  return (n + kObjectAlignment - 1) / kObjectAlignment * kObjectAlignment;
}

} // namespace

llvm::Expected<std::string> packCodeObjects(const std::vector<CodeObject> &objects) {
  auto fail = [](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "internal error: " + why);
  };
  if (objects.empty())
    return fail("no code objects to pack");
  pt2c_rocm_code_objects_header header{};
  std::memcpy(header.magic, PT2C_ROCM_CODE_OBJECTS_MAGIC, sizeof(header.magic));
  header.version = PT2C_ROCM_CODE_OBJECTS_VERSION;
  header.count = objects.size();
  std::vector<pt2c_rocm_code_object_entry> entries(objects.size());
  uint64_t offset = alignUp(sizeof(header) + entries.size() * sizeof(entries[0]));
  for (size_t i = 0; i < objects.size(); ++i) {
    if (objects[i].arch.empty() || objects[i].arch.size() >= PT2C_ROCM_ARCH_NAME_BYTES)
      return fail("bad architecture name '" + objects[i].arch + "'");
    std::memcpy(entries[i].arch, objects[i].arch.data(), objects[i].arch.size());
    entries[i].wave_size = objects[i].waveSize;
    entries[i].offset = offset;
    entries[i].size = objects[i].elf.size();
    offset = alignUp(offset + objects[i].elf.size());
  }
  std::string table(offset, '\0');
  std::memcpy(table.data(), &header, sizeof(header));
  std::memcpy(table.data() + sizeof(header), entries.data(), entries.size() * sizeof(entries[0]));
  for (size_t i = 0; i < objects.size(); ++i)
    std::memcpy(table.data() + entries[i].offset, objects[i].elf.data(), objects[i].elf.size());
  return table;
}

} // namespace pt2c
