//===- HostLaunch.cpp - the host launch of each kernel family -------------===//
//
// The host side of each kernel family, read from the family's GroupKernels
// plan (KernelGen.h): it sizes the launch from the group's result sizes
// and operands (elementwise, reduce, row reduce, scan and filter, line),
// allocates the family's work space and launches its kernels, choosing
// between them where a family has several.
//
//===----------------------------------------------------------------------===//

#include "HostEntry.h"

#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <limits>

namespace fuse {
namespace gpugen {

namespace {

/// Whether every pointer of `ptrs` is 16-byte aligned (i1).
Value alignedAll(HostBuilder &h, ValueRange ptrs) {
  Location loc = h.loc;
  Value acc = h.c64(0);
  for (Value p : ptrs)
    acc = arith::OrIOp::create(h.b, loc, acc,
                               LLVM::PtrToIntOp::create(h.b, loc, h.i64(), p));
  Value low = arith::AndIOp::create(h.b, loc, acc, h.c64(15));
  return arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::eq, low,
                               h.c64(0));
}

/// Flat size and chunking: `n` elements as `nchunks` vectors of `vw`
/// elements (none unless every pointer of `ptrs` is aligned) and the rest
/// one by one, `work` items in all.
void flatPlan(HostBuilder &h, int64_t vw, Value n, ValueRange ptrs,
              Value &nchunks, Value &work) {
  Location loc = h.loc;
  if (vw > 1) {
    Value full = arith::DivSIOp::create(h.b, loc, n, h.c64(vw));
    nchunks =
        arith::SelectOp::create(h.b, loc, alignedAll(h, ptrs), full, h.c64(0));
  } else {
    nchunks = n;
  }
  work = h.add(nchunks, h.sub(n, h.mul(nchunks, h.c64(vw))));
}

} // namespace

LogicalResult HostEntry::launch(GroupLaunch &l) {
  switch (l.gk.plan) {
  case GroupPlan::Elementwise:
    launchElementwise(l);
    return success();
  case GroupPlan::Reduce:
    return launchReduce(l);
  case GroupPlan::Histogram:
    return launchHistogram(l);
  case GroupPlan::RowReduce:
    return launchRowReduce(l);
  case GroupPlan::Scan:
  case GroupPlan::Filter:
    return launchScanOrFilter(l);
  case GroupPlan::LineScan:
  case GroupPlan::LineReduce:
    return launchLine(l);
  case GroupPlan::SegmentedReduce:
    return launchSegmentedReduce(l);
  }
  return l.g.emitOpError("GPU code generation: unsupported plan");
}

/// Elementwise groups: one flat kernel over the first result's elements.
void HostEntry::launchElementwise(GroupLaunch &l) {
  GroupKernels &gk = l.gk;
  int64_t bt = gk.tiling.blockThreads;
  Value n = h.c64(1);
  for (Value v : l.outDims[0])
    n = h.mul(n, v);
  Value nonEmpty =
      arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::sgt, n, h.c64(0));
  h.ifThen(nonEmpty, [&] {
    SmallVector<Value> ptrs =
        vectorPointers(l, [](int64_t rank) { return rank > 0; });
    Value nchunks, work;
    flatPlan(h, gk.vectorWidth, n, ptrs, nchunks, work);
    // Without a grid in the tiling, one block per `bt` chunks: each
    // thread moves one 16-byte vector (fuse-tile's choice, measured
    // faster than a persistent grid-stride grid).
    Value cap = gk.tiling.grid > 0 ? l.maxGrid
                                   : h.c64(std::numeric_limits<int32_t>::max());
    Value grid = h.maxI(h.minI(h.ceilDiv(work, h.c64(bt)), cap), h.c64(1));
    SmallVector<Value> args(l.common);
    args.push_back(n);
    args.push_back(nchunks);
    args.append(l.outs);
    launchKernel(l, handle[gk.kernel], grid, bt, args);
  });
}

/// The number of elements of `v`, a tensor of the group body: the flat
/// domain of a reduce or histogram group's loops (null when the shapes
/// cannot size it).
Value HostEntry::flatCount(GroupLaunch &l, Value v) {
  SmallVector<Value> d;
  SmallVector<SizeAttr> dt;
  if (failed(l.shapes.dims(v, d, dt)))
    return Value();
  Value n = h.c64(1);
  for (Value x : d)
    n = h.mul(n, x);
  return n;
}

