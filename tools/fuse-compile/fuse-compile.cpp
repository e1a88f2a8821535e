//===- fuse-compile.cpp - ahead-of-time compiler for fuse pipelines -------===//
//
// fuse-compile pipeline.mlir -o out --emit=all
//   out.o    host code (C ABI entry points calling the fuse runtime) with
//            the kernels' cubin (or fatbin/PTX, --format) embedded
//   out.h    a C header declaring every entry point, with documentation
//   out.ptx  the kernels' PTX; out.cubin the kernels' cubin
// Runs the same pass pipeline as `fuse-opt --fuse-to-cubin`, then
// translates the host module to LLVM IR and emits an object file for the
// host target through LLVM's TargetMachine.
//
//===----------------------------------------------------------------------===//

#include "fuse/Conversion/FuseToGPU/FuseToGPU.h"
#include "fuse/InitAll.h"
#include "fuse/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

#include <chrono>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory cat("fuse-compile options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"),
                                      cl::init("-"), cl::cat(cat));
static cl::opt<std::string>
    outputBase("o",
               cl::desc("Output file (--emit=all: base name; .o/.h/.ptx/"
                        ".cubin are appended)"),
               cl::value_desc("path"), cl::init("-"), cl::cat(cat));
static cl::opt<std::string>
    emit("emit", cl::desc("What to write: ptx, cubin, obj, header or all"),
         cl::init("obj"), cl::cat(cat));
static cl::opt<std::string> chip("chip", cl::desc("GPU architecture"),
                                 cl::init("sm_90"), cl::cat(cat));
static cl::opt<std::string> features("features", cl::desc("PTX features"),
                                     cl::init("+ptx80"), cl::cat(cat));
static cl::opt<std::string>
    format("format",
           cl::desc("Image embedded in the object: bin (cubin), fatbin "
                    "(cubin + PTX) or isa (PTX)"),
           cl::init("bin"), cl::cat(cat));
static cl::opt<std::string> toolkit("toolkit-path",
                                    cl::desc("CUDA toolkit root (ptxas)"),
                                    cl::init(""), cl::cat(cat));
static cl::opt<unsigned> optLevel("opt-level", cl::desc("Optimization level"),
                                  cl::init(3), cl::cat(cat));
static cl::opt<bool> printTime("time",
                               cl::desc("Print the wall time in ms to stderr"),
                               cl::init(false), cl::cat(cat));
static cl::opt<std::string> symbolPrefix(
    "prefix",
    cl::desc("Prepend this to the C name of every entry function (e.g. "
             "`mylib_`), so that entries never collide with other C symbols "
             "such as libc's select"),
    cl::value_desc("prefix"), cl::init(""), cl::cat(cat));
static cl::opt<bool> noFusion("no-fusion",
                              cl::desc("Do not run the fusion passes"),
                              cl::init(false), cl::cat(cat));

namespace {

void makeOptions(fuse::FuseToGPUOptions &o, StringRef fmt) {
  o.chip = chip;
  o.features = features;
  o.optLevel = optLevel;
  o.toolkitPath = toolkit;
  o.format = fmt.str();
  o.fusion = !noFusion;
}

LogicalResult runPipeline(ModuleOp module, fuse::GPUPipelineStage stage,
                          StringRef fmt) {
  PassManager pm(module.getOperation()->getName());
  fuse::FuseToGPUOptions o;
  makeOptions(o, fmt);
  fuse::buildFuseToGPUPipeline(pm, o, stage);
  return pm.run(module);
}

/// The bytes of the (single) gpu.binary left by the PTX/binary stage.
FailureOr<std::string> binaryBytes(ModuleOp module) {
  for (auto bin : module.getOps<gpu::BinaryOp>()) {
    auto obj = cast<gpu::ObjectAttr>(bin.getObjects()[0]);
    return obj.getObject().getValue().str();
  }
  return module.emitError("fuse-compile: no kernels were generated"),
         failure();
}

LogicalResult writeFile(StringRef path, StringRef data) {
  std::string err;
  auto out = openOutputFile(path, &err);
  if (!out) {
    llvm::errs() << "fuse-compile: " << err << "\n";
    return failure();
  }
  out->os() << data;
  out->keep();
  return success();
}

FailureOr<std::string> emitObject(ModuleOp module) {
  llvm::LLVMContext llvmCtx;
  auto llvmModule = translateModuleToLLVMIR(module, llvmCtx, "fuse");
  if (!llvmModule) {
    module.emitError("fuse-compile: translation to LLVM IR failed");
    return failure();
  }
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  std::string tripleStr = llvm::sys::getDefaultTargetTriple();
  llvm::Triple triple(tripleStr);
  std::string err;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, err);
  if (!target) {
    llvm::errs() << "fuse-compile: " << err << "\n";
    return failure();
  }
  llvm::TargetOptions opts;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, "generic", "", opts, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Default));
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(tm->createDataLayout());
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr,
                              llvm::CodeGenFileType::ObjectFile)) {
    llvm::errs() << "fuse-compile: the target cannot emit object files\n";
    return failure();
  }
  pm.run(*llvmModule);
  return std::string(buffer.str());
}

