//===- SegmentKernels.cpp - GPU kernels of segmented_reduce groups --------===//
//
// A segmented_reduce group (GroupPlan::SegmentedReduce) iterates over the
// segments. The offsets and the values after the reduction (an epilogue)
// are computed per segment; the inputs, and the cheap maps fusion
// recomputes for them, at the positions of the segment's elements. Both
// kernels take params common, nseg, n, then the group's result pointers,
// and loop over the segments grid-stride:
//  * `segwarp`: a warp per segment;
//  * `segblock` (built-in kinds only): a block per segment, for long
//    segments (the host's choice, by the mean segment length). Block b
//    takes segment b, then the next one not yet taken, from a counter the
//    host zeroes (one atomic a segment): segments of random lengths in
//    grid-stride order left some blocks with several times the work of
//    others;
//  * `segsmall` (built-in kinds only): 8 lanes a segment, for short ones;
//  * `segpiece` and `segjoin` (built-in kinds only): where segments would
//    take a block each and hold at least two pieces (tiling.segmentPiece
//    elements) on average, the host splits each into P = mean / piece
//    equal pieces. `segpiece` folds piece w = s * P + q (taken from the
//    counter like segblock's segments) into partials[w]; `segjoin`, a warp
//    a segment, folds partials s * P + lane, + 32, ... and the butterflies
//    give the total, so a segment's pieces combine in one order whatever
//    block ran them. A block a segment left the last blocks running alone
//    where a few segments are many times the mean, and ran one block for
//    one segment.
// Built-in kinds: the T threads of a segment fold the elements lo + t,
// lo + t + T, ... (the tiling's `unroll` loads in flight per step), then
// xor butterflies (and, for a block, the warps' values in warp order) give
// the segment's total, and the result is init (+) total. Deterministic, but
// grouped differently from the CPU lowering (floats may round differently).
// Combiner regions keep the elements' order: each lane of the warp folds a
// contiguous chunk of ceil(len / 32) elements with a "has value" flag,
// and shuffle-down steps combine lane l with lane l + off in that order,
// so lane 0 ends with x[lo] (+) ... (+) x[hi - 1].
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;

namespace fuse {
namespace gpugen {
namespace {

/// Segments of at least this many elements on average go to a block each:
/// a warp then loops over a segment for long enough that eight times the
/// threads per segment (and fewer idle SMs where segments are few) pays
/// for the block's barriers.
constexpr int64_t kSegmentBlockMinMean = 2048;

/// Segments of fewer elements than this on average go to groups of
/// kSmallThreads lanes (built-in kinds): a warp would give each lane one
/// or two of them, and its loads in flight would mostly repeat one.
constexpr int64_t kSegmentSmallMaxMean = 256;
constexpr int64_t kSmallThreads = 8;

/// The plan both kernels and the host launch read.
struct SegmentPlan {
  GroupOp group;
  Location loc;
  Tiling tiling;
  SegmentedReduceOp seg;
  GroupKernels gk;

