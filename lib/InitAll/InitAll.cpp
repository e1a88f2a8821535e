//===- InitAll.cpp - register fuse dialects and passes --------------------===//

#include "fuse/InitAll.h"
#include "fuse/Pipelines/Pipelines.h"
#include "fuse/Dialect/Fuse/IR/FuseDialect.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include <mutex>

void fuse::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<fuse::FuseDialect>();
  // fuse's pipelines go through many upstream dialects (tensor, scf,
  // bufferization, memref, gpu, nvvm, llvm, ...): register them all with
  // their interface implementations, as mlir-opt does.
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary and fuse-compile translate gpu/nvvm/llvm ops to
  // LLVM IR.
  mlir::registerAllToLLVMIRTranslations(registry);
}

void fuse::registerAllPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    mlir::registerAllPasses();
    // fuse's passes and GPU pipelines, as fuse-compile registers them
    // (once however often called), and the CPU pipeline.
    fuse::registerCompilerPasses();
    fuse::registerFuseCPUPipeline();
  });
}