/// Renames every public function (the entries) to `prefix` + name, with
/// all symbol uses in the module updated.
LogicalResult prefixEntries(ModuleOp module, StringRef prefix) {
  SymbolTable table(module);
  for (auto fn : llvm::to_vector(module.getOps<func::FuncOp>())) {
    if (!fn.isPublic() || fn.isExternal())
      continue;
    std::string name = (prefix + fn.getSymName()).str();
    if (table.lookup(name))
      return fn.emitError() << "fuse-compile: --prefix makes '" << name
                            << "', which already exists";
    if (failed(table.rename(fn, StringAttr::get(module.getContext(), name))))
      return failure();
  }
  return success();
}

std::string guardFor(StringRef path) {
  std::string g = "FUSE_GENERATED_";
  StringRef stem = path == "-" ? "pipeline" : llvm::sys::path::stem(path);
  for (char c : stem)
    g.push_back(isalnum(static_cast<unsigned char>(c)) ? toupper(c) : '_');
  return g + "_H";
}

int run(MLIRContext &ctx) {
  std::string err;
  auto file = openInputFile(inputFile, &err);
  if (!file) {
    llvm::errs() << "fuse-compile: " << err << "\n";
    return 1;
  }
  llvm::SourceMgr sm;
  sm.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sm, &ctx);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sm, &ctx);
  if (!module)
    return 1;

  if (!symbolPrefix.empty() && failed(prefixEntries(*module, symbolPrefix)))
    return 1;

  bool all = emit == "all";
  if (!all && emit != "ptx" && emit != "cubin" && emit != "obj" &&
      emit != "header") {
    llvm::errs() << "fuse-compile: --emit must be ptx, cubin, obj, header or "
                    "all\n";
    return 1;
  }
  std::string base = outputBase;
  auto pathFor = [&](StringRef ext) {
    return all ? base + ext.str() : base;
  };
  if (all && base == "-") {
    llvm::errs() << "fuse-compile: --emit=all needs -o <base name>\n";
    return 1;
  }

  if (emit == "ptx" || all) {
    OwningOpRef<ModuleOp> copy = module->clone();
    if (failed(runPipeline(*copy, fuse::GPUPipelineStage::PTX, "isa")))
      return 1;
    FailureOr<std::string> ptx = binaryBytes(*copy);
    if (failed(ptx) || failed(writeFile(pathFor(".ptx"), *ptx)))
      return 1;
    if (!all)
      return 0;
  }
  if (emit == "cubin" || all) {
    OwningOpRef<ModuleOp> copy = module->clone();
    PassManager pm(copy.get()->getName());
    fuse::FuseToGPUOptions o;
    makeOptions(o, "bin");
    std::string text = fuse::getFuseToGPUPipelineString(
                           o, fuse::GPUPipelineStage::NVVM) +
                       ",gpu-module-to-binary{format=bin" +
                       (toolkit.empty() ? std::string()
                                        : " toolkit=" + toolkit) +
                       "}";
    if (failed(parsePassPipeline(text, pm, llvm::errs())) ||
        failed(pm.run(*copy)))
      return 1;
    FailureOr<std::string> cubin = binaryBytes(*copy);
    if (failed(cubin) || failed(writeFile(pathFor(".cubin"), *cubin)))
      return 1;
    if (!all)
      return 0;
  }
  // obj / header / all: the full pipeline.
  if (failed(runPipeline(*module, fuse::GPUPipelineStage::LLVM, format)))
    return 1;
  if (emit == "header" || all) {
    std::string hpath = pathFor(".h");
    if (failed(writeFile(hpath, fuse::emitEntryHeader(*module, guardFor(hpath)))))
      return 1;
    if (!all)
      return 0;
  }
  FailureOr<std::string> obj = emitObject(*module);
  if (failed(obj) || failed(writeFile(pathFor(".o"), *obj)))
    return 1;
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  auto start = std::chrono::steady_clock::now();
  fuse::registerAllPasses();
  cl::HideUnrelatedOptions(cat);
  cl::ParseCommandLineOptions(
      argc, argv,
      "fuse-compile: compile a fuse pipeline ahead of time to an object file "
      "(host code + embedded GPU image) and a C header\n");
  DialectRegistry registry;
  fuse::registerAllDialects(registry);
  MLIRContext ctx(registry);
  int rc = run(ctx);
  if (printTime) {
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    llvm::errs() << "fuse-compile: wall time " << llvm::format("%.1f", ms)
                 << " ms\n";
  }
  return rc;
}
