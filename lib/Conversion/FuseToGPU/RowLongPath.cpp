//===- RowLongPath.cpp - row_reduce rows past the register path -----------===//
//
// The long-row paths of the row_reduce kernels (RowKernels.h): one walk
// over the row per stage, then one more for the rank-2 outputs (64-bit
// columns: a row may exceed 2^31 elements). A walk goes in tiles of
// bt * items columns (items: fuse-tile's long-row-items for the output
// walk, long-row-stage-items for the reductions'; element i of thread t
// at column tile + t + i*bt: coalesced scalar accesses, any alignment),
// every operand element of the tile loaded before any is used or stored
// (items loads in flight per thread, no guards: the tile is whole), then
// the last < bt * items columns one element per step; a thread folds its
// columns t, t + bt, ... in order either way.
// online-max-sum walks once for a max and the sum of exp(x - max) after
// it; one-walk-variance once for a sum and the squared deviations from a
// centre computed from it.
//
// Staged long rows (RowPath::Staged, StagedWide; fuse-tile's staged-rows;
// groups with rank-2 results, whose output walk reads the row again): the
// block copies the row's directly read operands into dynamic shared
// memory once (16-byte cp.async chunks on the vector path, else element
// by element), and every walk reads them there: the row crosses the
// memory bus once instead of twice. Operand k's region starts at the sum
// of alignTo(cols * bytes, 16) of those before it; the host passes the sum
// as the launch's dynamic shared memory.
//
//===----------------------------------------------------------------------===//

#include "RowKernels.h"