/// Reduce groups: one block for small inputs, else per-block partials and
/// the finish kernel.
LogicalResult HostEntry::launchReduce(GroupLaunch &l) {
  GroupOp g = l.g;
  GroupKernels &gk = l.gk;
  int64_t bt = gk.tiling.blockThreads;
  Type ptrTy = h.ptrTy();
  // The flat domain: the first reduction's input.
  ReduceOp first;
  for (Operation &bop : l.body)
    if ((first = dyn_cast<ReduceOp>(bop)))
      break;
  Value n = flatCount(l, first.getInputs()[0]);
  if (!n)
    return g.emitOpError("GPU code generation: cannot size the reduction");
  // Elementwise side outputs are stored as vectors too.
  SmallVector<Value> ptrs =
      vectorPointers(l, [](int64_t rank) { return rank > 0; });
  Value nchunks, work;
  flatPlan(h, gk.vectorWidth, n, ptrs, nchunks, work);
  Value small = arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::sle, n,
                                      h.c64(gk.tiling.smallReduce));
  Value isLarge = arith::XOrIOp::create(
      h.b, loc, small,
      arith::ConstantIntOp::create(h.b, loc, h.b.getI1Type(), 1));
  // Small: one block computes the results directly (one launch).
  h.ifThen(small, [&] {
    SmallVector<Value> args(l.common);
    args.push_back(n);
    args.push_back(nchunks);
    Value null = LLVM::ZeroOp::create(h.b, loc, ptrTy);
    for (size_t i = 0; i < gk.partialTypes.size(); ++i)
      args.push_back(null);
    args.append(l.outs);
    args.push_back(h.c32(1));
    launchKernel(l, handle[gk.kernel], h.c64(1), bt, args,
                 gk.dynamicSharedBytes);
  });
  // Large: per-block partials, then the fixed-order finish.
  h.ifThen(isLarge, [&] {
    Value grid =
        h.maxI(h.minI(h.ceilDiv(work, h.c64(bt)), l.maxGrid), h.c64(1));
    SmallVector<Value> partials;
    for (Type t : gk.partialTypes)
      partials.push_back(h.allocTemp(h.mul(grid, h.c64(byteWidth(t)))));
    SmallVector<Value> args(l.common);
    args.push_back(n);
    args.push_back(nchunks);
    args.append(partials);
    args.append(l.outs);
    args.push_back(h.c32(0));
    launchKernel(l, handle[gk.kernel], grid, bt, args, gk.dynamicSharedBytes);
    SmallVector<Value> fargs(l.common);
    fargs.push_back(grid);
    fargs.append(partials);
    fargs.append(l.outs);
    launchKernel(l, handle[gk.finishKernel], h.c64(1), bt, fargs);
  });
  return success();
}

