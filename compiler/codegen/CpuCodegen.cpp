#include "compiler/codegen/CpuCodegen.h"

#include "compiler/codegen/CpuPipeline.h"
#include "compiler/codegen/LLVMOptimizer.h"
#include "compiler/codegen/NoAliasKernelArgs.h"
#include "compiler/codegen/SplitKernelLoops.h"
#include "ir/contract/ModelContract.h"
#include "ir/contract/StorageBytes.h"
#include "ir/symbolic/SymbolicIR.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "pt2c/shared/content_hash.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

namespace pt2c {
namespace {

constexpr const char *kTriple = "x86_64-unknown-linux-gnu";

llvm::GlobalVariable *addConstant(llvm::Module &m, llvm::Constant *init, const char *name) {
  auto *g = new llvm::GlobalVariable(m, init->getType(), /*isConstant=*/true,
                                     llvm::GlobalValue::ExternalLinkage, init, name);
  g->setVisibility(llvm::GlobalValue::HiddenVisibility);
  return g;
}

// The features the runtime knows how to check (cpu_feature_table.h), by LLVM name.
constexpr const char *kCheckableCpuFeatures[] = {
#define PT2C_CPU_FEATURE(name, ...) name,
#include "pt2c/shared/cpu_feature_table.h"
#undef PT2C_CPU_FEATURE
};

// __pt2c_cpu_features: the checkable features `tm` lets the kernels use (those its CPU
// implies, not only the explicit feature string), and __pt2c_cpu: the CPU's name. The
// runtime refuses to create the model on a CPU that lacks one, instead of a SIGILL.
void addCpuFeatureSymbols(llvm::Module &m, const llvm::TargetMachine &tm,
                          const std::string &requestedCpu) {
  const llvm::MCSubtargetInfo &sti = *tm.getMCSubtargetInfo();
  std::string features;
  for (const llvm::SubtargetFeatureKV &kv : sti.getAllProcessorFeatures()) {
    if (!sti.getFeatureBits().test(kv.Value))
      continue;
    if (llvm::none_of(kCheckableCpuFeatures,
                      [&](const char *name) { return llvm::StringRef(kv.Key) == name; }))
      continue;
    features += (features.empty() ? "" : ",") + std::string(kv.Key);
  }
  std::string cpu = tm.getTargetCPU().str();
  if (requestedCpu != cpu)
    cpu = requestedCpu + " = " + cpu; // "native = znver4"
  llvm::LLVMContext &ctx = m.getContext();
  addConstant(m, llvm::ConstantDataArray::getString(ctx, features), "__pt2c_cpu_features");
  addConstant(m, llvm::ConstantDataArray::getString(ctx, cpu), "__pt2c_cpu");
}

// The buffer pointers of `kernel` are read from wrapper argument 0 (an array) and, for a
// dynamic model, the symbol values are wrapper argument 1, passed first: the kernel's
// arguments up to its split range, if it has one.
llvm::SmallVector<llvm::Value *> unpackBuffers(llvm::IRBuilder<> &b, llvm::Function *wrapper,
                                               llvm::Function *kernel, bool withSymbols,
                                               bool split) {
  auto *ptr = llvm::PointerType::getUnqual(b.getContext());
  llvm::SmallVector<llvm::Value *> args;
  if (withSymbols)
    args.push_back(wrapper->getArg(1));
  unsigned buffers = kernel->arg_size() - (split ? 2 : 0);
  for (unsigned i = args.size(); i < buffers; ++i) {
    llvm::Value *slot = b.CreateConstGEP1_64(ptr, wrapper->getArg(0), i - (withSymbols ? 1 : 0));
    args.push_back(b.CreateLoad(ptr, slot));
  }
  return args;
}

// __pt2c_k<i>(void* const* buffers, const int64_t* sym_values) calls kernel i with the
// buffers unpacked: the uniform signature the runtime's plan interpreter calls. Kernels
// of a dynamic model take the symbol values first (DynamicKernelAbi.h); a split kernel
// (SplitKernelLoops.h) runs its whole range, [0, extent).
llvm::Function *addKernelWrapper(llvm::Module &m, llvm::Function *kernel, size_t index,
                                 bool withSymbols, const KernelSplit *split) {
  llvm::LLVMContext &ctx = m.getContext();
  auto *ptr = llvm::PointerType::getUnqual(ctx);
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, ptr}, false);
  auto *wrapper = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage,
                                         "__pt2c_k" + std::to_string(index), m);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", wrapper));
  llvm::SmallVector<llvm::Value *> args = unpackBuffers(b, wrapper, kernel, withSymbols, split);
  if (split) {
    args.push_back(b.getInt64(0));
    args.push_back(b.getInt64(split->extent));
  }
  b.CreateCall(kernel, args);
  b.CreateRetVoid();
  return wrapper;
}