  SegmentPlan(GroupOp group, const Tiling &tiling)
      : group(group), loc(group.getLoc()), tiling(tiling) {}
};

/// The values of the group computed at the elements' positions: the
/// inputs and what the body computes them from.
llvm::SmallPtrSet<Value, 8> elementValues(SegmentedReduceOp seg) {
  llvm::SmallPtrSet<Value, 8> seen;
  SmallVector<Value> work(seg.getInputs());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!isa<RankedTensorType>(v.getType()) || !seen.insert(v).second)
      continue;
    if (Operation *def = v.getDefiningOp())
      if (def->getBlock() == seg->getBlock())
        llvm::append_range(work, def->getOperands());
  }
  return seen;
}

LogicalResult planSegments(SegmentPlan &p, StringRef prefix) {
  GroupOp group = p.group;
  for (Operation &op : group.getBody().front())
    if (auto s = dyn_cast<SegmentedReduceOp>(op)) {
      if (p.seg)
        return group.emitOpError("GPU code generation: a segmented_reduce "
                                 "group holds one fuse.segmented_reduce");
      p.seg = s;
    } else if (isa<ReduceOp, ScanOp, FilterOp, HistogramOp>(op)) {
      return op.emitOpError("GPU code generation: cannot be part of a "
                            "segmented_reduce group");
    }
  if (!p.seg)
    return group.emitOpError("GPU code generation: a segmented_reduce group "
                             "needs a fuse.segmented_reduce");
  llvm::SmallPtrSet<Value, 8> atElements = elementValues(p.seg);
  for (Value y : group.getYield().getValues())
    if (isa<BlockArgument>(y) || atElements.contains(y) ||
        tensorTy(y).getRank() != 1)
      return group.emitOpError("GPU code generation: a segmented_reduce "
                               "group returns values over its segments only");
  GroupKernels &gk = p.gk;
  gk.plan = GroupPlan::SegmentedReduce;
  gk.tiling = p.tiling;
  gk.vectorWidth = 1;
  gk.kernel = (prefix + "_segwarp").str();
  if (p.seg.hasBuiltinKinds() && p.tiling.segmentPiece > 0) {
    gk.segmentPieceKernel = (prefix + "_segpiece").str();
    gk.segmentJoinKernel = (prefix + "_segjoin").str();
  }
  if (p.seg.hasBuiltinKinds()) {
    gk.segmentBlockKernel = (prefix + "_segblock").str();
    gk.segmentBlockMinMean = kSegmentBlockMinMean;
    gk.segmentSmallKernel = (prefix + "_segsmall").str();
    gk.segmentSmallMaxMean = kSegmentSmallMaxMean;
    gk.segmentSmallThreads = kSmallThreads;
  }
  return success();
}

struct SegmentKernel : KernelBase {
  SegmentKernel(GroupOp group, Location loc, const Tiling &t)
      : KernelBase(group, loc, t) {}