/// Histogram groups: the counts zeroed, then one flat pass counting in
/// shared memory where the bins' copy fits a block and a block counts
/// fewer than 2^31 elements (its i32 counters), else in global memory.
LogicalResult HostEntry::launchHistogram(GroupLaunch &l) {
  GroupOp g = l.g;
  GroupKernels &gk = l.gk;
  int64_t bt = gk.tiling.blockThreads;
  HistogramOp hist;
  for (Operation &bop : l.body)
    if ((hist = dyn_cast<HistogramOp>(bop)))
      break;
  Value n = flatCount(l, hist.getIndices());
  if (!n)
    return g.emitOpError("GPU code generation: cannot size the histogram");
  // Counts nobody reads: only the other results are stored (no bins).
  bool counting = gk.countsResult >= 0;
  Value nbins = h.c64(0);
  if (counting) {
    Value counts = l.outs[gk.countsResult];
    nbins = l.outDims[gk.countsResult][0];
    int64_t countBytes =
        byteWidth(tensorTy(hist.getResult()).getElementType());
    h.check(h.call("fuse_memset", {counts, h.c32(0),
                                   h.mul(nbins, h.c64(countBytes)), h.stream}));
  }
  Value nonEmpty =
      arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::sgt, n, h.c64(0));
  h.ifThen(nonEmpty, [&] {
    // Vector accesses: the operands and the values over the elements, not
    // the counts.
    SmallVector<Value> ptrs;
    for (Value operand : g.getOperands())
      if (auto t = tensorTy(operand); t && t.getRank() > 0)
        ptrs.push_back(tensors[operand].ptr);
    for (auto [j, o] : llvm::enumerate(l.outs))
      if (static_cast<int>(j) != gk.countsResult)
        ptrs.push_back(o);
    Value nchunks, work;
    flatPlan(h, gk.vectorWidth, n, ptrs, nchunks, work);
    Value grid =
        h.maxI(h.minI(h.ceilDiv(work, h.c64(bt)), l.maxGrid), h.c64(1));
    Value shared =
        h.mul(h.ceilDiv(h.mul(nbins, h.c64(4)), h.c64(16)), h.c64(16));
    Value fits = arith::AndIOp::create(
        h.b, loc,
        arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::sle, shared,
                              h.c64(gk.sharedCountLimit)),
        arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::slt,
                              h.ceilDiv(n, grid),
                              h.c64(std::numeric_limits<int32_t>::max())));
    SmallVector<Value> args(l.common);
    args.append({n, nchunks, nbins});
    args.append(l.outs);
    h.ifThen(fits, [&] {
      launchKernel(l, handle[gk.kernel], grid, h.c32(bt), args,
                   arith::TruncIOp::create(h.b, loc, h.b.getI32Type(), shared));
    });
    h.ifThen(h.notI(fits), [&] {
      launchKernel(l, handle[gk.globalCountKernel], grid, bt, args);
    });
  });
  return success();
}

/// segmented_reduce groups: by the mean segment length, groups of a few
/// lanes a segment (short), a warp, or a block (long); see the plan.
LogicalResult HostEntry::launchSegmentedReduce(GroupLaunch &l) {
  GroupOp g = l.g;
  GroupKernels &gk = l.gk;
  int64_t bt = gk.tiling.blockThreads;
  SegmentedReduceOp seg;
  for (Operation &bop : l.body)
    if ((seg = dyn_cast<SegmentedReduceOp>(bop)))
      break;
  Value nseg = flatCount(l, seg.getStarts());
  Value n = flatCount(l, seg.getInputs()[0]);
  if (!nseg || !n)
    return g.emitOpError("GPU code generation: cannot size the segments");
  Value nonEmpty = arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::sgt,
                                         nseg, h.c64(0));
  h.ifThen(nonEmpty, [&] {
    SmallVector<Value> args(l.common);
    args.append({nseg, n});
    args.append(l.outs);
    // `threads` lanes a segment: bt / threads segments a block.
    auto launchWith = [&](StringRef kernel, int64_t threads,
                          ValueRange more = {}) {
      Value grid = h.maxI(
          h.minI(h.ceilDiv(nseg, h.c64(bt / threads)), l.maxGrid), h.c64(1));
      SmallVector<Value> all(args);
      all.append(more.begin(), more.end());
      launchKernel(l, handle[kernel], grid, bt, all);
    };
    if (gk.segmentBlockKernel.empty()) {
      launchWith(gk.kernel, 32);
      return;
    }
    // The mean segment length, n / nseg (no product to overflow).
    Value mean = arith::DivSIOp::create(h.b, loc, n, nseg);
    Value isLong = arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::sge,
                                         mean, h.c64(gk.segmentBlockMinMean));
    Value isShort = arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::slt,
                                          mean, h.c64(gk.segmentSmallMaxMean));
    h.ifThen(isLong, [&] {
      // The block kernel's counter of segments (pieces) taken, zeroed.
      Value counter = h.allocTemp(h.c64(8));
      h.onDevice([&] {
        h.check(h.call("fuse_memset", {counter, h.c32(0), h.c64(8), h.stream}));
      });
      if (gk.segmentPieceKernel.empty()) {
        launchWith(gk.segmentBlockKernel, bt, counter);
        return;
      }
      // Pieces a segment: mean / piece (>= 1; at most n / piece in all).
      Value pieces = h.maxI(
          arith::DivSIOp::create(h.b, loc, mean, h.c64(gk.tiling.segmentPiece)),
          h.c64(1));
      Value split = arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::sgt,
                                          pieces, h.c64(1));
      h.ifThen(h.notI(split),
               [&] { launchWith(gk.segmentBlockKernel, bt, counter); });
      h.ifThen(split, [&] {
        Value items = h.mul(nseg, pieces);
        SmallVector<Value> partials;
        for (Value in : seg.getInputs())
          partials.push_back(h.allocTemp(
              h.mul(items, h.c64(byteWidth(tensorTy(in).getElementType())))));
        SmallVector<Value> pieceArgs(args);
        pieceArgs.append({counter, pieces});
        pieceArgs.append(partials);
        launchKernel(l, handle[gk.segmentPieceKernel],
                     h.maxI(h.minI(items, l.maxGrid), h.c64(1)), bt, pieceArgs);
        // The join kernel: a warp a segment, after the common arguments
        // the pieces and the partials.
        SmallVector<Value> joinMore{pieces};
        joinMore.append(partials);
        launchWith(gk.segmentJoinKernel, 32, joinMore);
      });
    });
    h.ifThen(isShort, [&] {
      launchWith(gk.segmentSmallKernel, gk.segmentSmallThreads);
    });
    h.ifThen(h.notI(arith::OrIOp::create(h.b, loc, isLong, isShort)),
             [&] { launchWith(gk.kernel, 32); });
  });
  return success();
}

