//===- TileLookBack.cpp - the prefix of a look-back tile ------------------===//
//
// The prefix side of the scan and filter kernels (TileKernels.h): the
// per-row scans within each warp, the block scan of the warp aggregates,
// the publication of a tile's aggregate and inclusive prefix in its status
// word, and warp 0's decoupled look-back over its predecessors' status
// words, folded in tile order (or by a warp tree where the combine is
// order-free). The tile layout and loop are TileMachinery.cpp's.
//
//===----------------------------------------------------------------------===//

#include "TileKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace fuse {
namespace gpugen {

//===----------------------------------------------------------------------===//
// Status words
//===----------------------------------------------------------------------===//

Value TileMachinery::slotPtr(OpBuilder &b, Value arr, Value idx) {
  return k.gep(b, arr, b.getI64Type(), idx);
}

Value TileMachinery::pack(OpBuilder &b, Value v, int64_t flag) {
  Location loc = k.loc;
  Type i64 = b.getI64Type();
  if (packing == Packing::Top2)
    return arith::OrIOp::create(b, loc, v, cI64(b, loc, flag << 62));
  unsigned bits = v.getType().getIntOrFloatBitWidth();
  Type it = b.getIntegerType(bits);
  Value asInt = isa<FloatType>(v.getType())
                    ? arith::BitcastOp::create(b, loc, it, v).getResult()
                    : v;
  Value w = bits == 64 ? asInt
                       : arith::ExtUIOp::create(b, loc, i64, asInt).getResult();
  return arith::OrIOp::create(b, loc, w, cI64(b, loc, flag << 32));
}

std::pair<Value, Value> TileMachinery::unpack(OpBuilder &b, Value w) {
  Location loc = k.loc;
  Type i32 = b.getI32Type();
  Type t = valTypes[0];
  if (packing == Packing::Top2) {
    Value f = arith::TruncIOp::create(
        b, loc, i32, arith::ShRUIOp::create(b, loc, w, cI64(b, loc, 62)));
    Value v = arith::AndIOp::create(b, loc, w,
                                    cI64(b, loc, (int64_t(1) << 62) - 1));
    return {f, v};
  }
  Value f = arith::TruncIOp::create(
      b, loc, i32, arith::ShRUIOp::create(b, loc, w, cI64(b, loc, 32)));
  unsigned bits = t.getIntOrFloatBitWidth();
  Value v = arith::TruncIOp::create(b, loc, b.getIntegerType(bits), w);
  if (isa<FloatType>(t))
    v = arith::BitcastOp::create(b, loc, t, v);
  return {f, v};
}

/// The 32-bit pieces of `v`, low first, each zero-extended to i64.
static SmallVector<Value> splitPieces(OpBuilder &b, Location loc, Value v) {
  Type i64 = b.getI64Type();
  unsigned bits = v.getType().getIntOrFloatBitWidth();
  if (isa<FloatType>(v.getType()))
    v = arith::BitcastOp::create(b, loc, b.getIntegerType(bits), v);
  if (bits < 64)
    v = arith::ExtUIOp::create(b, loc, i64, v);
  SmallVector<Value> out;
  for (unsigned lo = 0; lo < bits; lo += 32) {
    Value p =
        lo ? arith::ShRUIOp::create(b, loc, v, cI64(b, loc, lo)).getResult()
           : v;
    out.push_back(
        bits > 32 ? arith::AndIOp::create(b, loc, p, cI64(b, loc, 0xffffffffLL))
                        .getResult()
                  : p);
  }
  return out;
}

/// The value of type `t` whose pieces (splitPieces) are the low halves of
/// `words`.
static Value joinPieces(OpBuilder &b, Location loc, Type t,
                        ArrayRef<Value> words) {
  unsigned bits = t.getIntOrFloatBitWidth();
  Value v;
  for (auto [i, w] : llvm::enumerate(words)) {
    Value p = arith::AndIOp::create(b, loc, w, cI64(b, loc, 0xffffffffLL));
    if (i)
      p = arith::ShLIOp::create(b, loc, p, cI64(b, loc, 32 * i));
    v = i ? arith::OrIOp::create(b, loc, v, p).getResult() : p;
  }
  if (bits < 64)
    v = arith::TruncIOp::create(b, loc, b.getIntegerType(bits), v);
  return isa<FloatType>(t) ? arith::BitcastOp::create(b, loc, t, v).getResult()
                           : v;
}

void TileMachinery::publish(OpBuilder &b, ArrayRef<Value> arrs,
                            ValueRange vals, Value t, int64_t flag) {
  Location loc = k.loc;
  auto storeWord = [&](Value word, Value at) {
    LLVM::StoreOp::create(b, loc, word, at, 8, false, false, false,
                          LLVM::AtomicOrdering::monotonic, "device");
  };
  if (packing != Packing::Pieces) {
    storeWord(pack(b, vals[0], flag), k.gep(b, flags, b.getI64Type(), t));
    return;
  }
  // Each piece with its ready bit: a word a reader finds ready holds its
  // final piece, whatever order the words land in.
  unsigned p = 0;
  for (Value v : vals)
    for (Value piece : splitPieces(b, loc, v))
      storeWord(
          arith::OrIOp::create(b, loc, piece, cI64(b, loc, int64_t(1) << 32)),
          slotPtr(b, arrs[p++], t));
}

//===----------------------------------------------------------------------===//
// Look-back
//===----------------------------------------------------------------------===//

SmallVector<Value> TileMachinery::lookBack(OpBuilder &b, Value lane,
                                           ValueRange excl0) {
  Location loc = k.loc;
  Type i64 = b.getI64Type();
  SmallVector<Type> condTypes{i64, i64, i64};
  condTypes.append(valTypes.begin(), valTypes.end());
  Value start = arith::SubIOp::create(b, loc, tile, cI64(b, loc, 1));
  auto loop = scf::WhileOp::create(
      b, loc, condTypes, ValueRange{start, cI64(b, loc, 0)},
      [&](OpBuilder &wb, Location l, ValueRange args) {
        lookBackWindow(wb, l, args, lane, excl0);
      },
      [&](OpBuilder &ab, Location l, ValueRange args) {
        scf::YieldOp::create(ab, l, ValueRange{args[0], args[1]});
      });
  Value nw = loop.getResult(1);
  Value nearest = loop.getResult(2);
  SmallVector<Value> vals(loop.getResults().drop_front(3));
  // Stashed values are read by other lanes.
  NVVM::SyncWarpOp::create(b, loc, cI32(b, loc, -1));
  return foldLookBack(b, lane, nw, nearest, vals);
}

std::pair<Value, SmallVector<Value>>
TileMachinery::readStatus(OpBuilder &wb, Location l, Value j, Value real,
                          ValueRange excl0) {
  Type i64 = wb.getI64Type();
  auto rd = scf::IfOp::create(
      wb, l, real,
      [&](OpBuilder &rb, Location rl) {
        auto loadWord = [&](Value at) {
          return LLVM::LoadOp::create(rb, rl, i64, at, 8, false, false, false,
                                      false, LLVM::AtomicOrdering::monotonic,
                                      "device")
              .getResult();
        };
        if (packing != Packing::Pieces) {
          auto [f, v] = unpack(rb, loadWord(k.gep(rb, flags, i64, j)));
          scf::YieldOp::create(rb, rl, ValueRange{f, v});
          return;
        }
        // Every word of both arrays in one round trip; a tile's values are
        // ready when all of their pieces are.
        SmallVector<Value> aggW, inclW;
        for (auto [a, c] : llvm::zip(aggArr, inclArr)) {
          aggW.push_back(loadWord(slotPtr(rb, a, j)));
          inclW.push_back(loadWord(slotPtr(rb, c, j)));
        }
        auto allReady = [&](ArrayRef<Value> words) {
          Value all;
          for (Value w : words) {
            Value r = cmpI(rb, rl, arith::CmpIPredicate::uge, w,
                           cI64(rb, rl, int64_t(1) << 32));
            all = all ? arith::AndIOp::create(rb, rl, all, r).getResult() : r;
          }
          return all;
        };
        Value inclReady = allReady(inclW), aggReady = allReady(aggW);
        Value f = sel(rb, rl, inclReady, cI32(rb, rl, 2),
                      sel(rb, rl, aggReady, cI32(rb, rl, 1), cI32(rb, rl, 0)));
        SmallVector<Value> words = selAll(rb, rl, inclReady, inclW, aggW);
        SmallVector<Value> out{f};
        unsigned p = 0;
        for (Type t : valTypes) {
          int64_t n = statusPieces(t);
          out.push_back(
              joinPieces(rb, rl, t, ArrayRef<Value>(words).slice(p, n)));
          p += n;
        }
        scf::YieldOp::create(rb, rl, out);
      },
      [&](OpBuilder &rb, Location rl) {
        SmallVector<Value> out{cI32(rb, rl, 2)};
        out.append(excl0.begin(), excl0.end());
        scf::YieldOp::create(rb, rl, out);
      });
  return {rd.getResult(0), SmallVector<Value>(rd.getResults().drop_front())};
}

void TileMachinery::lookBackWindow(OpBuilder &wb, Location l, ValueRange args,
                                   Value lane, ValueRange excl0) {
  Type i64 = wb.getI64Type(), i32 = wb.getI32Type();
  Value base = args[0], nw = args[1];
  Value j = arith::SubIOp::create(wb, l, base, lane);
  Value real = cmpI(wb, l, arith::CmpIPredicate::sge, j,
                    cI64(wb, l, 0));
  std::pair<Value, SmallVector<Value>> status =
      readStatus(wb, l, j, real, excl0);
  Value f = status.first;
  SmallVector<Value> vals = std::move(status.second);
  auto ballot = [&](Value pred) { return warpBallot(wb, l, pred); };
  Value b0 = ballot(
      cmpI(wb, l, arith::CmpIPredicate::eq, f, cI32(wb, l, 0)));
  Value b2 = ballot(
      cmpI(wb, l, arith::CmpIPredicate::eq, f, cI32(wb, l, 2)));
  Value nearest = LLVM::CountTrailingZerosOp::create(
      wb, l, i32, b2, IntegerAttr::get(wb.getI1Type(), 0));
  Value nearest64 = arith::ExtUIOp::create(wb, l, i64, nearest);
  Value b0w = arith::ExtUIOp::create(wb, l, i64, b0);
  Value below = arith::SubIOp::create(
      wb, l, arith::ShLIOp::create(wb, l, cI64(wb, l, 1), nearest64),
      cI64(wb, l, 1));
  Value has2 =
      cmpI(wb, l, arith::CmpIPredicate::ne, b2, cI32(wb, l, 0));
  Value none0Below = cmpI(
      wb, l, arith::CmpIPredicate::eq,
      arith::AndIOp::create(wb, l, b0w, below), cI64(wb, l, 0));
  Value found = arith::AndIOp::create(wb, l, has2, none0Below);
  Value allAgg = arith::AndIOp::create(
      wb, l,
      cmpI(wb, l, arith::CmpIPredicate::eq, b0, cI32(wb, l, 0)),
      cmpI(wb, l, arith::CmpIPredicate::eq, b2, cI32(wb, l, 0)));
  Value canStash = arith::AndIOp::create(
      wb, l, allAgg,
      cmpI(wb, l, arith::CmpIPredicate::slt, nw,
           cI64(wb, l, kMaxWindows)));
  scf::IfOp::create(wb, l, canStash, [&](OpBuilder &sb, Location sl) {
    Value at = toIndex(
        sb, sl,
        arith::AddIOp::create(
            sb, sl, arith::MulIOp::create(sb, sl, nw, cI64(sb, sl, 32)),
            lane));
    for (auto [s, v] : llvm::zip(smStash, vals))
      memref::StoreOp::create(sb, sl, v, s, ValueRange{at});
    scf::YieldOp::create(sb, sl);
  });
  Value retry = arith::AndIOp::create(
      wb, l,
      arith::XOrIOp::create(
          wb, l, found,
          arith::ConstantIntOp::create(wb, l, wb.getI1Type(), 1)),
      arith::XOrIOp::create(
          wb, l, canStash,
          arith::ConstantIntOp::create(wb, l, wb.getI1Type(), 1)));
  if (k.tiling.pollDelay > 0)
    scf::IfOp::create(wb, l, retry, [&](OpBuilder &sb, Location sl) {
      NVVM::NanosleepOp::create(sb, sl,
                                cI32(sb, sl, k.tiling.pollDelay));
      scf::YieldOp::create(sb, sl);
    });
  Value newBase = sel(wb, l, canStash,
                      arith::SubIOp::create(wb, l, base,
                                            cI64(wb, l, 32)),
                      base);
  Value newNw = sel(wb, l, canStash,
                    arith::AddIOp::create(wb, l, nw, cI64(wb, l, 1)),
                    nw);
  Value cont = arith::XOrIOp::create(
      wb, l, found,
      arith::ConstantIntOp::create(wb, l, wb.getI1Type(), 1));
  SmallVector<Value> cargs{newBase, newNw, nearest64};
  cargs.append(vals);
  scf::ConditionOp::create(wb, l, cont, cargs);
}

SmallVector<Value> TileMachinery::foldLookBack(OpBuilder &b, Value lane,
                                               Value nw, Value nearest,
                                               ArrayRef<Value> vals) {
  Location loc = k.loc;
  Type i32 = b.getI32Type();
  if (orderFree) {
    // Any association gives the same bits: each lane folds its own
    // values (an aggregate newer than the inclusive prefix, the inclusive
    // prefix itself at lane `nearest`, its column of the stashed windows)
    // and a butterfly combines the lanes.
    Value mineOk = cmpI(b, loc, arith::CmpIPredicate::sle, lane, nearest);
    SmallVector<Value> mine = selAll(b, loc, mineOk, vals, identity);
    SmallVector<Value> cols = foldSmemColumn(
        b, loc, smStash, cI64(b, loc, 0), nw, cI64(b, loc, 32), lane, mine,
        [&](OpBuilder &fb, ValueRange a, ValueRange x) {
          return combine(fb, a, x);
        });
    return warpFold(b, loc, cols,
                    [&](OpBuilder &cb, ValueRange a, ValueRange x) {
                      return combine(cb, a, x);
                    });
  }
  Value nearest32 = arith::TruncIOp::create(b, loc, i32, nearest);
  SmallVector<Value> acc;
  for (Value v : vals)
    acc.push_back(shuffleValue(b, loc, v, nearest32, gpu::ShuffleMode::IDX));
  // Lanes nearest-1 .. 0 of the last window (newer tiles), in tile order.
  auto f1 = scf::ForOp::create(
      b, loc, cI64(b, loc, 0), nearest, cI64(b, loc, 1), acc,
      [&](OpBuilder &fb, Location l, Value i, ValueRange a) {
        Value src = arith::TruncIOp::create(
            fb, l, i32,
            arith::SubIOp::create(
                fb, l, arith::SubIOp::create(fb, l, nearest, i),
                cI64(fb, l, 1)));
        SmallVector<Value> x;
        for (Value v : vals)
          x.push_back(shuffleValue(fb, l, v, src, gpu::ShuffleMode::IDX));
        scf::YieldOp::create(fb, l, combine(fb, a, x));
      });
  // Stashed windows, oldest (nw-1) first, each from lane 31 to lane 0.
  auto f2 = scf::ForOp::create(
      b, loc, cI64(b, loc, 0), nw, cI64(b, loc, 1), f1.getResults(),
      [&](OpBuilder &fb, Location l, Value i, ValueRange a) {
        Value w = arith::SubIOp::create(
            fb, l, arith::SubIOp::create(fb, l, nw, i), cI64(fb, l, 1));
        Value base = arith::MulIOp::create(fb, l, w, cI64(fb, l, 32));
        SmallVector<Value> cur(a);
        for (int64_t ln = 31; ln >= 0; --ln) {
          Value at = toIndex(
              fb, l, arith::AddIOp::create(fb, l, base, cI64(fb, l, ln)));
          SmallVector<Value> x;
          for (Value s : smStash)
            x.push_back(memref::LoadOp::create(fb, l, s, ValueRange{at}));
          cur = combine(fb, cur, x);
        }
        scf::YieldOp::create(fb, l, cur);
      });
  return SmallVector<Value>(f2.getResults());
}

//===----------------------------------------------------------------------===//
// Row and block scans
//===----------------------------------------------------------------------===//

TileMachinery::RowScan
TileMachinery::scanRows(OpBuilder &b, ArrayRef<SmallVector<Value>> xs,
                        ArrayRef<Value> valid, ValueRange excl0) {
  return scanRows(
      b,
      [&](OpBuilder &rb, int64_t r, Value lane) {
        return warpRowScan(rb, xs, valid, r, lane);
      },
      excl0);
}

std::pair<SmallVector<Value>, SmallVector<Value>>
TileMachinery::warpRowScan(OpBuilder &b, ArrayRef<SmallVector<Value>> xs,
                           ArrayRef<Value> valid, int64_t r, Value lane) {
  Location loc = k.loc;
  SmallVector<Value> laneExcl, rowTotal;
  {
    // The lane's fold of its vw items of the row.
    SmallVector<Value> agg;
    for (int64_t e = 0; e < vw; ++e) {
      int64_t j = r * vw + e;
      if (e == 0) {
        agg = xs[j]; // the identity when not valid
        continue;
      }
      SmallVector<Value> c = combine(b, agg, xs[j]);
      agg = isConstTrue(valid[j]) ? c : selAll(b, loc, valid[j], c, agg);
    }
    SmallVector<Value> incl = warpInclusiveScan(
        b, loc, lane, agg, [&](OpBuilder &cb, ValueRange x, ValueRange y) {
          return combine(cb, x, y);
        });
    for (Value v : incl) {
      laneExcl.push_back(
          shuffleValue(b, loc, v, cI32(b, loc, 1), gpu::ShuffleMode::UP));
      rowTotal.push_back(
          shuffleValue(b, loc, v, cI32(b, loc, 31), gpu::ShuffleMode::IDX));
    }
  }
  return {laneExcl, rowTotal};
}

TileMachinery::RowScan TileMachinery::scanRows(OpBuilder &b, RowFn rowFn,
                                               ValueRange excl0) {
  Location loc = k.loc;
  Value lane = arith::AndIOp::create(b, loc, k.threadId(b), cI64(b, loc, 31));
  Value lane0 =
      cmpI(b, loc, arith::CmpIPredicate::eq, lane, cI64(b, loc, 0));
  int64_t rows = items / vw;
  SmallVector<SmallVector<Value>> laneExcl(rows), rowTotal(rows);
  for (int64_t r = 0; r < rows; ++r)
    std::tie(laneExcl[r], rowTotal[r]) = rowFn(b, r, lane);
  // Rows before each row, and the warp aggregate.
  SmallVector<SmallVector<Value>> rowsBefore(rows);
  SmallVector<Value> warpAgg = rowTotal[0];
  for (int64_t r = 1; r < rows; ++r) {
    rowsBefore[r] = warpAgg;
    warpAgg = combine(b, warpAgg, rowTotal[r]);
  }
  auto [warpPrefix, tilePrefix, total] = scanBlock(b, warpAgg, excl0);
  RowScan out;
  out.tilePrefix = tilePrefix;
  out.total = total;
  for (int64_t r = 0; r < rows; ++r) {
    SmallVector<Value> before =
        r == 0 ? warpPrefix : combine(b, warpPrefix, rowsBefore[r]);
    out.rowStart.push_back(
        selAll(b, loc, lane0, before, combine(b, before, laneExcl[r])));
  }
  return out;
}

std::tuple<SmallVector<Value>, SmallVector<Value>, SmallVector<Value>>
TileMachinery::scanBlock(OpBuilder &b, ValueRange warpAgg,
                         ValueRange excl0) {
  Location loc = k.loc;
  Value tid = k.threadId(b);
  Value lane = arith::AndIOp::create(b, loc, tid, cI64(b, loc, 31));
  Value warp = arith::ShRUIOp::create(b, loc, tid, cI64(b, loc, 5));
  Value lastLane =
      cmpI(b, loc, arith::CmpIPredicate::eq, lane, cI64(b, loc, 31));
  scf::IfOp::create(b, loc, lastLane, [&](OpBuilder &ib, Location l) {
    for (auto [s, v] : llvm::zip(smWarp, warpAgg))
      memref::StoreOp::create(ib, l, v, s, ValueRange{toIndex(ib, l, warp)});
    scf::YieldOp::create(ib, l);
  });
  gpu::BarrierOp::create(b, loc);
  // warpsBefore: the fold of the warps before this one, where there are
  // any (warp 0 takes the tile prefix alone), so no identity is needed:
  // a combiner region has none.
  SmallVector<Value> warpsBefore, total;
  for (int64_t w = 0; w < warps(); ++w) {
    SmallVector<Value> x;
    for (Value s : smWarp)
      x.push_back(
          memref::LoadOp::create(b, loc, s, ValueRange{cIdx(b, loc, w)}));
    if (w == 0) {
      warpsBefore = total = x;
      continue;
    }
    Value before =
        cmpI(b, loc, arith::CmpIPredicate::sgt, warp, cI64(b, loc, w));
    warpsBefore =
        selAll(b, loc, before, combine(b, warpsBefore, x), warpsBefore);
    total = combine(b, total, x);
  }

  // Publication and look-back.
  Value first = cmpI(b, loc, arith::CmpIPredicate::eq, tile, cI64(b, loc, 0));
  Value t0 = cmpI(b, loc, arith::CmpIPredicate::eq, tid, cI64(b, loc, 0));
  Value warp0 = cmpI(b, loc, arith::CmpIPredicate::eq, warp, cI64(b, loc, 0));
  auto storePrefix = [&](OpBuilder &sb, Location l, ValueRange v) {
    for (auto [s, x] : llvm::zip(smPrefix, v))
      memref::StoreOp::create(sb, l, x, s, ValueRange{cIdx(sb, l, 0)});
  };
  scf::IfOp::create(
      b, loc, first,
      [&](OpBuilder &ib, Location l) {
        scf::IfOp::create(ib, l, t0, [&](OpBuilder &tb, Location tl) {
          publish(tb, inclArr, combine(tb, excl0, total), tile, 2);
          storePrefix(tb, tl, excl0);
          scf::YieldOp::create(tb, tl);
        });
        scf::YieldOp::create(ib, l);
      },
      [&](OpBuilder &ib, Location l) {
        scf::IfOp::create(ib, l, warp0, [&](OpBuilder &wb, Location wl) {
          scf::IfOp::create(wb, wl, t0, [&](OpBuilder &tb, Location tl) {
            publish(tb, aggArr, total, tile, 1);
            scf::YieldOp::create(tb, tl);
          });
          // The predecessors' status words were likely written about
          // when this one was: a first read right away mostly finds them
          // not ready yet (lookback_delay lets them land).
          if (k.tiling.lookbackDelay > 0)
            NVVM::NanosleepOp::create(wb, wl,
                                      cI32(wb, wl, k.tiling.lookbackDelay));
          SmallVector<Value> prefix = lookBack(wb, lane, excl0);
          scf::IfOp::create(wb, wl, t0, [&](OpBuilder &tb, Location tl) {
            publish(tb, inclArr, combine(tb, prefix, total), tile, 2);
            storePrefix(tb, tl, prefix);
            scf::YieldOp::create(tb, tl);
          });
          scf::YieldOp::create(wb, wl);
        });
        scf::YieldOp::create(ib, l);
      });
  // The tile loop claims the block's next tile here, once this tile's
  // prefix is known (so tiles are handed out in about the order their
  // predecessors finish), and starts its loads right after the barrier:
  // they are in flight while this tile stores its results. (Claiming
  // and loading it before the look-back instead measured much slower:
  // docs/performance.md.)
  if (nextSlot)
    claim(b, nextSlot);
  gpu::BarrierOp::create(b, loc);
  if (onNextTile)
    onNextTile(b, claimed(b, nextSlot));
  SmallVector<Value> tilePrefix;
  for (Value s : smPrefix)
    tilePrefix.push_back(
        memref::LoadOp::create(b, loc, s, ValueRange{cIdx(b, loc, 0)}));
  Value laterWarp =
      cmpI(b, loc, arith::CmpIPredicate::sgt, warp, cI64(b, loc, 0));
  return {selAll(b, loc, laterWarp, combine(b, tilePrefix, warpsBefore),
                 tilePrefix),
          tilePrefix, total};
}

} // namespace gpugen
} // namespace fuse
