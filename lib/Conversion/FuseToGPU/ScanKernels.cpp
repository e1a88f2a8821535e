//===- ScanKernels.cpp - single-pass scan and filter kernels --------------===//
//
// `scan` and `filter` groups become one kernel each: a single-pass prefix
// computation with decoupled look-back (Merrill & Garland, "Single-pass
// Parallel Prefix Scan with Decoupled Look-back", 2016), written for
// determinism:
//
//  * Tiles of `block_threads * items` elements. Tile ids come from an
//    atomic counter (not blockIdx), so every tile with a smaller id is held
//    by a running block when a tile looks back. The host launches at most
//    as many blocks as fit on the GPU; each loops over tiles, claiming its
//    next tile once the current tile's prefix is known and loading it while
//    the current tile stores its results (runTiles).
//  * Warp-striped rows: warp w of the block owns 32 * items consecutive
//    elements as items / vw rows of 32 lanes x vw elements, so every 16-byte
//    vector load and store of a warp is one coalesced 512-byte row (the
//    inputs are loaded once, for both passes). Each row is scanned across
//    the lanes (shfl.up; for filters one ballot per column and popc), rows
//    are folded into the warp aggregate, and the block scans the warp
//    aggregates through shared memory. The tile aggregate is published
//    (flag 1), warp 0 looks back, then the inclusive prefix is published
//    (flag 2). One 8-byte status word per tile holds the flag and, for one
//    value of at most 32 bits or a filter count (< 2^62), the value too, so
//    a look-back window costs one acquire load; it is written with one
//    release store (st.release.gpu / ld.acquire.gpu). Wider values go to
//    slot arrays written before and read after the flag.
//  * Determinism: the exclusive prefix of tile t is always the left fold
//    init (+) A(0) (+) ... (+) A(t-1) of the tile aggregates, whatever the
//    timing: look-back walks back in windows of 32 tiles (one per lane),
//    stashing windows of aggregates in shared memory until it meets an
//    inclusive prefix P(j) = init (+) A(0) (+) ... (+) A(j), then folds
//    P(j) (+) A(j+1) (+) ... (+) A(t-1) in tile order. Inclusive prefixes
//    are themselves such folds, so every path gives the same bits. After
//    kMaxWindows windows without an inclusive prefix the warp waits on the
//    oldest window (the earliest unfinished tile always finishes).
//  * Scan: every lane then rescans its items of each row from the row's
//    prefix (tile prefix (+) earlier warps (+) earlier rows (+) lower
//    lanes) and evaluates the group's results at each element (epilogue
//    maps read the scan results as leaves).
//  * Filter: the same machinery on kept-element counts gives each kept
//    element its output position; the last tile writes the count.
//
// Work space (one buffer from the host, see KernelGen.h): an i32 tile
// counter, one 8-byte status word per tile (both zeroed by the host), then
// per unpacked look-back value an aggregate and an inclusive array of
// 8-byte slots.
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"

#include "fuse/Dialect/Fuse/Utils/ElementEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <optional>

using namespace mlir;

namespace fuse {
namespace gpugen {
namespace {

/// Look-back windows stashed in shared memory before waiting.
constexpr int64_t kMaxWindows = 8;

MemRefType smemTy(MLIRContext *ctx, int64_t n, Type t) {
  return MemRefType::get(
      {n}, t, MemRefLayoutAttrInterface{},
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
}

bool isConstTrue(Value v) {
  if (auto c = v.getDefiningOp<arith::ConstantIntOp>())
    return c.value() != 0;
  return false;
}

using CombineFn = std::function<SmallVector<Value>(OpBuilder &, ValueRange,
                                                   ValueRange)>;

/// One scan/filter kernel under construction: KernelBase plus the current
/// element (enter) whose preloaded operand elements are the lane values;
/// `leaves` hold the scan results at it.
struct TileKernel : KernelBase {
  using KernelBase::KernelBase;
  using KernelBase::element;

  /// Enters element `idx` (i64); `vals` are preloaded operand elements.
  void enter(OpBuilder &b, Value idx, const DenseMap<unsigned, Value> &vals) {
    em->clearCache();
    laneIndex = toIndex(b, loc, idx);
    laneValue = vals;
  }
  /// `tensor`'s element at the current element.
  Value element(OpBuilder &b, Value tensor) {
    return element(b, tensor, laneIndex);
  }
};

/// Items per thread, a multiple of `vw`, at most 32: fuse.tiling's
/// items_per_thread, or without it about `unroll` 16-byte chunks. (Before,
/// the tiling's items were read back through `unroll` as chunks of at least
/// 4 elements, which doubled them for 8-byte elements: an f64 filter asked
/// for 10 items got 20, too many to stage, and spilled 468 bytes.)
int64_t itemsPerThread(const Tiling &t, int64_t vw) {
  int64_t items =
      t.items > 0 ? std::min<int64_t>(t.items, 32)
                  : std::clamp<int64_t>(t.unroll * std::max<int64_t>(vw, 4),
                                        1, 32);
  return std::max<int64_t>(vw, items / vw * vw);
}

/// The pieces shared by scan and filter kernels.
struct TileMachinery {
  TileMachinery(TileKernel &k, int64_t items, int64_t vw)
      : k(k), items(items), vw(vw) {}
  TileKernel &k;
  int64_t items, vw;
  SmallVector<Type> valTypes; // look-back value types
  SmallVector<Value> identity;
  CombineFn combine;
  // Workgroup buffers.
  Value smTile;                  // memref<2xi64>: claimed tile ids
  SmallVector<Value> smWarp;     // memref<warps x T>
  SmallVector<Value> smPrefix;   // memref<1 x T>
  SmallVector<Value> smStash;    // memref<kMaxWindows*32 x T>
  /// How a tile's status word (one i64 per tile, zeroed by the host) holds
  /// the published value: NotPacked (the word is the flag; values in the
  /// slot arrays, read after the flag), Low32 (one value of at most 32 bits
  /// in the low half, the flag in the high half) or Top2 (one non-negative
  /// i64 below 2^62, e.g. a filter's count, with the flag in bits 62-63).
  /// A packed word carries everything a reader needs, so it is written
  /// and read with relaxed gpu-scope atomics (st/ld.relaxed.gpu): no fence
  /// waits for the thread's earlier stores, and each look-back window costs
  /// one round trip. Unpacked slots are written before a release store of
  /// the flag and read after an acquire load of it.
  enum class Packing { NotPacked, Low32, Top2 } packing = Packing::NotPacked;
  /// The combine is exactly associative and commutative (integer kinds,
  /// filter counts): the look-back folds its window with a warp tree
  /// instead of the tile-ordered left fold that float sums need.
  bool orderFree = false;
  // Params.
  Value n, aligned, ws;
  // Derived.
  Value tile, tileStart, threadStart, full, flags;
  SmallVector<Value> aggArr, inclArr;
  /// Set by runTiles for scanBlock: the smTile slot of the next tile's
  /// claim and the hook that starts its loads.
  Value nextSlot;
  std::function<void(OpBuilder &, Value)> onNextTile;

  int64_t warps() const { return k.tiling.blockThreads / 32; }

  /// The index, counted in vw-element vectors, of this thread's vector `c`
  /// (row c) of the current tile: what a full tile loads and stages.
  Value vectorIndex(OpBuilder &b, int64_t c) {
    Value first = arith::DivUIOp::create(b, k.loc, threadStart,
                                         cI64(b, k.loc, vw));
    return arith::AddIOp::create(b, k.loc, first, cI64(b, k.loc, c * 32));
  }

  /// The tile element of item `j` of this thread (row j / vw, element
  /// j % vw of the lane's vector in that row).
  Value itemIndex(OpBuilder &b, int64_t j) {
    return arith::AddIOp::create(
        b, k.loc, threadStart,
        cI64(b, k.loc, (j / vw) * 32 * vw + j % vw));
  }

  /// Thread 0 claims the next tile id from the work space's counter into
  /// smTile[slot]; the caller's barrier publishes it to the block.
  void claim(OpBuilder &b, Value slot) {
    Location loc = k.loc;
    Value t0 = cmpI(b, loc, arith::CmpIPredicate::eq, k.threadId(b),
                    cI64(b, loc, 0));
    scf::IfOp::create(b, loc, t0, [&](OpBuilder &tb, Location l) {
      Value id = LLVM::AtomicRMWOp::create(
          tb, l, LLVM::AtomicBinOp::add, ws, cI32(tb, l, 1),
          LLVM::AtomicOrdering::monotonic, "device");
      memref::StoreOp::create(
          tb, l, arith::ExtUIOp::create(tb, l, tb.getI64Type(), id), smTile,
          ValueRange{toIndex(tb, l, slot)});
      scf::YieldOp::create(tb, l);
    });
  }
  Value claimed(OpBuilder &b, Value slot) {
    return memref::LoadOp::create(b, k.loc, smTile,
                                  ValueRange{toIndex(b, k.loc, slot)});
  }

  /// The work-space arrays (see the file comment).
  void setUpWorkspace(OpBuilder &b, Value ntiles) {
    Location loc = k.loc;
    // Layout: [0,16) counter, 8-byte status words at 16, then 8-byte slot
    // arrays (unused when packed).
    Type i8 = b.getI8Type();
    flags = k.gep(b, ws, i8, cI64(b, loc, 16));
    Value flagBytes = arith::AndIOp::create(
        b, loc,
        arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, ntiles, cI64(b, loc, 8)),
            cI64(b, loc, 15)),
        cI64(b, loc, ~int64_t(15)));
    Value off = arith::AddIOp::create(b, loc, cI64(b, loc, 16), flagBytes);
    Value arrBytes = arith::MulIOp::create(b, loc, ntiles, cI64(b, loc, 8));
    for (size_t i = 0; i < valTypes.size(); ++i) {
      aggArr.push_back(k.gep(b, ws, i8, off));
      off = arith::AddIOp::create(b, loc, off, arrBytes);
    }
    for (size_t i = 0; i < valTypes.size(); ++i) {
      inclArr.push_back(k.gep(b, ws, i8, off));
      off = arith::AddIOp::create(b, loc, off, arrBytes);
    }
  }

