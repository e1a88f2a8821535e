//===- RowKernels.h - row_reduce and ordered reduce kernel builders -------===//
//
// Internal to convert-fuse-to-gpu. The state shared by the row_reduce
// kernels (RowReduce.cpp, RowRegisterPath.cpp, RowLongPath.cpp) and the
// ordered reduce kernels of custom combiners (OrderedReduce.cpp): the
// kernel generator `Gen`, the block reductions (RowBlocks.cpp), and the
// builder of one row_reduce kernel per path.
//
// A row_reduce group's kernels share one plan, the group's GroupKernels
// (vector width, register capacity, the narrow rows' group bounds), which
// planRowKernels decides once; RowKernelBuilder builds each path's kernel
// from it, and the host launch (FuseToGPU.cpp) picks the kernel for a call
// by the same fields.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_LIB_CONVERSION_FUSETOGPU_ROWKERNELS_H
#define FUSE_LIB_CONVERSION_FUSETOGPU_ROWKERNELS_H

#include "KernelGen.h"

#include "fuse/Dialect/Fuse/Utils/Welford.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/DenseMap.h"

namespace fuse {
namespace gpugen {



//===----------------------------------------------------------------------===//
// Shared pieces
//===----------------------------------------------------------------------===//

/// An scf.if yielding one value of type `t` per branch.
Value ifValue(OpBuilder &b, Location loc, Value cond, Type t,
              function_ref<Value(OpBuilder &)> thenFn,
              function_ref<Value(OpBuilder &)> elseFn);

/// The PTX special register `reg` (e.g. %tid.x) as i32, read where it is
/// needed: unlike gpu.thread_id, LLVM neither hoists nor shares the read,
/// so nothing derived from it stays live across a loop or a barrier (a
/// re-read costs one S2R).
Value readSpecial(OpBuilder &b, Location loc, StringRef reg);

/// Start values of the accumulators of `r`: built-in identities, or zeros
/// for custom combiners (never combined: the "has value" flag guards them).
SmallVector<Value> startValues(OpBuilder &b, Location loc, ReduceOp r);

/// Kernel state shared by both generators: KernelBase (the common
/// parameters, the element emitter and its leaves: reduce results held in
/// registers; lane mode: the current flat index and the operands' elements
/// at it) plus the row mode and the reductions' combiners.
struct Gen : KernelBase {
  // Row mode: elements held in registers, found by their column value.
  Value rowIdx;
  DenseMap<Value, unsigned> colSlot;
  DenseMap<unsigned, SmallVector<Value>> regs;

  /// `flat`: the ordered reduce kernels over inputs of rank > 1 (every
  /// tensor of the group has one shape, addressed at its flat index).
  Gen(GroupOp g, Location l, const Tiling &t, bool flat = false)
      : KernelBase(g, l, t,
                   KernelOptions{/*flatLanes=*/flat, /*rank0ViaGep=*/true}) {}

