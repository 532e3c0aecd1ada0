#include "tools/pt2c/InspectCommand.h"

#include <dlfcn.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/codegen/PlanReader.h"
#include "compiler/driver/AtomicOutput.h"
#include "ir/artifact/ArtifactFile.h"
#include "ir/symbolic/SymExpr.h"
#include "pt2c/pt2c.hpp"
#include "runtime/src/cuda/cuda_fatbin.h"
#include "tools/pt2c/PlanSvg.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

namespace pt2c {
namespace {

int fail(const std::string &message) {
  std::fprintf(stderr, "pt2c: error: %s\n", message.c_str());
  return 1;
}

const char *dtypeName(uint32_t dtype) { return dtype_name(static_cast<pt2c_dtype>(dtype)); }

std::string mib(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

std::string str(const PlanRecords &plan, uint32_t offset) {
  return offset < plan.strings.size() ? std::string(plan.strings.c_str() + offset) : "?";
}

// "x f32 [1, 3, 224, 224]"; a dynamic size (a negative dims entry) is "?".
std::string tensorText(const PlanRecords &plan, const pt2c_plan_tensor &t) {
  std::string text = str(plan, t.name) + " " + dtypeName(t.dtype) + " [";
  for (uint32_t d = 0; d < t.rank; ++d) {
    int64_t size = t.dims + d < plan.dims.size() ? plan.dims[t.dims + d] : 0;
    text += (d ? ", " : "") + (size < 0 ? std::string("?") : std::to_string(size));
  }
  return text + "]";
}

// "n: input 0 dim 0", "u0: data-dependent (buffer 3)", "c0 = min(u0, 100)".
std::string symText(const PlanRecords &plan, const pt2c_plan_sym &entry) {
  std::string name = str(plan, entry.name);
  if (entry.flags & PT2C_SYM_FLAG_PRODUCED)
    return name + ": data-dependent (buffer " + std::to_string(entry.dim) + ")";
  if (!(entry.flags & PT2C_SYM_FLAG_DERIVED))
    return name + ": input " + std::to_string(entry.input) + " dim " + std::to_string(entry.dim);
  // A count, then the postfix pairs (plan_format.h); "?" for code past the table.
  std::optional<sym::Expr> e;
  const std::vector<int64_t> &code = plan.symCode;
  if (entry.dim < code.size() && code[entry.dim] >= 0 &&
      static_cast<uint64_t>(code[entry.dim]) <= (code.size() - entry.dim - 1) / 2)
    e = sym::decode(llvm::ArrayRef(code).slice(entry.dim + 1, 2 * code[entry.dim]));
  std::vector<std::string> names;
  for (const auto &s : plan.syms)
    names.push_back(str(plan, s.name));
  return name + " = " + (e ? sym::print(*e, names) : "?");
}

std::string spatial(const uint64_t *values, uint32_t rank, const char *sep) {
  std::string text;
  for (uint32_t i = 0; i < rank; ++i)
    text += (i ? sep : "") + std::to_string(values[i]);
  return text;
}

const char *convEpilogue(uint32_t e) {
  switch (e) {
  case PT2C_CONV_EPILOGUE_BIAS:
    return " + bias";
  case PT2C_CONV_EPILOGUE_BIAS_RELU:
    return " + bias, relu";
  case PT2C_CONV_EPILOGUE_BIAS_ADD_RELU:
    return " + bias + residual, relu";
  case PT2C_CONV_EPILOGUE_BIAS_SILU:
    return " + bias, silu";
  default:
    return "";
  }
}

// One line per step, as the listing and the SVG show it.
std::vector<std::string> stepLabels(const PlanRecords &plan) {
  bool cuda = plan.device == PT2C_DEVICE_CUDA;
  bool gpu = pt2c_plan_device_is_gpu(plan.device);
  // ROCm models: hipBLASLt and MIOpen (runtime/src/rocm).
  const char *gemmLibrary = cuda ? "cuBLASLt" : gpu ? "hipBLASLt" : "microkernels";
  const char *convLibrary = cuda ? "cuDNN" : gpu ? "MIOpen" : "microkernels";
  std::vector<std::string> labels;
  std::vector<int64_t> owners = fallbackOwners(plan);
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const pt2c_plan_step &step = plan.steps[s];
    char text[512];
    std::string suffix =
        owners[s] >= 0 ? " [fallback of step " + std::to_string(owners[s]) + "]" : "";
    if (step.kind == PT2C_STEP_GEMM && step.kernel < plan.gemms.size()) {
      const pt2c_plan_gemm &g = plan.gemms[step.kernel];
      std::snprintf(text, sizeof text,
                    "gemm %s m=%" PRIu64 " n=%" PRIu64 " k=%" PRIu64 " batch=%" PRIu64 "%s%s%s"
                    " (%s; %u fallback steps)",
                    dtypeName(g.input_dtype ? g.input_dtype : g.dtype), g.m, g.n, g.k, g.batch,
                    g.transpose_a ? " A^T" : "", g.transpose_b ? " B^T" : "",
                    pt2c_gemm_epilogue_suffix(g.epilogue), gemmLibrary, g.num_fallback_steps);
    } else if (step.kind == PT2C_STEP_CONV && step.kernel < plan.convs.size()) {
      const pt2c_plan_conv &c = plan.convs[step.kernel];
      uint32_t r = c.spatial_rank <= PT2C_CONV_MAX_SPATIAL ? c.spatial_rank : 0;
      std::snprintf(text, sizeof text,
                    "conv %s %" PRIu64 "->%" PRIu64 " kernel %s stride %s pad %s groups %u, "
                    "input %s%s%s (%s; %u fallback steps)",
                    dtypeName(c.dtype), c.in_channels, c.out_channels,
                    spatial(c.kernel, r, "x").c_str(), spatial(c.stride, r, "x").c_str(),
                    spatial(c.padding, r, "x").c_str(), c.groups, spatial(c.input, r, "x").c_str(),
                    c.layout == PT2C_CONV_LAYOUT_CHANNELS_LAST ? " channels-last" : "",
                    convEpilogue(c.epilogue), convLibrary, c.num_fallback_steps);
    } else if (gpu && step.kernel < plan.gpuKernels.size()) {
      const pt2c_plan_gpu_kernel &k = plan.gpuKernels[step.kernel];
      std::snprintf(text, sizeof text, "kernel %s grid %ux%ux%u block %ux%ux%u (%u buffers)",
                    str(plan, k.name).c_str(), k.grid[0], k.grid[1], k.grid[2], k.block[0],
                    k.block[1], k.block[2], step.num_args);
    } else {
      std::snprintf(text, sizeof text, "kernel %u (%u buffers)", step.kernel, step.num_args);
    }
    labels.push_back(std::to_string(s) + ": " + text + suffix);
  }
  return labels;
}

void printPlan(const PlanRecords &plan, const std::vector<std::string> &labels) {
  std::printf("  inputs:\n");
  for (const auto &t : plan.inputs)
    std::printf("    %s\n", tensorText(plan, t).c_str());
  std::printf("  outputs:\n");
  for (const auto &t : plan.outputs)
    std::printf("    %s\n", tensorText(plan, t).c_str());
  for (const auto &sym : plan.syms)
    std::printf("  dynamic dim %s, in [%" PRId64 ", %" PRId64 "]\n", symText(plan, sym).c_str(),
                sym.min, sym.max);
  uint64_t stateBytes = 0, weightBuffers = 0, stateBuffers = 0;
  for (const auto &b : plan.buffers) {
    if (b.kind == PT2C_BUFFER_STATE)
      stateBytes += b.nbytes, ++stateBuffers;
    if (b.kind == PT2C_BUFFER_WEIGHT)
      ++weightBuffers;
  }
  std::printf("  weights: %s in %" PRIu64 " buffers; scratch arena: %s; model state: %" PRIu64
              " buffers, %" PRIu64 " bytes\n",
              mib(plan.weightsSize).c_str(), weightBuffers, mib(plan.arenaSize).c_str(),
              stateBuffers, stateBytes);
  std::map<std::string, int> counts;
  for (const auto &step : plan.steps)
    ++counts[step.kind == PT2C_STEP_GEMM   ? "GEMM"
             : step.kind == PT2C_STEP_CONV ? "convolution"
                                           : "kernel"];
  std::printf("  steps: %zu (", plan.steps.size());
  const char *sep = "";
  for (const auto &[kind, n] : counts)
    std::printf("%s%d %s", sep, n, kind.c_str()), sep = ", ";
  std::printf("; %s)\n", plan.device == PT2C_DEVICE_CUDA
                             ? "GEMMs on cuBLASLt, convolutions on cuDNN"
                         : plan.device == PT2C_DEVICE_ROCM
                             ? "GEMMs on hipBLASLt, convolutions on MIOpen"
                             : "GEMMs and convolutions on the runtime's microkernels");
  for (const auto &label : labels)
    std::printf("    %s\n", label.c_str());
  for (const auto &g : plan.guards)
    std::printf("  guard: %s (expects %g)\n", str(plan, g.message).c_str(), g.expected);
}

// The first plan or plan set in `bytes` (a model.so's .rodata holds it; the magic also
// appears in the runtime's code, where it does not parse).
struct FoundPlans {
  std::vector<std::pair<std::string, PlanRecords>> graphs; // (name and method, plan)
};

std::optional<PlanRecords> planAt(const std::string &bytes, size_t at) {
  uint64_t used = 0;
  auto plan = readPlanRecords(bytes.substr(at), &used);
  if (!plan) {
    llvm::consumeError(plan.takeError());
    return std::nullopt;
  }
  return std::move(*plan);
}

std::optional<FoundPlans> findPlans(const std::string &bytes) {
  for (size_t at = bytes.find(PT2C_PLAN_SET_MAGIC, 0, 8); at != std::string::npos;
       at = bytes.find(PT2C_PLAN_SET_MAGIC, at + 1, 8)) {
    if (at % 8 || bytes.size() - at < sizeof(pt2c_plan_set_header))
      continue;
    pt2c_plan_set_header h;
    std::memcpy(&h, bytes.data() + at, sizeof h);
    if (h.version != PT2C_PLAN_SET_VERSION || h.num_graphs == 0 || h.num_graphs > 4096)
      continue;
    uint64_t graphsAt = at + sizeof h,
             slotsAt = graphsAt + h.num_graphs * sizeof(pt2c_plan_set_graph);
    uint64_t stringsAt = slotsAt + uint64_t{h.num_slots} * sizeof(pt2c_plan_slot);
    if (stringsAt + h.strings_size > bytes.size())
      continue;
    FoundPlans found;
    for (uint32_t g = 0; g < h.num_graphs; ++g) {
      pt2c_plan_set_graph graph;
      std::memcpy(&graph, bytes.data() + graphsAt + g * sizeof graph, sizeof graph);
      auto name = [&](uint32_t offset) {
        return offset < h.strings_size ? std::string(bytes.c_str() + stringsAt + offset) : "?";
      };
      std::optional<PlanRecords> plan;
      if (graph.plan_offset < bytes.size() - at)
        plan = planAt(bytes, at + graph.plan_offset);
      if (!plan)
        break;
      found.graphs.push_back(
          {name(graph.name) + " (method " + name(graph.method) + ")", std::move(*plan)});
    }
    if (found.graphs.size() == h.num_graphs)
      return found;
  }
  for (size_t at = bytes.find(PT2C_PLAN_MAGIC, 0, 8); at != std::string::npos;
       at = bytes.find(PT2C_PLAN_MAGIC, at + 1, 8)) {
    if (at % 8)
      continue;
    if (auto plan = planAt(bytes, at)) {
      FoundPlans found;
      found.graphs.push_back({"forward (method forward)", std::move(*plan)});
      return found;
    }
  }
  return std::nullopt;
}

// "cubins for sm_80, sm_90 and PTX for compute_90", from the first well-formed fatbin in
// the library (a CUDA model carries one), else "".
std::string gpuCode(const std::string &bytes) {
  static const char kMagic[4] = {'\x50', '\xed', '\x55', '\xba'}; // 0xBA55ED50, little-endian
  for (size_t at = bytes.find(kMagic, 0, 4); at != std::string::npos;
       at = bytes.find(kMagic, at + 1, 4)) {
    if (at % 8)
      continue;
    pt2c_fatbin_contents contents;
    if (!pt2c_fatbin_read(bytes.data() + at, bytes.size() - at, &contents))
      continue;
    char text[256];
    pt2c_fatbin_describe(&contents, text, sizeof text);
    return text;
  }
  return "";
}

// The library's own answer, when this machine can load it (no constructors run model
// code: create is not called).
std::string abiVersion(const std::string &path) {
  std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  void *handle = dlopen(file.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (!handle)
    return "unknown (the library does not load here)";
  auto fn = reinterpret_cast<uint32_t (*)()>(dlsym(handle, "pt2c_abi_version"));
  std::string version = fn ? std::to_string(fn()) : "none (not a pt2c model library)";
  dlclose(handle);
  return version;
}

int inspectLibrary(const std::string &path, const std::string &bytes, const std::string &svgPath) {
  std::optional<FoundPlans> found = findPlans(bytes);
  if (!found)
    return fail("'" + path + "' is a shared library but holds no pt2c plan");
  const PlanRecords &first = found->graphs.front().second;
  std::printf("%s: pt2c model library, C ABI version %s, %s, %zu graph%s\n", path.c_str(),
              abiVersion(path).c_str(),
              first.device == PT2C_DEVICE_CUDA   ? "CUDA"
              : first.device == PT2C_DEVICE_ROCM ? "ROCm"
                                                 : "CPU",
              found->graphs.size(), found->graphs.size() == 1 ? "" : "s");
  if (first.device == PT2C_DEVICE_CUDA) {
    std::string code = gpuCode(bytes);
    std::printf("GPU code: %s\n", code.empty() ? "no readable fatbin" : code.c_str());
  }
  std::vector<std::string> firstLabels;
  for (const auto &[name, plan] : found->graphs) {
    std::printf("graph %s\n", name.c_str());
    std::vector<std::string> labels = stepLabels(plan);
    printPlan(plan, labels);
    if (firstLabels.empty())
      firstLabels = labels;
  }
  if (svgPath.empty())
    return 0;
  std::string title =
      llvm::sys::path::filename(path).str() + ": graph " + found->graphs.front().first;
  std::string svg = planGraphSvg(first, firstLabels, title);
  auto output = writeAtomicOutput(svgPath, [&](llvm::raw_ostream &out) { out << svg; });
  llvm::Error err = output ? output->commit() : output.takeError();
  if (err)
    return fail(llvm::toString(std::move(err)));
  std::printf("wrote %s (graph %s)\n", svgPath.c_str(), found->graphs.front().first.c_str());
  return 0;
}

std::string metaText(const artifact::TensorMeta &meta) {
  std::string text = std::string(artifact::DType_Name(meta.dtype())) + " [";
  for (int d = 0; d < meta.sizes_size(); ++d) {
    const auto &size = meta.sizes(d);
    text += (d ? ", " : "") + (size.has_expr() ? std::string("?") : std::to_string(size.value()));
  }
  return text + "]";
}

int inspectArtifact(const std::string &path, const std::string &svgPath) {
  if (!svgPath.empty())
    return fail("--svg draws a compiled model.so's steps, not an artifact");
  auto file = readArtifactFile(path);
  if (!file)
    return fail(llvm::toString(file.takeError()));
  const artifact::Artifact &a = file->message;
  uint64_t weightBytes = 0;
  for (const auto &w : a.weights())
    weightBytes += w.nbytes();
  std::printf("%s: pt2c artifact, %d graph%s, %d weights (%s), %d draft report entries "
              "(pt2c report)\n",
              path.c_str(), a.graphs_size(), a.graphs_size() == 1 ? "" : "s", a.weights_size(),
              mib(weightBytes).c_str(), a.report_size());
  for (const auto &g : a.graphs()) {
    std::map<std::string, const artifact::Value *> values;
    for (const auto &v : g.values())
      values[v.name()] = &v;
    std::printf("graph %s: %d ops\n  inputs:\n", g.name().c_str(), g.nodes_size());
    for (const auto &in : g.inputs()) {
      if (in.kind() != artifact::InputSpec::USER_INPUT)
        continue;
      auto it = values.find(in.value());
      std::printf("    %s %s\n", in.name().c_str(),
                  it != values.end() ? metaText(it->second->meta()).c_str() : "");
    }
    std::printf("  ops (model.py line: op):\n");
    for (const auto &node : g.nodes()) {
      std::string where = node.has_loc() && !node.loc().file().empty()
                              ? node.loc().file() + ":" + std::to_string(node.loc().line())
                              : "-";
      std::printf("    %s: %s.%s\n", where.c_str(), node.target().c_str(), node.overload().c_str());
    }
  }
  return 0;
}

} // namespace

int inspectFile(const std::string &path, const std::string &svgPath) {
  auto buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fail("cannot read '" + path + "': " + buffer.getError().message());
  std::string bytes = (*buffer)->getBuffer().str();
  if (bytes.compare(0, 4,
                    "\x7f"
                    "ELF") == 0)
    return inspectLibrary(path, bytes, svgPath);
  return inspectArtifact(path, svgPath);
}

} // namespace pt2c
