// Header-only C++17 wrapper over the pt2c C ABI that loads a model.so at run time.
//
// A host needs nothing but this header (and pt2c.h next to it): the model.so is opened
// with dlopen and the ABI functions are found with dlsym, so the host program does not
// link against any model. Link the host with -ldl on glibc older than 2.34.
//
//   pt2c::Library library("model.so");
//   pt2c::Model model = library.create_model();
//   pt2c::Model model = library.create_model("model.so.weights");  // --external-weights
//   for (const pt2c::TensorInfo& info : model.inputs()) ...
//   model.run(inputs, outputs);  // std::vector<pt2c_tensor>, host memory
//   model.run_device(inputs, outputs, stream);  // CUDA models: device memory
//   int32_t g = model.find_graph("encode", inputs);  // multi-graph models: which graph
//   model.graph_outputs(g) ...; model.run_method("encode", inputs, outputs);
//   absent optional inputs: pt2c::absent() (a zeroed pt2c_tensor)
//   pt2c::Context c = model.create_context(); c.run(inputs, outputs);  // one per thread
//
// Every failure throws pt2c::Error, which carries the pt2c_status and the message.
#ifndef PT2C_PT2C_HPP_
#define PT2C_PT2C_HPP_

#include <dlfcn.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "pt2c/pt2c.h"

namespace pt2c {

class Error : public std::runtime_error {
public:
  Error(pt2c_status status, const std::string &message)
      : std::runtime_error(message), status_(status) {}
  pt2c_status status() const noexcept { return status_; }

private:
  pt2c_status status_;
};

// "f32", "i64", ...; matches the runtime's messages.
inline const char *dtype_name(pt2c_dtype dtype) {
  switch (dtype) {
  case PT2C_F32:
    return "f32";
  case PT2C_F64:
    return "f64";
  case PT2C_F16:
    return "f16";
  case PT2C_BF16:
    return "bf16";
  case PT2C_I64:
    return "i64";
  case PT2C_I32:
    return "i32";
  case PT2C_I16:
    return "i16";
  case PT2C_I8:
    return "i8";
  case PT2C_U8:
    return "u8";
  case PT2C_BOOL:
    return "bool";
  case PT2C_DTYPE_UNDEFINED:
    break;
  }
  return "unknown";
}

// Bytes per element, 0 for unknown dtypes (the same as pt2c_dtype_size, without needing
// a loaded library).
inline std::size_t dtype_size(pt2c_dtype dtype) {
  switch (dtype) {
  case PT2C_F64:
  case PT2C_I64:
    return 8;
  case PT2C_F32:
  case PT2C_I32:
    return 4;
  case PT2C_F16:
  case PT2C_BF16:
  case PT2C_I16:
    return 2;
  case PT2C_I8:
  case PT2C_U8:
  case PT2C_BOOL:
    return 1;
  case PT2C_DTYPE_UNDEFINED:
    break;
  }
  return 0;
}

// "[8, 64]"
inline std::string shape_string(const std::vector<int64_t> &dims) {
  std::string text = "[";
  for (std::size_t i = 0; i < dims.size(); ++i)
    text += (i == 0 ? "" : ", ") + std::to_string(dims[i]);
  return text + "]";
}

// An input or output as the model describes it; owns its strings, unlike
// pt2c_tensor_info, so it outlives the model.
struct TensorInfo {
  std::string name;
  pt2c_dtype dtype = PT2C_DTYPE_UNDEFINED;
  std::vector<int64_t> dims;