  /// Element `j` (i64) of `t`, a value over the elements.
  Value at(OpBuilder &b, Value t, Value j) {
    return element(b, t, {toIndex(b, loc, j)});
  }
  SmallVector<Value> inputsAt(OpBuilder &b, SegmentedReduceOp seg, Value j) {
    SmallVector<Value> xs;
    for (Value in : seg.getInputs())
      xs.push_back(at(b, in, j));
    return xs;
  }
  SmallVector<Value> combine(OpBuilder &b, SegmentedReduceOp seg, ValueRange a,
                             ValueRange x) {
    return emitCombine(b, loc, seg, a, x,
                       [&](Value v) { return scalar(b, v); });
  }
};

/// The segment `s` (i64) made the kernel's current element, and its
/// offsets clamped to the input: lo = clamp(starts[s], 0, n), hi =
/// clamp(ends[s], lo, n).
std::pair<Value, Value> enterSegment(SegmentKernel &k, OpBuilder &b,
                                     SegmentedReduceOp seg, Value s, Value n) {
  Location loc = k.loc;
  k.em->clearCache();
  k.laneIndex = toIndex(b, loc, s);
  auto offset = [&](Value t) {
    Value v = k.element(b, t, {k.laneIndex});
    if (v.getType() != b.getI64Type())
      v = arith::ExtSIOp::create(b, loc, b.getI64Type(), v);
    return v;
  };
  Value lo = arith::MinSIOp::create(
      b, loc,
      arith::MaxSIOp::create(b, loc, offset(seg.getStarts()), cI64(b, loc, 0)),
      n);
  Value hi = arith::MinSIOp::create(
      b, loc, arith::MaxSIOp::create(b, loc, offset(seg.getEnds()), lo), n);
  return {lo, hi};
}

/// Built-in kinds: this thread's fold, from the identities, of the
/// elements first, first + T, ... below hi (`first` = lo + the thread's
/// place among the segment's T threads): the tiling's `unroll` elements
/// a step, the last step predicated.
SmallVector<Value> foldStrided(SegmentKernel &k, OpBuilder &b,
                               SegmentedReduceOp seg, Value first, Value hi,
                               int64_t threads) {
  Location loc = k.loc;
  int64_t unroll = k.tiling.unroll;
  // Identities, not the inits: the init joins the total once, at the end.
  SmallVector<Value> acc;
  for (auto [i, in] : llvm::enumerate(seg.getInputs()))
    acc.push_back(arith::ConstantOp::create(
        b, loc,
        getKindIdentity(seg.getKind(i), tensorTy(in).getElementType())));
  Value t = cI64(b, loc, threads);
  // The thread's element count m = ceil((hi - first) / T) (0 when
  // first >= hi) and its full steps m / unroll.
  Value left = arith::SubIOp::create(b, loc, hi, first);
  Value m = arith::SelectOp::create(
      b, loc, cmpI(b, loc, arith::CmpIPredicate::sgt, left, cI64(b, loc, 0)),
      arith::DivSIOp::create(
          b, loc,
          arith::AddIOp::create(b, loc, left, cI64(b, loc, threads - 1)), t),
      cI64(b, loc, 0));
  Value steps = arith::DivSIOp::create(b, loc, m, cI64(b, loc, unroll));
  Value span = cI64(b, loc, threads * unroll);
  auto main = scf::ForOp::create(
      b, loc, cI64(b, loc, 0), steps, cI64(b, loc, 1), acc,
      [&](OpBuilder &lb, Location, Value i, ValueRange cur) {
        k.em->clearCache();
        Value base = arith::AddIOp::create(
            lb, loc, first, arith::MulIOp::create(lb, loc, i, span));
        SmallVector<SmallVector<Value>> xs;
        for (int64_t u = 0; u < unroll; ++u)
          xs.push_back(
              k.inputsAt(lb, seg,
                         arith::AddIOp::create(lb, loc, base,
                                               cI64(lb, loc, u * threads))));
        SmallVector<Value> next(cur);
        for (auto &x : xs)
          next = k.combine(lb, seg, next, x);
        scf::YieldOp::create(lb, loc, next);
      });
  k.em->clearCache();
  // The last m % unroll elements in one more step, all loads in flight at
  // once: positions past them read `first` (an element of the segment,
  // which exists when m > 0) and count as the identity.
  Value rem = arith::SubIOp::create(
      b, loc, m, arith::MulIOp::create(b, loc, steps, cI64(b, loc, unroll)));
  Value base = arith::AddIOp::create(
      b, loc, first, arith::MulIOp::create(b, loc, steps, span));
  auto last = scf::IfOp::create(
      b, loc, cmpI(b, loc, arith::CmpIPredicate::sgt, rem, cI64(b, loc, 0)),
      [&](OpBuilder &tb, Location) {
        k.em->clearCache();
        SmallVector<Value> next(main.getResults());
        for (int64_t u = 0; u + 1 < unroll; ++u) {
          Value in =
              cmpI(tb, loc, arith::CmpIPredicate::slt, cI64(tb, loc, u), rem);
          Value j = sel(
              tb, loc, in,
              arith::AddIOp::create(tb, loc, base, cI64(tb, loc, u * threads)),
              first);
          next = selAll(tb, loc, in,
                        k.combine(tb, seg, next, k.inputsAt(tb, seg, j)), next);
        }
        scf::YieldOp::create(tb, loc, next);
      },
      [&](OpBuilder &eb, Location) {
        scf::YieldOp::create(eb, loc, main.getResults());
      });
  k.em->clearCache();
  return last.getResults();
}

/// Combiner regions: the ordered fold of the warp's segment [lo, hi) into
/// lane 0 (see the file comment). Returns the accumulators and the "has
/// value" flag, meaningful in lane 0.
std::pair<SmallVector<Value>, Value> foldOrdered(SegmentKernel &k, OpBuilder &b,
                                                 SegmentedReduceOp seg,
                                                 Value lane, Value lo,
                                                 Value hi) {
  Location loc = k.loc;
  Value len = arith::SubIOp::create(b, loc, hi, lo);
  Value chunk = arith::DivSIOp::create(
      b, loc, arith::AddIOp::create(b, loc, len, cI64(b, loc, 31)),
      cI64(b, loc, 32));
  Value myLo = arith::MinSIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, lo,
                            arith::MulIOp::create(b, loc, lane, chunk)),
      hi);
  Value myHi = arith::MinSIOp::create(
      b, loc, arith::AddIOp::create(b, loc, myLo, chunk), hi);
  Value has = cmpI(b, loc, arith::CmpIPredicate::slt, myLo, myHi);
  SmallVector<Type> types;
  for (Value in : seg.getInputs())
    types.push_back(tensorTy(in).getElementType());
  // The first element, or zeros (never combined) for an empty chunk.
  auto firstIf = scf::IfOp::create(
      b, loc, has,
      [&](OpBuilder &tb, Location) {
        k.em->clearCache();
        scf::YieldOp::create(tb, loc, k.inputsAt(tb, seg, myLo));
      },
      [&](OpBuilder &eb, Location) {
        SmallVector<Value> zeros;
        for (Type t : types)
          zeros.push_back(
              arith::ConstantOp::create(eb, loc, eb.getZeroAttr(t)));
        scf::YieldOp::create(eb, loc, zeros);
      });
  k.em->clearCache();
  auto walk = scf::ForOp::create(
      b, loc, arith::AddIOp::create(b, loc, myLo, cI64(b, loc, 1)), myHi,
      cI64(b, loc, 1), firstIf.getResults(),
      [&](OpBuilder &lb, Location, Value j, ValueRange cur) {
        k.em->clearCache();
        scf::YieldOp::create(lb, loc,
                             k.combine(lb, seg, cur, k.inputsAt(lb, seg, j)));
      });
  k.em->clearCache();
  SmallVector<Value> acc(walk.getResults());
  for (int64_t off = 1; off < 32; off *= 2) {
    Value valid;
    SmallVector<Value> other;
    for (Value a : acc)
      other.push_back(shuffleValue(b, loc, a, cI32(b, loc, off),
                                   gpu::ShuffleMode::DOWN, &valid));
    Value hasI = arith::ExtUIOp::create(b, loc, b.getI32Type(), has);
    Value otherHas = cmpI(b, loc, arith::CmpIPredicate::ne,
                          shuffleValue(b, loc, hasI, cI32(b, loc, off),
                                       gpu::ShuffleMode::DOWN, &valid),
                          cI32(b, loc, 0));
    otherHas = arith::AndIOp::create(b, loc, otherHas, valid);
    acc = pickFlagged(b, loc, has, acc, otherHas, other,
                      k.combine(b, seg, acc, other));
    has = arith::OrIOp::create(b, loc, has, otherHas);
  }
  return {acc, has};
}

