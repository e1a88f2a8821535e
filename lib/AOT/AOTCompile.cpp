//===- AOTCompile.cpp - fuse-compile's code path, shared with fuse-run ----===//
//
// See AOTCompile.h: the pipeline with fuse-compile's options, entry
// prefixes, packed wrappers and the shared library. The manifest is
// Manifest.cpp.
//
//===----------------------------------------------------------------------===//

#include "fuse/AOT/AOTCompile.h"

#include "fuse/Conversion/FuseToGPU/FuseToGPU.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/Fuse/IR/Shapes.h"
#include "fuse/Dialect/Fuse/Utils/EntryGroups.h"
#include "fuse/Dialect/Fuse/Utils/SizeAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace fuse {
namespace aot {

void makeGPUOptions(FuseToGPUOptions &o, const CompileOptions &options,
                    StringRef format) {
  o.chip = options.chip;
  o.features = options.features;
  o.optLevel = options.optLevel;
  o.ptxasOptLevel = options.ptxasOptLevel;
  o.jobs = options.jobs;
  o.toolkitPath = options.toolkitPath;
  o.format = format.str();
  o.fusion = options.fusion;
  o.tileOptions = options.tileOptions;
}

static bool isFuseOp(Operation *op) {
  return op->getDialect() && op->getDialect()->getNamespace() == "fuse";
}

/// Whether the module holds fuse ops, GPU modules or functions with
/// tensors in their signature (entries whose ops may all fold away still
/// copy a returned argument), i.e. the pipeline will serialize kernels
/// and needs a CUDA toolkit.
static bool hasKernels(ModuleOp module) {
  return module
      .walk([&](Operation *op) {
        auto fn = dyn_cast<func::FuncOp>(op);
        return isa<gpu::GPUModuleOp>(op) || isFuseOp(op) ||
                       (fn && isEntryFunction(fn))
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

LogicalResult runPipeline(ModuleOp module, const CompileOptions &options,
                          GPUPipelineStage stage, StringRef format,
                          const GPUSerializationSinks &sinks) {
  PassManager pm(module.getOperation()->getName());
  FuseToGPUOptions o;
  makeGPUOptions(o, options, format);
  std::string message;
  if (failed(checkTileOptions(o, message)))
    return module.emitError("fuse-compile: ") << message;
  if (hasKernels(module) && failed(checkCUDAToolkit(o, stage, message)))
    return module.emitError(message);
  buildFuseToGPUPipeline(pm, o, stage, sinks);
  if (options.timing)
    pm.enableTiming();
  return pm.run(module);
}

FailureOr<std::string> binaryBytes(ModuleOp module) {
  for (auto bin : module.getOps<gpu::BinaryOp>()) {
    auto obj = cast<gpu::ObjectAttr>(bin.getObjects()[0]);
    return obj.getObject().getValue().str();
  }
  return module.emitError("fuse-compile: no kernels were generated"),
         failure();
}

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

SmallVector<std::string> entryNames(ModuleOp module) {
  SmallVector<std::string> names;
  if (auto entries =
          module->getAttrOfType<ArrayAttr>(EntryAttr::getAttrName()))
    for (Attribute a : entries)
      if (auto e = dyn_cast<EntryAttr>(a))
        names.push_back(e.getName().str());
  return names;
}

LogicalResult addPackedWrappers(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Type ptrTy = LLVM::LLVMPointerType::get(ctx);
  // Each entry's, and its workspace form's where it has one.
  SmallVector<std::string> names;
  if (auto entries =
          module->getAttrOfType<ArrayAttr>(EntryAttr::getAttrName()))
    for (Attribute a : entries)
      if (auto e = dyn_cast<EntryAttr>(a)) {
        names.push_back(e.getName().str());
        if (e.getWorkspace() == WorkspaceForm::Available)
          names.push_back((e.getName() + kWorkspaceSuffix).str());
      }
  for (const std::string &name : names) {
    auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
    if (!fn)
      return module.emitError("fuse-compile: entry '")
             << name << "' was not lowered to an llvm.func";
    std::string packedName = name + kPackedSuffix;
    if (module.lookupSymbol(packedName))
      return fn.emitError("fuse-compile: symbol '")
             << packedName << "' already exists";
    LLVM::LLVMFunctionType fnTy = fn.getFunctionType();
    Type resTy = fnTy.getReturnType();
    auto packedTy = LLVM::LLVMFunctionType::get(resTy, {ptrTy});
    Location loc = fn.getLoc();
    auto packed = LLVM::LLVMFuncOp::create(b, loc, packedName, packedTy);
    Block *entry = packed.addEntryBlock(b);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(entry);
    Value args = entry->getArgument(0);
    SmallVector<Value> operands;
    for (auto [i, t] : llvm::enumerate(fnTy.getParams())) {
      Value slot = LLVM::GEPOp::create(b, loc, ptrTy, ptrTy, args,
                                       ArrayRef<LLVM::GEPArg>{int32_t(i)});
      Value addr = LLVM::LoadOp::create(b, loc, ptrTy, slot);
      operands.push_back(LLVM::LoadOp::create(b, loc, t, addr));
    }
    auto call = LLVM::CallOp::create(b, loc, fn, operands);
    if (isa<LLVM::LLVMVoidType>(resTy))
      LLVM::ReturnOp::create(b, loc, ValueRange{});
    else
      LLVM::ReturnOp::create(b, loc, call.getResult());
  }
  return success();
}

LogicalResult linkSharedLibrary(StringRef objectPath, StringRef libraryPath,
                                const CompileOptions &options) {
  std::string driver;
  if (!options.linker.empty()) {
    auto p = llvm::sys::findProgramByName(options.linker);
    if (!p) {
      llvm::errs() << "fuse-compile: linker '" << options.linker
                   << "' not found\n";
      return failure();
    }
    driver = *p;
  } else {
    for (const char *name : {"cc", "gcc", "clang"})
      if (auto p = llvm::sys::findProgramByName(name)) {
        driver = *p;
        break;
      }
    if (driver.empty()) {
      llvm::errs() << "fuse-compile: no C compiler (cc, gcc or clang) on PATH "
                      "to link the shared library; give one with --linker\n";
      return failure();
    }
  }
  // -Bsymbolic: the wrappers' calls bind to the library's own entries, so
  // an entry named like a libc function (select) is never interposed.
  SmallVector<StringRef> args = {driver,     "-shared",
                                 "-o",       libraryPath,
                                 objectPath, "-Wl,-Bsymbolic",
                                 "-Wl,-z,noexecstack"};
  std::string err;
  int rc = llvm::sys::ExecuteAndWait(driver, args, std::nullopt, {}, 0, 0,
                                     &err);
  if (rc != 0) {
    llvm::errs() << "fuse-compile: linking '" << libraryPath << "' with "
                 << driver << " failed"
                 << (err.empty() ? " (exit status " + std::to_string(rc) + ")"
                                 : ": " + err)
                 << "\n";
    return failure();
  }
  return success();
}

static LogicalResult writeFile(StringRef path, StringRef data) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (!ec) {
    os << data;
    os.close();
    ec = os.error();
  }
  if (ec) {
    llvm::errs() << "fuse-compile: cannot write '" << path
                 << "': " << ec.message() << "\n";
    return failure();
  }
  return success();
}

LogicalResult compileShared(ModuleOp module, const CompileOptions &options,
                            StringRef libraryPath, StringRef manifestPath) {
  OwningOpRef<ModuleOp> source = module.clone();
  if (!options.prefix.empty() && failed(prefixEntries(module, options.prefix)))
    return failure();
  if (failed(runPipeline(module, options, GPUPipelineStage::LLVM,
                         options.format)) ||
      failed(addPackedWrappers(module)))
    return failure();
  FailureOr<std::string> manifest = buildManifest(
      *source, module, options, llvm::sys::path::filename(libraryPath));
  if (failed(manifest))
    return failure();
  FailureOr<std::string> obj = emitHostObject(module);
  if (failed(obj))
    return failure();
  llvm::SmallString<128> objPath;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "fuse-compile", "o", objPath)) {
    llvm::errs() << "fuse-compile: cannot create a temporary file: "
                 << ec.message() << "\n";
    return failure();
  }
  llvm::FileRemover removeObj(objPath);
  if (failed(writeFile(objPath, *obj)) ||
      failed(linkSharedLibrary(objPath, libraryPath, options)) ||
      failed(writeFile(manifestPath, *manifest)))
    return failure();
  return success();
}

} // namespace aot
} // namespace fuse
