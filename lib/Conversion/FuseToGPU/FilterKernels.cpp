//===- FilterKernels.cpp - single-pass filter kernels ---------------------===//
//
// A `filter` group becomes one kernel: the single-pass decoupled look-back
// tiles of TileKernels.h on kept-element counts (i64, packed with the flag
// in the status word). Each kept element gets its output position from
// the count prefix, and is stored in order (several inputs compacted by
// one predicate), straight to the output or, with shared_scatter, through
// a tile buffer in shared memory and coalesced stores; the group's
// elementwise results are stored at their own index. The last tile writes
// the count.
//
//===----------------------------------------------------------------------===//

#include "TileKernels.h"

#include "fuse/Dialect/Fuse/Utils/ElementEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <algorithm>

using namespace mlir;

namespace fuse {
namespace gpugen {
namespace {

/// Whether the yielded value `yv` is a result of `filter` (compacted), not
/// an elementwise result.
bool isFilterResult(FilterOp filter, Value yv) {
  auto res = dyn_cast<OpResult>(yv);
  return res && res.getOwner() == filter.getOperation();
}

/// The dynamic shared memory of a filter kernel with shared_scatter: the
/// byte offset of each yielded filter result's tile buffer (-1: none) and
/// the bytes of the buffers (0: kept elements are scattered directly).
struct ScatterLayout {
  SmallVector<int64_t> bufferOffset;
  int64_t scatterBytes = 0;
};

/// shared_scatter: each kept element goes to its place in a tile-sized
/// buffer in shared memory (after the staged tile, one buffer per
/// yielded filter result), then the block copies the tile's kept
/// elements out with consecutive threads on consecutive elements:
/// coalesced stores instead of scattered ones. Tiles whose staging and
/// buffers, times the resident blocks, would take more than 200 KiB of
/// an SM's 228 scatter directly.
ScatterLayout planScatter(GroupOp group, FilterOp filter, const Tiling &tiling,
                          int64_t stageBytes, int64_t tileItems) {
  auto yields = group.getYield().getValues();
  ScatterLayout s;
  s.bufferOffset.assign(yields.size(), -1);
  if (!tiling.sharedScatter)
    return s;
  int64_t at = llvm::alignTo(stageBytes, 16);
  for (auto [i, yv] : llvm::enumerate(yields))
    if (isFilterResult(filter, yv)) {
      s.bufferOffset[i] = at;
      at += llvm::alignTo(
          tileItems * byteWidth(tensorTy(yv).getElementType()), 16);
    }
  s.scatterBytes = at - llvm::alignTo(stageBytes, 16);
  int64_t blocks =
      std::max<int64_t>(1, tileBlocksPerSM(tiling, stageBytes > 0));
  if (at * blocks > 200 * 1024) {
    s.scatterBytes = 0;
    s.bufferOffset.assign(yields.size(), -1);
  }
  return s;
}

/// One tile of a filter kernel (runTiles' body): the predicate at every
/// item (pass 1), the kept counts of the rows and the look-back, the count
/// (last tile), then the kept elements scattered and the elementwise
/// results stored (pass 2), and with shared_scatter the tile buffers
/// copied out.
struct FilterTile {
  TileKernel &k;
  TileMachinery &tm;
  FilterOp filter;
  ValueRange yields, outs;
  Value countPtr, ntiles;
  Location loc;
  bool tileLocal;             // shared_scatter: positions within the tile
  Value falseV;               // set by setUp
  SmallVector<Value> buffers; // per yield: its tile buffer, or null

