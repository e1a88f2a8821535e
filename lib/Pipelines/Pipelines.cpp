//===- Pipelines.cpp - fuse's named pass pipelines ------------------------===//

#include "fuse/Pipelines/Pipelines.h"
#include "fuse/Conversion/Passes.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace fuse {

std::string getFuseToCPUPipelineString(const FuseToCPUOptions &options) {
  std::string p;
  // Fusion passes join here once registered (options.fusion).
  (void)options;
  p += "convert-fuse-to-loops,canonicalize,cse,";
  // Bufferize whole functions; entry points take and return plain
  // identity-layout memrefs so callers see contiguous arrays.
  p += "one-shot-bufferize{bufferize-function-boundaries "
       "function-boundary-type-conversion=identity-layout-map},";
  p += "buffer-deallocation-pipeline,convert-bufferization-to-memref,";
  p += "canonicalize,convert-scf-to-cf,expand-strided-metadata,lower-affine,";
  p += "arith-expand,convert-math-to-llvm,convert-math-to-libm,";
  p += "finalize-memref-to-llvm,convert-arith-to-llvm,convert-index-to-llvm,";
  p += "convert-func-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts";
  return p;
}

void buildFuseToCPUPipeline(OpPassManager &pm,
                            const FuseToCPUOptions &options) {
  std::string text = getFuseToCPUPipelineString(options);
  // The string is fuse's own and names registered passes only; a failure
  // here is a build error of fuse, reported on the pass manager's stream.
  if (failed(parsePassPipeline(text, pm, llvm::errs())))
    llvm::report_fatal_error("fuse: invalid built-in CPU pipeline");
}

void registerFusePipelines() {
  PassPipelineRegistration<FuseToCPUOptions>(
      "fuse-to-cpu",
      "Lower fuse ops to the LLVM dialect for the CPU (loops, buffers, "
      "LLVM); the input of fuse-run and the test oracle",
      buildFuseToCPUPipeline);
}

} // namespace fuse
