//===- SizeAnalysis.h - which dynamic sizes are equal ------------*- C++ -*-===//
//
// Union-find over the dimensions of the tensor values (and the `index`
// values) of a region: two dimensions land in one class when the fuse ops
// require them equal at run time (a map's inputs and results, a reduce's
// kept dimensions, a broadcast's size operands, `tensor.dim`, group
// operands and block arguments, ...). Fusion uses it to prove that two
// groups iterate over the same space; the traffic model uses one symbol per
// class (`4*n` for dot instead of `4*n + 4*m`).
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_DIALECT_FUSE_UTILS_SIZEANALYSIS_H
#define FUSE_DIALECT_FUSE_UTILS_SIZEANALYSIS_H

#include "fuse/Support/LLVM.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/EquivalenceClasses.h"

namespace fuse {

class SizeAnalysis {
public:
  /// Analyses every op nested under `root`.
  explicit SizeAnalysis(Operation *root);

  /// A dimension: (tensor value, dim), or (index value, -1).
  using Dim = std::pair<Value, int64_t>;

  /// True when dimension `da` of `a` and `db` of `b` are proven equal (both
  /// static and equal, or in one class).
  bool sameDim(Value a, int64_t da, Value b, int64_t db) const;
  /// True when `a` and `b` have the same rank and every dimension is equal.
  bool sameShape(Value a, Value b) const;
  /// A representative of the class of a dynamic dimension.
  Dim leader(Value v, int64_t d) const;

  /// Adds `a == b` (used by passes that create new values).
  void unite(Dim a, Dim b);

private:
  void visit(Operation *op);
  mutable llvm::EquivalenceClasses<Dim> classes;
};

/// The fuse.filter result whose kept count, or the fuse.prefix result
/// whose count operand, is the (leading) size of `v`, or null: a size the
/// GPU holds in device memory. Follows what keeps a shape: fuse.group results
/// to the value their body yields, group block arguments to the group's
/// operands, map and scan to their first input, gather to its indices. Before
/// and after fusion alike: results sized this way get a count in the AOT ABI.
Value filterCountSource(Value v);

/// The fuse.filter or fuse.prefix op whose count sizes `v`
/// (filterCountSource's defining op), or null.
Operation *countingFilter(Value v);

} // namespace fuse

#endif // FUSE_DIALECT_FUSE_UTILS_SIZEANALYSIS_H
