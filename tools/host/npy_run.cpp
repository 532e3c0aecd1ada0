#include "tools/host/npy_run.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>

#include "tools/host/tensor_compare.h"

namespace pt2c::host {

std::vector<npy::Array> read_inputs(const std::vector<std::string> &paths,
                                    std::vector<pt2c_tensor> *tensors) {
  std::vector<npy::Array> inputs(paths.size());
  tensors->clear();
  for (size_t i = 0; i < paths.size(); ++i) {
    if (paths[i] == kAbsentInput) {
      tensors->push_back(absent());
      continue;
    }
    inputs[i] = npy::read(paths[i]);
    tensors->push_back(inputs[i].tensor());
  }
  return inputs;
}

std::vector<npy::Array> allocate_outputs(const Model &model, const std::string &method,
                                         const std::vector<pt2c_tensor> &inputs,
                                         std::vector<TensorInfo> *output_infos) {
  int32_t graph = model.find_graph(method, inputs);
  std::vector<TensorInfo> infos = model.graph_outputs(graph);
  // Sizes that follow dynamic dimensions (-1 in the info) are these inputs'.
  for (size_t i = 0; i < infos.size(); ++i)
    if (std::find(infos[i].dims.begin(), infos[i].dims.end(), -1) != infos[i].dims.end())
      infos[i].dims = model.graph_output_shape(graph, inputs, static_cast<int32_t>(i));
  if (output_infos != nullptr)
    *output_infos = infos;
  std::vector<npy::Array> outputs(infos.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    outputs[i].dtype = infos[i].dtype;
    outputs[i].shape = infos[i].dims;
    outputs[i].data.resize(infos[i].nbytes());
  }
  return outputs;
}

std::vector<npy::Array> run_on_npy_files(Model &model, const std::vector<std::string> &paths,
                                         const std::string &method,
                                         std::vector<TensorInfo> *output_infos) {
  std::vector<pt2c_tensor> input_tensors;
  std::vector<npy::Array> inputs = read_inputs(paths, &input_tensors);
  std::vector<npy::Array> outputs = allocate_outputs(model, method, input_tensors, output_infos);
  std::vector<pt2c_tensor> output_tensors;
  for (npy::Array &output : outputs)
    output_tensors.push_back(output.tensor());
  model.run_method(method, input_tensors, output_tensors);
  // Buffers were sized at the bounds of data-dependent sizes; the run's sizes are known
  // now, and its elements come first.
  if (!model.dynamic_dims().empty())
    for (size_t i = 0; i < outputs.size(); ++i) {
      outputs[i].shape = model.last_output_shape(static_cast<int32_t>(i), outputs[i].shape.size());
      outputs[i].data.resize(static_cast<size_t>(outputs[i].num_elements()) *
                             dtype_size(outputs[i].dtype));
      if (output_infos != nullptr)
        (*output_infos)[i].dims = outputs[i].shape;
    }
  return outputs;
}

std::string output_file_name(size_t index, const std::string &name) {
  std::string number = std::to_string(index);
  if (name.empty() || name == number)
    return number + ".npy";
  std::string safe = name;
  for (char &c : safe)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.')
      c = '_';
  return number + "_" + safe + ".npy";
}

namespace {

// .npy has no bfloat16; such outputs are written widened to f32 (exactly).
npy::Array writable(const pt2c::npy::Array &output) {
  if (output.dtype != PT2C_BF16)
    return output;
  pt2c::npy::Array widened;
  widened.dtype = PT2C_F32;
  widened.shape = output.shape;
  widened.data.resize(static_cast<size_t>(output.num_elements()) * sizeof(float));
  for (size_t i = 0; i < static_cast<size_t>(output.num_elements()); ++i) {
    float value =
        static_cast<float>(pt2c::host::element_to_double(PT2C_BF16, output.data.data(), i));
    std::memcpy(widened.data.data() + i * sizeof(float), &value, sizeof(float));
  }
  return widened;
}

} // namespace

void write_outputs(const std::string &dir, const std::vector<TensorInfo> &infos,
                   const std::vector<npy::Array> &outputs, std::FILE *log) {
  std::filesystem::create_directories(dir);
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string path = (std::filesystem::path(dir) / output_file_name(i, infos[i].name)).string();
    if (outputs[i].dtype == PT2C_BF16)
      std::fprintf(log, "note: output %zu (%s) is bf16, written as f32\n", i,
                   infos[i].name.c_str());
    pt2c::npy::write(path, writable(outputs[i]));
    std::fprintf(log, "wrote %s\n", path.c_str());
  }
}

} // namespace pt2c::host
