#include "compiler/codegen/MultiGraphPlan.h"

#include <algorithm>

#include "compiler/codegen/PlanSetWriter.h"
#include "ir/contract/ModelContract.h"
#include "llvm/ADT/StringMap.h"

namespace pt2c {
namespace {

// The artifact's dispatch table; an artifact from before tables (or a single-graph one
// written without) is its one graph, "forward", user inputs in order.
std::vector<artifact::DispatchEntry> dispatchTable(const ArtifactFile &artifact) {
  const auto &message = artifact.message;
  if (message.dispatch_size() > 0)
    return {message.dispatch().begin(), message.dispatch().end()};
  std::vector<artifact::DispatchEntry> table;
  for (const auto &graph : message.graphs()) {
    artifact::DispatchEntry entry;
    entry.set_graph(graph.name());
    entry.set_method("forward");
    for (const auto &in : graph.inputs())
      if (in.kind() == artifact::InputSpec::USER_INPUT) {
        auto *slot = entry.add_slots();
        slot->set_name(in.name());
        slot->set_present(true);
        slot->set_value(in.value());
      }
    table.push_back(entry);
  }
  return table;
}

// Whether the lone plan's inputs are exactly the slots (all present, in order, once).
bool slotsAreInputs(const artifact::DispatchEntry &entry, const artifact::Graph &graph) {
  std::vector<std::string> userValues;
  for (const auto &in : graph.inputs())
    if (in.kind() == artifact::InputSpec::USER_INPUT)
      userValues.push_back(in.value());
  if (static_cast<size_t>(entry.slots_size()) != userValues.size())
    return false;
  for (int i = 0; i < entry.slots_size(); ++i)
    if (!entry.slots(i).present() || entry.slots(i).value() != userValues[i])
      return false;
  return true;
}

const artifact::Graph *graphNamed(const ArtifactFile &artifact, const std::string &name) {
  for (const auto &graph : artifact.message.graphs())
    if (graph.name() == name)
      return &graph;
  return nullptr;
}

// Slot i -> the plan input it binds: the function's `pt2c.input` arguments are the
// graph's user inputs in order, named by InputSpec.name.
mlir::FailureOr<std::vector<PlanSetGraph::Slot>> slotsOf(const artifact::DispatchEntry &entry,
                                                         const artifact::Graph &graph,
                                                         mlir::func::FuncOp func) {
  llvm::StringMap<int32_t> inputNumber;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (auto name = userInputName(func, i))
      inputNumber.try_emplace(name.strref(), static_cast<int32_t>(inputNumber.size()));
  llvm::StringMap<std::string> inputName; // Value -> InputSpec.name
  for (const auto &in : graph.inputs())
    if (in.kind() == artifact::InputSpec::USER_INPUT)
      inputName[in.value()] = in.name();
  std::vector<PlanSetGraph::Slot> slots;
  for (const auto &s : entry.slots()) {
    PlanSetGraph::Slot slot;
    slot.name = s.name();
    if (s.present()) {
      auto name = inputName.find(s.value());
      auto number = name == inputName.end() ? inputNumber.end() : inputNumber.find(name->second);
      if (number == inputNumber.end())
        return func.emitError() << "dispatch slot '" << s.name() << "' of graph '" << entry.graph()
                                << "' binds no input of the graph";
      slot.input = number->second;
    }
    slots.push_back(slot);
  }
  return slots;
}

} // namespace

mlir::FailureOr<ModelPlan> buildModelPlan(mlir::ModuleOp module, const ArtifactFile &artifact) {
  std::vector<artifact::DispatchEntry> table = dispatchTable(artifact);
  std::vector<mlir::func::FuncOp> funcs;
  for (const auto &entry : table) {
    auto func = module.lookupSymbol<mlir::func::FuncOp>(entry.graph());
    const artifact::Graph *graph = graphNamed(artifact, entry.graph());
    if (!func || func->hasAttr(kKernelAttr) || !graph)
      return module.emitError() << "the dispatch table names graph '" << entry.graph()
                                << "', which the artifact or module lacks";
    funcs.push_back(func);
  }
  if (funcs.empty())
    return module.emitError() << "the artifact has no graph";

  ModelPlan result;
  result.numGraphs = funcs.size();
  if (funcs.size() == 1 && slotsAreInputs(table[0], *graphNamed(artifact, table[0].graph()))) {
    auto plan = buildExecutionPlan(funcs[0], artifact); // a lone plan, as always
    if (mlir::failed(plan))
      return mlir::failure();
    result.plan = std::move(*plan);
    return result;
  }

  auto weights = layoutWeightsBlob(funcs, artifact);
  if (mlir::failed(weights))
    return mlir::failure();
  std::vector<PlanSetGraph> graphs;
  for (size_t g = 0; g < funcs.size(); ++g) {
    auto plan = buildExecutionPlan(funcs[g], artifact, &*weights);
    if (mlir::failed(plan))
      return mlir::failure();
    auto slots = slotsOf(table[g], *graphNamed(artifact, table[g].graph()), funcs[g]);
    if (mlir::failed(slots))
      return mlir::failure();
    PlanSetGraph graph;
    graph.name = table[g].graph();
    graph.method = table[g].method();
    graph.slots = std::move(*slots);
    graph.firstKernel = result.plan.kernels.size();
    graph.plan = std::move(plan->bytes);
    result.plan.kernels.insert(result.plan.kernels.end(), plan->kernels.begin(),
                               plan->kernels.end());
    result.plan.arenaSize = std::max(result.plan.arenaSize, plan->arenaSize);
    graphs.push_back(std::move(graph));
  }
  result.plan.bytes = serializePlanSet(graphs);
  result.plan.weights = std::move(*weights);
  result.isPlanSet = true;
  result.graphs = std::move(graphs);
  return result;
}

llvm::Expected<ExecutionPlan>
rewriteModelPlan(const ModelPlan &model, const GraphPlanRewrite &rewrite, bool sharedKernelTable) {
  if (!model.isPlanSet)
    return rewrite(model.plan);
  ExecutionPlan result = model.plan;
  result.kernels.clear();
  result.arenaSize = 0;
  std::vector<PlanSetGraph> graphs = model.graphs;
  for (size_t g = 0; g < graphs.size(); ++g) {
    size_t first = graphs[g].firstKernel;
    size_t end = g + 1 < graphs.size() ? graphs[g + 1].firstKernel : model.plan.kernels.size();
    if (first > end || end > model.plan.kernels.size())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "internal error: a plan set's kernel ranges do not add up");
    ExecutionPlan graph;
    graph.bytes = graphs[g].plan;
    graph.kernels.assign(model.plan.kernels.begin() + first, model.plan.kernels.begin() + end);
    auto rewritten = rewrite(graph);
    if (!rewritten)
      return rewritten.takeError();
    graphs[g].firstKernel = sharedKernelTable ? result.kernels.size() : 0;
    graphs[g].plan = rewritten->bytes;
    result.kernels.insert(result.kernels.end(), rewritten->kernels.begin(),
                          rewritten->kernels.end());
    result.arenaSize = std::max(result.arenaSize, rewritten->arenaSize);
  }
  result.bytes = serializePlanSet(graphs);
  return result;
}

} // namespace pt2c
