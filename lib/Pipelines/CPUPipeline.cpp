//===- CPUPipeline.cpp - fuse-to-cpu --------------------------------------===//

#include "fuse/Conversion/Passes.h"
#include "fuse/Dialect/Fuse/Transforms/Passes.h"
#include "fuse/Pipelines/Pipelines.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace fuse {

void buildFuseToCPUPipeline(OpPassManager &pm,
                            const FuseToCPUOptions &options) {
  // The work no result needs goes first, as on the GPU.
  if (options.fusion)
    addDeadWorkRemoval(pm);
  // A size combined with a filter's or prefix's count is checked once the
  // count exists; before fusion, which sees only the entry's own ops.
  pm.addPass(createFuseCPUCountChecksPass());
  // Fusion partitions the fuse ops into groups; convert-fuse-to-loops then
  // lowers each group as one fused loop nest (GroupToLoops). Without it,
  // every op gets its own loop nest (the unfused reference).
  // Combiner regions that spell out built-in kinds become them, as on the
  // GPU; with fusion only, so that the unfused reference lowers regions as
  // written and checks the rewrite.
  if (options.fusion)
    pm.addPass(createFuseBuiltinCombinersPass());
  // The numerics of half-precision sums (f32 accumulation), with or
  // without fusion: the unfused reference accumulates as the fused code.
  pm.addPass(createFuseWidenAccumulatorsPass());
  // Not fuse-collapse-rows, as fuse-to-gpu runs: rank > 2 rows stay
  // loop nests of their rank here, which the GPU suites compare with.
  // Partial reductions of one tensor over the same dims read it once, as
  // on the GPU (each result computed as before).
  if (options.fusion) {
    pm.addPass(createFuseMergeReductionsPass());
    pm.addPass(createFuseFusionPass());
  }
  pm.addPass(createConvertFuseToLoopsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Bufferize whole functions; entry points take and return plain
  // identity-layout memrefs so callers see contiguous arrays.
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // A cast of a static empty tensor (a failed count check's result,
  // fuse-cpu-count-checks) keeps the identity layout too; with a layout of
  // any strides the `scf.if` it leaves would need a copy into the result.
  bufferize.unknownTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::BufferDeallocationPipelineOptions dealloc;
  bufferization::buildBufferDeallocationPipeline(pm, dealloc);
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(createCanonicalizerPass());
  // Without pattern rollback, convert-scf-to-cf is near linear in the number
  // of loops of a function (with it, the conversion's bookkeeping of every
  // block split grew quadratically on long unfused chains); its patterns
  // never fail after changing the IR, which is all the option requires.
  SCFToControlFlowPassOptions scfToCF;
  scfToCF.allowPatternRollback = false;
  pm.addPass(createSCFToControlFlowPass(scfToCF));
  // expand_shape with several dynamic sizes in a group (rank-3 views of
  // rank-2 buffers) first: MLIR 22's expand-strided-metadata crashes on
  // them.
  pm.addPass(createFuseExpandShapeStridesPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // Half precision on the host: math functions in f32 (f16 and bf16, as
  // the GPU backend computes them), bf16 arithmetic in f32 rounded back to
  // bf16 (correctly rounded: f32 has more than twice bf16's precision).
  // fuse-expand-arith first too: its exact integer -> bf16 conversions
  // before arith-emulate-unsupported-floats splits them through f32.
  pm.addPass(createFuseExpandArithPass());
  pm.addPass(math::createMathExtendToSupportedTypes());
  arith::ArithEmulateUnsupportedFloatsOptions bf16;
  bf16.sourceTypeStrs = {"bf16"};
  pm.addPass(arith::createArithEmulateUnsupportedFloats(bf16));
  // fuse-expand-arith, not arith-expand: the latter rewrites maximumf and
  // minimumf into a compare and select that ignores the sign of zero.
  pm.addPass(createFuseExpandArithPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

std::string getFuseToCPUPipelineString(const FuseToCPUOptions &options) {
  OpPassManager pm("builtin.module");
  buildFuseToCPUPipeline(pm, options);
  return pipelineText(pm);
}

void registerFuseCPUPipeline() {
  PassPipelineRegistration<FuseToCPUOptions>(
      "fuse-to-cpu",
      "Lower fuse ops to the LLVM dialect for the CPU (loops, buffers, "
      "LLVM); the input of fuse-run and the test oracle",
      buildFuseToCPUPipeline);
}

} // namespace fuse
