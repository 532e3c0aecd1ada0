// compileArtifact: .pt2c -> model.so, one progress line per stage. --target cuda takes
// compiler/codegen/cuda's path from the execution plan on.
#include "compiler/codegen/CpuCodegen.h"
#include "compiler/codegen/CpuLibraryPlan.h"
#include "compiler/codegen/ExecutionPlan.h"
#include "compiler/codegen/MultiGraphPlan.h"
#include "compiler/codegen/SharedLibraryLinker.h"
#include "compiler/codegen/cuda/CudaCodegen.h"
#include "compiler/codegen/cuda/CudaTarget.h"
#include "compiler/codegen/rocm/RocmCodegen.h"
#include "compiler/codegen/rocm/RocmTarget.h"
#include "compiler/driver/ArtifactToPrim.h"
#include "compiler/driver/AtomicOutput.h"
#include "compiler/driver/Diagnostics.h"
#include "compiler/driver/ExternalWeights.h"
#include "compiler/driver/Pipeline.h"
#include "compiler/driver/Progress.h"
#include "compiler/import/Importer.h"
#include "compiler/transforms/Pipelines.h"
#include "ir/Dialects.h"
#include "ir/contract/ModelContract.h"
#include "ir/prim/DataDependentOps.h"
#include "ir/prim/PrimDialect.h"
#include "ir/symbolic/SymbolicIR.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace pt2c {
namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

// A temporary file that is removed when it goes out of scope.
struct ScratchFile {
  llvm::SmallString<128> path;
  ~ScratchFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};

size_t countOps(mlir::ModuleOp module) {
  size_t n = 0;
  module.walk([&](mlir::Operation *op) {
    if (!llvm::isa<mlir::ModuleOp, mlir::func::FuncOp, mlir::func::ReturnOp>(op))
      ++n;
  });
  return n;
}

// The kernel functions alone, for code generation (the model function became the plan).
mlir::OwningOpRef<mlir::ModuleOp> extractKernels(mlir::ModuleOp module) {
  mlir::OwningOpRef<mlir::ModuleOp> kernels(llvm::cast<mlir::ModuleOp>(module->clone()));
  for (auto f : llvm::make_early_inc_range(kernels->getOps<mlir::func::FuncOp>()))
    if (!f->hasAttr(kKernelAttr))
      f.erase();
  return kernels;
}

// Where the weights blob's pieces come from: the artifact's blob, and a scratch file
// holding the derived weights (written here: .incbin reads files).
llvm::Error placeWeights(const WeightsBlob &blob, const std::string &artifactPath,
                         uint64_t artifactBlobOffset, ScratchFile &derivedFile,
                         CpuCodegenOptions &cg) {
  if (!blob.derived.empty()) {
    if (auto ec = llvm::sys::fs::createTemporaryFile("pt2c-weights", "bin", derivedFile.path))
      return fail("cannot create a temporary weights file: " + ec.message());
    std::error_code ec;
    llvm::raw_fd_ostream out(derivedFile.path, ec);
    if (!ec)
      out << blob.derived;
    out.close();
    if (ec || out.has_error())
      return fail("cannot write the temporary weights file " + derivedFile.path.str());
  }
  cg.weightsSize = blob.size;
  for (const WeightsBlob::Piece &p : blob.pieces)
    cg.weights.push_back({p.derived ? derivedFile.path.str().str() : artifactPath,
                          p.derived ? p.sourceOffset : artifactBlobOffset + p.sourceOffset, p.size,
                          p.offset});
  return llvm::Error::success();
}

// Why GPU targets cannot compile the model's sizes, or success. Data-dependent sizes have
// no GPU kernels and no GPU binding of their symbols yet; sizes derived from other sizes
// (clamps) no GPU evaluation.
llvm::Error gpuSupportsSizes(mlir::ModuleOp module) {
  mlir::WalkResult nonzero = module->walk([](prim::NonzeroOp op) {
    op.emitError() << "a data-dependent size (nonzero, x[mask], masked_select, nms) compiles "
                      "for --target cpu only so far";
    return mlir::WalkResult::interrupt();
  });
  if (nonzero.wasInterrupted())
    return fail("the model has data-dependent sizes, which GPU targets do not support yet");
  for (auto func : module.getOps<mlir::func::FuncOp>()) {
    auto symbols = func->getAttrOfType<mlir::ArrayAttr>(kSymbolsAttr);
    if (!symbols)
      continue;
    for (mlir::Attribute a : symbols) {
      auto d = llvm::cast<mlir::DictionaryAttr>(a);
      if (auto derived = d.getAs<mlir::StringAttr>("derived"))
        return fail("the size '" + d.getAs<mlir::StringAttr>("name").getValue() +
                    "' = " + derived.getValue() +
                    " (a clamped size: x[:k] or topk(min(k, n)) of a dynamic size) compiles "
                    "for --target cpu only so far");
    }
  }
  return llvm::Error::success();
}

} // namespace