/// Stores the group's results at segment `s`, with `vals` as the values
/// of the reduction's results.
void storeSegment(SegmentKernel &k, OpBuilder &b, SegmentedReduceOp seg,
                  ValueRange vals, ValueRange outs, Value s) {
  for (auto [r, v] : llvm::zip_equal(seg.getResults(), vals))
    k.leaves[r] = v;
  for (auto [y, out] : llvm::zip_equal(k.group.getYield().getValues(), outs))
    k.store(b, k.element(b, y, {k.laneIndex}), out, s);
  k.em->clearCache();
}

/// The name of the kernel with `threads` threads a segment (a piece).
const std::string &kernelName(const SegmentPlan &p, int64_t threads,
                              bool pieces) {
  if (pieces)
    return p.gk.segmentPieceKernel;
  if (threads == kSmallThreads)
    return p.gk.segmentSmallKernel;
  return threads == 32 ? p.gk.kernel : p.gk.segmentBlockKernel;
}

/// Built-in kinds: the fold of the thread's elements, then the segment's
/// total in every thread of it: xor butterflies kept within the group of
/// `threads` lanes, or across the warp and, for a block, the warps' values
/// through shared memory.
SmallVector<Value> foldBuiltin(SegmentKernel &k, OpBuilder &b,
                               SegmentedReduceOp seg, Value first, Value hi,
                               int64_t threads) {
  Location loc = k.loc;
  SmallVector<Value> acc = foldStrided(k, b, seg, first, hi, threads);
  auto combineFn = [&](OpBuilder &cb, ValueRange a, ValueRange x) {
    return k.combine(cb, seg, a, x);
  };
  if (threads < 32)
    return warpFold(b, loc, acc, combineFn, [&](OpBuilder &kb, int64_t off) {
      return cBool(kb, loc, off < threads);
    });
  if (threads == 32)
    return warpFold(b, loc, acc, combineFn);
  return blockFold(
      b, loc, acc,
      ValueRange(k.func.getWorkgroupAttributions())
          .take_front(seg.getInputs().size()),
      k.tiling.blockThreads / 32,
      [&](OpBuilder &wb) {
        Value t = k.threadId(wb);
        Value w = toIndex(wb, loc,
                          arith::ShRUIOp::create(wb, loc, t, cI64(wb, loc, 5)));
        return std::make_pair(
            arith::AndIOp::create(wb, loc, t, cI64(wb, loc, 31)), w);
      },
      combineFn);
}

