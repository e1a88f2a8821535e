//===- ElementEmitter.h - scalar code for elements of a group body -*- C++ -*-===//
//
// The one piece of code generation shared by every backend that executes a
// fused `fuse.group`: given the group body and the indices of one element,
// emit the scalar value of any *elementwise* tensor value of the body at
// those indices, at a builder's insertion point, without materialising any
// intermediate tensor.
//
// What it handles (each op of the body; the walk over the body's values
// uses an explicit stack, so the depth of a fused chain costs no native
// stack):
//   fuse.map        the body is inlined on the emitted scalars of its
//                   inputs (every result of the map is cached at once).
//   fuse.broadcast  emits the input at the kept indices (the added
//                   dimensions are dropped).
//   fuse.iota       the index along its dimension, converted to the element
//                   type (index_cast for integers, sitofp through i64 for
//                   floats), exactly as convert-fuse-to-loops does.
//   fuse.gather     emits the index tensor's element, sign-extends it to
//                   i64, and reads the source at that position inside an
//                   `scf.if` bounds check; out of range gives 0.
//   fuse.searchsorted  emits the needle, then a binary search (Search.h)
//                   that reads the sorted tensor at each probe inside the
//                   loop.
//   other values    (group block arguments, results of reduce, scan, filter
//                   inside the body) are *leaves*: the caller's `LoadFn`
//                   produces them. A CPU backend does `tensor.extract`; a GPU
//                   backend does a global load, a shared-memory read, or
//                   returns a value it already holds in a register (e.g. the
//                   row maximum of a row_reduce group).
// Scalar values used by map bodies are resolved as well: scalar block
// arguments go through `ScalarFn` (default: the caller must map them with
// mapScalar); scalar ops defined in the group body (arith.constant, ...) are
// cloned once at the emission point.
//
// Caching: values are memoised per (value, indices) until clearCache(); call
// it whenever the insertion point moves to a scope that does not dominate
// the previous one (e.g. a new loop body).
//
// Typical use (CPU):
//   ElementEmitter em(group.getBody().front(),
//       [&](OpBuilder &b, Location l, Value t, ValueRange idx) {
//         return tensor::ExtractOp::create(b, l, lookup(t), idx); });
//   em.mapScalar(scalarArg, outerValue);
//   FailureOr<Value> v = em.emit(b, loc, someMapResult, ivs);
//
// API stability: the GPU code generator builds on this class; extend it,
// do not change the signatures below.
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_DIALECT_FUSE_UTILS_ELEMENTEMITTER_H
#define FUSE_DIALECT_FUSE_UTILS_ELEMENTEMITTER_H

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Support/LLVM.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include <functional>
#include <map>
#include <vector>

namespace fuse {

class ElementEmitter {
public:
  /// Produces the element of a leaf tensor `tensor` (a block argument of the
  /// group body, or a result of a non-elementwise op of the body) at
  /// `indices` (one `index` value per dimension; none for rank 0).
  using LoadFn = std::function<Value(OpBuilder &, Location, Value tensor,
                                     ValueRange indices)>;
  /// Produces the size of dynamic dimension `dim` of a leaf tensor as an
  /// `index` value (CPU: tensor.dim of the group operand; GPU: a kernel
  /// argument). Static sizes never reach it. Without one, emitDim fails on
  /// dynamic leaf sizes.
  using DimFn =
      std::function<Value(OpBuilder &, Location, Value tensor, int64_t dim)>;
  /// Produces a scalar block argument of the group body (a captured scalar
  /// or a size). Used when the argument was not given with mapScalar.
  using ScalarFn = std::function<Value(OpBuilder &, Location, Value scalar)>;

  /// Produces the coordinate (an `index`) along dimension `dim` of the
  /// element of `tensor` (an iota's or a broadcast's result, rank > 1)
  /// addressed at `indices`, or null when that is indices[dim]. The GPU's
  /// flat kernels address every tensor of a group at (0, ..., 0, flat
  /// index) and recover the coordinates from the flat index here, so that
  /// an iota yields the right value and a broadcast reads the right input
  /// element.
  using CoordFn = std::function<Value(OpBuilder &, Location, Value tensor,
                                      ValueRange indices, int64_t dim)>;

  ElementEmitter(Block &body, LoadFn load, DimFn dim = nullptr,
                 ScalarFn scalar = nullptr);

  /// Installs the CoordFn (none by default).
  void setCoordHook(CoordFn fn) { coordFn = std::move(fn); }

  /// Uses `value` for the scalar `arg` (a block argument or any scalar
  /// defined in the body).
  void mapScalar(Value arg, Value value) { scalars.map(arg, value); }

  /// True when `v` is computed elementwise inside the body (a result of
  /// map, broadcast, iota, gather or searchsorted), i.e. emit() inlines it
  /// rather than calling the load callback.
  static bool isElementwise(Value v);

