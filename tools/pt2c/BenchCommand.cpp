#include "tools/pt2c/BenchCommand.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <random>

#include "pt2c/pt2c.hpp"
#include "tools/host/npy_run.h"

namespace pt2c {
namespace {

uint16_t halfBits(float value, pt2c_dtype dtype) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if (dtype == PT2C_BF16)
    return static_cast<uint16_t>(bits >> 16); // truncation is fine here
  // Values in [-1, 1): normal or zero halves, no rounding subtleties worth having.
  uint32_t sign = (bits >> 16) & 0x8000u;
  int32_t exponent = static_cast<int32_t>((bits >> 23) & 0xff) - 127 + 15;
  if (exponent <= 0)
    return static_cast<uint16_t>(sign);
  return static_cast<uint16_t>(sign | (exponent << 10) | ((bits >> 13) & 0x3ff));
}

// A synthetic input for `info` (static sizes): see BenchCommand.h.
npy::Array syntheticInput(const TensorInfo &info, std::mt19937 &rng) {
  if (std::find(info.dims.begin(), info.dims.end(), -1) != info.dims.end())
    throw Error(PT2C_ERROR_INVALID_ARGUMENT,
                "input '" + info.name + "' has a dynamic dimension: give the inputs with --input");
  npy::Array array;
  array.dtype = info.dtype;
  array.shape = info.dims;
  array.data.assign(info.nbytes(), 0);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  size_t count = array.data.size() / std::max<size_t>(1, dtype_size(info.dtype));
  for (size_t i = 0; i < count; ++i) {
    float value = uniform(rng);
    if (info.dtype == PT2C_F32) {
      std::memcpy(array.data.data() + 4 * i, &value, 4);
    } else if (info.dtype == PT2C_F64) {
      double wide = value;
      std::memcpy(array.data.data() + 8 * i, &wide, 8);
    } else if (info.dtype == PT2C_F16 || info.dtype == PT2C_BF16) {
      uint16_t bits = halfBits(value, info.dtype);
      std::memcpy(array.data.data() + 2 * i, &bits, 2);
    }
  }
  return array;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

} // namespace

int benchModel(const BenchOptions &options) {
  try {
    if (options.runs < 1 || options.warmup < 0)
      throw Error(PT2C_ERROR_INVALID_ARGUMENT, "--runs must be >= 1 and --warmup >= 0");
    Library lib(options.library);
    if (options.threads != 0)
      lib.set_num_threads(options.threads);
    Model model = lib.create_model(options.weights);
    std::vector<npy::Array> inputs;
    std::vector<pt2c_tensor> inputTensors;
    if (options.inputs.empty()) {
      std::mt19937 rng(0);
      for (const TensorInfo &info : model.inputs())
        inputs.push_back(syntheticInput(info, rng));
      for (npy::Array &input : inputs)
        inputTensors.push_back(input.tensor());
    } else {
      inputs = host::read_inputs(options.inputs, &inputTensors);
    }
    std::vector<npy::Array> outputs = host::allocate_outputs(model, options.method, inputTensors);
    std::vector<pt2c_tensor> outputTensors;
    for (npy::Array &output : outputs)
      outputTensors.push_back(output.tensor());
    for (int i = 0; i < options.warmup; ++i)
      model.run_method(options.method, inputTensors, outputTensors);
    std::vector<double> ms;
    for (int i = 0; i < options.runs; ++i) {
      auto start = std::chrono::steady_clock::now();
      model.run_method(options.method, inputTensors, outputTensors);
      auto end = std::chrono::steady_clock::now();
      ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    }
    std::printf("%s: %d runs (%d warmup), %s, %d threads: median %.3f ms, min %.3f, max %.3f\n",
                options.library.c_str(), options.runs, options.warmup,
                model.device() == PT2C_DEVICE_CUDA   ? "cuda (host memory)"
                : model.device() == PT2C_DEVICE_ROCM ? "rocm (host memory)"
                                                     : "cpu",
                lib.num_threads(), median(ms), *std::min_element(ms.begin(), ms.end()),
                *std::max_element(ms.begin(), ms.end()));
    return 0;
  } catch (const std::exception &e) {
    std::cerr << "pt2c: error: " << e.what() << "\n";
    return 1;
  }
}

} // namespace pt2c