// __pt2c_r<i>(buffers, sym_values, begin, end): split kernel i on the range [begin, end)
// of its split loop (plan_format.h, pt2c_kernel_range_fn).
llvm::Function *addRangeWrapper(llvm::Module &m, llvm::Function *kernel, size_t index,
                                bool withSymbols) {
  llvm::LLVMContext &ctx = m.getContext();
  auto *ptr = llvm::PointerType::getUnqual(ctx);
  auto *i64 = llvm::Type::getInt64Ty(ctx);
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, ptr, i64, i64}, false);
  auto *wrapper = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage,
                                         "__pt2c_r" + std::to_string(index), m);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", wrapper));
  llvm::SmallVector<llvm::Value *> args = unpackBuffers(b, wrapper, kernel, withSymbols, true);
  args.push_back(wrapper->getArg(2));
  args.push_back(wrapper->getArg(3));
  b.CreateCall(kernel, args);
  b.CreateRetVoid();
  return wrapper;
}

// __pt2c_kernel_splits: per kernel, {range entry, extent, work} where the kernel splits
// and every step passes it disjoint buffers (calls on disjoint ranges then never touch
// the same bytes), else {null, 0, 0}.
void addSplitTable(llvm::Module &m, const ExecutionPlan &plan,
                   const std::map<std::string, KernelSplit> &splits,
                   const std::vector<bool> &disjoint, const std::set<std::string> &symbolKernels) {
  llvm::LLVMContext &ctx = m.getContext();
  auto *ptr = llvm::PointerType::getUnqual(ctx);
  auto *i64 = llvm::Type::getInt64Ty(ctx);
  auto *entryType = llvm::StructType::get(ctx, {ptr, i64, i64});
  llvm::SmallVector<llvm::Constant *> entries;
  for (auto [i, name] : llvm::enumerate(plan.kernels)) {
    auto it = splits.find(name);
    llvm::Function *kernel = m.getFunction(name);
    if (it == splits.end() || i >= disjoint.size() || !disjoint[i] || !kernel) {
      entries.push_back(llvm::ConstantStruct::get(entryType, {llvm::ConstantPointerNull::get(ptr),
                                                              llvm::ConstantInt::get(i64, 0),
                                                              llvm::ConstantInt::get(i64, 0)}));
      continue;
    }
    entries.push_back(llvm::ConstantStruct::get(
        entryType, {addRangeWrapper(m, kernel, i, symbolKernels.count(name) > 0),
                    llvm::ConstantInt::get(i64, it->second.extent),
                    llvm::ConstantInt::get(i64, it->second.work)}));
  }
  // The runtime reads the table through a pointer with a weak null default: a weak
  // undefined hidden array would not read as null everywhere (see embedded_entry.c).
  auto *tableType = llvm::ArrayType::get(entryType, entries.size());
  llvm::GlobalVariable *table =
      addConstant(m, llvm::ConstantArray::get(tableType, entries), "__pt2c_kernel_split_table");
  table->setLinkage(llvm::GlobalValue::InternalLinkage);
  addConstant(m, table, "__pt2c_kernel_splits");
}

