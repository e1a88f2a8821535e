//===- Pipelines.cpp - fuse's named pass pipelines ------------------------===//

#include "fuse/Pipelines/Pipelines.h"

#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

namespace fuse {

/// The textual form of the pipeline `pm` holds.
std::string pipelineText(mlir::OpPassManager &pm) {
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);
  return text;
}

void addDeadWorkRemoval(mlir::OpPassManager &pm) {
  // Sizes of op results as sizes of the arguments (reifyResultShapes): a
  // tensor.dim of a value no result needs would otherwise keep the ops
  // that compute it.
  pm.addPass(mlir::memref::createResolveRankedShapeTypeResultDimsPass());
  // The fuse ops' folds and patterns (FuseFolds.cpp, exact): maps drop the
  // results nobody uses and the inputs their body never reads; unused ops
  // go. (Constants hoisted out of combiner regions are captured values
  // there, which the kernels clone where they use them: KernelBase::scalar.)
  pm.addPass(mlir::createCanonicalizerPass());
}

void registerFusePipelines() {
  registerFuseCPUPipeline();
  registerFuseGPUPipelines();
}

} // namespace fuse
