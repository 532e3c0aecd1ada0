// Picks the Python interpreter that runs the exporter: it must be able to import torch.
// Order: --python, $PT2C_PYTHON, the project's environment ($PT2C_VENV, default
// ~/.cache/pt2c/venv, made by tools/setup.sh), python3 on PATH, /usr/bin/python3.
// An interpreter named explicitly (flag or variable) is used or refused, never skipped.
#ifndef PT2C_COMPILER_DRIVER_PYTHONFINDER_H_
#define PT2C_COMPILER_DRIVER_PYTHONFINDER_H_

#include <string>

#include "llvm/Support/Error.h"

namespace pt2c {

llvm::Expected<std::string> findPythonWithTorch(const std::string &explicitPython);

} // namespace pt2c

#endif // PT2C_COMPILER_DRIVER_PYTHONFINDER_H_
