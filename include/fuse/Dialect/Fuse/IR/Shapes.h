//===- Shapes.h - where each dimension of a fuse value comes from -*- C++ -*-===//
//
// The one shape rule of the dialect, one op at a time: dimension d of a
// value is a static size, a dimension of another tensor, or an index
// scalar (a broadcast's or an iota's size operand). Every consumer walks
// these steps with its own leaves:
//
//  * the ops' ReifyRankedShapedTypeOpInterface (tensor.dim of operands and
//    size operands; the CPU lowering sizes its loops with it);
//  * SizeAnalysis (which dynamic sizes are equal);
//  * the GPU host code (ShapeInfer: host i64 values and #fuse.size);
//  * fuse-compile's manifest (size expressions over the entry arguments).
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_DIALECT_FUSE_IR_SHAPES_H
#define FUSE_DIALECT_FUSE_IR_SHAPES_H

#include "fuse/Support/LLVM.h"
#include "mlir/IR/Value.h"

namespace fuse {

/// Where one dimension of a value comes from, one step back.
struct DimOrigin {
  enum class Kind {
    /// Nothing to follow: a function argument, or an op without a rule.
    None,
    /// `size`: a broadcast's or an iota's new dimension, static in the
    /// result type.
    Static,
    /// Dimension `dim` of tensor `value`.
    Dim,
    /// The index scalar `value`.
    Scalar,
  };
  Kind kind = Kind::None;
  int64_t size = 0;
  Value value;
  int64_t dim = 0;
  /// A fuse.filter result: the kept count, which is at most dimension
  /// `dim` of `value` (the capacity host code allocates for).
  bool bound = false;
};

/// The origin of dimension `d` of tensor value `v` (0 <= d < rank), by
/// structure: a dimension static in v's type still names the dimension it
/// follows (SizeAnalysis learns from it that the other one is static too);
/// callers that want a size check the type first.
///  * a result of map or scan: that dimension of the first input;
///    of gather: of the indices; of reduce: the input dimension it keeps;
///    of broadcast: the input's (kept) or the size operand (added, or
///    Static); of iota: the size operand (or Static); of filter: the first
///    input's (a bound);
///  * a fuse.group result: the value its body yields; a group block
///    argument: the group operand it stands for.
/// Anything else is None.
DimOrigin dimOrigin(Value v, int64_t d);

/// The group operand that body argument `v` of a fuse.group stands for, or
/// null when `v` is not such an argument.
Value groupOperandOf(Value v);

} // namespace fuse

#endif // FUSE_DIALECT_FUSE_IR_SHAPES_H