/// row_reduce groups: the kernel of the rows' path (narrow, register,
/// staged or long rows) and its block and shared memory.
/// The pointers of the group's tensor operands and outputs whose rank
/// `vectorized` accepts: the accesses whose alignment decides the vector
/// path.
SmallVector<Value>
HostEntry::vectorPointers(GroupLaunch &l,
                          function_ref<bool(int64_t)> vectorized) {
  SmallVector<Value> ptrs;
  for (Value operand : l.g.getOperands())
    if (auto t = tensorTy(operand); t && vectorized(t.getRank()))
      ptrs.push_back(tensors[operand].ptr);
  for (auto [res, o] : llvm::zip(l.g.getResults(), l.outs))
    if (vectorized(tensorTy(res).getRank()))
      ptrs.push_back(o);
  return ptrs;
}

/// Row groups' vector path: every rank-2 base 16-byte aligned and cols a
/// multiple of the vector width (so every row start is aligned).
Value HostEntry::rowVectorPath(GroupLaunch &l, Value cols) {
  Value vec = alignedAll(
      h, vectorPointers(l, [](int64_t rank) { return rank == 2; }));
  if (l.gk.vectorWidth > 1) {
    Value rem = arith::RemSIOp::create(h.b, loc, cols, h.c64(l.gk.vectorWidth));
    vec = arith::AndIOp::create(
        h.b, loc, vec,
        arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::eq, rem,
                              h.c64(0)));
  }
  return vec;
}

/// Narrow rows: blockThreads / R rows per block (the kernel takes the same
/// choice from cols and the same plan; its rows loop covers any grid), and
/// in `narrow` whether the rows are narrow (null: no narrow path).
Value HostEntry::narrowRowsPerBlock(const GroupKernels &gk, Value cols,
                                    Value vec, Value &narrow) {
  Value perBlock = h.c64(1);
  int64_t c = gk.narrowRowItems;
  if (!c)
    return perBlock;
  int64_t bt = gk.tiling.blockThreads;
  Value need = h.ceilDiv(cols, h.c64(c));
  // The kernel's choice of R (selectNarrowGroup, as RowKernelBuilder
  // builds it), as rows per block bt / R.
  auto rowsPerBlock = [&](int64_t minThreads) {
    return selectNarrowGroup(
        h.b, loc, arith::CmpIPredicate::sle, cols, need, bt, minThreads,
        gk.narrowSmallCols, [&](int64_t p) { return h.c64(bt / p); },
        perBlock);
  };
  perBlock = rowsPerBlock(gk.tiling.narrowRows);
  // The scalar kernel's own smallest group (rank-2 results).
  if (gk.narrowScalarMinThreads > gk.tiling.narrowRows)
    perBlock = arith::SelectOp::create(
        h.b, loc, vec, perBlock, rowsPerBlock(gk.narrowScalarMinThreads));
  // On the vector path groups of up to half the block; off it (scalar
  // loads) up to narrowScalarMaxThreads (the whole block for rank-2
  // results: every such row that fits the registers).
  narrow = narrowRowsFit(h.b, loc, arith::CmpIPredicate::sle, need, vec, bt,
                         gk.narrowScalarMaxThreads);
  return arith::SelectOp::create(h.b, loc, narrow, perBlock, h.c64(1));
}