  /// Makes `t` the current tile: its start, the thread's first element
  /// and whether it is full (every item valid and, with vectors, every
  /// pointer 16-byte aligned).
  void setTile(OpBuilder &b, Value t) {
    Location loc = k.loc;
    tile = t;
    Value tileItems = cI64(b, loc, k.tiling.blockThreads * items);
    tileStart = arith::MulIOp::create(b, loc, tile, tileItems);
    // Warp-striped rows: warp w owns elements [w*32*items, (w+1)*32*items)
    // of the tile, as items/vw rows of 32 lanes x vw consecutive elements;
    // lane l's row r starts at r*32*vw + l*vw. Every vector load and store
    // of a warp is one coalesced 512-byte row.
    Value tid = k.threadId(b);
    Value warpBase = arith::AddIOp::create(
        b, loc, tileStart,
        arith::MulIOp::create(
            b, loc, arith::ShRUIOp::create(b, loc, tid, cI64(b, loc, 5)),
            cI64(b, loc, 32 * items)));
    threadStart = arith::AddIOp::create(
        b, loc, warpBase,
        arith::MulIOp::create(
            b, loc, arith::AndIOp::create(b, loc, tid, cI64(b, loc, 31)),
            cI64(b, loc, vw)));
    Value tileEnd = arith::AddIOp::create(b, loc, tileStart, tileItems);
    full = cmpI(b, loc, arith::CmpIPredicate::sle, tileEnd, n);
    if (vw > 1)
      full = arith::AndIOp::create(
          b, loc, full,
          cmpI(b, loc, arith::CmpIPredicate::ne, aligned, cI32(b, loc, 0)));
  }