  /// The scalar element of tensor `tensor` at `indices`. Fails (with a
  /// diagnostic at the offending op) only on ops it does not know.
  FailureOr<Value> emit(OpBuilder &b, Location loc, Value tensor,
                        ValueRange indices);

  /// The scalar value of `scalar` (a scalar block argument or a scalar op of
  /// the body, cloned on first use at the builder's point).
  FailureOr<Value> emitScalar(OpBuilder &b, Location loc, Value scalar);

  /// The size of dimension `dim` of any tensor value of the body (static
  /// sizes give constants; elementwise values take their input's size or
  /// their size operands; leaves go to the DimFn).
  FailureOr<Value> emitDim(OpBuilder &b, Location loc, Value tensor,
                           int64_t dim);

  /// All sizes of `tensor`, outermost first.
  FailureOr<SmallVector<Value>> emitSizes(OpBuilder &b, Location loc,
                                          Value tensor);

  /// Forgets every emitted scalar (see the file comment).
  void clearCache();

  /// Forgets only the memoised values (elements and cloned scalars)
  /// defined inside `op`'s regions: for code emitted into a region that
  /// does not dominate what follows (an scf.if the caller closes), while
  /// what was emitted before it stays usable.
  void forgetInside(Operation *op);

  /// Memoises `value` as the element of `tensor` at `indices` (e.g. the
  /// result that carries an element out of the region it was emitted in).
  void remember(Value tensor, ValueRange indices, Value value);

  /// Inlines a single-block region ending in fuse.yield (a map body, a
  /// filter predicate) at the builder with its arguments mapped to `args`;
  /// values it captures from the group body are resolved with emitScalar.
  /// Returns the yielded values.
  FailureOr<SmallVector<Value>> emitRegion(OpBuilder &b, Location loc,
                                           Region &region, ValueRange args);

private:
  Block &body;
  LoadFn load;
  DimFn dim;
  ScalarFn scalarFn;
  CoordFn coordFn;
  /// indices[d], or the CoordFn's coordinate for it.
  Value coordAt(OpBuilder &b, Location loc, Value tensor, ValueRange indices,
                int64_t d);
  IRMapping scalars;
  /// (value, indices) -> emitted scalar.
  using ElementCache =
      std::map<std::pair<void *, SmallVector<void *, 4>>, Value>;
  ElementCache cache;

  // emit()'s walk (ElementEmitter.cpp): a stack of pending elements, each
  // advanced one step at a time by the method of its op.
  struct EmitFrame;
  struct EmitStep;
  FailureOr<Value> request(Location loc, Value tensor, ValueRange indices,
                           std::vector<EmitFrame> &stack);
  void abandon(OpBuilder &b, EmitFrame &f);
  EmitStep step(OpBuilder &b, Location loc, EmitFrame &f);
  EmitStep stepMap(OpBuilder &b, Location loc, EmitFrame &f, MapOp map);
  EmitStep stepBroadcast(OpBuilder &b, Location loc, EmitFrame &f,
                         BroadcastOp bc);
  EmitStep stepIota(OpBuilder &b, Location loc, EmitFrame &f, IotaOp iota);
  EmitStep openGather(OpBuilder &b, Location loc, EmitFrame &f,
                      GatherOp gather);
  EmitStep closeGather(OpBuilder &b, Location loc, EmitFrame &f,
                       GatherOp gather);
  EmitStep openSearchSorted(OpBuilder &b, Location loc, EmitFrame &f,
                            SearchSortedOp search);
  EmitStep closeSearchSorted(OpBuilder &b, Location loc, EmitFrame &f,
                             SearchSortedOp search);
  EmitStep stepLeaf(OpBuilder &b, Location loc, EmitFrame &f);
};

//===----------------------------------------------------------------------===//
// Combiner helpers for reductions and scans (shared by the backends)
//===----------------------------------------------------------------------===//

/// The initial accumulators of a reduce, segmented_reduce or scan: its
/// `init` operands resolved with `scalar` (values defined outside the op),
/// or the identities of its built-in kinds as constants.
SmallVector<Value> emitInitialAccumulators(OpBuilder &b, Location loc,
                                           Operation *reduceOrScan,
                                           function_ref<Value(Value)> scalar);

/// `accs (+) xs` with the op's built-in kinds or its combiner region
/// (inlined; values captured from outside the region go through `scalar`).
SmallVector<Value> emitCombine(OpBuilder &b, Location loc,
                               Operation *reduceOrScan, ValueRange accs,
                               ValueRange xs,
                               function_ref<Value(Value)> scalar);

} // namespace fuse

#endif // FUSE_DIALECT_FUSE_UTILS_ELEMENTEMITTER_H