// __pt2c_kernel_args (pt2c/plan_format.h): the buffer sizes each kernel table entry was
// compiled for, read through a pointer like the split table. None when a kernel's sizes
// are unknown.
void addKernelArgsTable(llvm::Module &m, const ExecutionPlan &plan,
                        const std::map<std::string, std::vector<uint64_t>> &argBytes) {
  llvm::LLVMContext &ctx = m.getContext();
  std::vector<uint32_t> first = {0};
  std::vector<uint64_t> bytes;
  for (const std::string &name : plan.kernels) {
    auto it = argBytes.find(name);
    if (it == argBytes.end())
      return;
    bytes.insert(bytes.end(), it->second.begin(), it->second.end());
    first.push_back(static_cast<uint32_t>(bytes.size()));
  }
  if (bytes.empty())
    bytes.push_back(0); // no zero-length array
  auto addInternal = [&](llvm::Constant *init, const char *name) {
    llvm::GlobalVariable *g = addConstant(m, init, name);
    g->setLinkage(llvm::GlobalValue::InternalLinkage);
    return g;
  };
  llvm::GlobalVariable *firstTable =
      addInternal(llvm::ConstantDataArray::get(ctx, llvm::ArrayRef<uint32_t>(first)),
                  "__pt2c_kernel_arg_first");
  llvm::GlobalVariable *bytesTable =
      addInternal(llvm::ConstantDataArray::get(ctx, llvm::ArrayRef<uint64_t>(bytes)),
                  "__pt2c_kernel_arg_bytes");
  auto *ptr = llvm::PointerType::getUnqual(ctx);
  auto *recordType = llvm::StructType::get(ctx, {ptr, ptr});
  llvm::GlobalVariable *record = addInternal(
      llvm::ConstantStruct::get(recordType, {firstTable, bytesTable}), "__pt2c_kernel_args_record");
  addConstant(m, record, "__pt2c_kernel_args");
}