/// The kernel of the row's path: narrow rows, else the register path
/// (cols <= capacity), else the wide register path (from half its
/// capacity to all of it), else the staged long rows (their operands'
/// bytes within staged-rows; that much dynamic shared memory, in
/// `shared`), else the long rows; `threads` those of the chosen kernel.
Value HostEntry::rowPathKernel(const GroupKernels &gk, Value cols, Value vec,
                               Value narrow, Value &shared, Value &threads) {
  Value kernel = handle[gk.kernel];
  if (gk.longKernel.empty())
    return kernel;
  Value fits = arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::sle,
                                     cols, h.c64(gk.rowCapacity));
  Value past = handle[gk.longKernel];
  Value wideFits;
  if (!gk.wideKernel.empty())
    wideFits = h.andI(arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::sle,
                                            cols, h.c64(gk.wideCapacity)),
                      arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::sgt,
                                            cols, h.c64(gk.wideMinCols)));
  if (!gk.stagedKernel.empty()) {
    // Staged long rows: the operands' regions, each alignTo(cols * bytes,
    // 16), within tiling.stagedRows.
    Value bytes = stagedRowBytes(h.b, loc, cols, gk.stagedElementBytes);
    Value stagedFits =
        arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::sle, bytes,
                              h.c64(gk.tiling.stagedRows));
    past = arith::SelectOp::create(h.b, loc, stagedFits,
                                   handle[gk.stagedKernel], past);
    Value useStaged = h.andI(stagedFits, h.notI(fits));
    if (wideFits)
      useStaged = h.andI(useStaged, h.notI(wideFits));
    if (narrow)
      useStaged = h.andI(useStaged, h.notI(narrow));
    shared = arith::SelectOp::create(
        h.b, loc, useStaged, arith::TruncIOp::create(h.b, loc, h.i32(), bytes),
        h.c32(0));
    // Rows that leave one block an SM (over half the shared memory) take
    // the wide staged kernel and its threads, the others the group's
    // block (one row a block either way).
    if (!gk.stagedWideKernel.empty()) {
      Value wide = arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::sgt,
                                         bytes,
                                         h.c64(gk.tiling.stagedWideRows));
      Value stagedWide = h.andI(useStaged, wide);
      threads = arith::SelectOp::create(h.b, loc, stagedWide,
                                        h.c32(gk.stagedThreads), threads);
      past = arith::SelectOp::create(h.b, loc, h.andI(stagedFits, wide),
                                     handle[gk.stagedWideKernel], past);
    }
  }
  // (Rows the wide kernel takes are past the block's capacity, so neither
  // narrow nor fitting.)
  if (wideFits) {
    past = arith::SelectOp::create(h.b, loc, wideFits, handle[gk.wideKernel],
                                   past);
    threads = arith::SelectOp::create(h.b, loc, wideFits, h.c32(gk.wideThreads),
                                      threads);
  }
  kernel = arith::SelectOp::create(h.b, loc, fits, kernel, past);
  if (!gk.narrowKernel.empty()) {
    Value narrowK = handle[gk.narrowKernel];
    if (!gk.narrowScalarKernel.empty())
      narrowK = arith::SelectOp::create(h.b, loc, vec, narrowK,
                                        handle[gk.narrowScalarKernel]);
    kernel = arith::SelectOp::create(h.b, loc, narrow, narrowK, kernel);
  }
  return kernel;
}

