//===- EntryGroups.h - an entry function as a sequence of groups -*- C++
//-*-===//
//
// The GPU code generator takes an entry function whose tensors are all
// made by fuse.group ops (and sorts); these steps bring a fused function to
// that form. convert-fuse-to-gpu runs them first, and fuse-bool-bytes
// before it rewrites the groups' i1 boundaries, so that every i1 tensor a
// kernel would read or write is at a group's boundary by then.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_DIALECT_FUSE_UTILS_ENTRYGROUPS_H
#define FUSE_DIALECT_FUSE_UTILS_ENTRYGROUPS_H

#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace fuse {

/// The group kind that takes `op` alone (a reduce over all dims: reduce,
/// over some: row_reduce, which the line kernels also serve).
GroupKind groupKindFor(mlir::Operation *op);

/// Tensor arguments and fuse.prefix results (views of a source's buffer)
/// returned as they are, and a tensor returned a second time (each output
/// is a buffer of its own; folds make `return %y, %y` of two maps that were
/// copies): every result of an entry is written by a kernel into the
/// caller's output, so each such result becomes a fuse.map yielding its
/// element (an elementwise copy, grouped by wrapLooseOps), except that an
/// elementwise group's result returned again is yielded again by the group
/// (one pass writes both outputs). (fuse's Python GPU trace makes the same
/// copy earlier, fused with the other results of its shape.)
void copyReturnedArguments(mlir::func::FuncOp fn);

/// Whether `fn` is an entry of the GPU backend: a function with a body that
/// holds fuse ops or has tensors in its signature (its ops may all have
/// folded away; one that returns an argument still copies it).
bool isEntryFunction(mlir::func::FuncOp fn);

/// Puts each fuse op outside a group into a group of its own (a sort, a
/// runtime call between the groups, stays).
void wrapLooseOps(mlir::func::FuncOp fn);

} // namespace fuse

#endif // FUSE_DIALECT_FUSE_UTILS_ENTRYGROUPS_H
