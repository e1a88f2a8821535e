//===- InitAll.h - register fuse dialects and passes ------------*- C++ -*-===//
//
// The one place that registers what fuse-opt, fuse-run and embedders need.
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

} // namespace fuse

#endif // FUSE_INITALL_H