  int64_t num_elements() const {
    int64_t count = 1;
    for (int64_t dim : dims)
      count *= dim;
    return count;
  }
  std::size_t nbytes() const {
    return static_cast<std::size_t>(num_elements()) * dtype_size(dtype);
  }
};

// One graph of a model: a signature of model.py, traced from `method`.
struct GraphInfo {
  std::string name;
  std::string method;
  int32_t num_inputs = 0; // slots, absent ones included
  int32_t num_outputs = 0;
};

// The absent input: what a method's optional argument that was None at export gets.
inline pt2c_tensor absent() { return pt2c_tensor{nullptr, PT2C_DTYPE_UNDEFINED, 0, nullptr}; }

// A pt2c_tensor over caller memory; `dims` must outlive the returned view.
inline pt2c_tensor tensor_view(void *data, pt2c_dtype dtype, const std::vector<int64_t> &dims) {
  return pt2c_tensor{data, dtype, static_cast<int32_t>(dims.size()), dims.data()};
}

namespace detail {

// The ABI functions of one loaded model.so. Shared by the Library and every Model made
// from it, so that the .so stays loaded while any of them lives.
struct Api {
  void *handle = nullptr;
  decltype(&::pt2c_abi_version) abi_version = nullptr;
  decltype(&::pt2c_model_create) model_create = nullptr;
  decltype(&::pt2c_model_create_with_weights) model_create_with_weights = nullptr;
  decltype(&::pt2c_model_destroy) model_destroy = nullptr;
  decltype(&::pt2c_model_num_inputs) model_num_inputs = nullptr;
  decltype(&::pt2c_model_num_outputs) model_num_outputs = nullptr;
  decltype(&::pt2c_model_input_info) model_input_info = nullptr;
  decltype(&::pt2c_model_output_info) model_output_info = nullptr;
  decltype(&::pt2c_model_run) model_run = nullptr;
  decltype(&::pt2c_model_device) model_device = nullptr;
  decltype(&::pt2c_model_run_device) model_run_device = nullptr;
  decltype(&::pt2c_model_num_graphs) model_num_graphs = nullptr;
  decltype(&::pt2c_model_graph_info) model_graph_info = nullptr;
  decltype(&::pt2c_model_graph_input_info) model_graph_input_info = nullptr;
  decltype(&::pt2c_model_graph_output_info) model_graph_output_info = nullptr;
  decltype(&::pt2c_model_find_graph) model_find_graph = nullptr;
  decltype(&::pt2c_model_run_method) model_run_method = nullptr;
  decltype(&::pt2c_model_num_dynamic_dims) model_num_dynamic_dims = nullptr;
  decltype(&::pt2c_model_dynamic_dim_info) model_dynamic_dim_info = nullptr;
  decltype(&::pt2c_model_output_shape) model_output_shape = nullptr;
  decltype(&::pt2c_model_graph_output_shape) model_graph_output_shape = nullptr;
  decltype(&::pt2c_model_last_output_shape) model_last_output_shape = nullptr;
  decltype(&::pt2c_model_reset_state) model_reset_state = nullptr;
  decltype(&::pt2c_model_num_states) model_num_states = nullptr;
  decltype(&::pt2c_model_state_info) model_state_info = nullptr;
  decltype(&::pt2c_model_read_state) model_read_state = nullptr;
  decltype(&::pt2c_model_write_state) model_write_state = nullptr;
  decltype(&::pt2c_set_num_threads) set_num_threads = nullptr;
  decltype(&::pt2c_num_threads) num_threads = nullptr;
  decltype(&::pt2c_last_error) last_error = nullptr;
  decltype(&::pt2c_context_create) context_create = nullptr;
  decltype(&::pt2c_context_destroy) context_destroy = nullptr;
  decltype(&::pt2c_context_run) context_run = nullptr;
  decltype(&::pt2c_context_run_method) context_run_method = nullptr;
  decltype(&::pt2c_context_reset_state) context_reset_state = nullptr;
  decltype(&::pt2c_context_read_state) context_read_state = nullptr;
  decltype(&::pt2c_context_write_state) context_write_state = nullptr;

  Api() = default;
  Api(const Api &) = delete;
  Api &operator=(const Api &) = delete;
  ~Api() {
    if (handle != nullptr)
      dlclose(handle);
  }

