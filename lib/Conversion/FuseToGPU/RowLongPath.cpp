//===- RowLongPath.cpp - row_reduce rows past the register path -----------===//
//
// The long-row paths of the row_reduce kernels (RowKernels.h): one walk
// over the row per stage, one element per thread per step, then one more
// for the rank-2 outputs (64-bit columns: a row may exceed 2^31
// elements). The output walk goes in tiles of bt * items columns (items:
// fuse-tile's long-row-items): element i of thread t at column tile + t +
// i*bt (coalesced scalar accesses, any alignment), every operand element
// of the tile loaded before any is used or stored (items loads in flight
// per thread, no guards: the tile is whole), then the last < bt * items
// columns one element per step (measured faster than an untiled output
// walk). Tiled stage walks gain little for their extra compile time: rows
// of 1056 resident blocks exceed L2, so every stage re-reads from DRAM
// (docs/performance.md); online-max-sum walks once for a max and the sum
// of exp(x - max) after it.
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

/// Row mode for one column of a walk: the staged operands' elements at
/// column c (index ci) held as registers.
void RowKernelBuilder::holdStaged(OpBuilder &ob, Value rIdx, Value ci,
                                  Value c) {
  g.rowIdx = rIdx;
  g.regs.clear();
  g.colSlot.clear();
  g.colSlot[ci] = 0;
  for (auto [k, na] : llvm::enumerate(directArgs))
    g.regs[na.first].push_back(LLVM::LoadOp::create(
        ob, loc, na.second, stagedPtr(ob, k, c), byteWidth(na.second)));
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
  Value step = cI64(rb, loc, bt);
  const bool staged = path != RowPath::Long;
  if (staged)
    stageRow(rb, rowBase);
  auto walk = [&](OpBuilder &sb, ReduceOp r, SmallVector<Value> acc) {
    auto loop = scf::ForOp::create(
        sb, loc, t, cols, step, acc,
        [&](OpBuilder &ib, Location il, Value c, ValueRange a) {
          g.em->clearCache();
          Value ci = toIndex(ib, il, c);
          if (staged)
            holdStaged(ib, rIdx, ci, c);
          SmallVector<Value> xs;
          for (Value in : r.getInputs())
            xs.push_back(g.element(ib, in, {rIdx, ci}));
          scf::YieldOp::create(ib, il, g.combine(ib, r, a, xs));
        });
    g.em->clearCache();
    dropHeld();
    return SmallVector<Value>(loop.getResults());
  };
  for (unsigned ri = 0; ri < reds.size(); ++ri) {
    if (!pairAt.contains(ri)) {
      runStage(rb, ri, walk);
      continue;
    }
    onlineMaxSumStage(rb, ri, rIdx, step);
    ++ri;
  }
  storeLongResults(rb, rIdx, rowBase, step);
  storeRowResults(rb, row);
  g.em->clearCache();
}

/// online-max-sum: one walk for the max of stage ri and the sum of
/// exp(x - max) of stage ri + 1 (onlineMerge per element). Across the
/// block: the maximum M, then each thread's s scaled by exp(m - M) (0 for
/// m = -inf) and summed. A row maximum of +-inf gives the two-pass result,
/// NaN (exp(inf - inf) or exp(-inf - -inf) summed; cols > 0 here).
void RowKernelBuilder::onlineMaxSumStage(OpBuilder &rb, unsigned ri,
                                         Value rIdx, Value step) {
  const bool staged = path != RowPath::Long;
  auto wg = g.func.getWorkgroupAttributions();
  ReduceOp rmax = reds[ri], rsum = reds[ri + 1];
  arith::FastMathFlagsAttr expFlags = pairAt.lookup(ri);
  Value x0 = rmax.getInputs()[0];
  auto ft = cast<FloatType>(tensorTy(x0).getElementType());
  const llvm::fltSemantics &sem = ft.getFloatSemantics();
  auto fc = [&](OpBuilder &cb, const APFloat &v) -> Value {
    return arith::ConstantOp::create(cb, loc, FloatAttr::get(ft, v));
  };
  auto loop = scf::ForOp::create(
      rb, loc, t, cols, step,
      ValueRange{fc(rb, APFloat::getInf(sem, true)),
                 fc(rb, APFloat::getZero(sem))},
      [&](OpBuilder &ib, Location il, Value c, ValueRange a) {
        g.em->clearCache();
        Value ci = toIndex(ib, il, c);
        if (staged)
          holdStaged(ib, rIdx, ci, c);
        Value x = g.element(ib, x0, {rIdx, ci});
        auto [nm, ns] = onlineMerge(g, ib, rmax, a[0], a[1], x, expFlags);
        scf::YieldOp::create(ib, il, ValueRange{nm, ns});
      });
  g.em->clearCache();
  dropHeld();
  Value m = loop.getResult(0);
  Value mx = blockAllReduce(g, rb, rmax, {m}, {wg[smemOf[ri][0]]})[0];
  Value scale = arith::SelectOp::create(
      rb, loc,
      arith::CmpFOp::create(rb, loc, arith::CmpFPredicate::OEQ, m,
                            fc(rb, APFloat::getInf(sem, true))),
      fc(rb, APFloat::getZero(sem)),
      math::ExpOp::create(rb, loc, arith::SubFOp::create(rb, loc, m, mx),
                          expFlags));
  Value part = arith::MulFOp::create(rb, loc, loop.getResult(1), scale);
  Value sm = blockAllReduce(g, rb, rsum, {part}, {wg[smemOf[ri + 1][0]]})[0];
  Value isInf = arith::CmpFOp::create(rb, loc, arith::CmpFPredicate::OEQ,
                                      math::AbsFOp::create(rb, loc, mx),
                                      fc(rb, APFloat::getInf(sem)));
  sm = arith::SelectOp::create(rb, loc, isInf, fc(rb, APFloat::getNaN(sem)),
                               sm);
  g.leaves[rmax.getResults()[0]] = mx;
  g.leaves[rsum.getResults()[0]] = sm;
}

