//===- ShardRewrite.h - fuse-shard's rewrite of one entry -------*- C++ -*-===//
//
// The rewrite of an entry into the program each shard runs (Shard.cpp;
// combiner regions in ShardRegions.cpp, static split sizes and whole
// arrays in ShardSizes.cpp). Values made here that replace
// split ones join their size classes in the plan.
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_TRANSFORMS_SHARDREWRITE_H
#define FUSE_TRANSFORMS_SHARDREWRITE_H

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/Fuse/Utils/ShardPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace fuse {

/// Tensor type `t` without its leading dimension, of element type `elem`.
RankedTensorType withoutLeading(Type t, Type elem);
/// `t` with a dynamic leading dimension.
RankedTensorType dynamicLeading(RankedTensorType t);

class ShardRewriter {
public:
  ShardRewriter(func::FuncOp fn, ShardPlan &plan)
      : b(fn.getContext()), plan(plan), fn(fn) {}

  /// Rewrites the entry; then erases the ops it replaced (kept until the
  /// end so that no erased value stays in the size classes).
  LogicalResult run();
  unsigned collectives = 0;

  // Combiner regions (ShardRegions.cpp).
  LogicalResult regionReduce(ReduceOp op);
  LogicalResult regionScan(ScanOp op);
  /// A fuse.reduce of `inputs` by the lifted form of `comb`.
  SmallVector<Value> liftedReduce(Location loc, ValueRange inputs,
                                  ValueRange inits, DenseI64ArrayAttr dims,
                                  Region &comb, TypeRange types);
  /// fuse.all_gather of each of `vals`.
  SmallVector<Value> gatherAll(Location loc, ValueRange vals);
  /// Whether this is shard 0 (i1).
  Value onFirstShard(Location loc);
  /// Per row of `gathered` (one row a shard, fuse.all_gather's result):
  /// whether it is of a shard before this one (i1, `gathered`'s shape).
  Value beforeThisShard(Location loc, Value gathered);
  /// This shard's index as a rank-0 i64 tensor: the number of shards
  /// before it (a fuse.prefix count).
  Value shardCountBefore(Location loc) { return sizeTensor(loc, rank()); }

  OpBuilder b;
  ShardPlan &plan;
  /// Ops replaced by their sharded forms, erased at the end of run().
  SmallVector<Operation *> replaced;

private:
  LogicalResult visit(Operation *op);
  // Static split sizes and whole arrays (ShardSizes.cpp).
  /// Makes every static split size dynamic, with size operands where an
  /// op took it from its type.
  LogicalResult dynamicSplitSizes();
  /// Replaces the arrays `op` makes from nothing split by this shard's
  /// part, and an `index` constant that is the split size by the local
  /// rows where it sizes a tensor.
  LogicalResult wholeArrays(Operation *op);
  /// The local rows of the split argument, at the builder's point.
  Value localRows(Location loc);
  /// Whether dimension `d` of `v` is the split argument's rows (not a
  /// filter's kept count).
  bool inPrimaryClass(Value v, int64_t d) const;
  /// The positions in the whole array of the elements of split `of`.
  Value partIndices(Location loc, Value of);
  /// The rows of the shards before this one (i64) of split `v`'s size.
  Value startOf(Location loc, Value v);
  /// The sum over the shards (index) of local size `size`.
  Value totalOf(Location loc, Value size);
  /// The split argument's rows before this shard and in all, from one
  /// gather, made once: the sizes most ops ask for.
  struct PrimarySizes {
    Value start, total;
  };
  const PrimarySizes &primarySizes();
  PrimarySizes primary;
  /// The ops primarySizes made, which the rewrite does not visit.
  llvm::DenseSet<Operation *> ownOps;
  /// Rank-1 `whole` read at `at`: the shard's part, sized as `rowsOf`.
  Value gatherPart(Location loc, Value whole, Value at,
                   SizeAnalysis::Dim rowsOf);

  LogicalResult reduce(ReduceOp op);
  LogicalResult scan(ScanOp op);
  void histogram(HistogramOp op);
  void prefix(PrefixOp op);
  void iota(IotaOp op);
  void dim(tensor::DimOp op);
  void sort(SortOp op);
  /// An element of a split rank-1 array, read by the shard holding it.
  void elementRead(tensor::ExtractOp op);
  /// Bodies of `op` that read split values from above read the whole
  /// array (fuse.all_concat, made before `op`) and the total size.
  void capturedReads(Operation *op);
  /// Makes `use` read the whole array where it reads a split value.
  void wholeOperand(OpOperand &use);
  /// fuse.all_concat of split `v`, at the builder's insertion point.
  Value allConcat(Location loc, Value v);
  /// Replaces the uses of local size `size` other than tensor sizes by the
  /// total over the shards, made at the builder's insertion point.
  void totalWhereArithmetic(Value size, Location loc);

  /// fuse.shard_rank, made once at the top of the entry.
  Value rank() { return shardRank.getRank(); }
  /// `v` on shard 0, the identity of `kind` on the others.
  Value onFirstShard(Location loc, Value v, CombinerKind kind);
  /// The inits of built-in reduce or scan `op` on shard 0, the identities
  /// on the others (made before `op`; the builder's point stays there).
  template <typename OpT> void initsOnFirstShard(OpT op) {
    b.setInsertionPoint(op);
    for (auto [i, init] : llvm::enumerate(op.getInitsMutable()))
      init.set(onFirstShard(op.getLoc(), init.get(), op.getKind(i)));
  }
  /// The fold, in shard order, of every shard's `partial` (its type).
  Value foldShards(Location loc, Value partial, CombinerKind kind);
  /// The fold of the `partial` of the shards before this one (the
  /// identity on shard 0).
  Value foldBefore(Location loc, Value partial, CombinerKind kind);
  /// The fold over dim 0 of `all` (a row a shard) in shard order: of every
  /// row, or of the rows before this shard's.
  Value foldGathered(Location loc, Value all, CombinerKind kind, bool before);
  /// A local size as a rank-0 i64 tensor.
  Value sizeTensor(Location loc, Value size);
  /// `combine(kind, offset, y)` for every element of `y`, `offset` (`y`
  /// without its leading dimension) broadcast along the leading one.
  Value combineInto(Location loc, Value offset, Value y, CombinerKind kind);

  func::FuncOp fn;
  ShardRankOp shardRank;
};

} // namespace fuse

#endif // FUSE_TRANSFORMS_SHARDREWRITE_H
