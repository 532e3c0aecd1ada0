#include "compiler/codegen/PlanWriter.h"

#include <cstring>

namespace pt2c {
namespace {

// Every section starts 8-byte aligned (plan_format.h).
template <typename T> void append(std::string &out, const std::vector<T> &items) {
  out.append(reinterpret_cast<const char *>(items.data()), items.size() * sizeof(T));
  out.resize((out.size() + 7) / 8 * 8, '\0');
}

} // namespace

uint32_t PlanRecords::addString(const std::string &s) {
  uint32_t offset = strings.size();
  strings.append(s);
  strings.push_back('\0');
  return offset;
}

std::string serializePlan(const PlanRecords &r) {
  pt2c_plan_header h;
  std::memset(&h, 0, sizeof(h));
  std::memcpy(h.magic, PT2C_PLAN_MAGIC, 8);
  h.version = PT2C_PLAN_VERSION;
  h.num_inputs = r.inputs.size();
  h.num_outputs = r.outputs.size();
  h.num_buffers = r.buffers.size();
  h.num_steps = r.steps.size();
  h.num_step_args = r.stepArgs.size();
  h.num_dims = r.dims.size();
  h.num_kernels = r.numKernels;
  h.num_guards = r.guards.size();
  h.device = r.device;
  h.strings_size = r.strings.size();
  h.arena_size = r.arenaSize;
  h.weights_size = r.weightsSize;
  h.num_gemms = r.gemms.size();
  h.num_convs = r.convs.size();
  h.num_syms = r.syms.size();
  h.num_states = r.states.size();
  h.num_sym_words = r.symCode.size();

  std::string out(reinterpret_cast<const char *>(&h), sizeof(h));
  append(out, r.inputs);
  append(out, r.outputs);
  append(out, r.buffers);
  append(out, r.steps);
  append(out, r.guards);
  if (pt2c_plan_device_is_gpu(r.device))
    append(out, r.gpuKernels);
  append(out, r.gemms);
  append(out, r.convs);
  append(out, r.syms);
  append(out, r.states);
  append(out, r.stepArgs);
  append(out, r.dims);
  append(out, r.symCode);
  out.append(r.strings);
  return out;
}

} // namespace pt2c