  // Throws pt2c::Error with the library's message for this thread if status != OK.
  void check(pt2c_status status) const {
    if (status != PT2C_OK)
      throw Error(status, last_error());
  }
};

template <typename Function>
void resolve(const Api &api, const std::string &path, const char *name, Function *out) {
  void *symbol = dlsym(api.handle, name);
  if (symbol == nullptr)
    throw Error(PT2C_ERROR_CORRUPT_MODEL,
                "'" + path + "' is not a pt2c model: it does not export " + name);
  *out = reinterpret_cast<Function>(symbol);
}

inline std::shared_ptr<const Api> load(const std::string &path) {
  auto api = std::make_shared<Api>();
  // A bare file name means the file here, not a search of the library path.
  std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  api->handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (api->handle == nullptr) {
    const char *reason = dlerror();
    throw Error(PT2C_ERROR_INVALID_ARGUMENT,
                "cannot load '" + path + "': " + (reason ? reason : "unknown dlopen error"));
  }
  // The version first: an older model.so lacks newer entry points, and saying which
  // version it has is the useful message.
  resolve(*api, path, "pt2c_abi_version", &api->abi_version);
  uint32_t version = api->abi_version();
  if (version != PT2C_ABI_VERSION)
    throw Error(PT2C_ERROR_UNSUPPORTED, "'" + path + "' has pt2c ABI version " +
                                            std::to_string(version) + ", this program expects " +
                                            std::to_string(PT2C_ABI_VERSION));
  resolve(*api, path, "pt2c_model_create", &api->model_create);
  resolve(*api, path, "pt2c_model_create_with_weights", &api->model_create_with_weights);
  resolve(*api, path, "pt2c_model_destroy", &api->model_destroy);
  resolve(*api, path, "pt2c_model_num_inputs", &api->model_num_inputs);
  resolve(*api, path, "pt2c_model_num_outputs", &api->model_num_outputs);
  resolve(*api, path, "pt2c_model_input_info", &api->model_input_info);
  resolve(*api, path, "pt2c_model_output_info", &api->model_output_info);
  resolve(*api, path, "pt2c_model_run", &api->model_run);
  resolve(*api, path, "pt2c_last_error", &api->last_error);
  resolve(*api, path, "pt2c_set_num_threads", &api->set_num_threads);
  resolve(*api, path, "pt2c_num_threads", &api->num_threads);
  resolve(*api, path, "pt2c_model_device", &api->model_device);
  resolve(*api, path, "pt2c_model_run_device", &api->model_run_device);
  resolve(*api, path, "pt2c_model_num_graphs", &api->model_num_graphs);
  resolve(*api, path, "pt2c_model_graph_info", &api->model_graph_info);
  resolve(*api, path, "pt2c_model_graph_input_info", &api->model_graph_input_info);
  resolve(*api, path, "pt2c_model_graph_output_info", &api->model_graph_output_info);
  resolve(*api, path, "pt2c_model_find_graph", &api->model_find_graph);
  resolve(*api, path, "pt2c_model_run_method", &api->model_run_method);
  resolve(*api, path, "pt2c_model_num_dynamic_dims", &api->model_num_dynamic_dims);
  resolve(*api, path, "pt2c_model_dynamic_dim_info", &api->model_dynamic_dim_info);
  resolve(*api, path, "pt2c_model_output_shape", &api->model_output_shape);
  resolve(*api, path, "pt2c_model_graph_output_shape", &api->model_graph_output_shape);
  resolve(*api, path, "pt2c_model_last_output_shape", &api->model_last_output_shape);
  resolve(*api, path, "pt2c_model_reset_state", &api->model_reset_state);
  resolve(*api, path, "pt2c_model_num_states", &api->model_num_states);
  resolve(*api, path, "pt2c_model_state_info", &api->model_state_info);
  resolve(*api, path, "pt2c_model_read_state", &api->model_read_state);
  resolve(*api, path, "pt2c_model_write_state", &api->model_write_state);
  resolve(*api, path, "pt2c_context_create", &api->context_create);
  resolve(*api, path, "pt2c_context_destroy", &api->context_destroy);
  resolve(*api, path, "pt2c_context_run", &api->context_run);
  resolve(*api, path, "pt2c_context_run_method", &api->context_run_method);
  resolve(*api, path, "pt2c_context_reset_state", &api->context_reset_state);
  resolve(*api, path, "pt2c_context_read_state", &api->context_read_state);
  resolve(*api, path, "pt2c_context_write_state", &api->context_write_state);
  return api;
}

} // namespace detail

// An execution context of a Model (pt2c.h, "Execution contexts"): its own scratch memory
// and model state over the model's weights. Contexts of one model run concurrently, one
// call at a time each; destroy them before the Model (they do not keep it alive).
class Context {
public:
  Context(Context &&other) noexcept : api_(std::move(other.api_)), context_(other.context_) {
    other.context_ = nullptr;
  }
  Context &operator=(Context &&other) noexcept {
    if (this != &other) {
      reset();
      api_ = std::move(other.api_);
      context_ = other.context_;
      other.context_ = nullptr;
    }
    return *this;
  }
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;
  ~Context() { reset(); }

