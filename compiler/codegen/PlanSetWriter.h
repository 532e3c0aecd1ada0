// Serializes a plan set (runtime/include/pt2c/plan_format.h): the dispatch table of a
// multi-graph model and each graph's plan blob. Depends on nothing but the format header,
// so the runtime's unit tests build their plan sets with it too.
#ifndef PT2C_COMPILER_CODEGEN_PLANSETWRITER_H_
#define PT2C_COMPILER_CODEGEN_PLANSETWRITER_H_

#include <cstdint>
#include <string>
#include <vector>

namespace pt2c {

struct PlanSetGraph {
  std::string name;   // the signature's name
  std::string method; // "forward", "encode", ...
  struct Slot {
    std::string name;   // the method's parameter name
    int32_t input = -1; // the plan input it binds; -1: absent (None)
  };
  std::vector<Slot> slots;
  uint32_t firstKernel = 0; // where the graph's kernels start in the shared table
  std::string plan;         // the graph's plan blob (serializePlan)
};

std::string serializePlanSet(const std::vector<PlanSetGraph> &graphs);

// Each graph's first kernel and plan blob, read back from serializePlanSet's bytes;
// empty if `bytes` is no plan set (a lone plan) or is cut short.
struct PlanSetPart {
  uint32_t firstKernel = 0;
  std::string plan;
};
std::vector<PlanSetPart> planSetParts(const std::string &bytes);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_PLANSETWRITER_H_