/// The piece `q` of `pieces` (i64) of the segment [lo, hi): equal lengths,
/// the first len % pieces pieces one element longer.
std::pair<Value, Value> pieceOf(OpBuilder &b, Location loc, Value lo, Value hi,
                                Value q, Value pieces) {
  Value len = arith::SubIOp::create(b, loc, hi, lo);
  Value size = arith::DivSIOp::create(b, loc, len, pieces);
  Value longer = arith::RemSIOp::create(b, loc, len, pieces);
  Value pLo = arith::AddIOp::create(
      b, loc, lo,
      arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, q, size),
                            arith::MinSIOp::create(b, loc, q, longer)));
  Value extra = arith::ExtUIOp::create(
      b, loc, b.getI64Type(),
      cmpI(b, loc, arith::CmpIPredicate::slt, q, longer));
  Value pHi = arith::AddIOp::create(b, loc, pLo,
                                    arith::AddIOp::create(b, loc, size, extra));
  return {pLo, pHi};
}

/// One kernel: `threads` threads a segment (kSmallThreads, a warp or the
/// block), or with `pieces` a block a piece of a segment. The loop over
/// segments steps by warps (by blocks): the kSmallThreads-lane groups of a
/// warp take consecutive segments, and a group past the last segment folds
/// an empty one, so the shuffles run in every lane of the warp.
LogicalResult buildSegmentKernel(gpu::GPUModuleOp m, const SegmentPlan &p,
                                 int64_t threads, bool pieces = false) {
  GroupOp group = p.group;
  SegmentedReduceOp seg = p.seg;
  Location loc = p.loc;
  MLIRContext *ctx = group.getContext();
  int64_t bt = p.tiling.blockThreads;
  bool perBlock = threads == bt;
  auto i64 = IntegerType::get(ctx, 64);
  SmallVector<Type> params = commonParams(group);
  params.append({i64, i64}); // nseg, n
  params.append(group.getNumResults(), globalPtr(ctx));
  SmallVector<Type> smem;
  if (perBlock) {
    params.push_back(globalPtr(ctx)); // the segment (piece) counter
    if (pieces) {
      params.push_back(i64);                                 // pieces a segment
      params.append(seg.getInputs().size(), globalPtr(ctx)); // partials
    }
    for (Value in : seg.getInputs())
      smem.push_back(smemType(ctx, tensorTy(in).getElementType()));
    // The next segment, from thread 0 to the block.
    smem.push_back(MemRefType::get(
        {1}, i64, MemRefLayoutAttrInterface{},
        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup)));
  }
  auto f =
      createKernel(m, loc, kernelName(p, threads, pieces), params, smem, bt);
  SegmentKernel k(group, loc, p.tiling);
  k.func = f;
  OpBuilder b = OpBuilder::atBlockBegin(&f.getBody().front());
  k.setUp(b);
  Value nseg = k.extra[0], n = k.extra[1];
  ValueRange outs =
      ValueRange(k.extra).drop_front(2).take_front(group.getNumResults());
  unsigned counterAt = 2 + group.getNumResults();
  Value npieces = pieces ? k.extra[counterAt + 1] : Value();
  ValueRange partials =
      pieces ? ValueRange(k.extra).drop_front(counterAt + 2) : ValueRange();
  Value tid = k.threadId(b);
  Value lane = arith::AndIOp::create(b, loc, tid, cI64(b, loc, 31));
  Value place =
      perBlock ? tid
               : arith::RemUIOp::create(b, loc, lane, cI64(b, loc, threads));
  // The first segment of the thread's warp (block), and the step.
  int64_t perBlk = bt / threads, unit = std::max<int64_t>(threads, 32);
  Value firstSeg = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, k.blockId(b), cI64(b, loc, perBlk)),
      arith::MulIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, tid, cI64(b, loc, unit)),
          cI64(b, loc, unit / threads)));
  // One segment (the kSmallThreads groups of a warp: consecutive ones from
  // `base`).
  auto segment =
      [&](OpBuilder &lb, Value base) {
        Value s = base, active = cBool(lb, loc, true);
        if (threads < 32) {
          s = arith::AddIOp::create(
              lb, loc, base,
              arith::DivUIOp::create(lb, loc, lane, cI64(lb, loc, threads)));
          active = cmpI(lb, loc, arith::CmpIPredicate::slt, s, nseg);
          s = sel(lb, loc, active, s, base);
        }
        if (pieces) {
          // Work item `base` is piece base % P of segment base / P.
          s = arith::DivSIOp::create(lb, loc, base, npieces);
          auto [lo, hi] = enterSegment(k, lb, seg, s, n);
          auto [pLo, pHi] =
              pieceOf(lb, loc, lo, hi,
                      arith::RemSIOp::create(lb, loc, base, npieces), npieces);
          SmallVector<Value> acc = foldBuiltin(
              k, lb, seg, arith::AddIOp::create(lb, loc, pLo, place), pHi,
              threads);
          scf::IfOp::create(
              lb, loc,
              cmpI(lb, loc, arith::CmpIPredicate::eq, place, cI64(lb, loc, 0)),
              [&](OpBuilder &tb, Location) {
                for (auto [a, ptr] : llvm::zip_equal(acc, partials))
                  k.store(tb, a, ptr, base);
                scf::YieldOp::create(tb, loc);
              });
          k.em->clearCache();
          return;
        }
        auto [lo, hi] = enterSegment(k, lb, seg, s, n);
        hi = sel(lb, loc, active, hi, lo);
        Value leader = arith::AndIOp::create(
            lb, loc, active,
            cmpI(lb, loc, arith::CmpIPredicate::eq, place, cI64(lb, loc, 0)));
        SmallVector<Value> inits = emitInitialAccumulators(
            lb, loc, seg, [&](Value v) { return k.scalar(lb, v); });
        SmallVector<Value> res;
        if (seg.hasBuiltinKinds()) {
          Value first = arith::AddIOp::create(lb, loc, lo, place);
          SmallVector<Value> acc = foldBuiltin(k, lb, seg, first, hi, threads);
          res = seg.getInits().empty() ? acc : k.combine(lb, seg, inits, acc);
        } else {
          auto [acc, has] = foldOrdered(k, lb, seg, lane, lo, hi);
          SmallVector<Value> withInit = k.combine(lb, seg, inits, acc);
          res = selAll(lb, loc, has, withInit, inits);
        }
        scf::IfOp::create(lb, loc, leader, [&](OpBuilder &tb, Location) {
          storeSegment(k, tb, seg, res, outs, s);
          scf::YieldOp::create(tb, loc);
        });
        k.em->clearCache();
      };
  if (!perBlock) {
    Value stride =
        arith::MulIOp::create(b, loc, k.gridDim(b), cI64(b, loc, perBlk));
    scf::ForOp::create(b, loc, firstSeg, nseg, stride, ValueRange{},
                       [&](OpBuilder &lb, Location, Value s, ValueRange) {
                         segment(lb, s);
                         scf::YieldOp::create(lb, loc);
                       });
  } else {
    // Segments (pieces) grid, grid + 1, ... in the order blocks ask for
    // them.
    Value counter = k.extra[counterAt];
    Value total = pieces
                      ? arith::MulIOp::create(b, loc, nseg, npieces).getResult()
                      : nseg;
    Value slot = f.getWorkgroupAttributions().back();
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value grid = k.gridDim(b);
    scf::WhileOp::create(
        b, loc, TypeRange{b.getI64Type()}, ValueRange{firstSeg},
        [&](OpBuilder &wb, Location l, ValueRange a) {
          scf::ConditionOp::create(
              wb, l, cmpI(wb, l, arith::CmpIPredicate::slt, a[0], total), a);
        },
        [&](OpBuilder &wb, Location l, ValueRange a) {
          segment(wb, a[0]);
          // blockFold's leading barrier orders this write after every
          // thread read the previous one.
          scf::IfOp::create(
              wb, l, cmpI(wb, l, arith::CmpIPredicate::eq, tid, cI64(wb, l, 0)),
              [&](OpBuilder &tb, Location) {
                Value taken = LLVM::AtomicRMWOp::create(
                    tb, l, LLVM::AtomicBinOp::add, counter, cI64(tb, l, 1),
                    LLVM::AtomicOrdering::monotonic);
                memref::StoreOp::create(
                    tb, l, arith::AddIOp::create(tb, l, taken, grid), slot,
                    ValueRange{zero});
                scf::YieldOp::create(tb, l);
              });
          gpu::BarrierOp::create(wb, l);
          scf::YieldOp::create(
              wb, l,
              ValueRange{memref::LoadOp::create(wb, l, slot, ValueRange{zero})
                             .getResult()});
        });
  }
  gpu::ReturnOp::create(b, loc);
  if (k.failedLeaf)
    return group.emitOpError("GPU code generation: unsupported value in a "
                             "segmented_reduce group body");
  return success();
}

