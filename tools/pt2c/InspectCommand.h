// `pt2c inspect FILE [--svg OUT.svg]`: what a compiled model.so or an exported model.pt2c
// holds, without running it.
//   model.so:   its C ABI version, device, and per graph the signature, dynamic dims,
//               weights/arena/state sizes, guards (with their model.py lines) and every
//               plan step: generated kernels (CUDA: name, grid, block), GEMMs and
//               convolutions with their shapes and the library that serves them
//               (the CPU microkernels, cuBLASLt, cuDNN) and their fallback steps.
//   model.pt2c: per graph the signature, the ATen ops with the model.py lines they came
//               from, the weights, and the draft report's size (`pt2c report` prints it).
// --svg draws a model.so's graph of plan steps (PlanSvg.h).
#ifndef PT2C_TOOLS_PT2C_INSPECTCOMMAND_H_
#define PT2C_TOOLS_PT2C_INSPECTCOMMAND_H_

#include <string>

namespace pt2c {

// Prints to stdout; returns the exit code (1 with a `pt2c: error:` line on stderr for a
// file that is neither, or unreadable).
int inspectFile(const std::string &path, const std::string &svgPath);

} // namespace pt2c

#endif // PT2C_TOOLS_PT2C_INSPECTCOMMAND_H_
