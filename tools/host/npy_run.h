// Running a model.so on .npy files and writing its outputs as .npy: shared by
// examples/cpp_host and `pt2c run`.
#ifndef PT2C_TOOLS_HOST_NPY_RUN_H_
#define PT2C_TOOLS_HOST_NPY_RUN_H_

#include <cstdio>
#include <string>
#include <vector>

#include "pt2c/pt2c.hpp"
#include "tools/host/npy.h"

namespace pt2c::host {

// The word that stands for an absent input (a None of the method) among input paths.
constexpr const char *kAbsentInput = "none";

// Reads .npy inputs ("none": absent, a null tensor); `tensors` views the returned arrays.
std::vector<npy::Array> read_inputs(const std::vector<std::string> &paths,
                                    std::vector<pt2c_tensor> *tensors);

// Output arrays of the graph `method` ("": the default) runs on `inputs`, sized from its
// output info (dynamic sizes for these inputs); `output_infos`, if given, receives it.
std::vector<npy::Array> allocate_outputs(const Model &model, const std::string &method,
                                         const std::vector<pt2c_tensor> &inputs,
                                         std::vector<TensorInfo> *output_infos = nullptr);

// Reads the inputs ("none": absent) and runs `method` ("": the default method) on the
// graph they select; the model itself checks count, dtype and shape, so a mismatch
// comes back as its own message (a pt2c::Error). `output_infos`, if given, receives the
// selected graph's outputs.
std::vector<npy::Array> run_on_npy_files(Model &model, const std::vector<std::string> &inputs,
                                         const std::string &method = "",
                                         std::vector<TensorInfo> *output_infos = nullptr);

// "<index>_<name>.npy", or "<index>.npy" when the name adds nothing. Characters that are
// unsafe in file names become '_'.
std::string output_file_name(size_t index, const std::string &name);

// Writes one .npy per output into `dir` (created if needed), logging each to `log`.
void write_outputs(const std::string &dir, const std::vector<TensorInfo> &infos,
                   const std::vector<npy::Array> &outputs, std::FILE *log);

} // namespace pt2c::host

#endif // PT2C_TOOLS_HOST_NPY_RUN_H_