  void run(const std::vector<pt2c_tensor> &inputs, std::vector<pt2c_tensor> &outputs) {
    api_->check(api_->context_run(context_, inputs.data(), static_cast<int32_t>(inputs.size()),
                                  outputs.data(), static_cast<int32_t>(outputs.size())));
  }
  void run_method(const std::string &method, const std::vector<pt2c_tensor> &inputs,
                  std::vector<pt2c_tensor> &outputs) {
    api_->check(api_->context_run_method(context_, method.empty() ? nullptr : method.c_str(),
                                         inputs.data(), static_cast<int32_t>(inputs.size()),
                                         outputs.data(), static_cast<int32_t>(outputs.size())));
  }
  // The context's model state back to its initial values (pt2c_context_reset_state).
  void reset_state() { api_->check(api_->context_reset_state(context_)); }
  void read_state(int32_t index, pt2c_tensor out) {
    api_->check(api_->context_read_state(context_, index, &out));
  }
  void write_state(int32_t index, const pt2c_tensor &value) {
    api_->check(api_->context_write_state(context_, index, &value));
  }
  pt2c_context *get() const { return context_; }

private:
  friend class Model;
  Context(std::shared_ptr<const detail::Api> api, pt2c_context *context)
      : api_(std::move(api)), context_(context) {}
  void reset() {
    if (context_ != nullptr)
      api_->context_destroy(context_);
    context_ = nullptr;
  }

  std::shared_ptr<const detail::Api> api_;
  pt2c_context *context_ = nullptr;
};

// One model instance. It runs one call at a time: a run while another is in progress on
// it throws pt2c::Error with PT2C_ERROR_BUSY; for concurrent runs, give each thread a
// Context (create_context) or its own Model.
class Model {
public:
  Model(Model &&other) noexcept : api_(std::move(other.api_)), model_(other.model_) {
    other.model_ = nullptr;
  }
  Model &operator=(Model &&other) noexcept {
    if (this != &other) {
      reset();
      api_ = std::move(other.api_);
      model_ = other.model_;
      other.model_ = nullptr;
    }
    return *this;
  }
  Model(const Model &) = delete;
  Model &operator=(const Model &) = delete;
  ~Model() { reset(); }

  int32_t num_inputs() const { return api_->model_num_inputs(model_); }
  int32_t num_outputs() const { return api_->model_num_outputs(model_); }

  TensorInfo input_info(int32_t index) const {
    pt2c_tensor_info info;
    api_->check(api_->model_input_info(model_, index, &info));
    return to_tensor_info(info);
  }
  TensorInfo output_info(int32_t index) const {
    pt2c_tensor_info info;
    api_->check(api_->model_output_info(model_, index, &info));
    return to_tensor_info(info);
  }
  std::vector<TensorInfo> inputs() const {
    std::vector<TensorInfo> infos;
    for (int32_t i = 0; i < num_inputs(); ++i)
      infos.push_back(input_info(i));
    return infos;
  }
  std::vector<TensorInfo> outputs() const {
    std::vector<TensorInfo> infos;
    for (int32_t i = 0; i < num_outputs(); ++i)
      infos.push_back(output_info(i));
    return infos;
  }

  // Checks every tensor against the model, then runs it; outputs are written in place.
  void run(const pt2c_tensor *inputs, int32_t num_inputs, pt2c_tensor *outputs,
           int32_t num_outputs) {
    api_->check(api_->model_run(model_, inputs, num_inputs, outputs, num_outputs));
  }
  void run(const std::vector<pt2c_tensor> &inputs, std::vector<pt2c_tensor> &outputs) {
    run(inputs.data(), static_cast<int32_t>(inputs.size()), outputs.data(),
        static_cast<int32_t>(outputs.size()));
  }