LogicalResult HostEntry::launchRowReduce(GroupLaunch &l) {
  GroupOp g = l.g;
  GroupKernels &gk = l.gk;
  // rows x cols from the first row reduction's input; one block per
  // row (a rows loop in the kernel covers grids over 2^30 blocks).
  ReduceOp first;
  for (Operation &bop : l.body)
    if ((first = dyn_cast<ReduceOp>(bop)))
      break;
  SmallVector<Value> d;
  SmallVector<SizeAttr> dt;
  if (!first || failed(l.shapes.dims(first.getInputs()[0], d, dt)) ||
      d.size() != 2)
    return g.emitOpError("GPU code generation: cannot size the rows");
  Value rows = d[0], cols = d[1];
  Value nonEmpty = arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::sgt,
                                         rows, h.c64(0));
  h.ifThen(nonEmpty, [&] {
    Value vec = rowVectorPath(l, cols);
    Value vec32 = arith::ExtUIOp::create(h.b, loc, h.i32(), vec);
    Value narrow;
    Value perBlock = narrowRowsPerBlock(gk, cols, vec, narrow);
    Value shared = h.c32(0);
    Value threads = h.c32(gk.tiling.blockThreads);
    Value kernel = rowPathKernel(gk, cols, vec, narrow, shared, threads);
    Value grid = h.minI(h.ceilDiv(rows, perBlock), h.c64(int64_t(1) << 30));
    SmallVector<Value> args(l.common);
    args.push_back(rows);
    args.push_back(cols);
    args.push_back(vec32);
    args.append(l.outs);
    launchKernel(l, kernel, grid, threads, args, shared);
  });
  return success();
}

/// Scan and filter groups: the tiles' kernel over a look-back work space.
LogicalResult HostEntry::launchScanOrFilter(GroupLaunch &l) {
  GroupOp g = l.g;
  GroupKernels &gk = l.gk;
  int64_t bt = gk.tiling.blockThreads;
  // One launch over a zeroed look-back work space.
  bool isFilter = gk.plan == GroupPlan::Filter;
  Operation *core = nullptr;
  for (Operation &bop : l.body)
    if (isa<ScanOp, FilterOp>(bop))
      core = &bop;
  SmallVector<Value> d;
  SmallVector<SizeAttr> dt;
  if (!core || failed(l.shapes.dims(core->getOperand(0), d, dt)))
    return g.emitOpError("GPU code generation: cannot size the scan or "
                         "filter");
  Value n = h.c64(1);
  for (Value v : d)
    n = h.mul(n, v);
  Value nonEmpty =
      arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::sgt, n, h.c64(0));
  // A filter's count stays on the device, in a piece of its own, for later
  // steps and the caller (HostEntry::needHostSize). It is zero when no tile
  // runs: the host knows when, unless the group's own length is on the
  // device.
  Value count;
  if (isFilter) {
    count = h.allocTemp(h.c64(8));
    Value zero = l.deviceSize ? h.c1(true) : h.notI(nonEmpty);
    h.ifThen(zero, [&] {
      h.onDevice([&] {
        h.check(h.call("fuse_memset", {count, h.c32(0), h.c64(8), h.stream}));
      });
    });
  }
  h.ifThen(nonEmpty, [&] {
    Value ntiles = h.ceilDiv(n, h.c64(gk.tileItems));
    Value flagBytes = arith::AndIOp::create(
        h.b, loc, h.add(h.mul(ntiles, h.c64(8)), h.c64(15)),
        h.c64(~int64_t(15)));
    Value head = h.add(h.c64(16), flagBytes);
    Value slots = h.mul(ntiles, h.c64(16 * statusPieces(gk.statusTypes)));
    Value wsBytes = h.add(head, slots);
    Value ws = h.allocTemp(wsBytes);
    // Every word starts not ready: the status words and the pieces' slots.
    h.onDevice([&] {
      h.check(h.call("fuse_memset", {ws, h.c32(0), wsBytes, h.stream}));
    });
    SmallVector<Value> ptrs;
    for (Value operand : g.getOperands())
      if (auto t = tensorTy(operand); t && t.getRank() > 0)
        ptrs.push_back(tensors[operand].ptr);
    for (Value o : l.outs)
      ptrs.push_back(o);
    Value aligned = arith::ExtUIOp::create(
        h.b, loc, h.i32(),
        gk.vectorWidth > 1
            ? alignedAll(h, ptrs)
            : arith::ConstantIntOp::create(h.b, loc, h.b.getI1Type(), 0));
    SmallVector<Value> args(l.common);
    args.append({n, ntiles, aligned, ws});
    if (isFilter)
      args.push_back(count);
    args.append(l.outs);
    // Blocks loop over tiles (TileMachinery.cpp, runTiles): as many as
    // fit on the GPU at once (the target's threads per SM), or one per
    // tile.
    int64_t perSM = TargetAttr::lookup(l.g).getMaxThreadsPerSM();
    Value resident = h.mul(h.maxI(h.smCount, h.c64(1)),
                           h.c64(std::max<int64_t>(perSM / bt, 1)));
    Value grid = gk.tiling.grid > 0 ? h.c64(gk.tiling.grid) : resident;
    launchKernel(l, handle[gk.kernel], h.minI(ntiles, grid), bt, args,
                 gk.dynamicSharedBytes);
  });
  if (isFilter) {
    // The kept results are sized by the capacity until the host needs
    // their count.
    for (Operation &bop : l.body)
      if (isa<FilterOp>(bop))
        filterCount[&bop] = {count, n};
    for (auto [j, res] : llvm::enumerate(g.getResults())) {
      Value y = g.getYield().getValues()[j];
      if (!y.getDefiningOp<FilterOp>())
        continue;
      tensors[res].dims = {n};
      tensors[res].dimSizes = {
          SizeAttr::get(g.getContext(), SizeSource::Kept, 0, 0)};
      // The count itself is stored with the other counts, at the end.
      auto ri = resultIndex.find(res);
      if (ri == resultIndex.end() || sig.countArg[ri->second] < 0)
        continue;
      resultSizes[ri->second] = {dt[0]};
      resultCounts[ri->second] = OutputCount::Kept;
    }
  }
  return success();
}

