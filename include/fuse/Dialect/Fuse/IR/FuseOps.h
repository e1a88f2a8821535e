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

namespace fuse {
namespace FuseOpTrait {
/// Verifies that every static tensor shape among `op`'s operands and
/// results has an element count and a byte size that fit in int64 (tag
/// all_c1): sizes, offsets and byte counts are 64-bit everywhere.
mlir::LogicalResult verifyAddressableSizes(mlir::Operation *op);

/// Every fuse op carries it (Fuse_Op in FuseOps.td).
template <typename ConcreteType>
class AddressableSizes
    : public mlir::OpTrait::TraitBase<ConcreteType, AddressableSizes> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    return verifyAddressableSizes(op);
  }
};
} // namespace FuseOpTrait
} // namespace fuse

#define GET_OP_CLASSES
#include "fuse/Dialect/Fuse/IR/FuseOps.h.inc"

namespace fuse {

/// True for the ops computed one element at a time at their result's
/// indices (map, broadcast, iota, gather, searchsorted): fusion puts them
/// in any group and the element emitter inlines them.
bool isElementwiseOp(Operation *op);

/// How a fuse.reduce's reduced dims lie: all of them (Full), the last of
/// a rank-2 input (Rows: the row kernels' shape), any other single
/// dimension (Lines: the GPU's line kernels, a line_reduce group), or
/// several but not all (Other: the per-op lowering). Fusion groups the
/// first three; fuse-merge-reductions merges siblings of the last two.
enum class ReduceShape { Full, Rows, Lines, Other };
ReduceShape reduceShape(ReduceOp r);

/// True when `use` reads its tensor at positions computed from data (a
/// gather's source, a searchsorted's sorted tensor, a segmented_reduce's
/// inputs) rather than at the element's own indices: the tensor is
/// materialised and read in place.
bool isReadAtComputedPositions(OpOperand &use);

/// True when `use` reads no element of its tensor: a fuse.map input whose
/// body argument is unused (kept so that the run time checks its shape
/// against the others') or a tensor.dim. Kernels neither load nor stage
/// such a tensor, and fuse-explain counts no bytes for it.
bool readsNoElements(OpOperand &use);

/// True when every use of `v` reads no element of it (readsNoElements):
/// a group operand whose sizes alone the body reads.
bool onlySizesRead(Value v);

/// True for `arith.extui` of an i1 tensor to i8 and `arith.trunci` of an
/// i8 tensor to i1 (fuse-bool-bytes makes them at the GPU entry's top
/// level): an i1 tensor in memory is one byte an element, 0 or 1, so each
/// is the same buffer, a view.
bool isByteView(mlir::Operation *op);

/// True when `kind` is defined on `type` (and/or/xor need integers).
bool isKindValidForType(CombinerKind kind, Type type);

/// The identity of `kind` on `type` as a typed attribute (0 for add, 1 for
/// mul, the largest value for min, ...). Requires isKindValidForType.
TypedAttr getKindIdentity(CombinerKind kind, Type type);

/// The rewrite of combiner regions that spell out built-in kinds as those
/// kinds (reduce, scan, segmented_reduce; fuse-builtin-combiners and the
/// ops' canonicalizations). `count`, when given, counts the rewrites.
void populateCombinerToKindsPatterns(mlir::RewritePatternSet &patterns,
                                     unsigned *count = nullptr);

/// Builds `lhs (+) rhs` for a built-in kind at the builder's point.
Value buildCombine(OpBuilder &b, Location loc, CombinerKind kind, Value lhs,
                   Value rhs);

/// A fuse.map of the one tensor `input` into elements of type `to`, its
/// body yielding `body(x)` for the element x; returns the map's result.
/// The builder's insertion point is kept (after the map).
Value buildElementwiseMap(
    OpBuilder &b, Location loc, Value input, Type to,
    llvm::function_ref<Value(OpBuilder &, Location, Value)> body);
/// The same over several `inputs` of one shape: `body(x...)`, the result
/// of `inputs.front()`'s shape.
Value buildElementwiseMap(
    OpBuilder &b, Location loc, ValueRange inputs, Type to,
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange)> body);

/// Why a #fuse.size_check of `checks` names no argument of `args` of the
/// right kind (a dimension within a ranked tensor's rank, an `index`
/// scalar), or "" when each names one: a function's fuse.size_checks and
/// an entry's checks are verified by it.
std::string sizeChecksProblem(ArrayRef<Attribute> checks, ArrayRef<Type> args);

} // namespace fuse

#endif // FUSE_DIALECT_FUSE_IR_FUSEOPS_H
