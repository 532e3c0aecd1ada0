// Builds execution plan blobs (pt2c/plan_format.h) by hand for runtime tests.
//
//   PlanBuilder plan;
//   uint32_t x = plan.add_input("x", PT2C_F32, {2, 4});
//   uint32_t w = plan.add_weight(0, 32);
//   uint32_t tmp = plan.add_arena(0, 32);
//   uint32_t y = plan.add_output("y", PT2C_F32, {2, 4});
//   plan.add_step(kAdd, {x, w, tmp});
//   plan.add_step(kScale, {tmp, y});
//   std::vector<unsigned char> blob = plan.build();
//
// The builder does not validate: tests make corrupt plans with it on purpose. Header sizes
// default to what the records need (arena/weights: the largest buffer end; num_kernels:
// the largest kernel index + 1) unless set.
#ifndef PT2C_TESTS_UNIT_PLAN_BUILDER_H_
#define PT2C_TESTS_UNIT_PLAN_BUILDER_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "pt2c/plan_format.h"
#include "pt2c/pt2c.hpp"

namespace pt2c::testing {

class PlanBuilder {
public:
  std::optional<uint64_t> arena_size;
  std::optional<uint64_t> weights_size;
  std::optional<uint32_t> num_kernels;
  pt2c_device device = PT2C_DEVICE_CPU;

  // CUDA plans: adds an entry to the kernel table (steps index it); returns its index.
  uint32_t add_gpu_kernel(const std::string &name, std::array<uint32_t, 3> grid,
                          std::array<uint32_t, 3> block, uint32_t shared_bytes = 0) {
    pt2c_plan_gpu_kernel kernel{};
    kernel.name = add_string(name);
    kernel.shared_bytes = shared_bytes;
    for (int d = 0; d < 3; ++d)
      kernel.grid[d] = grid[d], kernel.block[d] = block[d];
    gpu_kernels_.push_back(kernel);
    return static_cast<uint32_t>(gpu_kernels_.size() - 1);
  }

  // Adds an input (or output) and the buffer that holds it; returns the buffer id.
  uint32_t add_input(const std::string &name, pt2c_dtype dtype, std::vector<int64_t> dims) {
    return add_tensor(&inputs_, PT2C_BUFFER_INPUT, name, dtype, dims);
  }
  uint32_t add_output(const std::string &name, pt2c_dtype dtype, std::vector<int64_t> dims) {
    return add_tensor(&outputs_, PT2C_BUFFER_OUTPUT, name, dtype, dims);
  }
  uint32_t add_weight(uint64_t offset, uint64_t nbytes) {
    return add_buffer({PT2C_BUFFER_WEIGHT, 0, offset, nbytes});
  }
  uint32_t add_arena(uint64_t offset, uint64_t nbytes) {
    return add_buffer({PT2C_BUFFER_ARENA, 0, offset, nbytes});
  }
  uint32_t add_buffer(const pt2c_plan_buffer &buffer) {
    buffers_.push_back(buffer);
    return static_cast<uint32_t>(buffers_.size() - 1);
  }
  void add_step(uint32_t kernel, const std::vector<uint32_t> &buffer_ids) {
    steps_.push_back({kernel, static_cast<uint32_t>(buffer_ids.size()),
                      static_cast<uint32_t>(step_args_.size()), 0});
    step_args_.insert(step_args_.end(), buffer_ids.begin(), buffer_ids.end());
  }

  // CUDA plans: a GEMM step on (A, B, [bias,] D); the next `gemm.num_fallback_steps`
  // steps are its fallback.
  void add_gemm_step(const pt2c_plan_gemm &gemm, const std::vector<uint32_t> &buffer_ids) {
    steps_.push_back({static_cast<uint32_t>(gemms_.size()),
                      static_cast<uint32_t>(buffer_ids.size()),
                      static_cast<uint32_t>(step_args_.size()), PT2C_STEP_GEMM});
    step_args_.insert(step_args_.end(), buffer_ids.begin(), buffer_ids.end());
    gemms_.push_back(gemm);
  }

  // CUDA plans: a convolution step on (x, w, [bias,] [z,] y); the next
  // `conv.num_fallback_steps` steps are its fallback.
  void add_conv_step(const pt2c_plan_conv &conv, const std::vector<uint32_t> &buffer_ids) {
    steps_.push_back({static_cast<uint32_t>(convs_.size()),
                      static_cast<uint32_t>(buffer_ids.size()),
                      static_cast<uint32_t>(step_args_.size()), PT2C_STEP_CONV});
    step_args_.insert(step_args_.end(), buffer_ids.begin(), buffer_ids.end());
    convs_.push_back(conv);
  }