/// The rank-2 results' walk: whole tiles of bt * items columns, then the
/// rest one element a thread per step.
void RowKernelBuilder::storeLongResults(OpBuilder &rb, Value rIdx,
                                        Value rowBase, Value step) {
  const bool staged = path != RowPath::Long;
  const int64_t items = tiling.longRowItems;
  const int64_t tileCols = bt * std::max<int64_t>(1, items);
  SmallVector<std::pair<Value, Value>> rank2;
  for (auto [y, out] : llvm::zip(group.getYield().getValues(), outs))
    if (tensorTy(y).getRank() == 2)
      rank2.push_back({y, out});
  if (rank2.empty())
    return;
  // One tile at column `tc`: loads the directly read rank-2 operands into
  // g.regs and returns the columns of the thread's elements (index).
  auto loadTile = [&](OpBuilder &ib, Value tc) {
    g.em->clearCache();
    g.regs.clear();
    g.colSlot.clear();
    g.rowIdx = rIdx;
    Value c0 = arith::AddIOp::create(ib, loc, tc, t);
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
      Value tp =
          staged ? stagedPtr(ib, k, c0) : g.gep(ib, g.ptr[n], et, first);
      for (int64_t i = 0; i < items; ++i) {
        Value p = i ? Value(LLVM::GEPOp::create(
                          ib, loc, tp.getType(), et, tp,
                          ArrayRef<LLVM::GEPArg>{
                              static_cast<int32_t>(i * bt)}))
                    : tp;
        g.regs[n].push_back(
            LLVM::LoadOp::create(ib, loc, et, p, byteWidth(et)));
      }
    }
    return std::make_pair(colIdx, first);
  };
  auto endTile = [&]() {
    g.em->clearCache();
    g.regs.clear();
    g.colSlot.clear();
    g.rowIdx = nullptr;
  };
  // The tiles end and the single steps start at tilesEnd (+ t).
  Value tilesEnd, stepStart = t;
  if (items) {
    tilesEnd = arith::SubIOp::create(
        rb, loc, cols,
        arith::RemUIOp::create(rb, loc, cols, cI64(rb, loc, tileCols)));
    stepStart = arith::AddIOp::create(rb, loc, tilesEnd, t);
    scf::ForOp::create(
        rb, loc, cI64(rb, loc, 0), tilesEnd, cI64(rb, loc, tileCols),
        ValueRange{}, [&](OpBuilder &ib, Location il, Value tc, ValueRange) {
          auto [colIdx, first] = loadTile(ib, tc);
          // Every value of the tile before the first store: the other
          // operands' loads (vectors along the row) may alias the stores,
          // and one after a store would wait for it.
          SmallVector<DeferredStore> stores;
          for (auto [y, out] : rank2)
            for (auto [i, ci] : llvm::enumerate(colIdx))
              stores.push_back(
                  {g.element(ib, y, {rIdx, ci}), out,
                   i ? arith::AddIOp::create(
                           ib, il, first,
                           cI64(ib, il, static_cast<int64_t>(i) * bt))
                     : first});
          g.store(ib, stores);
          endTile();
          scf::YieldOp::create(ib, il);
        });
    endTile();
  }
  scf::ForOp::create(rb, loc, stepStart, cols, step, ValueRange{},
                     [&](OpBuilder &ib, Location il, Value c, ValueRange) {
                       g.em->clearCache();
                       Value ci = toIndex(ib, il, c);
                       if (staged)
                         holdStaged(ib, rIdx, ci, c);
                       for (auto [y, out] : rank2)
                         g.store(ib, g.element(ib, y, {rIdx, ci}), out,
                                 arith::AddIOp::create(ib, il, rowBase, c));
                       scf::YieldOp::create(ib, il);
                     });
  g.em->clearCache();
  dropHeld();
}

} // namespace gpugen
} // namespace fuse