/// Line scans and line reductions: a thread per line.
LogicalResult HostEntry::launchLine(GroupLaunch &l) {
  GroupOp g = l.g;
  GroupKernels &gk = l.gk;
  int64_t bt = gk.tiling.blockThreads;
  // outer x len x inner around the scanned or reduced dimension of the
  // op's input; a thread per line (outer * inner lines). A reduction
  // over an empty dimension still writes its init to every line.
  bool isScan = gk.plan == GroupPlan::LineScan;
  Operation *core = gk.lineOp;
  int64_t dim = gk.lineDim;
  SmallVector<Value> d;
  SmallVector<SizeAttr> dt;
  if (!core || failed(l.shapes.dims(core->getOperand(0), d, dt)))
    return g.emitOpError("GPU code generation: cannot size the ")
           << (isScan ? "scan" : "reduction");
  Value outer = h.c64(1), inner = h.c64(1);
  for (auto [i, v] : llvm::enumerate(d)) {
    if (static_cast<int64_t>(i) < dim)
      outer = h.mul(outer, v);
    else if (static_cast<int64_t>(i) > dim)
      inner = h.mul(inner, v);
  }
  Value len = d[dim];
  Value lines = h.mul(outer, inner);
  Value nonEmpty = arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::sgt,
                                         lines, h.c64(0));
  if (isScan)
    nonEmpty = arith::AndIOp::create(
        h.b, loc, nonEmpty,
        arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::sgt, len,
                              h.c64(0)));
  auto gridFor = [&](Value threads) {
    return h.maxI(h.minI(h.ceilDiv(threads, h.c64(bt)), l.maxGrid), h.c64(1));
  };
  // chunks = clamp(want, 1, most) rounded to whole chunks of chunkLen.
  auto chunking = [&](Value want, Value most) -> std::pair<Value, Value> {
    Value chunkLen =
        h.maxI(h.ceilDiv(len, h.maxI(h.minI(want, most), h.c64(1))), h.c64(1));
    return {chunkLen, h.maxI(h.ceilDiv(len, chunkLen), h.c64(1))};
  };
  // Partials of `work` (line, chunk) pairs where there is more than one
  // chunk (else none).
  auto allocPartials = [&](Value split, Value work) {
    SmallVector<Value> partials;
    for (Type t : gk.partialTypes)
      partials.push_back(h.allocTemp(arith::SelectOp::create(
          h.b, loc, split, h.mul(work, h.c64(byteWidth(t))), h.c64(0))));
    return partials;
  };
  if (isScan && !gk.linePartialKernel.empty()) {
    // Too few lines to fill the GPU: each split into chunks (sizes alone
    // decide, as for line reductions); the partials' kernel first.
    h.ifThen(nonEmpty, [&] {
      Value most =
          h.minI(arith::DivSIOp::create(h.b, loc, len, h.c64(gk.lineMinChunk)),
                 h.c64(gk.lineMaxChunks));
      auto [chunkLen, chunks] =
          chunking(h.ceilDiv(h.c64(gk.lineSplitThreads), lines), most);
      Value split = arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::sgt,
                                          chunks, h.c64(1));
      Value work = h.mul(lines, chunks);
      SmallVector<Value> args(l.common);
      args.append({lines, len, inner, chunkLen, chunks});
      args.append(allocPartials(split, work));
      args.append(l.outs);
      h.ifThen(split, [&] {
        launchKernel(l, handle[gk.linePartialKernel],
                     gridFor(h.sub(work, lines)), bt, args);
      });
      launchKernel(l, handle[gk.kernel], gridFor(work), bt, args);
    });
    return success();
  }
  if (isScan || gk.lineCombineKernel.empty()) {
    h.ifThen(nonEmpty, [&] {
      SmallVector<Value> args(l.common);
      args.append({lines, len, inner});
      args.append(l.outs);
      Value threads = isScan ? h.mul(lines, h.c64(gk.lineScanLanes)) : lines;
      launchKernel(l, handle[gk.kernel], gridFor(threads), bt, args);
    });
    return success();
  }
  // Too few lines to fill the GPU: each split into chunks (never empty; one
  // chunk over an empty dimension, which writes the init).
  h.ifThen(nonEmpty, [&] {
    // A thread a (line, chunk): lines * chunks reach lineSplitThreads.
    auto [chunkLen, chunks] =
        chunking(h.ceilDiv(h.c64(gk.lineSplitThreads), lines),
                 arith::DivSIOp::create(h.b, loc, len, h.c64(gk.lineMinChunk)));
    Value work = h.mul(lines, chunks);
    Value kernel = handle[gk.kernel];
    Value grid = gridFor(work);
    if (!gk.lineTileKernel.empty()) {
      // A block a (outer slice, chunk) where a line is at most a block
      // wide and the slices hold lineTileMinItems a thread.
      int64_t tb = bt; // the tile kernel's block, as the split kernel's
      Value sliceItems = h.mul(len, inner);
      Value tile = h.andI(
          arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::sle, inner,
                                h.c64(tb)),
          arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::sge, sliceItems,
                                h.c64(tb * gk.lineTileMinItems)));
      auto [tileLen, tileChunks] =
          chunking(h.ceilDiv(h.c64(gk.lineSplitThreads / tb), outer),
                   arith::DivSIOp::create(h.b, loc, sliceItems,
                                          h.c64(tb * gk.lineTileMinItems)));
      Value tileGrid =
          h.maxI(h.minI(h.mul(outer, tileChunks), l.maxGrid), h.c64(1));
      auto pick = [&](Value a, Value b) {
        return arith::SelectOp::create(h.b, loc, tile, a, b).getResult();
      };
      chunkLen = pick(tileLen, chunkLen);
      chunks = pick(tileChunks, chunks);
      work = h.mul(lines, chunks);
      kernel = pick(handle[gk.lineTileKernel], kernel);
      grid = pick(tileGrid, grid);
    }
    Value split = arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::sgt,
                                        chunks, h.c64(1));
    SmallVector<Value> partials = allocPartials(split, work);
    SmallVector<Value> args(l.common);
    args.append({lines, len, inner, chunkLen, chunks});
    args.append(partials);
    args.append(l.outs);
    launchKernel(l, kernel, grid, bt, args);
    h.ifThen(split, [&] {
      SmallVector<Value> cargs(l.common);
      cargs.append({lines, len, inner, chunks});
      cargs.append(partials);
      cargs.append(l.outs);
      launchKernel(l, handle[gk.lineCombineKernel],
                   gridFor(h.mul(lines, h.c64(gk.lineCombineLanes))), bt,
                   cargs);
    });
  });
  return success();
}

void HostEntry::launchKernel(GroupLaunch &l, Value kernel, Value grid,
                             Value block, ArrayRef<Value> args,
                             Value sharedBytes) {
  SmallVector<Value> all(args);
  if (l.deviceSize)
    all.push_back(l.deviceSize);
  h.launch(kernel, grid, block, all, sharedBytes);
}

} // namespace gpugen
} // namespace fuse
