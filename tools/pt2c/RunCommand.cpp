#include "tools/pt2c/RunCommand.h"

#include <iostream>

#include "pt2c/pt2c.hpp"
#include "tools/host/npy.h"

namespace pt2c {

int runModelOnNpyFiles(const std::string& library, const std::vector<std::string>& inputPaths,
                       const std::string& outputDir) {
  try {
    Library lib(library);
    Model model = lib.create_model();
    std::vector<npy::Array> inputs;
    std::vector<pt2c_tensor> inputTensors;
    for (const std::string& path : inputPaths) inputs.push_back(npy::read(path));
    for (npy::Array& a : inputs) inputTensors.push_back(a.tensor());

    std::vector<TensorInfo> infos = model.outputs();
    std::vector<npy::Array> outputs(infos.size());
    std::vector<pt2c_tensor> outputTensors;
    for (size_t i = 0; i < infos.size(); ++i) {
      outputs[i].dtype = infos[i].dtype;
      outputs[i].shape = infos[i].dims;
      outputs[i].data.resize(infos[i].nbytes());
      outputTensors.push_back(outputs[i].tensor());
    }
    model.run(inputTensors, outputTensors);
    for (size_t i = 0; i < infos.size(); ++i) {
      std::string index = std::to_string(i);
      bool plain = infos[i].name.empty() || infos[i].name == index;
      std::string path = outputDir + "/" + index + (plain ? "" : "_" + infos[i].name) + ".npy";
      npy::write(path, outputs[i]);
      std::cerr << "pt2c: wrote " << path << "\n";
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "pt2c: error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace pt2c
