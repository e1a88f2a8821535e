//===- InitAll.h - register fuse dialects and passes ------------*- C++ -*-===//
//
// The one place that registers what fuse-opt, fuse-run and embedders need,
// and the smaller set fuse-compile's GPU pipelines need.
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_INITALL_H
#define FUSE_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace fuse {

/// Adds the fuse dialect and every upstream dialect (and interface
/// implementation) that fuse's pipelines produce or consume.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers fuse's passes and named pipelines with the global registry,
/// plus the upstream passes the pipelines are made of. Idempotent.
void registerAllPasses();

/// What fuse-compile's GPU pipelines need, and no more: the dialects of
/// fuse's input and of the GPU and host lowering (fuse, func, arith, math,
/// tensor, scf, cf, index, ub, vector, memref, gpu, nvvm, llvm), their
/// conversions to LLVM, the NVVM target and the LLVM IR translations.
/// Registering only these keeps the rest of MLIR and LLVM's other targets
/// out of a statically linked fuse-compile (a third of the code, and a
/// faster start). Ops of other dialects then fail to parse.
void registerCompilerDialects(mlir::DialectRegistry &registry);

/// The passes fuse-compile's pipelines are made of (registerCompilerDialects'
/// counterpart). Idempotent.
void registerCompilerPasses();

} // namespace fuse

#endif // FUSE_INITALL_H