mlir::LogicalResult addEmbeddedSymbols(llvm::Module &m, const ExecutionPlan &plan,
                                       const CpuCodegenOptions &options,
                                       const std::map<std::string, KernelSplit> &splits,
                                       const std::vector<bool> &disjoint, mlir::Location loc) {
  llvm::LLVMContext &ctx = m.getContext();
  llvm::SmallVector<llvm::Constant *> table;
  for (auto [i, name] : llvm::enumerate(plan.kernels)) {
    llvm::Function *kernel = m.getFunction(name);
    if (!kernel)
      return mlir::emitError(loc) << "kernel " << name << " was not generated";
    auto split = splits.find(name);
    bool isSplit = split != splits.end();
    // Pointers, then a split kernel's range (two i64).
    llvm::ArrayRef<llvm::Type *> params = kernel->getFunctionType()->params();
    if (isSplit && (params.size() < 2 || !params.back()->isIntegerTy(64) ||
                    !params[params.size() - 2]->isIntegerTy(64)))
      return mlir::emitError(loc) << "internal error: split kernel " << name
                                  << " lacks its range parameters";
    for (llvm::Type *t : params.drop_back(isSplit ? 2 : 0))
      if (!t->isPointerTy())
        return mlir::emitError(loc)
               << "kernel " << name << " has a non-pointer parameter after lowering";
    table.push_back(addKernelWrapper(m, kernel, i, options.symbolKernels.count(name) > 0,
                                     isSplit ? &split->second : nullptr));
  }
  addSplitTable(m, plan, splits, disjoint, options.symbolKernels);
  addKernelArgsTable(m, plan, options.kernelArgBytes);
  auto *ptr = llvm::PointerType::getUnqual(ctx);
  addConstant(m, llvm::ConstantArray::get(llvm::ArrayType::get(ptr, table.size()), table),
              "__pt2c_kernels");
  addConstant(
      m, llvm::ConstantDataArray::getRaw(plan.bytes, plan.bytes.size(), llvm::Type::getInt8Ty(ctx)),
      "__pt2c_plan")
      ->setAlignment(llvm::Align(8));
  auto *i64 = llvm::Type::getInt64Ty(ctx);
  addConstant(m, llvm::ConstantInt::get(i64, plan.bytes.size()), "__pt2c_plan_size");
  // Checked at create before the plan is parsed: a damaged model.so fails cleanly.
  uint64_t checksum = pt2c_content_hash(plan.bytes.data(), plan.bytes.size());
  addConstant(m, llvm::ConstantInt::get(i64, checksum), "__pt2c_plan_checksum");
  // Lets the runtime check the plan's kernel indexes against the table's real length.
  addConstant(m, llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), table.size()),
              "__pt2c_num_kernels");
  addConstant(m, llvm::ConstantInt::get(i64, options.weightsSize), "__pt2c_weights_size");
  if (const auto &external = options.externalWeights) {
    uint64_t record[] = {1, external->blobSize, external->fingerprint, external->checksum};
    addConstant(m, llvm::ConstantDataArray::get(ctx, llvm::ArrayRef<uint64_t>(record)),
                "__pt2c_external_weights")
        ->setAlignment(llvm::Align(8));
  }
  for (const CpuCodegenOptions::Blob &blob : options.blobs) {
    addConstant(
        m,
        llvm::ConstantDataArray::getRaw(blob.bytes, blob.bytes.size(), llvm::Type::getInt8Ty(ctx)),
        blob.symbol.c_str())
        ->setAlignment(llvm::Align(blob.alignment));
    addConstant(m, llvm::ConstantInt::get(i64, blob.bytes.size()), (blob.symbol + "_size").c_str());
  }

  // Weights go in by the assembler's .incbin: a multi-GB blob as an LLVM constant would be
  // copied several times and be slow to emit.
  std::string asmText;
  llvm::raw_string_ostream os(asmText);
  os << ".section .rodata.pt2c_weights,\"a\",@progbits\n"
     << ".balign 64\n.globl __pt2c_weights\n.hidden __pt2c_weights\n"
     << ".type __pt2c_weights,@object\n__pt2c_weights:\n";
  uint64_t end = 0;
  for (const CpuCodegenOptions::WeightsPiece &piece : options.weights) {
    if (piece.blobOffset < end || piece.blobOffset + piece.size > options.weightsSize)
      return mlir::emitError(loc) << "internal error: weights pieces overlap or overflow";
    if (piece.blobOffset > end)
      os << ".zero " << piece.blobOffset - end << "\n";
    if (piece.size > 0)
      os << ".incbin \"" << piece.file << "\", " << piece.fileOffset << ", " << piece.size << "\n";
    end = piece.blobOffset + piece.size;
  }
  if (options.weightsSize > end)
    os << ".zero " << options.weightsSize - end << "\n";
  os << ".size __pt2c_weights, " << options.weightsSize << "\n.text\n";
  m.appendModuleInlineAsm(os.str());
  return mlir::success();
}

std::unique_ptr<llvm::TargetMachine> createTargetMachine(const std::string &cpuName,
                                                         std::string &error) {
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    return true;
  }();
  (void)initialized;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(kTriple, error);
  if (!target)
    return nullptr;
  std::string cpu = cpuName == "native" ? llvm::sys::getHostCPUName().str() : cpuName;
  llvm::TargetOptions options;
  // Loop headers on 64-byte (cache line) boundaries instead of x86's 16, so that how a
  // hot inner loop meets the fetch blocks does not depend on where the kernel happens to
  // land. Measured: resnet18 used ~18% less CPU time per run with it (every one of 12
  // alternating runs, folded weights or not), for ~12 KB of padding.
  options.LoopAlignment = 64;
  return std::unique_ptr<llvm::TargetMachine>(
      target->createTargetMachine(kTriple, cpu, "", options, llvm::Reloc::PIC_, std::nullopt,
                                  llvm::CodeGenOptLevel::Aggressive));
}

} // namespace