  // Named model state: a STATE buffer over weights bytes at `offset` and its record.
  uint32_t add_state(const std::string &name, pt2c_dtype dtype, const std::vector<int64_t> &dims,
                     uint64_t offset) {
    return add_tensor(&states_, PT2C_BUFFER_STATE, name, dtype, dims, offset);
  }

  // Dynamic dimensions: symbol i is dim `dim` of input `input`, in [min, max].
  void add_sym(const std::string &name, uint32_t input, uint32_t dim, int64_t min, int64_t max) {
    pt2c_plan_sym sym{};
    sym.name = add_string(name);
    sym.input = input, sym.dim = dim, sym.min = min, sym.max = max;
    syms_.push_back(sym);
  }
  // A data-dependent size in [0, max]: the step naming `buffer` computes it there.
  void add_produced_sym(const std::string &name, uint32_t buffer, int64_t max) {
    pt2c_plan_sym sym{};
    sym.name = add_string(name);
    sym.dim = buffer, sym.flags = PT2C_SYM_FLAG_PRODUCED, sym.max = max;
    syms_.push_back(sym);
  }
  // A size in [min, max] derived from the symbols before it (a clamp): `code` is the
  // add_size_code entry of its expression (`flags`: other flags, for corrupt plans).
  void add_derived_sym(const std::string &name, int64_t code, int64_t min, int64_t max,
                       uint32_t flags = PT2C_SYM_FLAG_DERIVED) {
    pt2c_plan_sym sym{};
    sym.name = add_string(name);
    sym.dim = static_cast<uint32_t>(-(code + 1)), sym.flags = flags;
    sym.min = min, sym.max = max;
    syms_.push_back(sym);
  }
  // A size expression from (opcode, operand) pairs; returns the dims[] entry naming it.
  int64_t add_size_code(const std::vector<int64_t> &pairs) {
    int64_t at = static_cast<int64_t>(sym_code_.size());
    sym_code_.push_back(static_cast<int64_t>(pairs.size() / 2));
    sym_code_.insert(sym_code_.end(), pairs.begin(), pairs.end());
    return -(1 + at);
  }

  // A guard on the first element of `buffer`, expected to equal `expected`.
  void add_guard(uint32_t buffer, pt2c_dtype dtype, double expected, const std::string &message) {
    pt2c_plan_guard guard{};
    guard.buffer = buffer;
    guard.dtype = dtype;
    guard.message = add_string(message);
    guard.expected = expected;
    guards_.push_back(guard);
  }

  std::vector<unsigned char> build() const {
    pt2c_plan_header header;
    std::memset(&header, 0, sizeof(header));
    std::memcpy(header.magic, PT2C_PLAN_MAGIC, sizeof(header.magic));
    header.version = PT2C_PLAN_VERSION;
    header.num_inputs = static_cast<uint32_t>(inputs_.size());
    header.num_outputs = static_cast<uint32_t>(outputs_.size());
    header.num_buffers = static_cast<uint32_t>(buffers_.size());
    header.num_steps = static_cast<uint32_t>(steps_.size());
    header.num_step_args = static_cast<uint32_t>(step_args_.size());
    header.num_dims = static_cast<uint32_t>(dims_.size());
    header.num_kernels = num_kernels.value_or(needed_kernels());
    header.num_guards = static_cast<uint32_t>(guards_.size());
    header.device = device;
    header.strings_size = strings_.size();
    header.arena_size = arena_size.value_or(buffer_end(PT2C_BUFFER_ARENA));
    header.weights_size = weights_size.value_or(buffer_end(PT2C_BUFFER_WEIGHT));
    header.num_gemms = static_cast<uint32_t>(gemms_.size());
    header.num_convs = static_cast<uint32_t>(convs_.size());
    header.num_syms = static_cast<uint32_t>(syms_.size());
    header.num_sym_words = static_cast<uint32_t>(sym_code_.size());
    header.num_states = static_cast<uint32_t>(states_.size());

    std::vector<unsigned char> blob;
    append(&blob, &header, sizeof(header));
    append(&blob, inputs_.data(), inputs_.size() * sizeof(pt2c_plan_tensor));
    append(&blob, outputs_.data(), outputs_.size() * sizeof(pt2c_plan_tensor));
    append(&blob, buffers_.data(), buffers_.size() * sizeof(pt2c_plan_buffer));
    append(&blob, steps_.data(), steps_.size() * sizeof(pt2c_plan_step));
    append(&blob, guards_.data(), guards_.size() * sizeof(pt2c_plan_guard));
    if (device == PT2C_DEVICE_CUDA)
      append(&blob, gpu_kernels_.data(), gpu_kernels_.size() * sizeof(pt2c_plan_gpu_kernel));
    append(&blob, gemms_.data(), gemms_.size() * sizeof(pt2c_plan_gemm));
    append(&blob, convs_.data(), convs_.size() * sizeof(pt2c_plan_conv));
    append(&blob, syms_.data(), syms_.size() * sizeof(pt2c_plan_sym));
    append(&blob, states_.data(), states_.size() * sizeof(pt2c_plan_tensor));
    append(&blob, step_args_.data(), step_args_.size() * sizeof(uint32_t));
    append(&blob, dims_.data(), dims_.size() * sizeof(int64_t));
    append(&blob, sym_code_.data(), sym_code_.size() * sizeof(int64_t));
    blob.insert(blob.end(), strings_.begin(), strings_.end());
    return blob;
  }