  SmallVector<Value> combine(OpBuilder &b, ReduceOp r, ValueRange acc,
                             ValueRange x) {
    return emitCombine(b, loc, r, acc, x,
                       [&](Value v) { return scalar(b, v); });
  }
  SmallVector<Value> inits(OpBuilder &b, ReduceOp r) {
    return emitInitialAccumulators(b, loc, r,
                                   [&](Value v) { return scalar(b, v); });
  }
  /// `init (+) v` when the reduction has inits.
  SmallVector<Value> applyInit(OpBuilder &b, ReduceOp r, SmallVector<Value> v) {
    if (r.getInits().empty())
      return v;
    return combine(b, r, inits(b, r), v);
  }

protected:
  /// Row mode: the element of row rowIdx at a column held in `regs`.
  Value heldElement(unsigned arg, ValueRange idx) override {
    if (!rowIdx || idx.size() != 2 || idx[0] != rowIdx)
      return Value();
    auto s = colSlot.find(idx[1]);
    auto r = regs.find(arg);
    if (s == colSlot.end() || r == regs.end())
      return Value();
    return r->second[s->second];
  }
};

/// Body arguments of rank 2 read elementwise (not only as gather sources).
bool readDirectly(BlockArgument arg);

/// Built-in kinds: xor butterflies (every lane ends with the same value),
/// then the warps' values through `smem`, combined in warp order by every
/// thread. The leading barrier protects `smem` from a previous use.
SmallVector<Value> blockAllReduce(Gen &g, OpBuilder &b, ReduceOp r,
                                  SmallVector<Value> acc, ValueRange smem);

/// Narrow rows: groups of R = 2^shift threads (1 <= R <= maxGroupThreads)
/// reduce one row each (see RowBlocks.cpp).
SmallVector<Value> groupAllReduce(Gen &g, OpBuilder &b, ReduceOp r,
                                  SmallVector<Value> acc, ValueRange smem,
                                  Value shift, int64_t maxGroupThreads);

/// One element x merged into the online max/sum pair (m, s) of fuse-tile's
/// online-max-sum (see RowBlocks.cpp); returns the new pair.
std::pair<Value, Value> onlineMerge(Gen &g, OpBuilder &b, ReduceOp max,
                                    Value m, Value s, Value x,
                                    arith::FastMathFlagsAttr flags);

//===----------------------------------------------------------------------===//
// row_reduce kernels
//===----------------------------------------------------------------------===//

/// The kernels of a row_reduce group, one per path; the host picks one per
/// call from cols and the vec flag (GroupKernels' row fields).
enum class RowPath {
  /// cols <= rowCapacity: a block holds the row in registers.
  Register,
  /// Narrow rows on the vector path: groups of R threads, a row each.
  Narrow,
  /// Narrow rows off the vector path: scalar, striped accesses.
  NarrowScalar,
  /// Rows past the register path: one walk over the row per stage.
  Long,
  /// Long rows copied into dynamic shared memory once (fuse-tile's
  /// staged-rows).
  Staged,
  /// Staged rows over half the chip's shared memory, with
  /// tiling.stagedThreads threads.
  StagedWide,
};

/// The plan every kernel of a row_reduce group shares and the host reads:
/// the vector width and the narrow rows' bounds (narrowRowItems 0 without
/// narrow rows: `narrow` false, or blocks of fewer than 64 threads).
GroupKernels planRowKernels(GroupOp group, const Tiling &tiling, bool narrow);

/// Builds one kernel of a row_reduce group: the path's code only (the
/// conditions the host decides on are not tested again in the kernel).
class RowKernelBuilder {
public:
  RowKernelBuilder(GroupOp group, const Tiling &tiling,
                   ArrayRef<ReduceOp> reds, const GroupKernels &plan,
                   RowPath path);

  /// The kernel `name`, appended to `m`; fails with a diagnostic on a body
  /// value the generator cannot produce.
  FailureOr<gpu::GPUFuncOp> build(gpu::GPUModuleOp m, StringRef name);

  /// The occupancy hint's estimate of a thread's registers (see
  /// setOccupancyHint).
  int64_t estimatedRegisters();

private:
  using Accumulate = function_ref<SmallVector<Value>(OpBuilder &, ReduceOp,
                                                     SmallVector<Value>)>;

  // RowReduce.cpp: set-up and the steps every path shares.
  void assignSharedBuffers();
  void registerWords(int64_t &held, int64_t &words);
  int64_t registersFor(int64_t held, int64_t words) const;
  void setOccupancyHint(gpu::GPUFuncOp f);
  void runStage(OpBuilder &rb, unsigned ri, Accumulate accumulate);
  void runStages(OpBuilder &rb, Accumulate accumulate);
  void storeRowResults(OpBuilder &rb, Value row);
  void rowsLoop(OpBuilder &ob, function_ref<void(OpBuilder &, Value)> fn,
                Value perStep);
  Value groupShift(OpBuilder &ob, int64_t minThreads);
  void narrowRowsLoop(OpBuilder &ob, Value shift);

  // RowRegisterPath.cpp: a row held in registers (block or narrow group).
  struct RegisterRow;
  void registerRow(OpBuilder &rb, Value row);
  void loadHeldOperands(OpBuilder &rb, RegisterRow &rr);
  SmallVector<Value> foldHeldStage(OpBuilder &sb, RegisterRow &rr, ReduceOp r,
                                   SmallVector<Value> acc);
  void storeHeldResults(OpBuilder &rb, RegisterRow &rr);

