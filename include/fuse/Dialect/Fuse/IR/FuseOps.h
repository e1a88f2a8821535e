//===- FuseOps.h - fuse dialect operations ----------------------*- C++ -*-===//
#ifndef FUSE_DIALECT_FUSE_IR_FUSEOPS_H
#define FUSE_DIALECT_FUSE_IR_FUSEOPS_H

#include "fuse/Dialect/Fuse/IR/FuseDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "fuse/Dialect/Fuse/IR/FuseEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "fuse/Dialect/Fuse/IR/FuseAttrs.h.inc"

#define GET_OP_CLASSES
#include "fuse/Dialect/Fuse/IR/FuseOps.h.inc"

namespace fuse {

/// True when `kind` is defined on `type` (and/or/xor need integers).
bool isKindValidForType(CombinerKind kind, Type type);

/// The identity of `kind` on `type` as a typed attribute (0 for add, 1 for
/// mul, the largest value for min, ...). Requires isKindValidForType.
TypedAttr getKindIdentity(CombinerKind kind, Type type);

/// Builds `lhs (+) rhs` for a built-in kind at the builder's point.
Value buildCombine(OpBuilder &b, Location loc, CombinerKind kind, Value lhs,
                   Value rhs);

} // namespace fuse

#endif // FUSE_DIALECT_FUSE_IR_FUSEOPS_H
