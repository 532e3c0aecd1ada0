#include "compiler/codegen/PlanReader.h"

#include <cstring>

namespace pt2c {
namespace {

class Cursor {
public:
  explicit Cursor(const std::string &bytes) : bytes(bytes) {}

  // Reads `count` records and skips the padding to the next 8-byte boundary.
  template <typename T> bool read(std::vector<T> &out, uint64_t count) {
    uint64_t size = count * sizeof(T);
    if (size > bytes.size() - offset)
      return false;
    out.resize(count);
    if (size > 0)
      std::memcpy(out.data(), bytes.data() + offset, size);
    offset = std::min<uint64_t>(bytes.size(), (offset + size + 7) / 8 * 8);
    return true;
  }
  bool readString(std::string &out, uint64_t size) {
    if (size > bytes.size() - offset)
      return false;
    out = bytes.substr(offset, size);
    offset += size;
    return true;
  }
  uint64_t remaining() const { return bytes.size() - offset; }
  uint64_t used() const { return offset; }

private:
  const std::string &bytes;
  uint64_t offset = sizeof(pt2c_plan_header);
};

} // namespace

llvm::Expected<PlanRecords> readPlanRecords(const std::string &bytes, uint64_t *usedBytes) {
  auto fail = [](const char *what) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   std::string("internal error: unreadable plan: ") + what);
  };
  pt2c_plan_header h;
  if (bytes.size() < sizeof(h))
    return fail("shorter than its header");
  std::memcpy(&h, bytes.data(), sizeof(h));
  if (std::memcmp(h.magic, PT2C_PLAN_MAGIC, 8) != 0 || h.version != PT2C_PLAN_VERSION)
    return fail("bad magic or version");
  PlanRecords r;
  r.numKernels = h.num_kernels;
  r.arenaSize = h.arena_size;
  r.weightsSize = h.weights_size;
  r.device = h.device;
  Cursor c(bytes);
  bool ok = c.read(r.inputs, h.num_inputs) && c.read(r.outputs, h.num_outputs) &&
            c.read(r.buffers, h.num_buffers) && c.read(r.steps, h.num_steps) &&
            c.read(r.guards, h.num_guards) &&
            (!pt2c_plan_device_is_gpu(h.device) || c.read(r.gpuKernels, h.num_kernels)) &&
            c.read(r.gemms, h.num_gemms) && c.read(r.convs, h.num_convs) &&
            c.read(r.syms, h.num_syms) && c.read(r.states, h.num_states) &&
            c.read(r.stepArgs, h.num_step_args) && c.read(r.dims, h.num_dims) &&
            c.read(r.symCode, h.num_sym_words) && c.readString(r.strings, h.strings_size) &&
            (usedBytes || c.remaining() < 8);
  if (!ok)
    return fail("its sections do not add up to its size");
  if (usedBytes)
    *usedBytes = c.used();
  return r;
}

} // namespace pt2c