std::set<std::string> kernelsTakingSymbols(mlir::ModuleOp kernels) {
  std::set<std::string> names;
  for (auto func : kernels.getOps<mlir::func::FuncOp>())
    if (func->hasAttr(kSymbolNamesAttr) && !func.isExternal())
      names.insert(func.getName().str());
  return names;
}

std::map<std::string, std::vector<uint64_t>> kernelArgBytes(mlir::ModuleOp kernels) {
  std::map<std::string, std::vector<uint64_t>> result;
  kernels.walk([&](mlir::func::FuncOp func) {
    if (func.isExternal())
      return;
    std::vector<uint64_t> &bytes = result[func.getName().str()];
    mlir::FunctionType type = func.getFunctionType();
    for (mlir::TypeRange types : {type.getInputs(), type.getResults()})
      for (mlir::Type t : types) {
        auto shaped = llvm::dyn_cast<mlir::ShapedType>(t);
        if (!shaped)
          continue; // a dynamic model's symbol values: not buffers
        bool known = shaped.hasStaticShape() && shaped.getElementType().isIntOrFloat();
        bytes.push_back(known ? storageBytes(shaped) : 0);
      }
  });
  return result;
}

mlir::LogicalResult lowerKernelsToLLVMDialect(mlir::ModuleOp kernels) {
  mlir::PassManager pm(kernels->getName());
  buildCpuKernelsToLLVMPipeline(pm);
  return pm.run(kernels);
}

mlir::LogicalResult emitCpuObject(mlir::ModuleOp kernels, const ExecutionPlan &plan,
                                  const CpuCodegenOptions &options, const std::string &objectPath) {
  mlir::Location loc = kernels.getLoc();
  mlir::registerBuiltinDialectTranslation(*kernels.getContext());
  mlir::registerLLVMDialectTranslation(*kernels.getContext());
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> m = mlir::translateModuleToLLVMIR(kernels, llvmContext, "model");
  if (!m)
    return mlir::emitError(loc) << "translation to LLVM IR failed";
  // Which kernels every step passes disjoint buffers: their parameters are noalias and
  // they may split among threads.
  std::vector<bool> disjoint = kernelsWithDisjointArgs(plan);
  if (mlir::failed(addEmbeddedSymbols(*m, plan, options, kernelSplits(kernels), disjoint, loc)))
    return mlir::failure();

  std::string error;
  auto tm = createTargetMachine(options.cpu, error);
  if (!tm)
    return mlir::emitError(loc) << "no x86-64 target: " << error;
  m->setTargetTriple(kTriple);
  m->setDataLayout(tm->createDataLayout());
  addCpuFeatureSymbols(*m, *tm, options.cpu);
  if (llvm::verifyModule(*m, &llvm::errs()))
    return mlir::emitError(loc) << "internal error: generated LLVM IR does not verify";
  if (options.onLLVMIR) {
    std::string text;
    llvm::raw_string_ostream os(text);
    m->print(os, nullptr);
    options.onLLVMIR(os.str());
  }
  addNoAliasKernelArgs(*m, plan, disjoint, options.symbolKernels);
  optimizeModuleO3(*m, *tm, /*unrollLoops=*/false);

  std::error_code ec;
  llvm::raw_fd_ostream out(objectPath, ec, llvm::sys::fs::OF_None);
  if (ec)
    return mlir::emitError(loc) << "cannot write " << objectPath << ": " << ec.message();
  llvm::legacy::PassManager codegen;
  if (tm->addPassesToEmitFile(codegen, out, nullptr, llvm::CodeGenFileType::ObjectFile))
    return mlir::emitError(loc) << "the x86-64 target cannot emit object files";
  codegen.run(*m);
  out.flush();
  return mlir::success();
}

} // namespace pt2c