  Value slotPtr(OpBuilder &b, Value arr, Value idx) {
    return k.gep(b, arr, b.getI64Type(), idx);
  }
  /// The status word of a value `v` with `flag` (packed modes).
  Value pack(OpBuilder &b, Value v, int64_t flag) {
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
  /// (flag as i32, value) of a packed status word.
  std::pair<Value, Value> unpack(OpBuilder &b, Value w) {
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
  void publish(OpBuilder &b, ArrayRef<Value> arrs, ValueRange vals, Value t,
               int64_t flag) {
    Location loc = k.loc;
    Value word;
    if (packing != Packing::NotPacked) {
      word = pack(b, vals[0], flag);
    } else {
      for (auto [a, v] : llvm::zip(arrs, vals))
        LLVM::StoreOp::create(b, loc, v, slotPtr(b, a, t), 8);
      word = cI64(b, loc, flag);
    }
    Value fp = k.gep(b, flags, b.getI64Type(), t);
    LLVM::StoreOp::create(b, loc, word, fp, 8, false, false, false,
                          packing == Packing::NotPacked
                              ? LLVM::AtomicOrdering::release
                              : LLVM::AtomicOrdering::monotonic,
                          "device");
  }

  /// Warp 0 (all lanes, tile >= 1): the exclusive prefix of the tile as a
  /// left fold of the predecessors' aggregates (see the file comment).
  SmallVector<Value> lookBack(OpBuilder &b, Value lane, ValueRange excl0) {
    Location loc = k.loc;
    Type i64 = b.getI64Type(), i32 = b.getI32Type();
    SmallVector<Type> condTypes{i64, i64, i64};
    condTypes.append(valTypes.begin(), valTypes.end());
    Value start = arith::SubIOp::create(b, loc, tile, cI64(b, loc, 1));
    auto loop = scf::WhileOp::create(
        b, loc, condTypes, ValueRange{start, cI64(b, loc, 0)},
        [&](OpBuilder &wb, Location l, ValueRange args) {
          Value base = args[0], nw = args[1];
          Value j = arith::SubIOp::create(wb, l, base, lane);
          Value real = cmpI(wb, l, arith::CmpIPredicate::sge, j,
                            cI64(wb, l, 0));
          auto rd = scf::IfOp::create(
              wb, l, real,
              [&](OpBuilder &rb, Location rl) {
                Value w = LLVM::LoadOp::create(
                    rb, rl, i64, k.gep(rb, flags, i64, j), 8, false, false,
                    false, false,
                    packing == Packing::NotPacked
                        ? LLVM::AtomicOrdering::acquire
                        : LLVM::AtomicOrdering::monotonic,
                    "device");
                if (packing != Packing::NotPacked) {
                  auto [f, v] = unpack(rb, w);
                  scf::YieldOp::create(rb, rl, ValueRange{f, v});
                  return;
                }
                Value f = arith::TruncIOp::create(rb, rl, i32, w);
                Value isIncl =
                    cmpI(rb, rl, arith::CmpIPredicate::eq, f, cI32(rb, rl, 2));
                SmallVector<Value> out{f};
                for (auto [ti, t] : llvm::enumerate(valTypes)) {
                  // Reads after the acquire; the slot read is chosen by the
                  // flag (aggregates of flag-0 tiles are never used).
                  Value pa = slotPtr(rb, aggArr[ti], j);
                  Value pi = slotPtr(rb, inclArr[ti], j);
                  Value p = LLVM::SelectOp::create(rb, rl, isIncl, pi, pa);
                  out.push_back(LLVM::LoadOp::create(rb, rl, t, p, 8, true));
                }
                scf::YieldOp::create(rb, rl, out);
              },
              [&](OpBuilder &rb, Location rl) {
                SmallVector<Value> out{cI32(rb, rl, 2)};
                out.append(excl0.begin(), excl0.end());
                scf::YieldOp::create(rb, rl, out);
              });
          Value f = rd.getResult(0);
          SmallVector<Value> vals(rd.getResults().drop_front());
          Value full = cI32(wb, l, -1);
          auto ballot = [&](Value pred) {
            return NVVM::VoteSyncOp::create(wb, l, i32, full, pred,
                                            NVVM::VoteSyncKind::ballot)
                .getResult();
          };
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
        },
        [&](OpBuilder &ab, Location l, ValueRange args) {
          scf::YieldOp::create(ab, l, ValueRange{args[0], args[1]});
        });
    Value nw = loop.getResult(1);
    Value nearest = loop.getResult(2);
    SmallVector<Value> vals(loop.getResults().drop_front(3));
    // Stashed values are read by other lanes.
    NVVM::SyncWarpOp::create(b, loc, cI32(b, loc, -1));
    if (orderFree) {
      // Any association gives the same bits: each lane folds its own
      // values (an aggregate newer than the inclusive prefix, the inclusive
      // prefix itself at lane `nearest`, its column of the stashed windows)
      // and a butterfly combines the lanes.
      Value mineOk = cmpI(b, loc, arith::CmpIPredicate::sle, lane, nearest);
      SmallVector<Value> mine = selAll(b, loc, mineOk, vals, identity);
      auto cols = scf::ForOp::create(
          b, loc, cI64(b, loc, 0), nw, cI64(b, loc, 1), mine,
          [&](OpBuilder &fb, Location l, Value w, ValueRange a) {
            Value at = toIndex(
                fb, l,
                arith::AddIOp::create(
                    fb, l, arith::MulIOp::create(fb, l, w, cI64(fb, l, 32)),
                    lane));
            SmallVector<Value> x;
            for (Value st : smStash)
              x.push_back(memref::LoadOp::create(fb, l, st, ValueRange{at}));
            scf::YieldOp::create(fb, l, combine(fb, a, x));
          });
      return warpFold(b, loc, SmallVector<Value>(cols.getResults()),
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

  /// Per-row scans of the items `xs` (items x values; `valid` per item)
  /// within the warp, then the block and the look-back: returns, per row,
  /// the prefix of everything before the lane's first item of that row
  /// (tile prefix, earlier warps, earlier rows, lower lanes), and the tile's
  /// exclusive prefix and aggregate. The fold order is fixed, so the results
  /// do not depend on timing.
  struct RowScan {
    SmallVector<SmallVector<Value>> rowStart;
    SmallVector<Value> tilePrefix, total;
  };
  /// Per row: (the fold of the lower lanes' items, the row's fold).
  using RowFn = function_ref<std::pair<SmallVector<Value>, SmallVector<Value>>(
      OpBuilder &, int64_t row, Value lane)>;

  /// scanRows with a generic in-warp scan of the items' values.
  RowScan scanRows(OpBuilder &b, ArrayRef<SmallVector<Value>> xs,
                   ArrayRef<Value> valid, ValueRange excl0) {
    return scanRows(
        b,
        [&](OpBuilder &rb, int64_t r, Value lane) {
          return warpRowScan(rb, xs, valid, r, lane);
        },
        excl0);
  }

  /// The lane exclusive fold and the row fold of row `r` by a warp scan
  /// (Kogge-Stone over shfl.up) of the lanes' folds of their vw items.
  std::pair<SmallVector<Value>, SmallVector<Value>>
  warpRowScan(OpBuilder &b, ArrayRef<SmallVector<Value>> xs,
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
      // Inclusive warp scan over the lanes (Kogge-Stone, shfl.up).
      SmallVector<Value> incl(agg);
      for (int64_t off = 1; off < 32; off *= 2) {
        SmallVector<Value> up;
        for (Value v : incl)
          up.push_back(
              shuffleValue(b, loc, v, cI32(b, loc, off), gpu::ShuffleMode::UP));
        SmallVector<Value> c = combine(b, up, incl);
        Value ok = cmpI(b, loc, arith::CmpIPredicate::sge, lane,
                        cI64(b, loc, off));
        incl = selAll(b, loc, ok, c, incl);
      }
      for (Value v : incl) {
        laneExcl.push_back(
            shuffleValue(b, loc, v, cI32(b, loc, 1), gpu::ShuffleMode::UP));
        rowTotal.push_back(
            shuffleValue(b, loc, v, cI32(b, loc, 31), gpu::ShuffleMode::IDX));
      }
    }
    return {laneExcl, rowTotal};
  }

  RowScan scanRows(OpBuilder &b, RowFn rowFn, ValueRange excl0) {
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

  /// Block-wide exclusive scan of the warp aggregates `warpAgg` (the same
  /// in every lane of a warp), the tile's exclusive prefix from look-back,
  /// and the tile aggregate. Returns (warp prefix = tilePrefix (+) earlier
  /// warps, tilePrefix, total).
  std::tuple<SmallVector<Value>, SmallVector<Value>, SmallVector<Value>>
  scanBlock(OpBuilder &b, ValueRange warpAgg, ValueRange excl0) {
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
    SmallVector<Value> warpExcl(identity), total;
    for (int64_t w = 0; w < warps(); ++w) {
      SmallVector<Value> x;
      for (Value s : smWarp)
        x.push_back(
            memref::LoadOp::create(b, loc, s, ValueRange{cIdx(b, loc, w)}));
      Value before =
          cmpI(b, loc, arith::CmpIPredicate::sgt, warp, cI64(b, loc, w));
      warpExcl = selAll(b, loc, before, combine(b, warpExcl, x), warpExcl);
      total = w == 0 ? x : combine(b, total, x);
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
    return {combine(b, tilePrefix, warpExcl), tilePrefix, total};
  }
};

/// Workgroup buffers of a tile kernel with look-back values `valTypes`.
SmallVector<Type> workgroupTypes(MLIRContext *ctx, int64_t warps,
                                 ArrayRef<Type> valTypes) {
  SmallVector<Type> t{smemTy(ctx, 2, IntegerType::get(ctx, 64))};
  for (Type v : valTypes)
    t.push_back(smemTy(ctx, warps, v));
  for (Type v : valTypes)
    t.push_back(smemTy(ctx, 1, v));
  for (Type v : valTypes)
    t.push_back(smemTy(ctx, kMaxWindows * 32, v));
  return t;
}

void bindWorkgroup(TileMachinery &tm, gpu::GPUFuncOp f) {
  auto wg = f.getWorkgroupAttributions();
  size_t nv = tm.valTypes.size();
  tm.smTile = wg[0];
  for (size_t i = 0; i < nv; ++i) {
    tm.smWarp.push_back(wg[1 + i]);
    tm.smPrefix.push_back(wg[1 + nv + i]);
    tm.smStash.push_back(wg[1 + 2 * nv + i]);
  }
}

/// The elements of the direct operands at every item of the thread, loaded
/// once for both passes: 16-byte vector loads of whole rows when the tile
/// is `full` (and aligned), else guarded scalar loads (zero where the item
/// is past the end). Result: per item, operand number -> element.
using ItemVals = SmallVector<DenseMap<unsigned, Value>>;
ItemVals loadItems(TileKernel &k, TileMachinery &tm, OpBuilder &b,
                   Value full) {
  Location loc = k.loc;
  SmallVector<unsigned> direct = k.directOperands();
  SmallVector<Type> types;
  for (int64_t j = 0; j < tm.items; ++j)
    for (unsigned a : direct)
      types.push_back(tensorTy(k.body.getArgument(a)).getElementType());
  auto ifOp = scf::IfOp::create(
      b, loc, full,
      [&](OpBuilder &vb, Location l) {
        DenseMap<unsigned, SmallVector<Value>> vecs;
        for (unsigned a : direct) {
          Type et = tensorTy(k.body.getArgument(a)).getElementType();
          Type vt = tm.vw > 1 ? Type(VectorType::get({tm.vw}, et)) : et;
          for (int64_t c = 0; c < tm.items / tm.vw; ++c)
            vecs[a].push_back(k.load(vb, vt, k.ptr[a], tm.vectorIndex(vb, c)));
        }
        SmallVector<Value> out;
        for (int64_t j = 0; j < tm.items; ++j)
          for (unsigned a : direct) {
            Value v = vecs[a][j / tm.vw];
            if (tm.vw > 1)
              v = LLVM::ExtractElementOp::create(vb, l, v,
                                                 cI32(vb, l, j % tm.vw));
            out.push_back(v);
          }
        scf::YieldOp::create(vb, l, out);
      },
      [&](OpBuilder &sb, Location l) {
        SmallVector<Value> out;
        for (int64_t j = 0; j < tm.items; ++j) {
          Value idx = tm.itemIndex(sb, j);
          Value valid = cmpI(sb, l, arith::CmpIPredicate::slt, idx, tm.n);
          for (unsigned a : direct) {
            Type et = tensorTy(k.body.getArgument(a)).getElementType();
            auto ld = scf::IfOp::create(
                sb, l, valid,
                [&](OpBuilder &tb, Location tl) {
                  scf::YieldOp::create(
                      tb, tl, ValueRange{k.load(tb, et, k.ptr[a], idx)});
                },
                [&](OpBuilder &eb, Location el) {
                  Value zero = arith::ConstantOp::create(
                      eb, el, cast<TypedAttr>(eb.getZeroAttr(et)));
                  scf::YieldOp::create(eb, el, zero);
                });
            out.push_back(ld.getResult(0));
          }
        }
        scf::YieldOp::create(sb, l, out);
      });
  ItemVals vals(tm.items);
  unsigned r = 0;
  for (int64_t j = 0; j < tm.items; ++j)
    for (unsigned a : direct)
      vals[j][a] = ifOp.getResult(r++);
  return vals;
}

/// The per-thread element loop in two flavours: `full` (whole tile,
/// aligned: every item valid, results stored as vectors) or guarded
/// elements. `perItem(b, j, idx, valid, vals, carried)` is called for item
/// j with its preloaded operand elements and returns the values carried to
/// the next item.
using ItemFn = function_ref<SmallVector<Value>(
    OpBuilder &, int64_t j, Value idx, Value valid,
    const DenseMap<unsigned, Value> &vals, ValueRange carried)>;

SmallVector<Value> forItems(TileKernel &k, TileMachinery &tm, OpBuilder &b,
                            Value full, const ItemVals &vals,
                            ValueRange init, ItemFn perItem) {
  Location loc = k.loc;
  auto ifOp = scf::IfOp::create(
      b, loc, full,
      [&](OpBuilder &vb, Location l) {
        SmallVector<Value> carried(init);
        Value yes = arith::ConstantIntOp::create(vb, l, vb.getI1Type(), 1);
        for (int64_t j = 0; j < tm.items; ++j)
          carried = perItem(vb, j, tm.itemIndex(vb, j), yes, vals[j], carried);
        scf::YieldOp::create(vb, l, carried);
      },
      [&](OpBuilder &sb, Location l) {
        SmallVector<Value> carried(init);
        for (int64_t j = 0; j < tm.items; ++j) {
          Value idx = tm.itemIndex(sb, j);
          Value valid = cmpI(sb, l, arith::CmpIPredicate::slt, idx, tm.n);
          carried = perItem(sb, j, idx, valid, vals[j], carried);
        }
        scf::YieldOp::create(sb, l, carried);
      });
  return SmallVector<Value>(ifOp.getResults());
}

/// Bytes of dynamic shared memory a block needs to stage one tile of its
/// direct operands (runTiles' staged mode), or 0 when tiles are not staged:
/// the tiling does not ask for it (stage_tiles), scalar elements (cp.async
/// copies 16-byte vectors), or more than 32 KiB a block. Larger tiles are
/// held in registers: staged 1024-thread tiles (64 KiB, one block per SM)
/// measured slower than in registers and than 256-thread staged tiles
/// (docs/performance.md).
int64_t stagedTileBytes(TileKernel &k, const TileMachinery &tm) {
  if (!k.tiling.stageTiles || tm.vw <= 1)
    return 0;
  int64_t bytes = 0;
  for (unsigned a : k.directOperands())
    bytes += tm.items * k.tiling.blockThreads *
             byteWidth(tensorTy(k.body.getArgument(a)).getElementType());
  return bytes <= 32 * 1024 ? bytes : 0;
}

/// The tile loop. Each block claims tiles from the work-space counter
/// until they run out (the host launches no more blocks than fit on the
/// GPU at once, so a block handles many tiles). The loads of the block's
/// next tile are issued right after the current tile's first barrier
/// (scanBlock's hook): they are in flight during the look-back and the
/// current tile's stores, which is what keeps DRAM busy while warp 0
/// waits on its predecessors. `body` builds one tile from its preloaded
/// items (tm's current tile set) and must call scanRows once.
/// No deadlock: a block claims its next tile only while it holds a
/// smaller, unfinished one, so the smallest unfinished tile is always some
/// block's current tile, and its look-back waits only on finished tiles.
/// Claims alternate between the two smTile slots: the slot a claim writes
/// was last read before the previous tile's second barrier. With
/// tiling.stageTiles the next tile waits in shared memory instead.
void runTiles(TileKernel &k, TileMachinery &tm, OpBuilder &b, Value ntiles,
              function_ref<void(OpBuilder &, const ItemVals &)> body) {
  Location loc = k.loc;
  SmallVector<unsigned> direct = k.directOperands();
  auto flatten = [&](const ItemVals &iv) {
    SmallVector<Value> out;
    for (int64_t j = 0; j < tm.items; ++j)
      for (unsigned a : direct)
        out.push_back(iv[j].lookup(a));
    return out;
  };
  auto unflatten = [&](ValueRange flat) {
    ItemVals iv(tm.items);
    unsigned r = 0;
    for (int64_t j = 0; j < tm.items; ++j)
      for (unsigned a : direct)
        iv[j][a] = flat[r++];
    return iv;
  };
  // Staged mode (tiling.stageTiles): the next tile's 16-byte vectors go
  // to shared memory with cp.async (no registers held across the current
  // tile's stores), one slot per thread and vector, thread-major so the
  // read-back is conflict-free; each thread reads back only its own slots,
  // so cp.async.wait_group 0 is the only synchronization. Tiles that are
  // not full (the last one, unaligned inputs) are loaded directly.
  int64_t stageBytes = stagedTileBytes(k, tm);
  Value stageBase;
  if (stageBytes)
    stageBase = dynamicSharedBase(k.func, b, k.loc);
  int64_t chunks = tm.items / tm.vw;
  // The shared-memory slot of vector `c` of operand number `ai` (position
  // in `direct`) of this thread.
  auto slot = [&](OpBuilder &sb, unsigned ai, int64_t c) {
    Value i = arith::AddIOp::create(
        sb, loc, cI64(sb, loc, (ai * chunks + c) * k.tiling.blockThreads),
        k.threadId(sb));
    return LLVM::GEPOp::create(
        sb, loc, stageBase.getType(), sb.getI8Type(), stageBase,
        ArrayRef<LLVM::GEPArg>{
            arith::MulIOp::create(sb, loc, i, cI64(sb, loc, 16)).getResult()});
  };
  auto vecType = [&](unsigned a) {
    return VectorType::get({tm.vw},
                           tensorTy(k.body.getArgument(a)).getElementType());
  };
  Value falseV = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);

  Value slot0 = cI64(b, loc, 0);
  tm.claim(b, slot0);
  gpu::BarrierOp::create(b, loc);
  Value first = tm.claimed(b, slot0);
  tm.setTile(b, first);
  SmallVector<Value> init{first, slot0};
  if (stageBytes)
    init.push_back(falseV);
  else
    init.append(flatten(loadItems(k, tm, b, tm.full)));
  SmallVector<Type> types(ValueRange(init).getTypes());
  scf::WhileOp::create(
      b, loc, types, init,
      [&](OpBuilder &cb, Location l, ValueRange args) {
        Value more = cmpI(cb, l, arith::CmpIPredicate::slt, args[0], ntiles);
        scf::ConditionOp::create(cb, l, more, args);
      },
      [&](OpBuilder &bb, Location l, ValueRange args) {
        tm.setTile(bb, args[0]);
        Value iter1 = arith::AddIOp::create(bb, l, args[1], cI64(bb, l, 1));
        tm.nextSlot = arith::AndIOp::create(bb, l, iter1, cI64(bb, l, 1));
        ItemVals cur;
        if (stageBytes) {
          // This tile's items: from the staging slots when the previous
          // iteration copied them there, else from global memory.
          SmallVector<Type> et;
          for (int64_t j = 0; j < tm.items; ++j)
            for (unsigned a : direct)
              et.push_back(tensorTy(k.body.getArgument(a)).getElementType());
          auto ifOp = scf::IfOp::create(
              bb, l, args[2],
              [&](OpBuilder &tb, Location tl) {
                NVVM::CpAsyncWaitGroupOp::create(tb, tl, 0);
                DenseMap<unsigned, SmallVector<Value>> vecs;
                for (auto [ai, a] : llvm::enumerate(direct))
                  for (int64_t c = 0; c < chunks; ++c)
                    vecs[a].push_back(LLVM::LoadOp::create(
                        tb, tl, vecType(a), slot(tb, ai, c), 16));
                SmallVector<Value> out;
                for (int64_t j = 0; j < tm.items; ++j)
                  for (unsigned a : direct)
                    out.push_back(LLVM::ExtractElementOp::create(
                        tb, tl, vecs[a][j / tm.vw], cI32(tb, tl, j % tm.vw)));
                scf::YieldOp::create(tb, tl, out);
              },
              [&](OpBuilder &eb, Location el) {
                scf::YieldOp::create(
                    eb, el, flatten(loadItems(k, tm, eb, tm.full)));
              });
          cur = unflatten(ifOp.getResults());
        } else {
          cur = unflatten(args.drop_front(2));
        }
        SmallVector<Value> next;
        tm.onNextTile = [&](OpBuilder &nb, Value t) {
          Value saved[] = {tm.tile, tm.tileStart, tm.threadStart, tm.full};
          tm.setTile(nb, t);
          next = {t, iter1};
          if (stageBytes) {
            Value nextFull = tm.full;
            scf::IfOp::create(nb, loc, nextFull,
                              [&](OpBuilder &tb, Location tl) {
              for (auto [ai, a] : llvm::enumerate(direct))
                for (int64_t c = 0; c < chunks; ++c) {
                  Value src = k.gep(tb, k.ptr[a], vecType(a),
                                    tm.vectorIndex(tb, c));
                  NVVM::CpAsyncOp::create(
                      tb, tl, slot(tb, ai, c), src, tb.getI32IntegerAttr(16),
                      NVVM::LoadCacheModifierKindAttr::get(
                          tb.getContext(), NVVM::LoadCacheModifierKind::CG),
                      Value());
                }
              NVVM::CpAsyncCommitGroupOp::create(tb, tl);
              scf::YieldOp::create(tb, tl);
            });
            next.push_back(nextFull);
          } else {
            next.append(flatten(loadItems(k, tm, nb, tm.full)));
          }
          std::tie(tm.tile, tm.tileStart, tm.threadStart, tm.full) =
              std::make_tuple(saved[0], saved[1], saved[2], saved[3]);
        };
        body(bb, cur);
        tm.nextSlot = Value();
        tm.onNextTile = nullptr;
        assert(next.size() == args.size() && "the tile body scans once");
        scf::YieldOp::create(bb, l, next);
      });
}

/// Computes `fn` under `valid` (scalar flavour) or directly; `dflt` gives
/// the values when not valid.
SmallVector<Value> guarded(OpBuilder &b, Location loc, Value valid,
                           bool alwaysValid, ValueRange dflt,
                           function_ref<SmallVector<Value>(OpBuilder &)> fn) {
  if (alwaysValid)
    return fn(b);
  auto ifOp = scf::IfOp::create(
      b, loc, valid,
      [&](OpBuilder &tb, Location l) { scf::YieldOp::create(tb, l, fn(tb)); },
      [&](OpBuilder &eb, Location l) { scf::YieldOp::create(eb, l, dflt); });
  return SmallVector<Value>(ifOp.getResults());
}

LogicalResult checkRank1(GroupOp group, StringRef what) {
  auto bad = [&](Value v) {
    auto t = tensorTy(v);
    return t && t.getRank() > 1;
  };
  Block &body = group.getBody().front();
  for (BlockArgument a : body.getArguments())
    if (bad(a))
      return group.emitOpError("GPU code generation: a ")
             << what << " group over rank > 1 tensors is not supported yet";
  for (Operation &op : body) {
    for (Value r : op.getResults())
      if (bad(r))
        return group.emitOpError("GPU code generation: a ")
               << what << " group over rank > 1 tensors is not supported yet";
    if (isa<ReduceOp>(op))
      return op.emitOpError("GPU code generation: a reduction cannot be part "
                            "of a ")
             << what << " group";
    if (auto bc = dyn_cast<BroadcastOp>(op))
      if (tensorTy(bc.getInput()).getRank() != 0)
        return op.emitOpError("GPU code generation: only rank-0 broadcasts "
                              "are supported in a ")
               << what << " group";
  }
  for (Value y : group.getYield().getValues())
    if (tensorTy(y).getRank() != 1)
      return group.emitOpError("GPU code generation: every result of a ")
             << what << " group must be rank 1";
  return success();
}

/// Resident blocks per SM a tile kernel is built for. Staged tiles hold no
/// prefetched items in registers: 1024 threads (64 registers a thread);
/// else 768 (85 registers a thread). 0 when one block has more threads.
int64_t tileBlocksPerSM(const Tiling &tiling, bool staged) {
  return (staged ? 1024 : 768) / tiling.blockThreads;
}

/// Resident blocks (tileBlocksPerSM) as the kernel's minimum: ptxas
/// otherwise aims at 4 blocks of 256 threads (64 registers) and spills the
/// loaded items; fewer blocks leave DRAM idle during the look-back.
void setTileOccupancy(gpu::GPUFuncOp f, const Tiling &tiling, bool staged) {
  int64_t blocks = tileBlocksPerSM(tiling, staged);
  if (blocks >= 1)
    f->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
               OpBuilder(f.getContext()).getI32IntegerAttr(blocks));
}

/// The one `OpT` (fuse.scan or fuse.filter, named `what`) of a scan or
/// filter group, after checking the group's shapes (checkRank1).
template <typename OpT>
FailureOr<OpT> theOneOp(GroupOp group, StringRef what) {
  OpT found;
  for (Operation &op : group.getBody().front())
    if (auto o = dyn_cast<OpT>(op)) {
      if (found)
        return group.emitOpError("GPU code generation: a ")
               << what << " group takes one fuse." << what;
      found = o;
    }
  if (!found)
    return group.emitOpError("GPU code generation: a ")
           << what << " group needs a fuse." << what;
  if (failed(checkRank1(group, what)))
    return failure();
  return found;
}

SmallVector<Type> tileParams(GroupOp group, unsigned numOuts) {
  MLIRContext *ctx = group.getContext();
  SmallVector<Type> types = commonParams(group);
  auto i64 = IntegerType::get(ctx, 64);
  types.append({i64, i64, IntegerType::get(ctx, 32), globalPtr(ctx)});
  types.append(numOuts, globalPtr(ctx));
  return types;
}

} // namespace


FailureOr<GroupKernels> buildScanGroup(gpu::GPUModuleOp m, GroupOp group,
                                       StringRef prefix,
                                       const Tiling &tiling) {
  Location loc = group.getLoc();
  MLIRContext *ctx = group.getContext();
  {
    // Rank > 1 scans take the line-scan kernel (one scan per group, as
    // theOneOp checks for the single-pass kernel).
    SmallVector<ScanOp> scans(group.getBody().front().getOps<ScanOp>());
    if (scans.size() == 1 && tensorTy(scans[0].getInputs()[0]).getRank() > 1)
      return buildLineScan(m, group, scans[0], prefix, tiling);
  }
  FailureOr<ScanOp> found = theOneOp<ScanOp>(group, "scan");
  if (failed(found))
    return failure();
  ScanOp scan = *found;
  if (!scan.hasBuiltinKinds())
    return scan.emitOpError("GPU code generation: custom combiner regions are "
                            "not supported yet in scans; use built-in kinds");

  GroupKernels gk;
  gk.plan = GroupPlan::Scan;
  gk.tiling = tiling;
  gk.vectorWidth = flatVectorWidth(group, tiling);
  int64_t items = itemsPerThread(tiling, gk.vectorWidth);
  gk.tileItems = tiling.blockThreads * items;
  gk.kernel = (prefix + "_scan").str();
  SmallVector<Type> valTypes;
  for (Value in : scan.getInputs())
    valTypes.push_back(tensorTy(in).getElementType());
  gk.statusTypes = valTypes;
  unsigned numOuts = group.getNumResults();
  int64_t warps = tiling.blockThreads / 32;

  auto f = createKernel(m, loc, gk.kernel, tileParams(group, numOuts),
                     workgroupTypes(ctx, warps, valTypes),
                     tiling.blockThreads);
  TileKernel k(group, loc, tiling);
  k.func = f;
  OpBuilder b = OpBuilder::atBlockBegin(&f.getBody().front());
  k.setUp(b);
  TileMachinery tm(k, items, gk.vectorWidth);
  gk.dynamicSharedBytes = stagedTileBytes(k, tm);
  setTileOccupancy(f, tiling, gk.dynamicSharedBytes > 0);
  tm.valTypes = valTypes;
  if (valTypes.size() == 1 && valTypes[0].getIntOrFloatBitWidth() <= 32)
    tm.packing = TileMachinery::Packing::Low32;
  tm.orderFree = llvm::all_of(valTypes, [](Type t) { return t.isInteger(); });
  for (auto [i, in] : llvm::enumerate(scan.getInputs()))
    tm.identity.push_back(arith::ConstantOp::create(
        b, loc,
        getKindIdentity(scan.getKind(i), tensorTy(in).getElementType())));
  auto scalarFn = [&](OpBuilder &sb) {
    return [&k, &sb](Value v) { return k.scalar(sb, v); };
  };
  tm.combine = [&](OpBuilder &cb, ValueRange a, ValueRange x) {
    return emitCombine(cb, loc, scan, a, x, scalarFn(cb));
  };
  bindWorkgroup(tm, f);
  tm.n = k.extra[0];
  Value ntiles = k.extra[1];
  tm.aligned = k.extra[2];
  tm.ws = k.extra[3];
  ValueRange outs = ValueRange(k.extra).drop_front(4);
  tm.setUpWorkspace(b, ntiles);
  SmallVector<Value> excl0 =
      scan.getInits().empty()
          ? SmallVector<Value>(tm.identity)
          : emitInitialAccumulators(b, loc, scan, scalarFn(b));

  unsigned ni = scan.getInputs().size();
  auto yields = group.getYield().getValues();
  bool exclusive = scan.getExclusive();
  runTiles(k, tm, b, ntiles, [&](OpBuilder &b, const ItemVals &itemVals) {
    Value full = tm.full;
    // Pass 1: the scan inputs of every item (the identity where not valid).
    SmallVector<Value> init1;
    for (int64_t j = 0; j < items; ++j)
      init1.append(tm.identity);
    SmallVector<Value> r1 = forItems(
        k, tm, b, full, itemVals, init1,
        [&](OpBuilder &ib, int64_t j, Value idx, Value valid,
            const DenseMap<unsigned, Value> &vals, ValueRange carried) {
          SmallVector<Value> out(carried);
          SmallVector<Value> xs = guarded(
              ib, loc, valid, isConstTrue(valid), tm.identity,
              [&](OpBuilder &gb) {
                k.enter(gb, idx, vals);
                SmallVector<Value> x;
                for (Value in : scan.getInputs())
                  x.push_back(k.element(gb, in));
                return x;
              });
          for (unsigned i = 0; i < ni; ++i)
            out[j * ni + i] = xs[i];
          return out;
        });
    SmallVector<SmallVector<Value>> xsOf(items);
    SmallVector<Value> validOf;
    for (int64_t j = 0; j < items; ++j) {
      xsOf[j] = SmallVector<Value>(ArrayRef<Value>(r1).slice(j * ni, ni));
      validOf.push_back(
          cmpI(b, loc, arith::CmpIPredicate::slt, tm.itemIndex(b, j), tm.n));
    }
    TileMachinery::RowScan rs = tm.scanRows(b, xsOf, validOf, excl0);

    // Pass 2: rescan the items from the thread prefix and store the results.
    SmallVector<SmallVector<Value>> pending(yields.size());
    forItems(
        k, tm, b, full, itemVals, rs.rowStart[0],
        [&](OpBuilder &ib, int64_t j, Value idx, Value valid,
            const DenseMap<unsigned, Value> &vals, ValueRange carried) {
          // Each row starts from its own prefix.
          SmallVector<Value> run(j % tm.vw == 0 ? ValueRange(rs.rowStart[j / tm.vw])
                                                : carried);
          SmallVector<Value> next = tm.combine(ib, run, xsOf[j]);
          SmallVector<Value> y = exclusive ? run : next;
          bool always = isConstTrue(valid);
          guarded(ib, loc, valid, always, {}, [&](OpBuilder &gb) {
            k.enter(gb, idx, vals);
            for (auto [r, v] : llvm::zip(scan.getResults(), y))
              k.leaves[r] = v;
            for (auto [yi, yo] : llvm::enumerate(llvm::zip(yields, outs))) {
              auto [yv, out] = yo;
              Value v = k.element(gb, yv);
              if (!always || tm.vw == 1) {
                k.store(gb, v, out, idx);
                continue;
              }
              // Vector flavour: one 16-byte store per vw items.
              pending[yi].push_back(v);
              if ((int64_t)pending[yi].size() < tm.vw)
                continue;
              Value vec = LLVM::PoisonOp::create(
                  gb, loc, VectorType::get({tm.vw}, v.getType()));
              for (auto [l, e] : llvm::enumerate(pending[yi]))
                vec = LLVM::InsertElementOp::create(gb, loc, vec, e,
                                                    cI32(gb, loc, l));
              pending[yi].clear();
              Value chunk = arith::DivUIOp::create(
                  gb, loc, arith::SubIOp::create(gb, loc, idx,
                                                 cI64(gb, loc, tm.vw - 1)),
                  cI64(gb, loc, tm.vw));
              k.store(gb, vec, out, chunk);
            }
            k.leaves.clear();
            return SmallVector<Value>();
          });
          return always ? next : selAll(ib, loc, valid, next, run);
        });
  });
  gpu::ReturnOp::create(b, loc);
  if (k.failedLeaf)
    return group.emitOpError("GPU code generation: unsupported value in a "
                             "scan group body");
  return gk;
}

//===----------------------------------------------------------------------===//
// filter
//===----------------------------------------------------------------------===//

FailureOr<GroupKernels> buildFilterGroup(gpu::GPUModuleOp m, GroupOp group,
                                         StringRef prefix,
                                         const Tiling &tiling) {
  Location loc = group.getLoc();
  MLIRContext *ctx = group.getContext();
  FailureOr<FilterOp> found = theOneOp<FilterOp>(group, "filter");
  if (failed(found))
    return failure();
  FilterOp filter = *found;
  for (Operation *user : filter->getUsers())
    if (!isa<YieldOp>(user) || user->getParentOp() != group)
      return user->emitOpError("GPU code generation: the result of a "
                               "fuse.filter can only be yielded by its group");

  GroupKernels gk;
  gk.plan = GroupPlan::Filter;
  gk.tiling = tiling;
  gk.vectorWidth = flatVectorWidth(group, tiling);
  int64_t items = itemsPerThread(tiling, gk.vectorWidth);
  gk.tileItems = tiling.blockThreads * items;
  gk.kernel = (prefix + "_filter").str();
  Type i64 = IntegerType::get(ctx, 64);
  SmallVector<Type> valTypes{i64};
  gk.statusTypes = valTypes;
  unsigned numOuts = group.getNumResults();
  int64_t warps = tiling.blockThreads / 32;

  // Params: common, n, ntiles, aligned, ws, count (i64*), outs.
  SmallVector<Type> params = tileParams(group, 0);
  params.push_back(globalPtr(ctx));
  params.append(numOuts, globalPtr(ctx));
  auto f = createKernel(m, loc, gk.kernel, params,
                     workgroupTypes(ctx, warps, valTypes),
                     tiling.blockThreads);
  TileKernel k(group, loc, tiling);
  k.func = f;
  OpBuilder b = OpBuilder::atBlockBegin(&f.getBody().front());
  k.setUp(b);
  TileMachinery tm(k, items, gk.vectorWidth);
  int64_t stageBytes = stagedTileBytes(k, tm);
  setTileOccupancy(f, tiling, stageBytes > 0);
  // shared_scatter: each kept element goes to its place in a tile-sized
  // buffer in shared memory (after the staged tile, one buffer per
  // yielded filter result), then the block copies the tile's kept
  // elements out with consecutive threads on consecutive elements:
  // coalesced stores instead of scattered ones. Tiles whose staging and
  // buffers, times the resident blocks, would take more than 200 KiB of
  // an SM's 228 scatter directly.
  auto yields = group.getYield().getValues();
  auto filterResult = [&](Value yv) {
    auto res = dyn_cast<OpResult>(yv);
    return res && res.getOwner() == filter.getOperation();
  };
  SmallVector<int64_t> bufferOffset(yields.size(), -1);
  int64_t scatterBytes = 0;
  if (tiling.sharedScatter) {
    int64_t at = llvm::alignTo(stageBytes, 16);
    for (auto [i, yv] : llvm::enumerate(yields))
      if (filterResult(yv)) {
        bufferOffset[i] = at;
        at += llvm::alignTo(
            gk.tileItems * byteWidth(tensorTy(yv).getElementType()), 16);
      }
    scatterBytes = at - llvm::alignTo(stageBytes, 16);
    int64_t blocks =
        std::max<int64_t>(1, tileBlocksPerSM(tiling, stageBytes > 0));
    if (at * blocks > 200 * 1024) {
      scatterBytes = 0;
      bufferOffset.assign(yields.size(), -1);
    }
  }
  gk.dynamicSharedBytes =
      scatterBytes ? llvm::alignTo(stageBytes, 16) + scatterBytes : stageBytes;
  tm.valTypes = valTypes;
  tm.packing = TileMachinery::Packing::Top2; // counts are below 2^62
  tm.orderFree = true;
  tm.identity = {cI64(b, loc, 0)};
  tm.combine = [&](OpBuilder &cb, ValueRange a, ValueRange x) {
    return SmallVector<Value>{arith::AddIOp::create(cb, loc, a[0], x[0])};
  };
  bindWorkgroup(tm, f);
  tm.n = k.extra[0];
  Value ntiles = k.extra[1];
  tm.aligned = k.extra[2];
  tm.ws = k.extra[3];
  Value countPtr = k.extra[4];
  ValueRange outs = ValueRange(k.extra).drop_front(5);
  tm.setUpWorkspace(b, ntiles);

  auto predicate = [&](OpBuilder &pb) -> Value {
    SmallVector<Value> ins;
    for (Value in : filter.getInputs())
      ins.push_back(k.element(pb, in));
    FailureOr<SmallVector<Value>> r =
        k.em->emitRegion(pb, loc, filter.getPredicate(), ins);
    if (failed(r)) {
      k.failedLeaf = true;
      return arith::ConstantIntOp::create(pb, loc, pb.getI1Type(), 0);
    }
    return (*r)[0];
  };
  Value falseV = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
  SmallVector<Value> buffers(yields.size());
  if (scatterBytes) {
    Value dyn = dynamicSharedBase(k.func, b, k.loc);
    for (auto [i, off] : llvm::enumerate(bufferOffset))
      if (off >= 0)
        buffers[i] = LLVM::GEPOp::create(
            b, loc, dyn.getType(), b.getI8Type(), dyn,
            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(off)});
  }

  runTiles(k, tm, b, ntiles, [&](OpBuilder &b, const ItemVals &itemVals) {
    Value full = tm.full;
    // Pass 1: the flag of every item (false where not valid).
    SmallVector<Value> init1(items, falseV);
    SmallVector<Value> r1 = forItems(
        k, tm, b, full, itemVals, init1,
        [&](OpBuilder &ib, int64_t j, Value idx, Value valid,
            const DenseMap<unsigned, Value> &vals, ValueRange carried) {
          SmallVector<Value> out(carried);
          out[j] = guarded(ib, loc, valid, isConstTrue(valid), {falseV},
                           [&](OpBuilder &gb) {
                             k.enter(gb, idx, vals);
                             return SmallVector<Value>{predicate(gb)};
                           })[0];
          return out;
        });
    // Kept elements of lower lanes and of the whole row: one ballot per item
    // column and population counts (flags are false past the end).
    auto countRow = [&](OpBuilder &rb, int64_t r, Value lane) {
      Type i32 = rb.getI32Type();
      Value lane32 = arith::TruncIOp::create(rb, loc, i32, lane);
      Value lower = arith::SubIOp::create(
          rb, loc, arith::ShLIOp::create(rb, loc, cI32(rb, loc, 1), lane32),
          cI32(rb, loc, 1));
      Value below = cI32(rb, loc, 0), all = cI32(rb, loc, 0);
      for (int64_t e = 0; e < tm.vw; ++e) {
        Value mask = NVVM::VoteSyncOp::create(rb, loc, i32, cI32(rb, loc, -1),
                                              r1[r * tm.vw + e],
                                              NVVM::VoteSyncKind::ballot)
                         .getResult();
        below = arith::AddIOp::create(
            rb, loc, below,
            LLVM::CtPopOp::create(rb, loc, i32,
                                  arith::AndIOp::create(rb, loc, mask, lower)));
        all = arith::AddIOp::create(rb, loc, all,
                                    LLVM::CtPopOp::create(rb, loc, i32, mask));
      }
      return std::make_pair(
          SmallVector<Value>{arith::ExtUIOp::create(rb, loc, i64, below)},
          SmallVector<Value>{arith::ExtUIOp::create(rb, loc, i64, all)});
    };
    TileMachinery::RowScan rs = tm.scanRows(b, countRow, tm.identity);
    SmallVector<Value> tilePrefix = rs.tilePrefix, total = rs.total;
    // The last tile writes the total count.
    Value last = arith::AndIOp::create(
        b, loc,
        cmpI(b, loc, arith::CmpIPredicate::eq, tm.tile,
             arith::SubIOp::create(b, loc, ntiles, cI64(b, loc, 1))),
        cmpI(b, loc, arith::CmpIPredicate::eq, k.threadId(b), cI64(b, loc, 0)));
    {
      Value count = arith::AddIOp::create(b, loc, tilePrefix[0], total[0]);
      scf::IfOp::create(b, loc, last, [&](OpBuilder &tb, Location l) {
        LLVM::StoreOp::create(tb, l, count, countPtr, 8);
        scf::YieldOp::create(tb, l);
      });
    }

    // Scatter positions: the rows' starts (i64), or with shared_scatter
    // their offsets in the tile's buffer in 32 bits (a tile holds < 2^31
    // elements).
    bool tileLocal = scatterBytes > 0;
    Type posTy = tileLocal ? b.getI32Type() : i64;
    SmallVector<Value> starts;
    for (auto &rsr : rs.rowStart)
      starts.push_back(tileLocal ? arith::TruncIOp::create(
                                       b, loc, posTy,
                                       arith::SubIOp::create(b, loc, rsr[0],
                                                             tilePrefix[0]))
                                 : rsr[0]);
    Value base = tilePrefix[0];
    // Pass 2: scatter the kept elements; elementwise results at their index.
    forItems(
        k, tm, b, full, itemVals, starts[0],
        [&](OpBuilder &ib, int64_t j, Value idx, Value valid,
            const DenseMap<unsigned, Value> &vals, ValueRange carried) {
          Value lpos = j % tm.vw == 0 ? starts[j / tm.vw] : carried[0];
          Value pos = lpos;
          if (tileLocal)
            pos = arith::ExtUIOp::create(ib, loc, i64, lpos);
          Value keep = r1[j];
          bool always = isConstTrue(valid);
          guarded(ib, loc, valid, always, {}, [&](OpBuilder &gb) {
            k.enter(gb, idx, vals);
            for (auto [i, yv] : llvm::enumerate(yields)) {
              // Kept elements go to the tile's buffer (shared_scatter) or
              // straight to the output.
              Value out = buffers[i] ? buffers[i] : outs[i];
              if (filterResult(yv)) {
                auto res = cast<OpResult>(yv);
                Value x = k.element(gb, filter.getInputs()[res.getResultNumber()]);
                scf::IfOp::create(gb, loc, keep, [&](OpBuilder &sb, Location l) {
                  k.store(sb, x, out, pos);
                  scf::YieldOp::create(sb, l);
                });
              } else {
                k.store(gb, k.element(gb, yv), out, idx);
              }
            }
            return SmallVector<Value>();
          });
          return SmallVector<Value>{arith::AddIOp::create(
              ib, loc, lpos, arith::ExtUIOp::create(ib, loc, posTy, keep))};
        });
    if (scatterBytes) {
      // The tile's kept elements, buffer[0, total), to out[base + i]:
      // thread t copies i = t, t + blockThreads, ... The next tile writes
      // the buffers only after its first block barrier (scanBlock), which
      // every thread reaches after this loop.
      gpu::BarrierOp::create(b, loc);
      scf::ForOp::create(
          b, loc, k.threadId(b), total[0], cI64(b, loc, tiling.blockThreads),
          ValueRange{},
          [&](OpBuilder &fb, Location l, Value i, ValueRange) {
            Value at = arith::AddIOp::create(fb, l, base, i);
            for (auto [yv, buf, out] : llvm::zip(yields, buffers, outs))
              if (buf)
                k.store(fb, k.load(fb, tensorTy(yv).getElementType(), buf, i),
                        out, at);
            scf::YieldOp::create(fb, l);
          });
    }
  });
  gpu::ReturnOp::create(b, loc);
  if (k.failedLeaf)
    return group.emitOpError("GPU code generation: unsupported value in a "
                             "filter group body");
  return gk;
}

} // namespace gpugen
} // namespace fuse
