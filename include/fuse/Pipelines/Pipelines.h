//===- Pipelines.h - fuse's named pass pipelines ----------------*- C++ -*-===//
//
// Each pipeline is a function of an options struct, registered with
// PassPipelineRegistration so that fuse-opt, fuse-run, the Python package
// and embedders share one textual form that replays from the command line.
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_PIPELINES_PIPELINES_H
#define FUSE_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace fuse {

/// Options of the CPU pipeline (`fuse-to-cpu`).
struct FuseToCPUOptions : public mlir::PassPipelineOptions<FuseToCPUOptions> {
  Option<bool> fusion{*this, "fusion",
                      llvm::cl::desc("Run fuse's fusion passes before "
                                     "lowering (off: one loop nest per op)"),
                      llvm::cl::init(true)};
};

/// fuse ops -> scf loops over tensors -> buffers -> LLVM dialect, ready for
/// the ExecutionEngine (fuse-run) or mlir-translate --mlir-to-llvmir.
void buildFuseToCPUPipeline(mlir::OpPassManager &pm,
                            const FuseToCPUOptions &options);

/// The textual form of the CPU pipeline with these options (what
/// `fuse-opt --pass-pipeline=...` would take).
std::string getFuseToCPUPipelineString(const FuseToCPUOptions &options);

/// Registers every named pipeline with the global registry.
void registerFusePipelines();

} // namespace fuse

#endif // FUSE_PIPELINES_PIPELINES_H
