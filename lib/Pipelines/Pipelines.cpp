//===- Pipelines.cpp - fuse's named pass pipelines ------------------------===//

#include "fuse/Pipelines/Pipelines.h"

#include "llvm/Support/raw_ostream.h"

namespace fuse {

/// The textual form of the pipeline `pm` holds.
std::string pipelineText(mlir::OpPassManager &pm) {
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);
  return text;
}

void registerFusePipelines() {
  registerFuseCPUPipeline();
  registerFuseGPUPipelines();
}

} // namespace fuse
