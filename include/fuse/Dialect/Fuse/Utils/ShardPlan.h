//===- ShardPlan.h - the split values of a sharded entry ------*- C++ -*-===//
//-*-===//
//
// A sharded run gives each shard a contiguous part of the data: 1-d
// arrays by elements, 2-d (and higher) arrays by rows. The plan decides
// which sizes are split: the leading dimension of one tensor argument
// (the first of rank 1 or more unless told otherwise) and every size the
// pipeline ties to it (SizeAnalysis' classes), plus the kept counts of
// filters and the counts of prefixes of split values. A value is split when its
// leading dimension is one of those sizes; the other values are the same on
// every shard. fuse-shard rewrites the entry by the plan and fuse-run --shards
// splits the arguments and joins the results by it.
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_DIALECT_FUSE_UTILS_SHARDPLAN_H
#define FUSE_DIALECT_FUSE_UTILS_SHARDPLAN_H

#include "fuse/Dialect/Fuse/Utils/SizeAnalysis.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <memory>
#include <optional>

namespace fuse {

struct ShardPlan {
  std::unique_ptr<SizeAnalysis> sizes;
  /// A member of each split size's class (a leader can change when a pass
  /// unites classes; members stay members).
  SmallVector<SizeAnalysis::Dim> classes;
  /// The argument whose leading dimension is split, if any.
  std::optional<unsigned> splitArg;
  /// Per argument / result: split along its leading dimension, or the same
  /// on every shard.
  SmallVector<bool> splitArgs, splitResults;
  /// Per argument: an `index` argument that is the split size, which each
  /// shard passes as its own part's size (the rows it holds of splitArg).
  SmallVector<bool> localSizeArgs;

  /// Whether `v` is a tensor split along its leading dimension.
  bool isSplit(Value v) const;
  /// Whether dimension `d` of `v` (an `index` value: d = -1) is a split size.
  bool isSplitDim(Value v, int64_t d) const;
};

/// The plan of `fn`, splitting argument `splitArg` (default: the first
/// tensor argument of rank 1 or more; none: nothing is split). Errors,
/// emitted at the op or argument, where the entry cannot run sharded: a
/// split size that is not a leading dimension, or an
/// `index` argument that is a filter's kept count.
FailureOr<ShardPlan> planShards(mlir::func::FuncOp fn,
                                std::optional<unsigned> splitArg = {});

} // namespace fuse

#endif // FUSE_DIALECT_FUSE_UTILS_SHARDPLAN_H
