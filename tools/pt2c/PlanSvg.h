// The graph of a plan's steps as an SVG drawing (`pt2c inspect model.so --svg OUT`): one
// box per step that runs (a library step's fallback steps are left out), in execution
// order from the model's inputs at the top to its outputs at the bottom, with an arrow
// from the last step that touched a buffer to the next step that uses it (plans do not
// mark which arguments a step writes, so this is the order of access, which is the data
// flow for the single-assignment buffers of a plan). Self-contained SVG: no Graphviz.
#ifndef PT2C_TOOLS_PT2C_PLANSVG_H_
#define PT2C_TOOLS_PT2C_PLANSVG_H_

#include <string>
#include <vector>

#include "compiler/codegen/PlanWriter.h"

namespace pt2c {

// For each step, the GEMM or convolution step whose fallback it is (the runtime runs the
// library step or its fallback steps, never both), or -1 for a step that always runs.
std::vector<int64_t> fallbackOwners(const PlanRecords &plan);

// `labels` has one line of text per step (the inspect listing's).
std::string planGraphSvg(const PlanRecords &plan, const std::vector<std::string> &labels,
                         const std::string &title);

} // namespace pt2c

#endif // PT2C_TOOLS_PT2C_PLANSVG_H_
