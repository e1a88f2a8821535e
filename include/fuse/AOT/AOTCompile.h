//===- AOTCompile.h - fuse-compile's code path, shared with fuse-run -*- C++ -*-===//
//
// The steps of ahead-of-time compilation that fuse-compile runs and that
// `fuse-run --gpu` reuses to build a temporary shared library:
//   - the fuse-to-gpu pipeline with fuse-compile's options,
//   - --prefix renaming of the entries,
//   - the host object (fuse::emitHostObject),
//   - the shared library of the entries (--emit=shared): the object plus
//     one packed wrapper per entry, linked by the system C compiler,
//   - the signature manifest (JSON) that fuse-run-aot reads.
//
// The manifest ("fuse-aot-manifest", version 1) describes every entry from
// its MLIR function type before lowering, one argument or result per line
// (their keys in alphabetical order), e.g. for examples/select.mlir:
//   {"format": "fuse-aot-manifest", "version": 1,
//    "library": "select.so", "chip": "sm_90",
//    "entries": [
//     {"name": "select", "symbol": "select", "packed": "select__fuse_packed",
//      "args": [
//       {"dtype":"f32","kind":"tensor","rank":1,"shape":[null],"type":"tensor<?xf32>"}],
//      "results": [
//       {"dtype":"f32","filter":true,"rank":1,"shape":[null],"size":["in0_d0"],"type":"tensor<?xf32>"}]}
//    ]}
// A scalar argument is {"dtype": ..., "kind": "scalar", "type": ...}.
// "shape" holds static sizes (null where dynamic); a result's "size" gives
// each dimension of its buffer as an expression over the arguments: an
// integer, inK_dD (dimension D of tensor argument K), inK (scalar argument
// K), + - * and min/max/div/ceildiv/floordiv/rem(a, b). A "filter" result's
// size is its capacity; the entry writes the kept count to an `int64_t *`
// passed after the outputs (docs/aot.md).
//
// The packed wrapper `int32_t <symbol>__fuse_packed(void **args)` calls the
// entry with *(T *)args[i] as its i-th C parameter, so that a runner can
// call any entry without knowing the host's calling convention.
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_AOT_AOTCOMPILE_H
#define FUSE_AOT_AOTCOMPILE_H

#include "fuse/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace fuse {
namespace aot {

/// fuse-compile's code generation options.
struct CompileOptions {
  std::string chip = "sm_90";
  std::string features = "+ptx80";
  std::string format = "bin"; // image embedded in the object
  std::string toolkitPath;
  unsigned optLevel = 3;
  int ptxasOptLevel = -1; // -1: optLevel
  unsigned jobs = 0;       // kernel parts through LLVM at once (0: threads)
  bool fusion = true;
  std::string prefix; // prepended to every entry's C name
  std::string linker; // C compiler driver for shared libraries ("" = cc)
  bool timing = false; // per-pass timing report on stderr (--timing)
  std::string tileOptions; // fuse-tile's options ("" = defaults)
};

/// Suffix of the packed wrapper of each entry in a shared library.
inline constexpr const char *kPackedSuffix = "__fuse_packed";

void makeGPUOptions(FuseToGPUOptions &o, const CompileOptions &options,
                    llvm::StringRef format);

/// Runs the fuse-to-gpu pipeline up to `stage` with image format `format`
/// (first checking the CUDA toolkit when there are kernels to serialize:
/// fuse::checkCUDAToolkit); `sinks` receive the PTX and the image on the
/// way (stages Binary and LLVM).
mlir::LogicalResult runPipeline(mlir::ModuleOp module,
                                const CompileOptions &options,
                                GPUPipelineStage stage, llvm::StringRef format,
                                const fuse::GPUSerializationSinks &sinks = {});

/// The bytes of the (single) gpu.binary left by the PTX/binary stage.
mlir::FailureOr<std::string> binaryBytes(mlir::ModuleOp module);

/// Renames every public function (the entries) to `prefix` + name, with
/// all symbol uses in the module updated.
mlir::LogicalResult prefixEntries(mlir::ModuleOp module,
                                  llvm::StringRef prefix);

/// The C names of the entries convert-fuse-to-gpu recorded on `module`
/// (its `fuse.entries`).
llvm::SmallVector<std::string> entryNames(mlir::ModuleOp module);

/// Adds `<entry>__fuse_packed(void **)` for every entry recorded on a
/// module lowered to LLVM (GPUPipelineStage::LLVM).
mlir::LogicalResult addPackedWrappers(mlir::ModuleOp module);

/// The manifest of the entries of `source` (the module as parsed, before
/// --prefix and the pipeline) that `lowered` holds. `library` is recorded
/// as the library's file name.
mlir::FailureOr<std::string> buildManifest(mlir::ModuleOp source,
                                           mlir::ModuleOp lowered,
                                           const CompileOptions &options,
                                           llvm::StringRef library);

/// Links `objectPath` into the shared library `libraryPath` with the C
/// compiler (options.linker, else cc, gcc or clang from PATH). The fuse
/// runtime's symbols stay undefined: the program that loads the library
/// provides them (it links libfuse_runtime).
mlir::LogicalResult linkSharedLibrary(llvm::StringRef objectPath,
                                      llvm::StringRef libraryPath,
                                      const CompileOptions &options);

/// The whole --emit=shared path: `module` (as parsed; it is lowered in
/// place) becomes `libraryPath` and its manifest `manifestPath`.
mlir::LogicalResult compileShared(mlir::ModuleOp module,
                                  const CompileOptions &options,
                                  llvm::StringRef libraryPath,
                                  llvm::StringRef manifestPath);

} // namespace aot
} // namespace fuse

#endif // FUSE_AOT_AOTCOMPILE_H