  void setUp(OpBuilder &b, ArrayRef<int64_t> bufferOffset);
  void build(OpBuilder &b, const ItemVals &itemVals);
  Value predicate(OpBuilder &pb);
  SmallVector<Value> keepFlags(OpBuilder &b, Value full,
                               const ItemVals &itemVals);
  std::pair<SmallVector<Value>, SmallVector<Value>>
  countRow(OpBuilder &rb, ArrayRef<Value> keep, int64_t r, Value lane);
  void writeCount(OpBuilder &b, ArrayRef<Value> tilePrefix,
                  ArrayRef<Value> total);
  void scatter(OpBuilder &b, Value full, const ItemVals &itemVals,
               ArrayRef<Value> keep, const TileMachinery::RowScan &rs);
  void copyOut(OpBuilder &b, Value base, Value total);
};

/// The kernel-wide values of the tile body: the false flag and the tile
/// buffers in dynamic shared memory (shared_scatter).
void FilterTile::setUp(OpBuilder &b, ArrayRef<int64_t> bufferOffset) {
  falseV = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
  buffers.assign(yields.size(), Value());
  if (tileLocal) {
    Value dyn = dynamicSharedBase(k.func, b, k.loc);
    for (auto [i, off] : llvm::enumerate(bufferOffset))
      if (off >= 0)
        buffers[i] = LLVM::GEPOp::create(
            b, loc, dyn.getType(), b.getI8Type(), dyn,
            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(off)});
  }
}

/// The filter's predicate at the current element (false, with failedLeaf
/// set, when the region cannot be emitted).
Value FilterTile::predicate(OpBuilder &pb) {
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
}

void FilterTile::build(OpBuilder &b, const ItemVals &itemVals) {
  Value full = tm.full;
  SmallVector<Value> keep = keepFlags(b, full, itemVals);
  TileMachinery::RowScan rs = tm.scanRows(
      b,
      [&](OpBuilder &rb, int64_t r, Value lane) {
        return countRow(rb, keep, r, lane);
      },
      tm.identity);
  SmallVector<Value> tilePrefix = rs.tilePrefix, total = rs.total;
  writeCount(b, tilePrefix, total);
  scatter(b, full, itemVals, keep, rs);
  if (tileLocal)
    copyOut(b, tilePrefix[0], total[0]);
}

/// Pass 1: the flag of every item (false where not valid).
SmallVector<Value> FilterTile::keepFlags(OpBuilder &b, Value full,
                                         const ItemVals &itemVals) {
  SmallVector<Value> init1(tm.items, falseV);
  return forItems(
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
}

/// Kept elements of lower lanes and of the whole row: one ballot per item
/// column and population counts (flags are false past the end).
std::pair<SmallVector<Value>, SmallVector<Value>>
FilterTile::countRow(OpBuilder &rb, ArrayRef<Value> keep, int64_t r,
                     Value lane) {
  Type i32 = rb.getI32Type(), i64 = rb.getI64Type();
  Value lane32 = arith::TruncIOp::create(rb, loc, i32, lane);
  Value lower = arith::SubIOp::create(
      rb, loc, arith::ShLIOp::create(rb, loc, cI32(rb, loc, 1), lane32),
      cI32(rb, loc, 1));
  Value below = cI32(rb, loc, 0), all = cI32(rb, loc, 0);
  for (int64_t e = 0; e < tm.vw; ++e) {
    Value mask = warpBallot(rb, loc, keep[r * tm.vw + e]);
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
}

/// The last tile writes the total count.
void FilterTile::writeCount(OpBuilder &b, ArrayRef<Value> tilePrefix,
                            ArrayRef<Value> total) {
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
}

/// Pass 2: scatter the kept elements; elementwise results at their index.
void FilterTile::scatter(OpBuilder &b, Value full, const ItemVals &itemVals,
                         ArrayRef<Value> keep,
                         const TileMachinery::RowScan &rs) {
  Type i64 = b.getI64Type();
  // Scatter positions: the rows' starts (i64), or with shared_scatter
  // their offsets in the tile's buffer in 32 bits (a tile holds < 2^31
  // elements).
  Type posTy = tileLocal ? b.getI32Type() : i64;
  SmallVector<Value> starts;
  for (auto &rsr : rs.rowStart)
    starts.push_back(tileLocal ? arith::TruncIOp::create(
                                     b, loc, posTy,
                                     arith::SubIOp::create(b, loc, rsr[0],
                                                           rs.tilePrefix[0]))
                               : rsr[0]);
  forItems(
      k, tm, b, full, itemVals, starts[0],
      [&](OpBuilder &ib, int64_t j, Value idx, Value valid,
          const DenseMap<unsigned, Value> &vals, ValueRange carried) {
        Value lpos = j % tm.vw == 0 ? starts[j / tm.vw] : carried[0];
        Value pos = lpos;
        if (tileLocal)
          pos = arith::ExtUIOp::create(ib, loc, i64, lpos);
        Value keepJ = keep[j];
        bool always = isConstTrue(valid);
        guarded(ib, loc, valid, always, {}, [&](OpBuilder &gb) {
          k.enter(gb, idx, vals);
          for (auto [i, yv] : llvm::enumerate(yields)) {
            // Kept elements go to the tile's buffer (shared_scatter) or
            // straight to the output.
            Value out = buffers[i] ? buffers[i] : outs[i];
            if (isFilterResult(filter, yv)) {
              auto res = cast<OpResult>(yv);
              Value x =
                  k.element(gb, filter.getInputs()[res.getResultNumber()]);
              scf::IfOp::create(gb, loc, keepJ,
                                [&](OpBuilder &sb, Location l) {
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
            ib, loc, lpos, arith::ExtUIOp::create(ib, loc, posTy, keepJ))};
      });
}

/// The tile's kept elements, buffer[0, total), to out[base + i]:
/// thread t copies i = t, t + blockThreads, ... The next tile writes
/// the buffers only after its first block barrier (scanBlock), which
/// every thread reaches after this loop.
void FilterTile::copyOut(OpBuilder &b, Value base, Value total) {
  gpu::BarrierOp::create(b, loc);
  scf::ForOp::create(
      b, loc, k.threadId(b), total, cI64(b, loc, k.tiling.blockThreads),
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

} // namespace

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
  ScatterLayout scatter =
      planScatter(group, filter, tiling, stageBytes, gk.tileItems);
  int64_t scatterBytes = scatter.scatterBytes;
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

  FilterTile ft{k,    tm,       filter, group.getYield().getValues(),
                outs, countPtr, ntiles, loc,
                /*tileLocal=*/scatterBytes > 0};
  ft.setUp(b, scatter.bufferOffset);
  runTiles(k, tm, b, ntiles, [&](OpBuilder &b, const ItemVals &itemVals) {
    ft.build(b, itemVals);
  });
  gpu::ReturnOp::create(b, loc);
  if (k.failedLeaf)
    return group.emitOpError("GPU code generation: unsupported value in a "
                             "filter group body");
  return gk;
}

} // namespace gpugen
} // namespace fuse
