//===- Shards.h - fuse-run --shards: N shards on CPU threads ----*- C++ -*-===//
//
// A sharded entry (fuse-shard) runs once a shard, each shard on its part
// of the split arguments, and the shards meet in fuse.all_gather. fuse-run
// --shards=N runs the N shards on N threads of this process: the hooks
// below are the collectives the lowered code calls (ShardToCalls.cpp), and
// the results are joined and compared with the unsharded run.
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_RUN_SHARDS_H
#define FUSE_RUN_SHARDS_H

#include "fuse/ToolSupport/HostArray.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"

#include <string>
#include <vector>

namespace fuse::shards {

/// fuse_shard_rank, fuse_shard_count and fuse_shard_all_gather for the JIT:
/// one shard outside runAll.
llvm::orc::SymbolMap symbols(llvm::orc::MangleAndInterner interner);

/// Shard `r` of `n` of `a` along its leading dimension: rows
/// [size * r / n, size * (r + 1) / n).
run::HostArray part(const run::HostArray &a, unsigned r, unsigned n);

/// Sets scalar `a` (an `index` argument) to `size`.
void setSize(run::HostArray &a, int64_t size);

/// Runs body(r) for every shard r of n, each on its own thread, as shard r
/// of one sharded run; returns when all have returned.
void runAll(unsigned n, llvm::function_ref<void(unsigned)> body);

/// The sharded run's results from each shard's: split results joined along
/// the leading dimension, the others the same on every shard (an error
/// naming the result and the shard where one is not).
std::vector<run::HostArray>
join(const std::vector<std::vector<run::HostArray>> &perShard,
     llvm::ArrayRef<bool> split);

/// Compares the sharded results with the unsharded run's: shapes and
/// integers exactly, floats to within a tolerance of the result's largest
/// magnitude (reductions associate differently). An error naming the
/// result and the element where they differ; else one line a result.
std::string compare(const std::vector<run::HostArray> &sharded,
                    const std::vector<run::HostArray> &whole,
                    llvm::ArrayRef<bool> split, unsigned n);

} // namespace fuse::shards

#endif // FUSE_RUN_SHARDS_H