  // Graphs (pt2c.h, "Graphs"): a single-graph model has one, "forward".
  int32_t num_graphs() const { return api_->model_num_graphs(model_); }
  GraphInfo graph_info(int32_t graph) const {
    pt2c_graph_info info;
    api_->check(api_->model_graph_info(model_, graph, &info));
    return GraphInfo{info.name ? info.name : "", info.method ? info.method : "", info.num_inputs,
                     info.num_outputs};
  }
  std::vector<GraphInfo> graphs() const {
    std::vector<GraphInfo> infos;
    for (int32_t g = 0; g < num_graphs(); ++g)
      infos.push_back(graph_info(g));
    return infos;
  }
  // A graph's inputs (slots: an absent one has dtype PT2C_DTYPE_UNDEFINED) and outputs.
  std::vector<TensorInfo> graph_inputs(int32_t graph) const {
    return graph_tensors(graph, graph_info(graph).num_inputs, api_->model_graph_input_info);
  }
  std::vector<TensorInfo> graph_outputs(int32_t graph) const {
    return graph_tensors(graph, graph_info(graph).num_outputs, api_->model_graph_output_info);
  }
  // The graph run_method(method, inputs, ...) runs; method empty: the default method.
  int32_t find_graph(const std::string &method, const std::vector<pt2c_tensor> &inputs) const {
    int32_t graph = -1;
    api_->check(api_->model_find_graph(model_, method.empty() ? nullptr : method.c_str(),
                                       inputs.data(), static_cast<int32_t>(inputs.size()), &graph));
    return graph;
  }
  void run_method(const std::string &method, const std::vector<pt2c_tensor> &inputs,
                  std::vector<pt2c_tensor> &outputs) {
    api_->check(api_->model_run_method(model_, method.empty() ? nullptr : method.c_str(),
                                       inputs.data(), static_cast<int32_t>(inputs.size()),
                                       outputs.data(), static_cast<int32_t>(outputs.size())));
  }

  // Dynamic dimensions (pt2c.h): model.py's name and inclusive range of each; info dims
  // are -1 where they vary.
  struct DynamicDim {
    std::string name;
    int64_t min, max;
  };
  std::vector<DynamicDim> dynamic_dims() const {
    std::vector<DynamicDim> dims;
    for (int32_t i = 0; i < api_->model_num_dynamic_dims(model_); ++i) {
      const char *name = nullptr;
      DynamicDim d{};
      api_->check(api_->model_dynamic_dim_info(model_, i, &name, &d.min, &d.max));
      d.name = name ? name : "";
      dims.push_back(d);
    }
    return dims;
  }
  // The sizes output `index` has for these inputs.
  std::vector<int64_t> output_shape(const std::vector<pt2c_tensor> &inputs, int32_t index) const {
    std::vector<int64_t> dims(static_cast<size_t>(output_info(index).dims.size()));
    api_->check(api_->model_output_shape(model_, inputs.data(), static_cast<int32_t>(inputs.size()),
                                         index, dims.data()));
    return dims;
  }
  // The same for graph `graph` (find_graph's answer), inputs in its slot order.
  std::vector<int64_t> graph_output_shape(int32_t graph, const std::vector<pt2c_tensor> &inputs,
                                          int32_t index) const {
    pt2c_tensor_info info;
    api_->check(api_->model_graph_output_info(model_, graph, index, &info));
    std::vector<int64_t> dims(static_cast<size_t>(info.rank));
    api_->check(api_->model_graph_output_shape(
        model_, graph, inputs.data(), static_cast<int32_t>(inputs.size()), index, dims.data()));
    return dims;
  }

  // The sizes output `index` had in the last run: exact where they depend on values
  // (data-dependent sizes, which output_shape only bounds).
  std::vector<int64_t> last_output_shape(int32_t index, std::size_t rank) const {
    std::vector<int64_t> dims(rank);
    api_->check(api_->model_last_output_shape(model_, index, dims.data()));
    return dims;
  }

