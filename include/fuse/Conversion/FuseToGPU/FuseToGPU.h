//===- FuseToGPU.h - fused groups to GPU kernels and host code --*- C++ -*-===//
//
// convert-fuse-to-gpu turns every function whose body is a sequence of
// `fuse.group` ops into
//   - kernels in one `gpu.module @fuse_kernels` (gpu/arith/scf/memref/llvm
//     ops; lowered further by the upstream NVVM passes), and
//   - a host function with a C ABI (func/arith/cf/llvm ops) that loads the
//     embedded image through the fuse runtime (runtime/include/
//     fuse_runtime.h), allocates temporaries and launches the kernels.
// fuse-embed-gpu-binary then replaces the `gpu.binary` made by
// gpu-module-to-binary with an LLVM global that the host code reads.
//
// Each entry's C interface is described on the module in the
// `fuse.entries` attribute, an array of #fuse.entry (EntryAttr), from which
// fuse-compile writes the AOT header (fuse/Pipelines/EntryHeader.h).
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_CONVERSION_FUSETOGPU_FUSETOGPU_H
#define FUSE_CONVERSION_FUSETOGPU_FUSETOGPU_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <string>

namespace fuse {

/// Name of the gpu.module holding every kernel of a converted module.
inline constexpr const char *kKernelModuleName = "fuse_kernels";
/// Suffixes of the LLVM globals, named after the kernel module, that hold
/// its image and the image's size: placeholders made by
/// convert-fuse-to-gpu, filled by fuse-embed-gpu-binary.
inline constexpr const char *kImageSuffix = "_image";
inline constexpr const char *kImageSizeSuffix = "_image_size";
/// Suffix of an entry's capture-safe workspace form (NAME_ws; see
/// #fuse.entry's `workspace`).
inline constexpr const char *kWorkspaceSuffix = "_ws";

/// Where fuse-gpu-module-to-binary also copies what it made, so that one
/// run yields the PTX, the image and the object: `isa` receives the GPU
/// module's PTX (the text format=isa would give), `binary` the image bytes
/// in the pass's format, before they are embedded.
struct GPUSerializationSinks {
  std::string *isa = nullptr;
  std::string *binary = nullptr;
};

/// fuse-gpu-module-to-binary with its options (format, opts, toolkit, jobs)
/// that also fills `sinks`.
std::unique_ptr<mlir::Pass>
createFuseGPUModuleToBinaryPass(std::string format, std::string cmdOptions,
                                std::string toolkitPath, unsigned jobs,
                                GPUSerializationSinks sinks);

} // namespace fuse

#endif // FUSE_CONVERSION_FUSETOGPU_FUSETOGPU_H