#include "fuse/Dialect/Fuse/Utils/ElementEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace fuse {
namespace gpugen {

/// The element of staged operand k at column c (i64).
Value RowKernelBuilder::stagedPtr(OpBuilder &ob, unsigned k, Value c) {
  Type et = directArgs[k].second;
  return LLVM::GEPOp::create(ob, loc, stageRegion[k].getType(), et,
                             stageRegion[k], ArrayRef<LLVM::GEPArg>{c});
}

void RowKernelBuilder::dropHeld() {
  g.rowIdx = nullptr;
  g.regs.clear();
  g.colSlot.clear();
}

/// One vector chunk (vw elements of `et`, as aligned as its size, at most
/// 16 bytes) from global `src` to shared `dst`: a cp.async of its size (a
/// chunk is less than 16 bytes when a wider type elsewhere in the group
/// caps the vector width: f16 rows of a group with an f32 result take 4
/// elements, 8 bytes); a 2-byte chunk is loaded and stored.
void RowKernelBuilder::copyChunk(OpBuilder &b, Location l, Value dst, Value src,
                                 Type et) {
  const int64_t bytes = byteWidth(et) * vw;
  if (bytes >= 4) {
    emitCpAsync(b, l, dst, src, bytes);
    return;
  }
  auto vt = VectorType::get({vw}, et);
  Value v = LLVM::LoadOp::create(b, l, vt, src, bytes);
  LLVM::StoreOp::create(b, l, v, dst, bytes);
}

/// Copies row `rowBase` (element offset) into the regions, between
/// barriers (the first: the previous row's readers are done).
void RowKernelBuilder::stageRow(OpBuilder &rb, Value rowBase) {
  Value base = dynamicSharedBase(g.func, rb, loc);
  stageRegion.clear();
  Value off = cI64(rb, loc, 0);
  for (int64_t eb : stagedBytes) {
    stageRegion.push_back(LLVM::GEPOp::create(rb, loc, base.getType(),
                                              rb.getI8Type(), base,
                                              ArrayRef<LLVM::GEPArg>{off}));
    off = arith::AddIOp::create(rb, loc, off,
                                stagedRegionBytes(rb, loc, cols, eb));
  }
  gpu::BarrierOp::create(rb, loc);
  // Off the vector path, element by element: 4- and 8-byte elements with
  // cp.async of their size (all in flight at once; docs/performance.md),
  // others loaded and stored.
  auto scalarCopy = [&](OpBuilder &ob) {
    bool async = false;
    scf::ForOp::create(
        ob, loc, t, cols, cI64(ob, loc, bt), ValueRange{},
        [&](OpBuilder &ib, Location il, Value c, ValueRange) {
          Value at = arith::AddIOp::create(ib, il, rowBase, c);
          for (auto [k, na] : llvm::enumerate(directArgs)) {
            int64_t eb = byteWidth(na.second);
            Value src = g.gep(ib, g.ptr[na.first], na.second, at);
            if (eb == 4 || eb == 8) {
              emitCpAsync(ib, il, stagedPtr(ib, k, c), src, eb);
              async = true;
              continue;
            }
            Value v = LLVM::LoadOp::create(ib, il, na.second, src, eb);
            LLVM::StoreOp::create(ib, il, v, stagedPtr(ib, k, c), eb);
          }
          scf::YieldOp::create(ib, il);
        });
    if (async) {
      NVVM::CpAsyncCommitGroupOp::create(ob, loc);
      NVVM::CpAsyncWaitGroupOp::create(ob, loc, 0);
    }
  };
  if (vw == 1) {
    scalarCopy(rb);
  } else {
    scf::IfOp::create(
        rb, loc, vecFlag,
        [&](OpBuilder &ib, Location il) {
          Value start = arith::MulIOp::create(ib, il, t, cI64(ib, il, vw));
          scf::ForOp::create(
              ib, il, start, cols, cI64(ib, il, bt * vw), ValueRange{},
              [&](OpBuilder &jb, Location jl, Value c, ValueRange) {
                Value at = arith::AddIOp::create(jb, jl, rowBase, c);
                for (auto [k, na] : llvm::enumerate(directArgs))
                  copyChunk(jb, jl, stagedPtr(jb, k, c),
                            g.gep(jb, g.ptr[na.first], na.second, at),
                            na.second);
                scf::YieldOp::create(jb, jl);
              });
          NVVM::CpAsyncCommitGroupOp::create(ib, il);
          NVVM::CpAsyncWaitGroupOp::create(ib, il, 0);
          scf::YieldOp::create(ib, il);
        },
        [&](OpBuilder &ib, Location il) {
          scalarCopy(ib);
          scf::YieldOp::create(ib, il);
        });
  }
  gpu::BarrierOp::create(rb, loc);
}

void RowKernelBuilder::longRow(OpBuilder &rb, Value row) {
  g.em->clearCache();
  g.leaves.clear();
  g.rowIdx = nullptr;
  Value rIdx = toIndex(rb, loc, row);
  Value rowBase = arith::MulIOp::create(rb, loc, row, cols);
  const bool staged = path != RowPath::Long;
  if (staged)
    stageRow(rb, rowBase);
  auto walk = [&](OpBuilder &sb, ReduceOp r, SmallVector<Value> acc) {
    return stageWalk(sb, r, acc, rIdx, rowBase);
  };
  for (unsigned ri = 0; ri < reds.size(); ++ri) {
    if (pairAt.contains(ri)) {
      onlineMaxSumStage(rb, ri, rIdx, rowBase);
      ++ri;
    } else if (centredAt.contains(ri)) {
      oneWalkVarianceStage(rb, ri, rIdx, rowBase);
      ++ri;
    } else {
      runStage(rb, ri, walk);
    }
  }
  storeLongResults(rb, rIdx, rowBase);
  storeRowResults(rb, row);
  g.em->clearCache();
}

/// online-max-sum: one walk for the max of stage ri and the sum of
/// exp(x - max) of stage ri + 1 (onlineMerge per element). Across the
/// block: the maximum M, then each thread's s scaled by exp(m - M) (0 for
/// m = -inf) and summed. A row maximum of +-inf gives the two-pass result,
/// NaN (exp(inf - inf) or exp(-inf - -inf) summed; cols > 0 here).
void RowKernelBuilder::onlineMaxSumStage(OpBuilder &rb, unsigned ri, Value rIdx,
                                         Value rowBase) {
  auto wg = g.func.getWorkgroupAttributions();
  ReduceOp rmax = reds[ri], rsum = reds[ri + 1];
  arith::FastMathFlagsAttr expFlags = pairAt.lookup(ri);
  Value x0 = rmax.getInputs()[0];
  auto ft = cast<FloatType>(tensorTy(x0).getElementType());
  const llvm::fltSemantics &sem = ft.getFloatSemantics();
  auto fc = [&](OpBuilder &cb, const APFloat &v) -> Value {
    return arith::ConstantOp::create(cb, loc, FloatAttr::get(ft, v));
  };
  SmallVector<Value> acc = tiledWalk(
      rb, rIdx, rowBase,
      ValueRange{fc(rb, APFloat::getInf(sem, true)),
                 fc(rb, APFloat::getZero(sem))},
      tiling.longRowStageItems,
      [&](OpBuilder &ib, ArrayRef<Value> colIdx, Value, ValueRange a) {
        Value m = a[0], s = a[1];
        for (Value ci : colIdx) {
          Value x = g.element(ib, x0, {rIdx, ci});
          std::tie(m, s) = onlineMerge(g, ib, rmax, m, s, x, expFlags);
        }
        return SmallVector<Value>{m, s};
      });
  Value m = acc[0];
  Value mx = blockAllReduce(g, rb, rmax, {m}, {wg[smemOf[ri][0]]})[0];
  Value scale = arith::SelectOp::create(
      rb, loc,
      arith::CmpFOp::create(rb, loc, arith::CmpFPredicate::OEQ, m,
                            fc(rb, APFloat::getInf(sem, true))),
      fc(rb, APFloat::getZero(sem)),
      math::ExpOp::create(rb, loc, arith::SubFOp::create(rb, loc, m, mx),
                          expFlags));
  Value part = arith::MulFOp::create(rb, loc, acc[1], scale);
  Value sm = blockAllReduce(g, rb, rsum, {part}, {wg[smemOf[ri + 1][0]]})[0];
  Value isInf = arith::CmpFOp::create(rb, loc, arith::CmpFPredicate::OEQ,
                                      math::AbsFOp::create(rb, loc, mx),
                                      fc(rb, APFloat::getInf(sem)));
  sm = arith::SelectOp::create(rb, loc, isInf, fc(rb, APFloat::getNaN(sem)),
                               sm);
  g.leaves[rmax.getResults()[0]] = mx;
  g.leaves[rsum.getResults()[0]] = sm;
}

/// A stage's walk: reduction `r` folded over the thread's columns t, t +
/// bt, ... in order, from `acc`, in tiles of long-row-stage-items loads.
SmallVector<Value> RowKernelBuilder::stageWalk(OpBuilder &rb, ReduceOp r,
                                               ValueRange acc, Value rIdx,
                                               Value rowBase) {
  return tiledWalk(
      rb, rIdx, rowBase, acc, tiling.longRowStageItems,
      [&](OpBuilder &ib, ArrayRef<Value> colIdx, Value, ValueRange a) {
        SmallVector<Value> cur(a);
        for (Value ci : colIdx) {
          SmallVector<Value> xs;
          for (Value in : r.getInputs())
            xs.push_back(g.element(ib, in, {rIdx, ci}));
          cur = g.combine(ib, r, cur, xs);
        }
        return cur;
      });
}

/// one-walk-variance: stage ri's row sum S and stage ri + 1's sum of
/// (x - C)^2, C = f(S), in one walk. Each thread folds S's accumulator as
/// stage ri does (the same S) and shifted sums of d = x - c, c its first
/// element: s1 = sum d, s2 = sum d^2 (fma). Once C is known, its part is
/// sum (x - C)^2 = s2 + e (2 s1 + n e), e = c - C, n its element count
/// (exact in real arithmetic; clamped at 0), and the block adds the
/// parts. Where S, C or that sum is not finite (an infinite or NaN
/// element, an overflow) the block walks the row again for the two-pass
/// sum (block-uniform: S, C and the sum are the block's), so those rows
/// give what two walks give.
void RowKernelBuilder::oneWalkVarianceStage(OpBuilder &rb, unsigned ri,
                                            Value rIdx, Value rowBase) {
  auto wg = g.func.getWorkgroupAttributions();
  ReduceOp rsum = reds[ri], rsq = reds[ri + 1];
  auto [map, dev] = centredAt.lookup(ri);
  Value x0 = rsum.getInputs()[0];
  auto ft = cast<FloatType>(tensorTy(x0).getElementType());
  Value zero = arith::ConstantOp::create(rb, loc, FloatAttr::get(ft, 0.0));
  // The thread's shift: its first element (rows here are longer than the
  // block, so every thread has one).
  Value shift;
  {
    auto [colIdx, first] = holdTile(rb, rIdx, rowBase, t, 1);
    shift = g.element(rb, x0, {rIdx, colIdx[0]});
    g.em->clearCache();
    dropHeld();
  }
  SmallVector<Value> acc = startValues(rb, loc, rsum);
  acc.append({zero, zero});
  acc = tiledWalk(
      rb, rIdx, rowBase, acc, tiling.longRowStageItems,
      [&](OpBuilder &ib, ArrayRef<Value> colIdx, Value, ValueRange a) {
        Value s = a[0], s1 = a[1], s2 = a[2];
        for (Value ci : colIdx) {
          Value x = g.element(ib, x0, {rIdx, ci});
          s = g.combine(ib, rsum, {s}, {x})[0];
          Value d = arith::SubFOp::create(ib, loc, x, shift);
          s1 = arith::AddFOp::create(ib, loc, s1, d);
          s2 = math::FmaOp::create(ib, loc, d, d, s2);
        }
        return SmallVector<Value>{s, s1, s2};
      });
  Value sum = blockAllReduce(g, rb, rsum, {acc[0]}, {wg[smemOf[ri][0]]})[0];
  g.leaves[rsum.getResults()[0]] = sum;
  Value centre =
      buildCentre(rb, map, dev, sum, [&](Value v) { return g.scalar(rb, v); });
  // n = ceil((cols - t) / bt) elements of the thread.
  Value n = arith::DivUIOp::create(
      rb, loc,
      arith::AddIOp::create(rb, loc, arith::SubIOp::create(rb, loc, cols, t),
                            cI64(rb, loc, bt - 1)),
      cI64(rb, loc, bt));
  Value nf = arith::UIToFPOp::create(rb, loc, ft, n);
  Value e = arith::SubFOp::create(rb, loc, shift, centre);
  Value twoS1 = arith::AddFOp::create(rb, loc, acc[1], acc[1]);
  Value part = math::FmaOp::create(
      rb, loc, e, math::FmaOp::create(rb, loc, nf, e, twoS1), acc[2]);
  part = arith::MaximumFOp::create(rb, loc, part, zero);
  Value q = blockAllReduce(g, rb, rsq, {part}, {wg[smemOf[ri + 1][0]]})[0];
  auto finite = [&](Value v) {
    return arith::CmpFOp::create(
        rb, loc, arith::CmpFPredicate::OLT, math::AbsFOp::create(rb, loc, v),
        arith::ConstantOp::create(
            rb, loc,
            FloatAttr::get(ft, APFloat::getInf(ft.getFloatSemantics()))));
  };
  Value ok = arith::AndIOp::create(
      rb, loc, arith::AndIOp::create(rb, loc, finite(sum), finite(centre)),
      finite(q));
  q = ifValue(
      rb, loc, ok, ft, [&](OpBuilder &) { return q; },
      [&](OpBuilder &ob) {
        SmallVector<Value> a =
            stageWalk(ob, rsq, startValues(ob, loc, rsq), rIdx, rowBase);
        return blockAllReduce(g, ob, rsq, a, {wg[smemOf[ri + 1][0]]})[0];
      });
  g.em->clearCache();
  g.leaves[rsq.getResults()[0]] = q;
}

/// The thread's `items` elements of a tile in row mode, at columns c0,
/// c0 + bt, ... (i64; all inside the row): the directly read operands
/// loaded into g.regs (from the staged regions or global memory), every
/// load before any element is used. Returns the columns (index) and the
/// element offset of the first.
std::pair<SmallVector<Value>, Value>
RowKernelBuilder::holdTile(OpBuilder &ib, Value rIdx, Value rowBase, Value c0,
                           int64_t items) {
  const bool staged = path != RowPath::Long;
  g.em->clearCache();
  g.regs.clear();
  g.colSlot.clear();
  g.rowIdx = rIdx;
  Value first = arith::AddIOp::create(ib, loc, rowBase, c0);
  SmallVector<Value> colIdx;
  for (int64_t i = 0; i < items; ++i) {
    Value c =
        i ? arith::AddIOp::create(ib, loc, c0, cI64(ib, loc, i * bt)) : c0;
    Value ci = toIndex(ib, loc, c);
    g.colSlot[ci] = i;
    colIdx.push_back(ci);
  }
  for (auto [k, na] : llvm::enumerate(directArgs)) {
    auto [n, et] = na;
    Value tp = staged ? stagedPtr(ib, k, c0) : g.gep(ib, g.ptr[n], et, first);
    for (int64_t i = 0; i < items; ++i) {
      Value p = i ? Value(LLVM::GEPOp::create(
                        ib, loc, tp.getType(), et, tp,
                        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i * bt)}))
                  : tp;
      g.regs[n].push_back(LLVM::LoadOp::create(ib, loc, et, p, byteWidth(et)));
    }
  }
  return {colIdx, first};
}

