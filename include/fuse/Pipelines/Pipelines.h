//===- Pipelines.h - fuse's named pass pipelines ----------------*- C++ -*-===//
//
// Each pipeline is a function of an options struct that adds its passes
// with the pass manager API (no pass registry needed), registered with
// PassPipelineRegistration for fuse-opt; its textual form replays from the
// command line (`--dump-pass-pipeline`, then `--pass-pipeline=...`).
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_PIPELINES_PIPELINES_H
#define FUSE_PIPELINES_PIPELINES_H

#include "fuse/Conversion/FuseToGPU/Defaults.h"
#include "fuse/Conversion/FuseToGPU/FuseToGPU.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace fuse {

/// Removes the work no result of an entry needs before fusion plans the
/// groups: ops whose results are unused and map inputs the body never
/// reads (what torch.compile and XLA drop too). Sizes are then
/// checked only where they meet in the ops that remain. Both backends add
/// it when they fuse; the unfused reference keeps every op as written.
void addDeadWorkRemoval(mlir::OpPassManager &pm);

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

/// Options of the GPU pipelines (`fuse-to-ptx`, `fuse-to-cubin`).
struct FuseToGPUOptions : public mlir::PassPipelineOptions<FuseToGPUOptions> {
  Option<bool> fusion{*this, "fusion",
                      llvm::cl::desc("Run fuse's fusion and tiling passes "
                                     "first"),
                      llvm::cl::init(true)};
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("GPU architecture (sm_XX)"),
                           llvm::cl::init("sm_90")};
  Option<int64_t> smCount{
      *this, "sm-count",
      llvm::cl::desc("SM count of the target description instead of the "
                     "chip's (0: the chip table's); sizes static grids"),
      llvm::cl::init(0)};
  Option<std::string> features{*this, "features",
                               llvm::cl::desc("PTX features, e.g. +ptx80"),
                               llvm::cl::init("+ptx80")};
  Option<unsigned> optLevel{*this, "opt-level",
                            llvm::cl::desc("NVPTX/ptxas optimization level"),
                            llvm::cl::init(3)};
  Option<int> ptxasOptLevel{
      *this, "ptxas-opt-level",
      llvm::cl::desc("ptxas optimization level, 0-3 (-1: opt-level)"),
      llvm::cl::init(-1)};
  Option<std::string> toolkitPath{
      *this, "toolkit-path",
      llvm::cl::desc("CUDA toolkit root for ptxas, fatbinary and libdevice "
                     "(default: $CUDA_ROOT, $CUDA_HOME or $CUDA_PATH, else "
                     "the toolkit of the ptxas on PATH, else "
                     "/usr/local/cuda)"),
      llvm::cl::init("")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Embedded image of fuse-to-cubin: bin (cubin), fatbin "
                     "(cubin + PTX) or isa (PTX, JIT-compiled at load)"),
      llvm::cl::init("bin")};
  Option<std::string> tileOptions{
      *this, "tile-options",
      llvm::cl::desc("Options of the fuse-tile pass, space-separated (e.g. "
                     "'finish-prefetch=0 long-row-items=4'); with fusion "
                     "only"),
      llvm::cl::init("")};
  Option<int64_t> blockThreads{*this, "block-threads",
                               llvm::cl::desc("Threads per block"),
                               llvm::cl::init(kDefaultBlockThreads)};
  Option<int64_t> unroll{*this, "unroll",
                         llvm::cl::desc("Vector loads in flight per thread"),
                         llvm::cl::init(kDefaultUnroll)};
  Option<unsigned> jobs{
      *this, "jobs",
      llvm::cl::desc("Kernel parts compiled at once by LLVM (0: one per "
                     "thread of the context; 1: the GPU module as one "
                     "LLVM module)"),
      llvm::cl::init(0)};
};

/// Whether `options.tileOptions` are options fuse-tile takes, given where
/// tiling runs (with fusion only); `message` says why not. The GPU
/// pipelines need this to hold (fuse-compile and the registered pipelines
/// check it first).
mlir::LogicalResult checkTileOptions(const FuseToGPUOptions &options,
                                     std::string &message);

