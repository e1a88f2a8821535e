//===- GPUPipeline.cpp - fuse-to-ptx and fuse-to-cubin ---------------------===//

#include "fuse/Conversion/Passes.h"
#include "fuse/Dialect/Fuse/Transforms/Passes.h"
#include "fuse/Pipelines/Pipelines.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>

using namespace mlir;

namespace fuse {

/// The CUDA toolkit root used when the options name none: $CUDA_ROOT,
/// $CUDA_HOME or $CUDA_PATH, else the folder above the ptxas found on PATH,
/// else /usr/local/cuda when it exists. Both ptxas and libdevice (needed by
/// math functions such as exp and log) are found from it.
static std::string defaultCUDAToolkitPath(std::string *from = nullptr) {
  for (const char *var : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (const char *v = std::getenv(var); v && *v) {
      if (from)
        *from = std::string("$") + var;
      return v;
    }
  if (llvm::ErrorOr<std::string> ptxas = llvm::sys::findProgramByName("ptxas"))
    return llvm::sys::path::parent_path(
               llvm::sys::path::parent_path(*ptxas))
        .str();
  if (llvm::sys::fs::exists("/usr/local/cuda/bin/ptxas"))
    return "/usr/local/cuda";
  return "";
}

LogicalResult checkCUDAToolkit(const FuseToGPUOptions &options,
                               GPUPipelineStage stage, std::string &message) {
  if (stage == GPUPipelineStage::NVVM)
    return success();
  bool given = !options.toolkitPath.empty();
  std::string from;
  std::string root = given ? options.toolkitPath.getValue()
                           : defaultCUDAToolkitPath(&from);
  std::string how =
      given ? "check --toolkit-path"
      : !from.empty()
          ? "check " + from
          : "install the CUDA toolkit, or name it with --toolkit-path, "
            "$CUDA_HOME or $CUDA_ROOT, or put its ptxas on PATH";
  if (root.empty()) {
    message = "no CUDA toolkit found (GPU code needs its ptxas and "
              "libdevice): " + how;
    return failure();
  }
  if (!llvm::sys::fs::is_directory(root)) {
    message = "CUDA toolkit '" + root + "' is not a directory: " + how;
    return failure();
  }
  SmallVector<std::string> need = {"nvvm/libdevice/libdevice.10.bc"};
  std::string format =
      stage == GPUPipelineStage::PTX ? "isa" : options.format.getValue();
  if (format != "isa")
    need.push_back("bin/ptxas");
  if (format == "fatbin")
    need.push_back("bin/fatbinary");
  for (const std::string &rel : need) {
    SmallString<256> path(root);
    llvm::sys::path::append(path, rel);
    if (!llvm::sys::fs::exists(path)) {
      message = "CUDA toolkit '" + root + "' has no " + rel + ": " + how;
      return failure();
    }
  }
  return success();
}

std::string getPtxasOptions(const FuseToGPUOptions &options) {
  std::string opts = "--split-compile=0";
  // After the --opt-level that gpu-module-to-binary passes (from O): ptxas
  // takes the last one.
  if (options.ptxasOptLevel >= 0 &&
      options.ptxasOptLevel != static_cast<int>(options.optLevel))
    opts += " --opt-level " + std::to_string(options.ptxasOptLevel);
  return opts;
}

/// fuse-tile with `options.tileOptions` (name=value pairs), or failure
/// with the options parser's reason in `why`.
static FailureOr<std::unique_ptr<Pass>>
makeTilePass(const FuseToGPUOptions &options, std::string &why) {
  std::unique_ptr<Pass> tile = createFuseTilePass();
  if (options.tileOptions.empty())
    return tile;
  if (failed(tile->initializeOptions(options.tileOptions, [&](const Twine &m) {
        // The options parser's first line, without its prefix.
        std::string msg = m.str();
        StringRef first = StringRef(msg).trim().split('\n').first;
        first.consume_front("<Pass-Options-Parser>: ");
        why = first.str();
        return failure();
      })))
    return failure();
  return tile;
}

LogicalResult checkTileOptions(const FuseToGPUOptions &options,
                               std::string &message) {
  StringRef tileOptions = options.tileOptions.getValue();
  if (tileOptions.empty())
    return success();
  // Tiling runs with fusion only: without it the options would be ignored.
  if (!options.fusion) {
    message = "tile options given without fusion (tiling runs with it)";
    return failure();
  }
  // Inside fuse-tile{...}: no braces or commas that would end it.
  if (tileOptions.find_first_of("{},") != StringRef::npos) {
    message = "tile options '" + tileOptions.str() +
              "' contain '{', '}' or ',': give fuse-tile's options as "
              "space-separated name=value pairs";
    return failure();
  }
  std::string err;
  if (failed(makeTilePass(options, err))) {
    message = "invalid tile options '" + tileOptions.str() + "'";
    if (!err.empty())
      message += ": " + err;
    return failure();
  }
  return success();
}

void buildFuseGPUFrontend(OpPassManager &pm, const FuseToGPUOptions &options) {
  // The target's figures first: fusion, tiling and the conversion read
  // them from the module.
  FuseAttachTargetPassOptions target;
  target.chip = options.chip;
  target.smCount = options.smCount;
  pm.addPass(createFuseAttachTargetPass(target));
  // The work no result needs goes before anything plans for it.
  if (options.fusion)
    addDeadWorkRemoval(pm);
  // Built-in kinds for the regions that spell them out: the kernels of
  // row groups and scattered dims take kinds only.
  if (options.fusion)
    pm.addPass(createFuseBuiltinCombinersPass());
  // The numerics of half-precision sums (f32 accumulation), as on the CPU.
  pm.addPass(createFuseWidenAccumulatorsPass());
  // Argsorts make their own positions instead of reading an iota.
  pm.addPass(createFuseSortPositionsPass());
  // Comparators of one function of each key: a radix sort of that key.
  pm.addPass(createFuseComparatorKeysPass());
  // 8-bit needles: a table of the 256 answers, gathered.
  pm.addPass(createFuseSearchSortedTablePass());
  if (!options.fusion)
    return;
  // Reductions over scattered dims as a chain the kernels take, then
  // rank > 2 rows as the rows of a matrix, so fusion makes them one pass.
  pm.addPass(createFuseSplitReductionsPass());
  pm.addPass(createFuseCollapseRowsPass());
  // Partial reductions of one tensor over the same dims read it once.
  pm.addPass(createFuseMergeReductionsPass());
  pm.addPass(createFuseFusionPass());
  // i1 tensors between groups (and at the entry) as bytes, which is what
  // the kernels load and store.
  pm.addPass(createFuseBoolBytesPass());
  std::string why;
  FailureOr<std::unique_ptr<Pass>> tile = makeTilePass(options, why);
  // The registered pipelines and fuse-compile check the tile options
  // first (checkTileOptions); a caller that did not gets a fatal error.
  if (failed(tile))
    llvm::report_fatal_error(llvm::Twine("fuse: invalid tile options: ") + why);
  pm.addPass(std::move(*tile));
}

/// The backend up to nvvm-attach-target (stage NVVM).
static void buildNVVMPipeline(OpPassManager &pm,
                              const FuseToGPUOptions &options) {
  ConvertFuseToGPUPassOptions convert;
  convert.blockThreads = options.blockThreads;
  convert.unroll = options.unroll;
  pm.addPass(createConvertFuseToGPUPass(convert));
  // Bottom-up: on the kernel builders' output the default top-down walk
  // took 4x as long for the same result. Function by function (the host's
  // func.func; in a GPU module, `any` function: kernels, and device
  // functions a module of another origin may hold), so the pass manager
  // runs the functions on the context's threads and the kernels of a
  // module lower side by side. Only convert-gpu-to-nvvm takes the whole
  // GPU module.
  auto cleanup = [](OpPassManager &fpm) {
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    config.setUseTopDownTraversal(false);
    fpm.addPass(createCanonicalizerPass(config));
    fpm.addPass(createCSEPass());
  };
  cleanup(pm.nest<func::FuncOp>());
  OpPassManager &gpm = pm.nest<gpu::GPUModuleOp>();
  OpPassManager &kernels = gpm.nestAny();
  cleanup(kernels);
  kernels.addPass(createSCFToControlFlowPass());
  ConvertGpuOpsToNVVMOpsOptions toNVVM;
  toNVVM.indexBitwidth = 64;
  gpm.addPass(createConvertGpuOpsToNVVMOps(toNVVM));
  // convert-math-to-llvm: the math ops libdevice has no call for (trunc,
  // ctlz, cttz, ctpop, absi of other widths than 32) become LLVM
  // intrinsics, which NVPTX selects (cvt.rzi, clz, popc, abs).
  OpPassManager &lowered = gpm.nestAny();
  lowered.addPass(createConvertMathToLLVMPass());
  GreedyRewriteConfig noRegions;
  noRegions.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
  lowered.addPass(createCanonicalizerPass(noRegions));
  lowered.addPass(createCSEPass());
  lowered.addPass(createReconcileUnrealizedCastsPass());
  GpuNVVMAttachTargetOptions nvvm;
  nvvm.chip = options.chip;
  nvvm.features = options.features;
  nvvm.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(nvvm));
}

/// The image format of `stage`'s serialization.
static std::string stageFormat(const FuseToGPUOptions &options,
                               GPUPipelineStage stage) {
  return stage == GPUPipelineStage::PTX ? "isa" : options.format.getValue();
}

/// ptxas's options for `format` ("" for PTX).
static std::string serializeCmdOptions(const FuseToGPUOptions &options,
                                       StringRef format) {
  // ptxas compiles the kernels of a module in parallel (one thread each,
  // up to the machine's cores). Each kernel is compiled as alone (no
  // cross-kernel optimization exists: kernels call no device functions).
  return format == "isa" ? "" : getPtxasOptions(options);
}

static std::string serializeToolkit(const FuseToGPUOptions &options) {
  return options.toolkitPath.empty() ? defaultCUDAToolkitPath()
                                     : options.toolkitPath.getValue();
}

/// After serialization (stage LLVM): the image embedded, the host code in
/// the LLVM dialect.
static void buildHostPipeline(OpPassManager &pm) {
  pm.addPass(createFuseEmbedGPUBinaryPass());
  pm.addNestedPass<func::FuncOp>(arith::createArithExpandOpsPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void buildFuseGPUBackend(OpPassManager &pm, const FuseToGPUOptions &options,
                         GPUPipelineStage stage,
                         const GPUSerializationSinks &sinks) {
  buildNVVMPipeline(pm, options);
  if (stage == GPUPipelineStage::NVVM)
    return;
  // fuse's gpu-module-to-binary: a module's kernels go through LLVM on
  // parallel threads, then one ptxas; with sinks (stages Binary and LLVM)
  // it also fills them.
  std::string format = stageFormat(options, stage);
  bool withSinks = stage == GPUPipelineStage::Binary ||
                   stage == GPUPipelineStage::LLVM;
  pm.addPass(createFuseGPUModuleToBinaryPass(
      format, serializeCmdOptions(options, format), serializeToolkit(options),
      options.jobs, withSinks ? sinks : GPUSerializationSinks{}));
  if (stage == GPUPipelineStage::LLVM)
    buildHostPipeline(pm);
}

void buildFuseToGPUPipeline(OpPassManager &pm, const FuseToGPUOptions &options,
                            GPUPipelineStage stage,
                            const GPUSerializationSinks &sinks) {
  buildFuseGPUFrontend(pm, options);
  buildFuseGPUBackend(pm, options, stage, sinks);
}

std::string getFuseToGPUPipelineString(const FuseToGPUOptions &options,
                                       GPUPipelineStage stage) {
  OpPassManager pm("builtin.module");
  buildFuseToGPUPipeline(pm, options, stage);
  return pipelineText(pm);
}

void registerFuseGPUPipelines() {
  // The GPU pipelines check their tile options first: a bad one is an
  // error of the pipeline's options, not a failure of fuse's own pipeline.
  auto registerGPU = [](StringRef arg, StringRef description,
                        GPUPipelineStage stage) {
    registerPassPipeline(
        arg, description,
        [stage](OpPassManager &pm, StringRef optionsStr,
                function_ref<LogicalResult(const Twine &)> errorHandler) {
          FuseToGPUOptions options;
          if (failed(options.parseFromString(optionsStr)))
            return failure();
          std::string message;
          if (failed(checkTileOptions(options, message)))
            return errorHandler(message);
          buildFuseToGPUPipeline(pm, options, stage);
          return success();
        },
        [](function_ref<void(const detail::PassOptions &)> optHandler) {
          optHandler(FuseToGPUOptions());
        });
  };
  registerGPU("fuse-to-ptx",
              "Lower fuse ops to GPU kernels and print them as PTX in a "
              "gpu.binary (host code stays in func/llvm ops); for reading "
              "and FileCheck",
              GPUPipelineStage::PTX);
  registerGPU("fuse-to-cubin",
              "Lower fuse ops to GPU kernels (cubin embedded as a global) "
              "and C-ABI host functions in the LLVM dialect; what "
              "fuse-compile turns into an object file",
              GPUPipelineStage::LLVM);
}

} // namespace fuse