  // The header of a built blob, for tests that corrupt it.
  static pt2c_plan_header *header_of(std::vector<unsigned char> *blob) {
    return reinterpret_cast<pt2c_plan_header *>(blob->data());
  }

private:
  uint32_t add_tensor(std::vector<pt2c_plan_tensor> *tensors, pt2c_plan_buffer_kind kind,
                      const std::string &name, pt2c_dtype dtype, const std::vector<int64_t> &dims,
                      uint64_t offset = 0) {
    uint32_t number = static_cast<uint32_t>(tensors->size());
    uint64_t nbytes = pt2c::dtype_size(dtype);
    for (int64_t dim : dims)
      nbytes *= dim < 0 ? 0 : static_cast<uint64_t>(dim); // < 0: symbolic
    uint32_t buffer = add_buffer({static_cast<uint32_t>(kind), number, offset, nbytes});
    pt2c_plan_tensor tensor{};
    tensor.name = add_string(name);
    tensor.dtype = dtype;
    tensor.rank = static_cast<uint32_t>(dims.size());
    tensor.dims = static_cast<uint32_t>(dims_.size());
    tensor.buffer = buffer;
    tensors->push_back(tensor);
    dims_.insert(dims_.end(), dims.begin(), dims.end());
    return buffer;
  }

  uint32_t add_string(const std::string &text) {
    uint32_t offset = static_cast<uint32_t>(strings_.size());
    strings_.insert(strings_.end(), text.begin(), text.end());
    strings_.push_back('\0');
    return offset;
  }

  uint32_t needed_kernels() const {
    if (device == PT2C_DEVICE_CUDA)
      return static_cast<uint32_t>(gpu_kernels_.size());
    uint32_t count = 0;
    for (const pt2c_plan_step &step : steps_)
      count = std::max(count, step.kernel + 1);
    return count;
  }
  uint64_t buffer_end(pt2c_plan_buffer_kind kind) const {
    uint64_t end = 0;
    for (const pt2c_plan_buffer &buffer : buffers_)
      if (buffer.kind == static_cast<uint32_t>(kind))
        end = std::max(end, buffer.offset + buffer.nbytes);
    return end;
  }
  // Appends `size` bytes and pads to 8, as every section is 8-byte aligned.
  static void append(std::vector<unsigned char> *blob, const void *data, size_t size) {
    const unsigned char *bytes = static_cast<const unsigned char *>(data);
    blob->insert(blob->end(), bytes, bytes + size);
    blob->resize((blob->size() + 7) / 8 * 8, 0);
  }

  std::vector<pt2c_plan_tensor> inputs_, outputs_, states_;
  std::vector<pt2c_plan_buffer> buffers_;
  std::vector<pt2c_plan_step> steps_;
  std::vector<pt2c_plan_guard> guards_;
  std::vector<pt2c_plan_gpu_kernel> gpu_kernels_;
  std::vector<pt2c_plan_gemm> gemms_;
  std::vector<pt2c_plan_conv> convs_;
  std::vector<pt2c_plan_sym> syms_;
  std::vector<int64_t> sym_code_;
  std::vector<uint32_t> step_args_;
  std::vector<int64_t> dims_;
  std::vector<char> strings_;
};

} // namespace pt2c::testing

#endif // PT2C_TESTS_UNIT_PLAN_BUILDER_H_