/// How far the GPU pipeline goes.
enum class GPUPipelineStage {
  /// Kernels in NVVM with the target attached; host code not lowered.
  NVVM,
  /// gpu.binary with PTX (format=isa); host code not lowered.
  PTX,
  /// gpu.binary in `options.format` (e.g. the cubin); host code not
  /// lowered.
  Binary,
  /// gpu.binary in `options.format`, embedded; everything in the LLVM
  /// dialect, ready for translation to LLVM IR and an object file.
  LLVM,
};

/// The GPU pipeline's first half: fuse-attach-target (the `#fuse.target`
/// of `options.chip`, with `options.smCount` when set), then with
/// `options.fusion` fuse-fusion and fuse-tile. It leaves fuse.group ops
/// with their `fuse.tiling`, still on tensors: a compiler that embeds fuse
/// may add passes of its own here, before buildFuseGPUBackend.
void buildFuseGPUFrontend(mlir::OpPassManager &pm,
                          const FuseToGPUOptions &options);

/// The GPU pipeline's second half, convert-fuse-to-gpu onward: gpu kernels
/// + C-ABI host functions -> NVVM -> PTX/cubin (see GPUPipelineStage),
/// built from the target the frontend attached. Give it the options the
/// frontend had (nvvm-attach-target takes `options.chip`). With sinks
/// (stages Binary and LLVM), gpu-module-to-binary's step is done by an
/// equivalent pass that also fills them.
void buildFuseGPUBackend(mlir::OpPassManager &pm,
                         const FuseToGPUOptions &options,
                         GPUPipelineStage stage,
                         const GPUSerializationSinks &sinks = {});

/// fuse ops -> fused groups -> gpu kernels + C-ABI host functions ->
/// NVVM -> PTX/cubin: buildFuseGPUFrontend, then buildFuseGPUBackend.
void buildFuseToGPUPipeline(mlir::OpPassManager &pm,
                            const FuseToGPUOptions &options,
                            GPUPipelineStage stage,
                            const GPUSerializationSinks &sinks = {});
std::string getFuseToGPUPipelineString(const FuseToGPUOptions &options,
                                       GPUPipelineStage stage);

/// The host object (position-independent, for the default target triple)
/// of a module the GPU pipeline lowered to stage LLVM: the module is
/// translated to LLVM IR and compiled by LLVM's TargetMachine. The object
/// holds the entries' C-ABI functions and the embedded GPU image; the
/// program that links it links the fuse runtime (docs/aot.md). Errors are
/// emitted on `module`.
mlir::FailureOr<std::string> emitHostObject(mlir::ModuleOp module);

/// The options the GPU pipeline passes to ptxas (gpu-module-to-binary's
/// `opts`): kernels compiled in parallel, and ptxas-opt-level when set.
std::string getPtxasOptions(const FuseToGPUOptions &options);

/// Checks, before the pipeline runs, that the CUDA toolkit `options` name
/// (or the default search finds) holds what `stage` needs: libdevice
/// (nvvm/libdevice/libdevice.10.bc) whenever kernels are serialized, and
/// bin/ptxas (bin/fatbinary too for format=fatbin) when a cubin is made.
/// On failure `message` says what is missing and how to point fuse at a
/// toolkit; the pipeline's own error would otherwise come with a dump of
/// the whole GPU module.
mlir::LogicalResult checkCUDAToolkit(const FuseToGPUOptions &options,
                                     GPUPipelineStage stage,
                                     std::string &message);

/// Registers `fuse-to-cpu` with the global registry.
void registerFuseCPUPipeline();

/// Registers `fuse-to-ptx` and `fuse-to-cubin` with the global registry.
void registerFuseGPUPipelines();

/// Registers every named pipeline with the global registry.
void registerFusePipelines();

/// The textual form of the pipeline `pm` holds (what
/// `fuse-opt --pass-pipeline=...` takes).
std::string pipelineText(mlir::OpPassManager &pm);

} // namespace fuse

#endif // FUSE_PIPELINES_PIPELINES_H