/// `segjoin`: a warp a segment (grid-stride), lane l folding the partials
/// s * P + l, s * P + l + 32, ... from the identities, then xor butterflies,
/// the init and the group's values after the reduction, stored by lane 0.
LogicalResult buildSegmentJoinKernel(gpu::GPUModuleOp m, const SegmentPlan &p) {
  GroupOp group = p.group;
  SegmentedReduceOp seg = p.seg;
  Location loc = p.loc;
  MLIRContext *ctx = group.getContext();
  int64_t bt = p.tiling.blockThreads;
  auto i64 = IntegerType::get(ctx, 64);
  SmallVector<Type> params = commonParams(group);
  params.append({i64, i64}); // nseg, n
  params.append(group.getNumResults(), globalPtr(ctx));
  params.push_back(i64); // pieces a segment
  params.append(seg.getInputs().size(), globalPtr(ctx));
  auto f = createKernel(m, loc, p.gk.segmentJoinKernel, params, {}, bt);
  SegmentKernel k(group, loc, p.tiling);
  k.func = f;
  OpBuilder b = OpBuilder::atBlockBegin(&f.getBody().front());
  k.setUp(b);
  unsigned nres = group.getNumResults();
  Value nseg = k.extra[0], npieces = k.extra[2 + nres];
  ValueRange outs = ValueRange(k.extra).drop_front(2).take_front(nres);
  ValueRange partials = ValueRange(k.extra).drop_front(3 + nres);
  Value tid = k.threadId(b);
  Value lane = arith::AndIOp::create(b, loc, tid, cI64(b, loc, 31));
  int64_t warps = bt / 32;
  Value first = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, k.blockId(b), cI64(b, loc, warps)),
      arith::DivUIOp::create(b, loc, tid, cI64(b, loc, 32)));
  Value stride =
      arith::MulIOp::create(b, loc, k.gridDim(b), cI64(b, loc, warps));
  auto combineFn = [&](OpBuilder &cb, ValueRange a, ValueRange x) {
    return k.combine(cb, seg, a, x);
  };
  scf::ForOp::create(
      b, loc, first, nseg, stride, ValueRange{},
      [&](OpBuilder &lb, Location, Value s, ValueRange) {
        // The segment is the current element of the values over segments
        // (the epilogue's); its offsets are not read here.
        k.em->clearCache();
        k.laneIndex = toIndex(lb, loc, s);
        SmallVector<Value> acc;
        SmallVector<Type> types;
        for (auto [i, in] : llvm::enumerate(seg.getInputs())) {
          types.push_back(tensorTy(in).getElementType());
          acc.push_back(arith::ConstantOp::create(
              lb, loc, getKindIdentity(seg.getKind(i), types.back())));
        }
        Value base = arith::MulIOp::create(lb, loc, s, npieces);
        auto fold = scf::ForOp::create(
            lb, loc, lane, npieces, cI64(lb, loc, 32), acc,
            [&](OpBuilder &fb, Location, Value q, ValueRange cur) {
              Value w = arith::AddIOp::create(fb, loc, base, q);
              SmallVector<Value> x;
              for (auto [t, ptr] : llvm::zip_equal(types, partials))
                x.push_back(k.load(fb, t, ptr, w));
              scf::YieldOp::create(fb, loc, k.combine(fb, seg, cur, x));
            });
        SmallVector<Value> total =
            warpFold(lb, loc, fold.getResults(), combineFn);
        SmallVector<Value> inits = emitInitialAccumulators(
            lb, loc, seg, [&](Value v) { return k.scalar(lb, v); });
        SmallVector<Value> res =
            seg.getInits().empty() ? total : k.combine(lb, seg, inits, total);
        scf::IfOp::create(
            lb, loc,
            cmpI(lb, loc, arith::CmpIPredicate::eq, lane, cI64(lb, loc, 0)),
            [&](OpBuilder &tb, Location) {
              storeSegment(k, tb, seg, res, outs, s);
              scf::YieldOp::create(tb, loc);
            });
        k.em->clearCache();
        scf::YieldOp::create(lb, loc);
      });
  gpu::ReturnOp::create(b, loc);
  if (k.failedLeaf)
    return group.emitOpError("GPU code generation: unsupported value in a "
                             "segmented_reduce group body");
  return success();
}

} // namespace

FailureOr<GroupKernels> buildSegmentedReduceGroup(gpu::GPUModuleOp m,
                                                  GroupOp group,
                                                  StringRef prefix,
                                                  const Tiling &tiling) {
  SegmentPlan plan(group, tiling);
  if (failed(planSegments(plan, prefix)) ||
      failed(buildSegmentKernel(m, plan, 32)))
    return failure();
  if (!plan.gk.segmentBlockKernel.empty() &&
      (failed(buildSegmentKernel(m, plan, kSmallThreads)) ||
       failed(buildSegmentKernel(m, plan, tiling.blockThreads))))
    return failure();
  if (!plan.gk.segmentPieceKernel.empty() &&
      (failed(buildSegmentKernel(m, plan, tiling.blockThreads, true)) ||
       failed(buildSegmentJoinKernel(m, plan))))
    return failure();
  return plan.gk;
}

} // namespace gpugen
} // namespace fuse
