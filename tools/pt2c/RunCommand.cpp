#include "tools/pt2c/RunCommand.h"

#include <iostream>

#include "pt2c/pt2c.hpp"
#include "tools/host/npy_run.h"

namespace pt2c {

int runModelOnNpyFiles(const std::string &library, const std::vector<std::string> &inputPaths,
                       const std::string &outputDir, const std::string &method,
                       const std::string &weights) {
  try {
    Library lib(library);
    Model model = lib.create_model(weights);
    std::vector<TensorInfo> infos;
    std::vector<npy::Array> outputs = host::run_on_npy_files(model, inputPaths, method, &infos);
    host::write_outputs(outputDir, infos, outputs, stderr);
    return 0;
  } catch (const std::exception &e) {
    std::cerr << "pt2c: error: " << e.what() << "\n";
    return 1;
  }
}

} // namespace pt2c