/// One walk over the row: whole tiles of bt * items columns (element i
/// of thread t at column tile + t + i * bt), then the last columns one
/// element a step (columns tilesEnd + t, + bt, ...), so a thread visits
/// its columns t, t + bt, ... in order either way. `fn` gets the held
/// columns (index), the element offset of the first and `acc`, and
/// returns the new `acc`.
SmallVector<Value> RowKernelBuilder::tiledWalk(OpBuilder &rb, Value rIdx,
                                               Value rowBase, ValueRange acc,
                                               int64_t items, TileFn fn) {
  items = std::max<int64_t>(1, items);
  const int64_t tileCols = bt * items;
  SmallVector<Value> cur(acc);
  // Columns [from, to) in steps of `stride`, the thread's first column
  // of a step c + `shift`.
  auto walk = [&](Value from, Value to, int64_t n, int64_t stride,
                  Value shift) {
    auto loop = scf::ForOp::create(
        rb, loc, from, to, cI64(rb, loc, stride), cur,
        [&](OpBuilder &ib, Location il, Value c, ValueRange a) {
          Value c0 = shift ? arith::AddIOp::create(ib, il, c, shift) : c;
          auto [colIdx, first] = holdTile(ib, rIdx, rowBase, c0, n);
          SmallVector<Value> next = fn(ib, colIdx, first, a);
          g.em->clearCache();
          dropHeld();
          scf::YieldOp::create(ib, il, next);
        });
    g.em->clearCache();
    dropHeld();
    cur.assign(loop.getResults().begin(), loop.getResults().end());
  };
  Value rest = t;
  if (items > 1) {
    // The tiles end and the single steps start at tilesEnd (+ t).
    Value tilesEnd = arith::SubIOp::create(
        rb, loc, cols,
        arith::RemUIOp::create(rb, loc, cols, cI64(rb, loc, tileCols)));
    walk(cI64(rb, loc, 0), tilesEnd, items, tileCols, t);
    rest = arith::AddIOp::create(rb, loc, tilesEnd, t);
  }
  walk(rest, cols, 1, bt, Value());
  return cur;
}

/// The rank-2 results' walk: every value of a tile before the first
/// store (the other operands' loads, vectors along the row, may alias the
/// stores, and one after a store would wait for it).
void RowKernelBuilder::storeLongResults(OpBuilder &rb, Value rIdx,
                                        Value rowBase) {
  SmallVector<std::pair<Value, Value>> rank2;
  for (auto [y, out] : llvm::zip(group.getYield().getValues(), outs))
    if (tensorTy(y).getRank() == 2)
      rank2.push_back({y, out});
  if (rank2.empty())
    return;
  tiledWalk(
      rb, rIdx, rowBase, ValueRange{}, tiling.longRowItems,
      [&](OpBuilder &ib, ArrayRef<Value> colIdx, Value first, ValueRange) {
        SmallVector<DeferredStore> stores;
        for (auto [y, out] : rank2)
          for (auto [i, ci] : llvm::enumerate(colIdx))
            stores.push_back(
                {g.element(ib, y, {rIdx, ci}), out,
                 i ? arith::AddIOp::create(
                         ib, loc, first,
                         cI64(ib, loc, static_cast<int64_t>(i) * bt))
                   : first});
        g.store(ib, stores);
        return SmallVector<Value>();
      });
}

} // namespace gpugen
} // namespace fuse
