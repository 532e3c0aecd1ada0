// Serializes plan records in the layout of runtime/include/pt2c/plan_format.h.
#ifndef PT2C_COMPILER_CODEGEN_PLANWRITER_H_
#define PT2C_COMPILER_CODEGEN_PLANWRITER_H_

#include <string>
#include <vector>

#include "pt2c/plan_format.h"

namespace pt2c {

struct PlanRecords {
  std::vector<pt2c_plan_tensor> inputs, outputs;
  std::vector<pt2c_plan_buffer> buffers;
  std::vector<pt2c_plan_step> steps;
  std::vector<pt2c_plan_guard> guards;
  uint32_t device = PT2C_DEVICE_CPU;
  std::vector<pt2c_plan_gpu_kernel> gpuKernels; // the kernel table of a CUDA plan
  std::vector<pt2c_plan_gemm> gemms;            // the GEMM table of a CUDA plan
  std::vector<pt2c_plan_conv> convs;            // the convolution table of a CUDA plan
  std::vector<pt2c_plan_sym> syms;              // dynamic dimensions
  std::vector<pt2c_plan_tensor> states;         // the STATE buffers by name
  std::vector<int64_t> symCode;                 // their size expressions
  std::vector<uint32_t> stepArgs;
  std::vector<int64_t> dims;
  std::string strings;
  uint32_t numKernels = 0;
  uint64_t arenaSize = 0, weightsSize = 0;

  // Appends a NUL-terminated string; returns its offset.
  uint32_t addString(const std::string &s);
};

std::string serializePlan(const PlanRecords &records);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_PLANWRITER_H_