  // RowLongPath.cpp: rows walked once per stage (staged or not).
  void longRow(OpBuilder &rb, Value row);
  void stageRow(OpBuilder &rb, Value rowBase);
  void copyChunk(OpBuilder &b, Location l, Value dst, Value src, Type et);
  Value stagedPtr(OpBuilder &ob, unsigned k, Value c);
  void dropHeld();
  void onlineMaxSumStage(OpBuilder &rb, unsigned ri, Value rIdx, Value rowBase);
  void oneWalkVarianceStage(OpBuilder &rb, unsigned ri, Value rIdx,
                            Value rowBase);
  /// tiledWalk's step: the held columns (index), the element offset of
  /// the first, the accumulators in; the accumulators out.
  using TileFn = function_ref<SmallVector<Value>(OpBuilder &, ArrayRef<Value>,
                                                 Value, ValueRange)>;
  std::pair<SmallVector<Value>, Value>
  holdTile(OpBuilder &ib, Value rIdx, Value rowBase, Value c0, int64_t items);
  SmallVector<Value> tiledWalk(OpBuilder &rb, Value rIdx, Value rowBase,
                               ValueRange acc, int64_t items, TileFn fn);
  SmallVector<Value> stageWalk(OpBuilder &rb, ReduceOp r, ValueRange acc,
                               Value rIdx, Value rowBase);
  void storeLongResults(OpBuilder &rb, Value rIdx, Value rowBase);

  GroupOp group;
  Location loc;
  MLIRContext *ctx;
  Block &body;
  Tiling tiling;
  SmallVector<ReduceOp> reds;
  const GroupKernels &plan;
  RowPath path;
  // Layout: vector width, threads, vectors a thread holds, row capacity.
  int64_t vw, bt, chunksPerThread, capacity;
  bool rank2Out;
  /// The rank-2 body arguments read elementwise (loaded into g.regs by
  /// the register path and the long rows' output tiles): argument number
  /// and element type.
  SmallVector<std::pair<unsigned, Type>> directArgs;
  /// Shared-memory exchange buffers and, per reduction and input, the
  /// buffer it takes.
  SmallVector<Type> smem;
  SmallVector<SmallVector<unsigned>> smemOf;
  /// online-max-sum: pairs of stages (max at ri, sum at ri + 1) that the
  /// long-row walk computes together, with the fast-math flags of their
  /// map's exp.
  llvm::SmallDenseMap<unsigned, arith::FastMathFlagsAttr> pairAt;
  /// one-walk-variance: pairs of stages (a row sum S at ri, the sum of
  /// squared deviations from f(S) at ri + 1) that the long-row walk
  /// computes together, with the squared deviations' map and its match.
  llvm::SmallDenseMap<unsigned, std::pair<MapOp, SquaredDeviation>> centredAt;

  // The kernel being built.
  Gen g;
  Value rows, cols, vecFlag, t;
  ValueRange outs;
  /// Set while a register path known to be on the vector path is
  /// generated (cols % vw == 0, aligned): a chunk's slots are all inside
  /// the row or all outside, so one compare per chunk.
  bool vectorRowPath = false;
  /// Set while the narrow rows off the vector path are generated: the
  /// vector path is known not taken (scalar loads and stores only).
  bool scalarRowPath = false;
  /// Narrow rows: log2 of the threads per row (i32, uniform), whether the
  /// group's row exists (i1; a group past the last row reads the last row
  /// and stores nothing), and the row's thread count need (i64).
  Value narrowShift, narrowValid, need;
  /// Staged rows: per directArgs entry its region (!llvm.ptr<3>) and its
  /// element bytes.
  SmallVector<Value> stageRegion;
  SmallVector<int64_t> stagedBytes;
};

} // namespace gpugen
} // namespace fuse

#endif // FUSE_LIB_CONVERSION_FUSETOGPU_ROWKERNELS_H
