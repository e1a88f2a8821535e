//===- OrderedReduce.cpp - reduce kernels of custom combiners -------------===//
//
// reduce groups with a custom combiner region (other than fusion's Welford
// reduction, which Kernels.cpp accumulates with shifted sums): the
// combiner may be non-commutative, so the order of operands is kept: each
// thread combines a contiguous range of elements in order, threads, warps
// and blocks are combined in index order (shuffle-down trees), and every
// accumulator carries a "has value" flag, so no identity is needed:
// result = init (+) x0 (+) x1 (+) ...
// The partial kernel gives each warp a contiguous run of tiles; a tile is
// read with coalesced loads into shared memory and read back blocked (each
// lane a contiguous piece), so that the lanes fold contiguous elements in
// order while the loads stay as wide as the built-in kinds' (a lane
// walking its own contiguous range issues one 16-byte load a line, which
// ran at under half the bandwidth).
// Same host plan as built-in reductions (GroupPlan::Reduce), with one
// extra i32 partial holding the per-block flag and the tiles' dynamic
// shared memory.
//
//===----------------------------------------------------------------------===//

#include "RowKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/bit.h"

using namespace mlir;

namespace fuse {
namespace gpugen {
namespace {

/// Shuffles `v` (any int/float width) with `mode`; the second value is the
/// shuffle's validity (the source lane exists).
std::pair<Value, Value> shuffle(OpBuilder &b, Location loc, Value v,
                                int64_t offset, gpu::ShuffleMode mode) {
  Value valid;
  Value r = shuffleValue(b, loc, v, cI32(b, loc, offset), mode, &valid);
  return {r, valid};
}


/// `(a, ha) (+) (x, hx)` for flagged accumulators of several reductions
/// (`accs` is the concatenation of their accumulators), keeping order.
SmallVector<Value> combineFlagged(Gen &g, OpBuilder &b,
                                  ArrayRef<ReduceOp> reds, ValueRange a,
                                  Value ha, ValueRange x, Value hx) {
  Location loc = g.loc;
  SmallVector<Value> out;
  unsigned base = 0;
  for (ReduceOp r : reds) {
    unsigned ni = r.getInputs().size();
    SmallVector<Value> both = g.combine(b, r, a.slice(base, ni),
                                        x.slice(base, ni));
    out.append(pickFlagged(b, loc, ha, a.slice(base, ni), hx, x.slice(base, ni),
                           both));
    base += ni;
  }
  return out;
}

using ElementsFn = function_ref<SmallVector<Value>(OpBuilder &, Value)>;

/// Ordered warp reduction of flagged accumulators: shuffle-down trees, so
/// that lane 0 ends with lanes 0..31 in order (the other lanes hold
/// partial combinations).
std::pair<SmallVector<Value>, Value>
warpOrderedReduce(Gen &g, OpBuilder &b, ArrayRef<ReduceOp> reds,
                  SmallVector<Value> acc, Value has) {
  Location loc = g.loc;
  for (int64_t off = 1; off <= 16; off *= 2) {
    SmallVector<Value> other;
    for (Value a : acc)
      other.push_back(shuffle(b, loc, a, off, gpu::ShuffleMode::DOWN).first);
    auto [h32, valid] =
        shuffle(b, loc, arith::ExtUIOp::create(b, loc, b.getI32Type(), has),
                off, gpu::ShuffleMode::DOWN);
    Value oh = arith::AndIOp::create(
        b, loc, valid,
        cmpI(b, loc, arith::CmpIPredicate::ne, h32, cI32(b, loc, 0)));
    acc = combineFlagged(g, b, reds, acc, has, other, oh);
    has = arith::OrIOp::create(b, loc, has, oh);
  }
  return {acc, has};
}

/// Ordered block reduction of flagged accumulators: shuffle-down trees
/// (lane 0 ends with lanes 0..31 in order), warps in order through `smem`
/// (accumulators, then the i32 flags). Valid in thread 0 only.
std::pair<SmallVector<Value>, Value>
blockOrderedReduce(Gen &g, OpBuilder &b, ArrayRef<ReduceOp> reds,
                   SmallVector<Value> acc, Value has, ValueRange smem,
                   Value smemFlag) {
  Location loc = g.loc;
  std::tie(acc, has) = warpOrderedReduce(g, b, reds, acc, has);
  int64_t warps = g.tiling.blockThreads / 32;
  if (warps == 1)
    return {acc, has};
  Value t = g.threadId(b);
  Value lane = arith::AndIOp::create(b, loc, t, cI64(b, loc, 31));
  Value warp = toIndex(b, loc, arith::ShRUIOp::create(b, loc, t, cI64(b, loc, 5)));
  gpu::BarrierOp::create(b, loc);
  scf::IfOp::create(
      b, loc, cmpI(b, loc, arith::CmpIPredicate::eq, lane, cI64(b, loc, 0)),
      [&](OpBuilder &ib, Location l) {
        for (auto [a, s] : llvm::zip(acc, smem))
          memref::StoreOp::create(ib, l, a, s, ValueRange{warp});
        memref::StoreOp::create(
            ib, l, arith::ExtUIOp::create(ib, l, ib.getI32Type(), has),
            smemFlag, ValueRange{warp});
        scf::YieldOp::create(ib, l);
      });
  gpu::BarrierOp::create(b, loc);
  auto readWarp = [&](int64_t w, SmallVector<Value> &vals, Value &flag) {
    Value wi = arith::ConstantIndexOp::create(b, loc, w);
    vals.clear();
    for (Value s : smem)
      vals.push_back(memref::LoadOp::create(b, loc, s, ValueRange{wi}));
    flag = cmpI(b, loc, arith::CmpIPredicate::ne,
               memref::LoadOp::create(b, loc, smemFlag, ValueRange{wi}),
               cI32(b, loc, 0));
  };
  SmallVector<Value> res;
  Value rh;
  readWarp(0, res, rh);
  for (int64_t w = 1; w < warps; ++w) {
    SmallVector<Value> x;
    Value xh;
    readWarp(w, x, xh);
    res = combineFlagged(g, b, reds, res, rh, x, xh);
    rh = arith::OrIOp::create(b, loc, rh, xh);
  }
  return {res, rh};
}

/// In thread 0: result = init (+) total (or init / identity without a
/// value), then the group's rank-0 results.
void finalizeOrdered(Gen &g, OpBuilder &b, ArrayRef<ReduceOp> reds,
                     ValueRange total, Value has, ValueRange outs) {
  Location loc = g.loc;
  g.em->clearCache();
  g.laneIndex = nullptr;
  unsigned base = 0;
  for (ReduceOp r : reds) {
    unsigned ni = r.getInputs().size();
    SmallVector<Value> v(total.slice(base, ni));
    SmallVector<Value> start = r.getInits().empty() ? startValues(b, loc, r)
                                                    : g.inits(b, r);
    SmallVector<Value> withInit =
        r.getInits().empty() ? v : g.combine(b, r, start, v);
    SmallVector<Value> res = selAll(b, loc, has, withInit, start);
    for (auto [rv, x] : llvm::zip(r.getResults(), res))
      g.leaves[rv] = x;
    base += ni;
  }
  for (auto [y, out] : llvm::zip(g.group.getYield().getValues(), outs))
    if (tensorTy(y).getRank() == 0) // side results: the partial kernel
      g.store(b, g.element(b, y, {}), out, cI64(b, loc, 0));
  g.em->clearCache();
}

/// The kernels of an ordered reduce group and what both read: the
/// reductions, the flat addressing, the side results, the partials' types
/// (GroupKernels) and the shared buffers.
struct OrderedReducePlan {
  GroupOp group;
  Location loc;
  Tiling tiling;
  SmallVector<ReduceOp> reds;
  /// Inputs of rank > 1 (the group has one shape: buildGroupKernels
  /// checked isFlatGroup) are read at their flat index.
  bool flat = false;
  /// Results of rank > 0 are elementwise values over the reduced domain
  /// (e.g. y = f(x) returned beside a reduction of y): the partial kernel
  /// stores them at each element it folds.
  SmallVector<unsigned> sideOuts;
  GroupKernels gk;
  SmallVector<Type> smem;
  unsigned numAcc = 0, numPartials = 0, numOuts = 0;
  /// Operands the partial kernel reads at the flat index (rank >= 1,
  /// loaded directly), staged a tile at a time in shared memory.
  SmallVector<unsigned> staged;
  /// Elements of a lane's piece of a warp's tile (a multiple of the vector
  /// width; a tile is 32 pieces).
  int64_t laneItems = 0;
  /// Per staged operand, the byte offset of its regions (one per warp of
  /// warpRegionItems() elements) in the dynamic shared memory.
  SmallVector<int64_t> regionOffset;

