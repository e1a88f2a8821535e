//===- InitCompiler.cpp - what fuse-compile's pipelines register ----------===//
//
// fuse-compile lowers fuse to GPU kernels and host code only; registering
// just what those pipelines use (rather than mlir::registerAllDialects and
// registerAllPasses, as fuse-opt does) lets a statically linked
// fuse-compile leave the rest of MLIR and LLVM's other back ends out.
// Outputs are the same: PTX, cubins, objects and headers of 124 programs
// byte-identical (scripts/compare-builds.sh).
//
//===----------------------------------------------------------------------===//

#include "fuse/Conversion/Passes.h"
#include "fuse/Dialect/Fuse/IR/FuseDialect.h"
#include "fuse/Dialect/Fuse/Transforms/Passes.h"
#include "fuse/InitAll.h"
#include "fuse/Pipelines/Pipelines.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/IR/TensorInferTypeOpInterfaceImpl.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

#include <mutex>

void fuse::registerCompilerDialects(mlir::DialectRegistry &registry) {
  using namespace mlir;
  registry.insert<fuse::FuseDialect, arith::ArithDialect,
                  cf::ControlFlowDialect, func::FuncDialect, gpu::GPUDialect,
                  index::IndexDialect, LLVM::LLVMDialect, NVVM::NVVMDialect,
                  math::MathDialect, memref::MemRefDialect, scf::SCFDialect,
                  tensor::TensorDialect, ub::UBDialect,
                  vector::VectorDialect>();
  // convert-gpu-to-nvvm lowers the other dialects' ops in a GPU module
  // through their ConvertToLLVM interfaces, and the NVVM target's.
  // fuse-collapse-rows reifies the shapes of tensor reshapes.
  tensor::registerInferTypeOpInterfaceExternalModels(registry);
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  NVVM::registerConvertGpuToNVVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  // Serialization of GPU modules, and the host module to LLVM IR.
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

void fuse::registerCompilerPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    // The pipelines add their passes through the pass manager API, so no
    // upstream pass needs registering for them; fuse's own passes and the
    // GPU pipelines are registered for textual use (fuse-opt,
    // --dump-pass-pipeline replay). The CPU pipeline is fuse-opt's
    // (registerAllPasses), which keeps its libraries out of fuse-compile.
    fuse::registerFuseConversionPasses();
    fuse::registerFuseTransformsPasses();
    fuse::registerFuseGPUPipelines();
  });
}
