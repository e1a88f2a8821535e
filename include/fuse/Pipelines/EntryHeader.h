//===- EntryHeader.h - the C header of compiled entries ---------*- C++ -*-===//
//
// fuse-compile's AOT header: the C declarations and documentation of the
// entries that convert-fuse-to-gpu describes on the module (`fuse.entries`,
// an array of #fuse.entry).
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_PIPELINES_ENTRYHEADER_H
#define FUSE_PIPELINES_ENTRYHEADER_H

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace fuse {

/// The C header declaring every entry point described on `module` by
/// convert-fuse-to-gpu. `guard` names the include guard.
std::string emitEntryHeader(mlir::ModuleOp module, llvm::StringRef guard);

} // namespace fuse

#endif // FUSE_PIPELINES_ENTRYHEADER_H
