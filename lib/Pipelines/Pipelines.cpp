//===- Pipelines.cpp - fuse's named pass pipelines ------------------------===//

#include "fuse/Pipelines/Pipelines.h"
#include "fuse/Conversion/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>

using namespace mlir;

namespace fuse {

std::string getFuseToCPUPipelineString(const FuseToCPUOptions &options) {
  std::string p;
  // Fusion partitions the fuse ops into groups; convert-fuse-to-loops then
  // lowers each group as one fused loop nest (GroupToLoops). Without it,
  // every op gets its own loop nest (the unfused reference).
  if (options.fusion)
    p += "fuse-fusion,";
  p += "convert-fuse-to-loops,canonicalize,cse,";
  // Bufferize whole functions; entry points take and return plain
  // identity-layout memrefs so callers see contiguous arrays.
  p += "one-shot-bufferize{bufferize-function-boundaries "
       "function-boundary-type-conversion=identity-layout-map},";
  p += "buffer-deallocation-pipeline,convert-bufferization-to-memref,";
  // Without pattern rollback, convert-scf-to-cf is near linear in the number
  // of loops of a function (with it, the conversion's bookkeeping of every
  // block split made a chain of 2000 unfused ops take 1.6 s in this pass
  // alone, growing quadratically); its patterns never fail after changing
  // the IR, which is all the option requires.
  p += "canonicalize,convert-scf-to-cf{allow-pattern-rollback=false},"
       "expand-strided-metadata,lower-affine,";
  // fuse-expand-arith, not arith-expand: the latter rewrites maximumf and
  // minimumf into a compare and select that ignores the sign of zero.
  p += "fuse-expand-arith,convert-math-to-llvm,convert-math-to-libm,";
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
  if (!PassInfo::lookup("fuse-tile")) {
    message = "tile options given, but the fuse-tile pass is not registered";
    return failure();
  }
  OpPassManager pm("builtin.module");
  std::string err;
  llvm::raw_string_ostream os(err);
  if (failed(parsePassPipeline("fuse-tile{" + tileOptions.str() + "}", pm,
                               os))) {
    // The parser's first line says why ("<Pass-Options-Parser>: no such
    // option x"); the rest repeats the pipeline text.
    message = "invalid tile options '" + tileOptions.str() + "'";
    StringRef why = StringRef(err).trim().split('\n').first;
    why.consume_front("<Pass-Options-Parser>: ");
    if (!why.empty() && !why.starts_with("failed to add"))
      message += ": " + why.str();
    return failure();
  }
  return success();
}

/// The GPU pipeline up to nvvm-attach-target (stage NVVM).
static std::string nvvmPipeline(const FuseToGPUOptions &options) {
  // The target's figures first: fusion, tiling and the conversion read
  // them from the module.
  std::string p = "fuse-attach-target{chip=" + options.chip.getValue() + "},";
  // Fusion and tiling come from another layer; use them when registered.
  if (options.fusion) {
    if (PassInfo::lookup("fuse-fusion"))
      p += "fuse-fusion,";
    if (PassInfo::lookup("fuse-tile"))
      p += options.tileOptions.empty()
               ? std::string("fuse-tile,")
               : "fuse-tile{" + options.tileOptions.getValue() + "},";
  }
  p += "convert-fuse-to-gpu{block-threads=" +
       std::to_string(options.blockThreads) +
       " unroll=" + std::to_string(options.unroll) + "},";
  // Bottom-up: on the kernel builders' output the default top-down walk
  // took 4x as long (scan's canonicalizer 16 -> 4 ms) for the same result
  // (PTX, cubins and objects of 337 programs byte-identical).
  // Function by function (the host's func.func; in a GPU module, `any`
  // function: kernels, and device functions a module of another origin may
  // hold), so the pass manager runs the functions on the context's threads
  // and the kernels of a module lower side by side (softmax_rows' MLIR
  // passes 55 -> 36 ms wall on two cores; 124 programs' outputs
  // byte-identical). Only convert-gpu-to-nvvm takes the whole GPU module.
  const char *canonicalize =
      "canonicalize{region-simplify=disabled top-down=false},cse";
  p += std::string("func.func(") + canonicalize + "),gpu.module(any(" +
       canonicalize + ",convert-scf-to-cf),";
  // convert-math-to-llvm: the math ops libdevice has no call for (trunc,
  // ctlz, cttz, ctpop, absi of other widths than 32) become LLVM
  // intrinsics, which NVPTX selects (cvt.rzi, clz, popc, abs).
  p += "convert-gpu-to-nvvm{index-bitwidth=64},"
       "any(convert-math-to-llvm,canonicalize{region-simplify=disabled},"
       "cse,reconcile-unrealized-casts)),";
  p += "nvvm-attach-target{chip=" + options.chip.getValue() +
       " features=" + options.features.getValue() +
       " O=" + std::to_string(options.optLevel) + "}";
  return p;
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
  // up to the machine's cores): variance's two kernels 110 -> 70 ms on two
  // cores. Each kernel is compiled as alone (no cross-kernel optimization
  // exists: kernels call no device functions).
  return format == "isa" ? "" : getPtxasOptions(options);
}

static std::string serializeToolkit(const FuseToGPUOptions &options) {
  return options.toolkitPath.empty() ? defaultCUDAToolkitPath()
                                     : options.toolkitPath.getValue();
}

/// After serialization (stage LLVM): the image embedded, the host code in
/// the LLVM dialect.
static const char *kHostPipeline =
    "fuse-embed-gpu-binary,func.func(arith-expand),convert-scf-to-cf,"
    "convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,"
    "reconcile-unrealized-casts";

std::string getFuseToGPUPipelineString(const FuseToGPUOptions &options,
                                       GPUPipelineStage stage) {
  std::string p = nvvmPipeline(options);
  if (stage == GPUPipelineStage::NVVM)
    return p;
  std::string format = stageFormat(options, stage);
  // fuse's gpu-module-to-binary: a module's kernels go through LLVM on
  // parallel threads (variance's two kernels: ~40 -> ~22 ms of LLVM on two
  // cores), then one ptxas.
  p += ",fuse-gpu-module-to-binary{format=" + format;
  std::string opts = serializeCmdOptions(options, format);
  if (!opts.empty())
    p += " opts={" + opts + "}";
  std::string toolkit = serializeToolkit(options);
  if (!toolkit.empty())
    p += " toolkit=" + toolkit;
  p += " jobs=" + std::to_string(options.jobs) + "}";
  if (stage == GPUPipelineStage::PTX || stage == GPUPipelineStage::Binary)
    return p;
  return p + "," + kHostPipeline;
}


void buildFuseToGPUPipeline(OpPassManager &pm, const FuseToGPUOptions &options,
                            GPUPipelineStage stage,
                            const GPUSerializationSinks &sinks) {
  bool withSinks = (sinks.isa || sinks.binary) &&
                   (stage == GPUPipelineStage::Binary ||
                    stage == GPUPipelineStage::LLVM);
  auto parse = [&](StringRef text) {
    if (failed(parsePassPipeline(text, pm, llvm::errs())))
      llvm::report_fatal_error("fuse: invalid built-in GPU pipeline");
  };
  if (!withSinks) {
    parse(getFuseToGPUPipelineString(options, stage));
    return;
  }
  parse(nvvmPipeline(options));
  std::string format = stageFormat(options, stage);
  pm.addPass(createFuseGPUModuleToBinaryPass(
      format, serializeCmdOptions(options, format), serializeToolkit(options),
      options.jobs, sinks));
  if (stage == GPUPipelineStage::LLVM)
    parse(kHostPipeline);
}

void registerFusePipelines() {
  PassPipelineRegistration<FuseToCPUOptions>(
      "fuse-to-cpu",
      "Lower fuse ops to the LLVM dialect for the CPU (loops, buffers, "
      "LLVM); the input of fuse-run and the test oracle",
      buildFuseToCPUPipeline);
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