llvm::Error compileArtifact(const Resources &resources, const PipelineOptions &options,
                            const std::string &artifactPath, const std::string &libraryPath) {
  std::vector<unsigned> cudaSms;     // non-empty for --target cuda[:...]
  std::vector<AmdGpuArch> rocmArchs; // non-empty for --target rocm[:...]
  if (isCudaTarget(options.target)) {
    auto sms = parseCudaTarget(options.target);
    if (!sms)
      return sms.takeError();
    cudaSms = *sms;
  } else if (isRocmTarget(options.target)) {
    auto archs = parseRocmTarget(options.target);
    if (!archs)
      return archs.takeError();
    rocmArchs = *archs;
  } else if (options.target != "cpu") {
    return fail("target '" + options.target +
                "' is not supported (available: cpu, cuda, cuda:sm_80,sm_90,..., rocm, "
                "rocm:gfx90a,gfx942,...)");
  }
  StageTimer timer(options.quiet);

  auto artifact = readArtifactFile(artifactPath);
  if (!artifact)
    return artifact.takeError();

  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  UserDiagnosticPrinter diagnostics(&context);

  auto imported = importArtifactModule(context, *artifact, artifactPath);
  if (!imported)
    return imported.takeError();
  mlir::OwningOpRef<mlir::ModuleOp> module = std::move(*imported);
  timer.done("import", std::to_string(countOps(*module)) + " aten ops, " +
                           std::to_string(artifact->message.weights_size()) + " weights (" +
                           humanBytes(artifact->weights.size()) + ")");
  if (options.emit == "aten") {
    module->print(llvm::outs());
    return llvm::Error::success();
  }

  // The GPU has fused kernels for attention and layer norm: their aten ops decompose to
  // one prim op each (prim.attention, prim.layer_norm).
  PrimLoweringOptions lowering;
  lowering.fusedOps = !cudaSms.empty() || !rocmArchs.empty();
  lowering.foldWeights = options.foldWeights;
  if (auto err = lowerAtenToPrim(context, *module, *artifact, lowering))
    return err;
  timer.done("prim", std::to_string(countOps(*module)) + " prim ops");
  if (lowering.fusedOps)
    if (auto err = gpuSupportsSizes(*module))
      return err;
  if (options.emit == "prim") {
    // Derived weights' bytes would print as megabytes of hex.
    module->print(llvm::outs(), mlir::OpPrintingFlags().elideLargeResourceString(256));
    return llvm::Error::success();
  }

  mlir::PassManager partition(&context);
  PrimToKernelsOptions kernelFormation;
  kernelFormation.fusedOps = lowering.fusedOps;
  kernelFormation.channelsLastConvolutions = !cudaSms.empty();
  kernelFormation.pointwiseConvolutionProducts = !cudaSms.empty();
  buildPrimToKernelsPipeline(partition, kernelFormation);
  if (mlir::failed(partition.run(*module)))
    return fail("kernel formation failed");
  // One plan per graph; several graphs (or an input traced as None) make a plan set.
  auto modelPlan = buildModelPlan(*module, *artifact);
  if (mlir::failed(modelPlan))
    return fail("building the execution plan failed");
  ExecutionPlan *plan = &modelPlan->plan;
  timer.done(
      "plan",
      (modelPlan->isPlanSet ? std::to_string(modelPlan->numGraphs) + " graphs, " : std::string()) +
          std::to_string(plan->kernels.size()) + " kernels, arena " + humanBytes(plan->arenaSize));

  mlir::OwningOpRef<mlir::ModuleOp> kernels = extractKernels(*module);
  CpuCodegenOptions cg;
  cg.cpu = options.cpu;
  ScratchFile derivedWeights;
  std::optional<ExternalWeights> external;
  if (options.externalWeights) {
    external.emplace(plan->weights, *artifact);
    cg.externalWeights = external->record();
  } else if (auto err = placeWeights(plan->weights, artifactPath,
                                     artifact->weights.data() - artifact->buffer->getBufferStart(),
                                     derivedWeights, cg)) {
    return err;
  }
  auto printIR = [](const std::string &ir) { llvm::outs() << ir; };
  ScratchFile object;
  if (auto ec = llvm::sys::fs::createTemporaryFile("pt2c-kernels", "o", object.path))
    return fail("cannot create a temporary object file: " + ec.message());
  if (!cudaSms.empty()) {
    CudaCodegenOptions cuda;
    cuda.sms = cudaSms;
    cuda.host = cg;
    if (options.emit == "llvm")
      cuda.onKernelLLVMIR = printIR; // the GPU kernels' IR
    auto summary = emitCudaObject(*kernels, *modelPlan, cuda, std::string(object.path));
    if (!summary)
      return summary.takeError();
    if (options.emit == "llvm")
      return llvm::Error::success();
    timer.done("codegen", describe(*summary, cudaSms));
  } else if (!rocmArchs.empty()) {
    RocmCodegenOptions rocm;
    rocm.archs = rocmArchs;
    rocm.host = cg;
    if (options.emit == "llvm")
      rocm.onKernelLLVMIR = printIR; // the GPU kernels' IR
    auto summary = emitRocmObject(*kernels, *modelPlan, rocm, std::string(object.path));
    if (!summary)
      return summary.takeError();
    if (options.emit == "llvm")
      return llvm::Error::success();
    timer.done("codegen", describe(*summary, rocmArchs));
  } else {
    // GEMMs and convolutions run on the runtime's microkernels.
    DenseOptions dense;
    dense.gemms.interleavedBatches = true;
    dense.convs.siluEpilogue = true;
    dense.splits.poolingPrologues = true;
    auto cpuPlan = addCpuLibrarySteps(*modelPlan, findDenseKernels(*kernels, dense));
    if (!cpuPlan)
      return cpuPlan.takeError();
    cg.kernelArgBytes = kernelArgBytes(*kernels);
    cg.symbolKernels = kernelsTakingSymbols(*kernels);
    if (mlir::failed(lowerKernelsToLLVMDialect(*kernels)))
      return fail("kernel lowering failed");
    if (options.emit == "llvm")
      cg.onLLVMIR = printIR;
    if (mlir::failed(emitCpuObject(*kernels, *cpuPlan, cg, std::string(object.path))))
      return fail("CPU code generation failed");
    if (options.emit == "llvm")
      return llvm::Error::success();
    timer.done("codegen", "x86-64 (" + options.cpu + ")" + describeLibrarySteps(*cpuPlan));
  }

  auto output = AtomicOutput::create(libraryPath);
  if (!output)
    return output.takeError();
  LinkInputs link;
  link.objects = {std::string(object.path)};
  link.archives = resources.runtimeArchives;
  link.versionScript = resources.exportsMap;
  link.soname = llvm::sys::path::filename(libraryPath).str();
  if (auto err = linkSharedLibrary(link, output->tempPath()))
    return err;
  uint64_t size = 0;
  llvm::sys::fs::file_size(output->tempPath(), size);
  timer.done("link", libraryPath + " (" + humanBytes(size) + ")");
  if (external) { // all files or none: committed together with model.so
    std::string weightsPath =
        options.weightsOut.empty() ? libraryPath + ".weights" : options.weightsOut;
    auto files = external->write(weightsPath);
    if (!files)
      return files.takeError();
    for (AtomicOutput &file : *files)
      if (auto err = file.commit())
        return err;
    timer.done("weights",
               weightsPath + " (" + humanBytes(external->record().blobSize) + "), recipe " +
                   weightsPath + ".json" +
                   (external->derivedBytes() > 0 ? ", " + humanBytes(external->derivedBytes()) +
                                                       " derived in " + weightsPath + ".derived"
                                                 : std::string()));
  }
  if (auto err = output->commit())
    return err;
  return llvm::Error::success();
}

} // namespace pt2c
