#include "compiler/codegen/cuda/CudaPlan.h"

#include "compiler/codegen/ArenaPlanner.h"
#include "compiler/codegen/PlanReader.h"
#include "llvm/ADT/StringMap.h"

namespace pt2c {
namespace {

llvm::Error fail(const llvm::Twine& message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "internal error: " + message.str());
}

uint64_t alignUp(uint64_t value) {
  constexpr uint64_t a = ArenaPlanner::kAlignment;
  return (value + a - 1) / a * a;
}

class Expander {
 public:
  Expander(PlanRecords& r, const LaunchTable& launches) : r(r), launches(launches) {}

  llvm::Error run(const std::vector<std::string>& stepKernels) {
    temporaryBase = alignUp(r.arenaSize);
    std::vector<pt2c_plan_step> steps;
    std::vector<uint32_t> stepArgs;
    for (const pt2c_plan_step& step : r.steps) {
      if (step.kernel >= stepKernels.size()) return fail("a step's kernel is not in the plan");
      const std::string& name = stepKernels[step.kernel];
      auto it = launches.find(name);
      if (it == launches.end()) return fail("no GPU launches for kernel " + name);
      std::vector<uint32_t> buffers(r.stepArgs.begin() + step.first_arg,
                                    r.stepArgs.begin() + step.first_arg + step.num_args);
      std::vector<uint32_t> temporaries = placeTemporaries(it->second);
      for (const GpuLaunch& launch : it->second.launches) {
        pt2c_plan_step s{};
        s.kernel = gpuKernel(launch);
        s.first_arg = stepArgs.size();
        for (const LaunchArg& arg : launch.args) {
          const std::vector<uint32_t>& from =
              arg.kind == LaunchArg::kBuffer ? buffers : temporaries;
          if (arg.index >= from.size())
            return fail("a launch of " + name + " uses a buffer its step does not have");
          stepArgs.push_back(from[arg.index]);
        }
        s.num_args = stepArgs.size() - s.first_arg;
        steps.push_back(s);
      }
    }
    r.steps = std::move(steps);
    r.stepArgs = std::move(stepArgs);
    r.arenaSize = std::max(r.arenaSize, temporaryBase + temporaryEnd);
    r.device = PT2C_DEVICE_CUDA;
    r.numKernels = r.gpuKernels.size();
    return llvm::Error::success();
  }

  std::vector<std::string> kernelNames() const { return names; }

 private:
  // Arena buffers for one step's temporaries, from temporaryBase on.
  std::vector<uint32_t> placeTemporaries(const KernelLaunches& k) {
    std::vector<uint32_t> ids;
    uint64_t offset = 0;
    for (uint64_t bytes : k.temporaryBytes) {
      r.buffers.push_back({PT2C_BUFFER_ARENA, 0, temporaryBase + offset, bytes});
      ids.push_back(r.buffers.size() - 1);
      offset = alignUp(offset + bytes);
    }
    temporaryEnd = std::max(temporaryEnd, offset);
    return ids;
  }

  // The kernel-table entry of a GPU kernel (one per name: its configuration is fixed).
  uint32_t gpuKernel(const GpuLaunch& launch) {
    auto [it, inserted] = index.try_emplace(launch.kernel, r.gpuKernels.size());
    if (inserted) {
      pt2c_plan_gpu_kernel k{};
      k.name = r.addString(launch.kernel);
      k.shared_bytes = launch.sharedBytes;
      for (int d = 0; d < 3; ++d) k.grid[d] = launch.grid[d], k.block[d] = launch.block[d];
      r.gpuKernels.push_back(k);
      names.push_back(launch.kernel);
    }
    return it->second;
  }

  PlanRecords& r;
  const LaunchTable& launches;
  uint64_t temporaryBase = 0, temporaryEnd = 0;
  llvm::StringMap<uint32_t> index;
  std::vector<std::string> names;
};

}  // namespace

llvm::Expected<ExecutionPlan> expandPlanForCuda(const ExecutionPlan& plan,
                                                const LaunchTable& launches) {
  auto records = readPlanRecords(plan.bytes);
  if (!records) return records.takeError();
  if (records->device != PT2C_DEVICE_CPU) return fail("the plan is not a kernel-function plan");
  Expander expander(*records, launches);
  if (auto err = expander.run(plan.kernels)) return std::move(err);
  ExecutionPlan result;
  result.kernels = expander.kernelNames();
  result.arenaSize = records->arenaSize;
  result.bytes = serializePlan(*records);
  return result;
}

}  // namespace pt2c
