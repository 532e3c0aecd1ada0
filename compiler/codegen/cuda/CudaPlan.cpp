#include "compiler/codegen/cuda/CudaPlan.h"

#include <algorithm>
#include <optional>

#include "compiler/codegen/PlanReader.h"
#include "llvm/ADT/StringMap.h"

namespace pt2c {
namespace {

// A kernel function's step becomes its GPU launches.
class CudaStepPlanner : public LibraryStepPlanner {
public:
  CudaStepPlanner(PlanRecords &r, const LaunchTable &launches, const DenseKernels &dense,
                  pt2c_device device)
      : LibraryStepPlanner(r, dense), launches(launches), device(device) {}

  llvm::Error finish() {
    r.arenaSize = std::max(r.arenaSize, temporaryBase + temporaryEnd);
    r.device = device;
    r.numKernels = r.gpuKernels.size();
    return llvm::Error::success();
  }

  std::vector<std::string> kernelNames() const { return names; }

private:
  void beginExpansion() override { temporaryBase = alignArena(r.arenaSize); }

  llvm::Error expandKernelStep(const std::string &name,
                               const std::vector<uint32_t> &buffers) override {
    auto it = launches.find(name);
    if (it == launches.end())
      return internalError("no GPU launches for kernel " + name);
    std::vector<uint32_t> temporaries = placeTemporaries(it->second);
    for (const GpuLaunch &launch : it->second.launches) {
      pt2c_plan_step s{};
      s.kernel = gpuKernel(launch);
      s.first_arg = stepArgs.size();
      for (const LaunchArg &arg : launch.args) {
        if (arg.kind == LaunchArg::kSymbols) {
          auto symbols = symbolsBuffer();
          if (!symbols)
            return symbols.takeError();
          stepArgs.push_back(*symbols);
          continue;
        }
        const std::vector<uint32_t> &from = arg.kind == LaunchArg::kBuffer ? buffers : temporaries;
        if (arg.index >= from.size())
          return internalError("a launch of " + name + " uses a buffer its step does not have");
        stepArgs.push_back(from[arg.index]);
      }
      s.num_args = stepArgs.size() - s.first_arg;
      steps.push_back(s);
    }
    return llvm::Error::success();
  }

  // The one SYMBOLS buffer of the plan: the run's symbol values on the device.
  llvm::Expected<uint32_t> symbolsBuffer() {
    if (r.syms.empty())
      return internalError("a GPU kernel reads symbol values of a static plan");
    if (!symbols) {
      r.buffers.push_back({PT2C_BUFFER_SYMBOLS, 0, 0, r.syms.size() * sizeof(int64_t)});
      symbols = r.buffers.size() - 1;
    }
    return *symbols;
  }

  // Arena buffers for one step's temporaries, from temporaryBase on.
  std::vector<uint32_t> placeTemporaries(const KernelLaunches &k) {
    std::vector<uint32_t> ids;
    uint64_t offset = 0;
    for (uint64_t bytes : k.temporaryBytes) {
      r.buffers.push_back({PT2C_BUFFER_ARENA, 0, temporaryBase + offset, bytes});
      ids.push_back(r.buffers.size() - 1);
      offset = alignArena(offset + bytes);
    }
    temporaryEnd = std::max(temporaryEnd, offset);
    return ids;
  }

  // The kernel-table entry of a GPU kernel (one per name: its configuration is fixed).
  uint32_t gpuKernel(const GpuLaunch &launch) {
    auto [it, inserted] = index.try_emplace(launch.kernel, r.gpuKernels.size());
    if (inserted) {
      pt2c_plan_gpu_kernel k{};
      k.name = r.addString(launch.kernel);
      k.shared_bytes = launch.sharedBytes;
      for (int d = 0; d < 3; ++d)
        k.grid[d] = launch.grid[d], k.block[d] = launch.block[d];
      r.gpuKernels.push_back(k);
      names.push_back(launch.kernel);
    }
    return it->second;
  }

  const LaunchTable &launches;
  pt2c_device device;
  uint64_t temporaryBase = 0, temporaryEnd = 0;
  std::optional<uint32_t> symbols;
  llvm::StringMap<uint32_t> index;
  std::vector<std::string> names;
};

} // namespace

llvm::Expected<ExecutionPlan> expandPlanForGpu(const ExecutionPlan &plan,
                                               const LaunchTable &launches,
                                               const DenseKernels &dense, pt2c_device device) {
  auto records = readPlanRecords(plan.bytes);
  if (!records)
    return records.takeError();
  if (records->device != PT2C_DEVICE_CPU)
    return internalError("the plan is not a kernel-function plan");
  CudaStepPlanner planner(*records, launches, dense, device);
  if (auto err = planner.run(plan.kernels))
    return std::move(err);
  if (auto err = planner.finish())
    return std::move(err);
  ExecutionPlan result;
  result.kernels = planner.kernelNames();
  result.arenaSize = records->arenaSize;
  result.bytes = serializePlan(*records);
  return result;
}

} // namespace pt2c