  int64_t warpRegionItems() const {
    return 32 * (laneItems + gk.vectorWidth);
  }

  OrderedReducePlan(GroupOp group, const Tiling &tiling)
      : group(group), loc(group.getLoc()), tiling(tiling) {}

  /// Folds x into (acc, has) in order: x alone where acc has no value.
  SmallVector<Value> fold(Gen &g, OpBuilder &b, SmallVector<Value> acc,
                          Value has, SmallVector<Value> x) const {
    SmallVector<Value> out;
    unsigned base = 0;
    for (ReduceOp r : reds) {
      unsigned ni = r.getInputs().size();
      SmallVector<Value> a(acc.begin() + base, acc.begin() + base + ni);
      SmallVector<Value> xi(x.begin() + base, x.begin() + base + ni);
      out.append(selAll(b, loc, has, g.combine(b, r, a, xi), xi));
      base += ni;
    }
    return out;
  }
  /// `acc (+) x` per reduction, for accumulators known to hold a value.
  SmallVector<Value> combineAll(Gen &g, OpBuilder &b, ArrayRef<Value> acc,
                                ArrayRef<Value> x) const {
    SmallVector<Value> o;
    unsigned base = 0;
    for (ReduceOp r : reds) {
      unsigned ni = r.getInputs().size();
      o.append(g.combine(b, r, acc.slice(base, ni), x.slice(base, ni)));
      base += ni;
    }
    return o;
  }
  /// The contiguous range [s, e) of thread `gid` out of `nthreads` over
  /// `count` items, in multiples of `unit`.
  std::pair<Value, Value> range(OpBuilder &b, Value gid, Value nthreads,
                                Value count, int64_t unit) const {
    Value per = arith::CeilDivSIOp::create(b, loc, count, nthreads);
    per = arith::MulIOp::create(
        b, loc, arith::CeilDivSIOp::create(b, loc, per, cI64(b, loc, unit)),
        cI64(b, loc, unit));
    Value s = arith::MinSIOp::create(
        b, loc, arith::MulIOp::create(b, loc, gid, per), count);
    Value e = arith::MinSIOp::create(
        b, loc, arith::AddIOp::create(b, loc, s, per), count);
    return {s, e};
  }
};

/// The block's tile regions stay within this many bytes of shared
/// memory, so that at least four blocks of 256 threads fit an SM.
constexpr int64_t kOrderedTileBytes = 48 * 1024;

/// Checks the group and decides the plan: kernel names, vector width of
/// the flat operands, partials, shared buffers and the tiles' layout.
LogicalResult planOrdered(OrderedReducePlan &p, StringRef prefix) {
  GroupOp group = p.group;
  MLIRContext *ctx = group.getContext();
  p.reds = reductionsOf(group.getBody().front());
  if (p.reds.empty())
    return group.emitOpError("GPU code generation: a reduce group needs a "
                             "fuse.reduce");
  for (ReduceOp r : p.reds) {
    if (!r.isFullReduction())
      return r.emitOpError("GPU code generation: a reduce group takes full "
                           "reductions only (use a row_reduce group)");
  }
  p.flat = llvm::any_of(p.reds, [](ReduceOp r) {
    return tensorTy(r.getInputs()[0]).getRank() > 1;
  });
  for (auto [j, y] : llvm::enumerate(group.getYield().getValues()))
    if (tensorTy(y).getRank() != 0)
      p.sideOuts.push_back(j);
  GroupKernels &gk = p.gk;
  gk.plan = GroupPlan::Reduce;
  gk.tiling = p.tiling;
  gk.kernel = (prefix + "_opartial").str();
  gk.finishKernel = (prefix + "_ofinish").str();
  for (ReduceOp r : p.reds)
    for (Value res : r.getResults()) {
      Type et = tensorTy(res).getElementType();
      gk.partialTypes.push_back(et);
      p.smem.push_back(smemType(ctx, et));
    }
  Block &body = group.getBody().front();
  // Not the inputs of broadcasts that add dimensions, nor tensors read at
  // computed positions: those are read at other coordinates.
  p.staged = directOperandsOf(body);
  // The width of the staged operands' loads (the others are read a scalar
  // at a time).
  SmallVector<Value> stagedValues;
  for (unsigned a : p.staged)
    stagedValues.push_back(body.getArgument(a));
  gk.vectorWidth = vectorWidthOf(stagedValues, p.tiling,
                                 [](RankedTensorType) { return true; });
  // 128 bytes a lane and staged operand (eight 16-byte loads in flight),
  // halved while the block's regions exceed kOrderedTileBytes.
  const int64_t vw = gk.vectorWidth;
  int64_t widest = 1;
  for (unsigned a : p.staged)
    widest = std::max(
        widest, byteWidth(tensorTy(body.getArgument(a)).getElementType()));
  auto layout = [&](int64_t items) {
    p.laneItems = items;
    p.regionOffset.clear();
    int64_t bytes = 0;
    for (unsigned a : p.staged) {
      p.regionOffset.push_back(bytes);
      int64_t eb = byteWidth(tensorTy(body.getArgument(a)).getElementType());
      bytes += llvm::alignTo(p.tiling.blockThreads / 32 * p.warpRegionItems() * eb,
                       16);
    }
    return bytes;
  };
  int64_t items = std::max<int64_t>(128 / widest, vw);
  while (layout(items) > kOrderedTileBytes && items > vw)
    items /= 2;
  gk.dynamicSharedBytes = layout(items);
  p.smem.push_back(smemType(ctx, IntegerType::get(ctx, 32)));
  gk.partialTypes.push_back(IntegerType::get(ctx, 32)); // has-value flags
  p.numAcc = gk.partialTypes.size() - 1;
  p.numPartials = gk.partialTypes.size();
  p.numOuts = group.getNumResults();
  return success();
}

/// The position of element `e` of a warp's tile in its shared-memory
/// region: e + (e / laneItems) * vw, a vector of padding after each lane's
/// piece, so that the coalesced writes and the lanes' blocked reads both
/// fall in distinct banks.
Value paddedPos(OpBuilder &b, Location loc, Value e, int64_t laneItems,
                int64_t vw) {
  Value piece = arith::DivUIOp::create(b, loc, e, cI64(b, loc, laneItems));
  return arith::AddIOp::create(
      b, loc, e, arith::MulIOp::create(b, loc, piece, cI64(b, loc, vw)));
}

/// `width` elements of `et` (a vector when width > 1) at element `pos` of
/// `base`, aligned to their size.
Value loadAt(Gen &g, OpBuilder &b, Value base, Type et, int64_t width,
             Value pos) {
  Type t = width == 1 ? et : VectorType::get({width}, et);
  return LLVM::LoadOp::create(b, g.loc, t, g.gep(b, base, et, pos),
                              byteWidth(et) * width);
}
void storeAt(Gen &g, OpBuilder &b, Value v, Value base, Type et,
             int64_t width, Value pos) {
  LLVM::StoreOp::create(b, g.loc, v, g.gep(b, base, et, pos),
                        byteWidth(et) * width);
}

/// Copies the tile at element `tileStart` of every staged operand to the
/// warp's regions: coalesced loads of vw elements when the operands are
/// aligned (`aligned`), else of one; all of an operand's loads are issued
/// before its stores.
void stageTile(const OrderedReducePlan &p, Gen &g, OpBuilder &b,
               Value tileStart, Value lane, Value aligned,
               ArrayRef<Value> regions) {
  Location loc = p.loc;
  GroupOp group = p.group;
  Block &body = group.getBody().front();
  const int64_t vw = p.gk.vectorWidth;
  auto copy = [&](OpBuilder &cb, int64_t width) {
    for (auto [ai, a] : llvm::enumerate(p.staged)) {
      Type et = tensorTy(body.getArgument(a)).getElementType();
      SmallVector<Value> vals, pos;
      for (int64_t u = 0; u < p.laneItems / width; ++u) {
        Value e = arith::MulIOp::create(
            cb, loc, arith::AddIOp::create(cb, loc, lane, cI64(cb, loc, u * 32)),
            cI64(cb, loc, width));
        vals.push_back(loadAt(g, cb, g.ptr[a], et, width,
                              arith::AddIOp::create(cb, loc, tileStart, e)));
        pos.push_back(paddedPos(cb, loc, e, p.laneItems, vw));
      }
      for (auto [v, q] : llvm::zip(vals, pos))
        storeAt(g, cb, v, regions[ai], et, width, q);
    }
  };
  if (vw == 1) {
    copy(b, 1);
    return;
  }
  scf::IfOp::create(
      b, loc, aligned,
      [&](OpBuilder &tb, Location l) {
        copy(tb, vw);
        scf::YieldOp::create(tb, l);
      },
      [&](OpBuilder &eb, Location l) {
        copy(eb, 1);
        scf::YieldOp::create(eb, l);
      });
}

/// The lane's piece of the staged tile (laneItems consecutive elements
/// from `tileStart + lane * laneItems`) folded in order.
SmallVector<Value> foldLanePiece(const OrderedReducePlan &p, Gen &g,
                                 OpBuilder &b, Value tileStart, Value lane,
                                 ArrayRef<Value> regions,
                                 ElementsFn elementXs) {
  Location loc = p.loc;
  GroupOp group = p.group;
  Block &body = group.getBody().front();
  const int64_t vw = p.gk.vectorWidth;
  Value first = arith::AddIOp::create(
      b, loc, tileStart,
      arith::MulIOp::create(b, loc, lane, cI64(b, loc, p.laneItems)));
  Value padded = arith::MulIOp::create(b, loc, lane,
                                       cI64(b, loc, p.laneItems + vw));
  SmallVector<Value> acc;
  for (int64_t u = 0; u < p.laneItems / vw; ++u) {
    Value pos = arith::AddIOp::create(b, loc, padded, cI64(b, loc, u * vw));
    DenseMap<unsigned, Value> vecs;
    for (auto [ai, a] : llvm::enumerate(p.staged))
      vecs[a] = loadAt(g, b, regions[ai],
                       tensorTy(body.getArgument(a)).getElementType(), vw, pos);
    for (int64_t k = 0; k < vw; ++k) {
      g.em->clearCache();
      Value flat =
          arith::AddIOp::create(b, loc, first, cI64(b, loc, u * vw + k));
      g.laneIndex = toIndex(b, loc, flat);
      g.laneValue.clear();
      for (auto [a, v] : vecs)
        g.laneValue[a] = vw == 1 ? v
                                 : LLVM::ExtractElementOp::create(
                                       b, loc, v, cI32(b, loc, k));
      SmallVector<Value> xs = elementXs(b, flat);
      acc = acc.empty() ? xs : p.combineAll(g, b, acc, xs);
    }
  }
  g.em->clearCache();
  g.laneIndex = nullptr;
  g.laneValue.clear();
  return acc;
}

/// The whole tiles of warp `warp`: a contiguous run of the block's
/// contiguous run, each staged, folded by the lanes and combined in lane
/// order; the warp's value (valid in lane 0) and whether it has one.
std::pair<SmallVector<Value>, Value>
foldWarpTiles(const OrderedReducePlan &p, Gen &g, OpBuilder &b, Value n,
              Value nchunks, Value lane, Value warp,
              ArrayRef<Value> regions, ElementsFn elementXs) {
  Location loc = p.loc;
  const int64_t warps = p.tiling.blockThreads / 32;
  const int64_t tileItems = 32 * p.laneItems;
  auto minU = [&](Value x, Value y) {
    return arith::MinUIOp::create(b, loc, x, y);
  };
  Value ntiles = arith::DivUIOp::create(b, loc, n, cI64(b, loc, tileItems));
  Value per = arith::CeilDivUIOp::create(b, loc, ntiles, g.gridDim(b));
  Value bs = minU(arith::MulIOp::create(b, loc, g.blockId(b), per), ntiles);
  Value be = minU(arith::AddIOp::create(b, loc, bs, per), ntiles);
  Value perWarp = arith::CeilDivUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, be, bs), cI64(b, loc, warps));
  Value ws = minU(arith::AddIOp::create(
                      b, loc, bs, arith::MulIOp::create(b, loc, warp, perWarp)),
                  be);
  Value we = minU(arith::AddIOp::create(b, loc, ws, perWarp), be);
  Value aligned =
      cmpI(b, loc, arith::CmpIPredicate::sgt, nchunks, cI64(b, loc, 0));
  SmallVector<Value> inits;
  for (ReduceOp r : p.reds)
    inits.append(startValues(b, loc, r));
  inits.push_back(cBool(b, loc, false));
  auto loop = scf::ForOp::create(
      b, loc, ws, we, cI64(b, loc, 1), inits,
      [&](OpBuilder &lb, Location l, Value tile, ValueRange args) {
        Value tileStart =
            arith::MulIOp::create(lb, l, tile, cI64(lb, l, tileItems));
        stageTile(p, g, lb, tileStart, lane, aligned, regions);
        NVVM::SyncWarpOp::create(lb, l, cI32(lb, l, -1));
        SmallVector<Value> piece =
            foldLanePiece(p, g, lb, tileStart, lane, regions, elementXs);
        // The next tile's copy overwrites what the lanes read.
        NVVM::SyncWarpOp::create(lb, l, cI32(lb, l, -1));
        for (int64_t off = 1; off <= 16; off *= 2) {
          SmallVector<Value> other;
          for (Value v : piece)
            other.push_back(
                shuffle(lb, l, v, off, gpu::ShuffleMode::DOWN).first);
          piece = p.combineAll(g, lb, piece, other);
        }
        SmallVector<Value> a =
            p.fold(g, lb, SmallVector<Value>(args.drop_back()), args.back(),
                   piece);
        a.push_back(cBool(lb, l, true));
        scf::YieldOp::create(lb, l, a);
      });
  g.em->clearCache();
  return {SmallVector<Value>(loop.getResults().drop_back()),
          loop.getResults().back()};
}

/// The elements after the last whole tile, [ntiles * tileItems, n), in
/// the grid's last warp: each lane folds a contiguous piece, the lanes are
/// combined in order and lane 0 appends that to (acc, has), the warp's
/// value. Other warps pass (acc, has) through.
std::pair<SmallVector<Value>, Value>
foldTail(const OrderedReducePlan &p, Gen &g, OpBuilder &b, Value n,
         Value lane, Value warp, SmallVector<Value> acc, Value has,
         ElementsFn elementXs) {
  Location loc = p.loc;
  const int64_t warps = p.tiling.blockThreads / 32;
  const int64_t tileItems = 32 * p.laneItems;
  Value lastBlock = arith::SubIOp::create(b, loc, g.gridDim(b), cI64(b, loc, 1));
  Value isLast = arith::AndIOp::create(
      b, loc, cmpI(b, loc, arith::CmpIPredicate::eq, g.blockId(b), lastBlock),
      cmpI(b, loc, arith::CmpIPredicate::eq, warp, cI64(b, loc, warps - 1)));
  auto ifOp = scf::IfOp::create(
      b, loc, isLast,
      [&](OpBuilder &tb, Location l) {
        Value tailStart = arith::MulIOp::create(
            tb, l,
            arith::DivUIOp::create(tb, l, n, cI64(tb, l, tileItems)),
            cI64(tb, l, tileItems));
        auto [s, e] = p.range(tb, lane, cI64(tb, l, 32),
                              arith::SubIOp::create(tb, l, n, tailStart), 1);
        SmallVector<Value> inits;
        for (ReduceOp r : p.reds)
          inits.append(startValues(tb, l, r));
        inits.push_back(cBool(tb, l, false));
        auto loop = scf::ForOp::create(
            tb, l, arith::AddIOp::create(tb, l, tailStart, s),
            arith::AddIOp::create(tb, l, tailStart, e), cI64(tb, l, 1), inits,
            [&](OpBuilder &lb, Location ll, Value i, ValueRange args) {
              g.em->clearCache();
              g.laneIndex = toIndex(lb, ll, i);
              g.laneValue.clear();
              SmallVector<Value> a =
                  p.fold(g, lb, SmallVector<Value>(args.drop_back()),
                         args.back(), elementXs(lb, i));
              a.push_back(cBool(lb, ll, true));
              scf::YieldOp::create(lb, ll, a);
            });
        g.em->clearCache();
        g.laneIndex = nullptr;
        auto [tacc, thas] = warpOrderedReduce(
            g, tb, p.reds, SmallVector<Value>(loop.getResults().drop_back()),
            loop.getResults().back());
        SmallVector<Value> out =
            combineFlagged(g, tb, p.reds, acc, has, tacc, thas);
        out.push_back(arith::OrIOp::create(tb, l, has, thas));
        scf::YieldOp::create(tb, l, out);
      },
      [&](OpBuilder &eb, Location l) {
        SmallVector<Value> out(acc);
        out.push_back(has);
        scf::YieldOp::create(eb, l, out);
      });
  g.em->clearCache();
  return {SmallVector<Value>(ifOp.getResults().drop_back()),
          ifOp.getResults().back()};
}

/// Stage 1: each warp folds its tiles in order (foldWarpTiles), the
/// grid's last warp the elements after them (foldTail), the block combines
/// its warps in order; thread 0 stores the block's partial (or, with
/// `single` set, the final results).
LogicalResult buildOrderedPartial(gpu::GPUModuleOp m,
                                  const OrderedReducePlan &p) {
  GroupOp group = p.group;
  Location loc = p.loc;
  MLIRContext *ctx = group.getContext();
  Block &body = group.getBody().front();
  const int64_t bt = p.tiling.blockThreads;
  auto i64 = IntegerType::get(ctx, 64);
  auto gptr = LLVM::LLVMPointerType::get(ctx, 1);
  SmallVector<Type> params = commonParams(group);
  params.push_back(i64); // n
  params.push_back(i64); // nchunks (0: unaligned, scalar loads)
  params.append(p.numPartials, gptr);
  params.append(p.numOuts, gptr);
  params.push_back(IntegerType::get(ctx, 32)); // single
  gpu::GPUFuncOp f = createKernel(m, loc, p.gk.kernel, params, p.smem, bt);
  Gen g(group, loc, p.tiling, p.flat);
  g.func = f;
  OpBuilder b = OpBuilder::atBlockBegin(&f.getBody().front());
  g.setUp(b);
  Value n = g.extra[0], nchunks = g.extra[1];
  ValueRange partials = ValueRange(g.extra).slice(2, p.numPartials);
  ValueRange outs = ValueRange(g.extra).slice(2 + p.numPartials, p.numOuts);
  Value single = g.extra.back();
  Value t = g.threadId(b);
  Value lane = arith::AndIOp::create(b, loc, t, cI64(b, loc, 31));
  Value warp = arith::ShRUIOp::create(b, loc, t, cI64(b, loc, 5));
  // The warp's region of each staged operand.
  SmallVector<Value> regions;
  if (!p.staged.empty()) {
    Value base = dynamicSharedBase(f, b, loc);
    for (auto [ai, a] : llvm::enumerate(p.staged)) {
      int64_t bytes =
          byteWidth(tensorTy(body.getArgument(a)).getElementType());
      Value off = arith::AddIOp::create(
          b, loc, cI64(b, loc, p.regionOffset[ai]),
          arith::MulIOp::create(b, loc, warp,
                                cI64(b, loc, p.warpRegionItems() * bytes)));
      regions.push_back(g.gep(b, base, b.getI8Type(), off));
    }
  }
  auto yields = group.getYield().getValues();
  // The reductions' inputs at the current element (and the side results
  // stored at its flat index `flat`).
  auto elementXs = [&](OpBuilder &eb, Value flat) {
    for (unsigned j : p.sideOuts)
      g.store(eb, g.element(eb, yields[j], {g.laneIndex}), outs[j], flat);
    SmallVector<Value> xs;
    for (ReduceOp r : p.reds)
      for (Value in : r.getInputs())
        xs.push_back(g.element(eb, in, {g.laneIndex}));
    return xs;
  };
  auto [acc, has] =
      foldWarpTiles(p, g, b, n, nchunks, lane, warp, regions, elementXs);
  std::tie(acc, has) =
      foldTail(p, g, b, n, lane, warp, acc, has, elementXs);
  // Only lane 0 holds its warp's value.
  has = arith::AndIOp::create(
      b, loc, has, cmpI(b, loc, arith::CmpIPredicate::eq, lane, cI64(b, loc, 0)));
  auto wg = f.getWorkgroupAttributions();
  SmallVector<Value> sm(wg.begin(), wg.begin() + p.numAcc);
  auto red = blockOrderedReduce(g, b, p.reds, acc, has, sm, wg[p.numAcc]);
  SmallVector<Value> total = red.first;
  Value th = red.second;
  scf::IfOp::create(
      b, loc, cmpI(b, loc, arith::CmpIPredicate::eq, t, cI64(b, loc, 0)),
      [&](OpBuilder &tb, Location l) {
        scf::IfOp::create(
            tb, l,
            cmpI(tb, l, arith::CmpIPredicate::ne, single, cI32(tb, l, 0)),
            [&](OpBuilder &sb, Location sl) {
              finalizeOrdered(g, sb, p.reds, total, th, outs);
              scf::YieldOp::create(sb, sl);
            },
            [&](OpBuilder &pb, Location pl) {
              Value blk = g.blockId(pb);
              for (auto [v, pp] : llvm::zip(total, partials))
                g.store(pb, v, pp, blk);
              g.store(pb,
                      arith::ExtUIOp::create(pb, pl, pb.getI32Type(), th),
                      partials.back(), blk);
              scf::YieldOp::create(pb, pl);
            });
        scf::YieldOp::create(tb, l);
      });
  gpu::ReturnOp::create(b, loc);
  if (g.failedLeaf)
    return group.emitOpError("GPU code generation: unsupported value in a "
                             "reduce group body");
  return success();
}

/// Stage 2: one block combines the partials in block order.
LogicalResult buildOrderedFinish(gpu::GPUModuleOp m,
                                 const OrderedReducePlan &p) {
  GroupOp group = p.group;
  Location loc = p.loc;
  MLIRContext *ctx = group.getContext();
  const int64_t bt = p.tiling.blockThreads;
  auto gptr = LLVM::LLVMPointerType::get(ctx, 1);
  SmallVector<Type> params = commonParams(group);
  params.push_back(IntegerType::get(ctx, 64)); // count
  params.append(p.numPartials, gptr);
  params.append(p.numOuts, gptr);
  gpu::GPUFuncOp f =
      createKernel(m, loc, p.gk.finishKernel, params, p.smem, bt);
  Gen g(group, loc, p.tiling, p.flat);
  g.func = f;
  OpBuilder b = OpBuilder::atBlockBegin(&f.getBody().front());
  g.setUp(b);
  Value count = g.extra[0];
  ValueRange partials = ValueRange(g.extra).slice(1, p.numPartials);
  ValueRange outs = ValueRange(g.extra).slice(1 + p.numPartials, p.numOuts);
  Value t = g.threadId(b);
  auto [s, e] = p.range(b, t, cI64(b, loc, bt), count, 1);
  SmallVector<Value> inits;
  for (ReduceOp r : p.reds)
    inits.append(startValues(b, loc, r));
  inits.push_back(cBool(b, loc, false));
  auto loop = scf::ForOp::create(
      b, loc, s, e, cI64(b, loc, 1), inits,
      [&](OpBuilder &lb, Location l, Value i, ValueRange args) {
        SmallVector<Value> xs;
        for (unsigned j = 0; j < p.numAcc; ++j)
          xs.push_back(g.load(lb, p.gk.partialTypes[j], partials[j], i));
        Value xh = cmpI(lb, l, arith::CmpIPredicate::ne,
                        g.load(lb, lb.getI32Type(), partials.back(), i),
                        cI32(lb, l, 0));
        Value h = args.back();
        SmallVector<Value> a =
            combineFlagged(g, lb, p.reds, args.drop_back(), h, xs, xh);
        a.push_back(arith::OrIOp::create(lb, l, h, xh));
        scf::YieldOp::create(lb, l, a);
      });
  auto wg = f.getWorkgroupAttributions();
  SmallVector<Value> sm(wg.begin(), wg.begin() + p.numAcc);
  auto red = blockOrderedReduce(
      g, b, p.reds, SmallVector<Value>(loop.getResults().drop_back()),
      loop.getResults().back(), sm, wg[p.numAcc]);
  SmallVector<Value> total = red.first;
  Value th = red.second;
  scf::IfOp::create(
      b, loc, cmpI(b, loc, arith::CmpIPredicate::eq, t, cI64(b, loc, 0)),
      [&](OpBuilder &tb, Location l) {
        finalizeOrdered(g, tb, p.reds, total, th, outs);
        scf::YieldOp::create(tb, l);
      });
  gpu::ReturnOp::create(b, loc);
  if (g.failedLeaf)
    return group.emitOpError("GPU code generation: unsupported value in a "
                             "reduce group body");
  return success();
}

} // namespace

FailureOr<GroupKernels> buildOrderedReduceKernels(gpu::GPUModuleOp m,
                                                  GroupOp group,
                                                  StringRef prefix,
                                                  const Tiling &tiling) {
  OrderedReducePlan plan(group, tiling);
  if (failed(planOrdered(plan, prefix)) ||
      failed(buildOrderedPartial(m, plan)) ||
      failed(buildOrderedFinish(m, plan)))
    return failure();
  return plan.gk;
}

} // namespace gpugen
} // namespace fuse