  // The model state (buffers model.py writes in place: a KV cache) back to its initial
  // values, for a new sequence (pt2c_model_reset_state).
  void reset_state() { api_->check(api_->model_reset_state(model_)); }
  // The states by name, dtype and sizes; copies of one out of and into the model.
  std::vector<TensorInfo> states() const {
    std::vector<TensorInfo> infos;
    for (int32_t i = 0; i < api_->model_num_states(model_); ++i) {
      pt2c_tensor_info info;
      api_->check(api_->model_state_info(model_, i, &info));
      infos.push_back(to_tensor_info(info));
    }
    return infos;
  }
  void read_state(int32_t index, pt2c_tensor out) {
    api_->check(api_->model_read_state(model_, index, &out));
  }
  void write_state(int32_t index, const pt2c_tensor &value) {
    api_->check(api_->model_write_state(model_, index, &value));
  }

  // Where the kernels run (PT2C_DEVICE_CPU, PT2C_DEVICE_CUDA or PT2C_DEVICE_ROCM).
  pt2c_device device() const { return api_->model_device(model_); }

  // CUDA models: tensors in device memory, kernels queued on `stream` (a CUstream of the
  // model's device; nullptr for the legacy default stream). See pt2c_model_run_device.
  void run_device(const pt2c_tensor *inputs, int32_t num_inputs, pt2c_tensor *outputs,
                  int32_t num_outputs, void *stream) {
    api_->check(api_->model_run_device(model_, inputs, num_inputs, outputs, num_outputs, stream));
  }
  void run_device(const std::vector<pt2c_tensor> &inputs, std::vector<pt2c_tensor> &outputs,
                  void *stream) {
    run_device(inputs.data(), static_cast<int32_t>(inputs.size()), outputs.data(),
               static_cast<int32_t>(outputs.size()), stream);
  }

  // A new execution context (CPU models): concurrent runs sharing this model's weights.
  Context create_context() {
    pt2c_context *context = nullptr;
    api_->check(api_->context_create(model_, &context));
    return Context(api_, context);
  }

  // The C handle, for calls this wrapper does not cover.
  pt2c_model *get() const { return model_; }

private:
  friend class Library;
  Model(std::shared_ptr<const detail::Api> api, pt2c_model *model)
      : api_(std::move(api)), model_(model) {}

  // The `count` inputs or outputs of a graph, through pt2c_model_graph_{input,output}_info.
  std::vector<TensorInfo> graph_tensors(int32_t graph, int32_t count,
                                        decltype(&::pt2c_model_graph_input_info) query) const {
    std::vector<TensorInfo> infos;
    for (int32_t i = 0; i < count; ++i) {
      pt2c_tensor_info info;
      api_->check(query(model_, graph, i, &info));
      infos.push_back(to_tensor_info(info));
    }
    return infos;
  }
  static TensorInfo to_tensor_info(const pt2c_tensor_info &info) {
    TensorInfo result;
    result.name = info.name != nullptr ? info.name : "";
    result.dtype = info.dtype;
    if (info.rank > 0)
      result.dims.assign(info.dims, info.dims + info.rank);
    return result;
  }
  void reset() {
    if (model_ != nullptr)
      api_->model_destroy(model_);
    model_ = nullptr;
  }

  std::shared_ptr<const detail::Api> api_;
  pt2c_model *model_ = nullptr;
};

// A loaded model.so. Cheap to copy; the .so is unloaded when the last Library and Model
// made from it are gone.
class Library {
public:
  explicit Library(const std::string &path) : api_(detail::load(path)), path_(path) {}

  // `weights_path`: the weights file of a model compiled with --external-weights; empty:
  // the default ($PT2C_WEIGHTS, else the library's path + ".weights"). A model that
  // embeds its weights takes none.
  Model create_model(const std::string &weights_path = "") const {
    pt2c_model *model = nullptr;
    api_->check(weights_path.empty()
                    ? api_->model_create(&model)
                    : api_->model_create_with_weights(weights_path.c_str(), &model));
    return Model(api_, model);
  }
  uint32_t abi_version() const { return api_->abi_version(); }
  const std::string &path() const { return path_; }
  // The CPU thread pool that every model of this library shares (pt2c_set_num_threads).
  void set_num_threads(int32_t n) const { api_->check(api_->set_num_threads(n)); }
  int32_t num_threads() const { return api_->num_threads(); }

private:
  std::shared_ptr<const detail::Api> api_;
  std::string path_;
};

} // namespace pt2c

#endif // PT2C_PT2C_HPP_
