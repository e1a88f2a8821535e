//===- LineScan.cpp - line kernels: scans along a dimension ---------------===//
//
// Scans over rank > 1 tensors (GroupPlan::LineScan): every tensor of the
// group has the scan's shape (rank-0 operands and broadcasts of group
// operands aside). A thread scans one line (o, i) of the outer x len x
// inner view sequentially: element k of the line is at flat index
// (o * len + k) * inner + i, so the threads of a warp, taking consecutive
// lines, read consecutive addresses when inner > 1 (a scan along any
// dimension but the last). Where lines are too few to fill the GPU, a
// thread takes a (line, chunk) instead: a partials kernel first, then
// each chunk scanned from its carry. Rows (inner = 1) take a warp each.
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"
#include "LineKernels.h"
#include "RowKernels.h"
#include "fuse/Dialect/Fuse/IR/FuseDialect.h"
#include "fuse/Dialect/Fuse/Utils/ElementEmitter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace fuse {
namespace gpugen {

using namespace line;

namespace {
/// Scans elements [from, to) of the line starting at flat index `base`
/// from `carry`, storing the group's results at each: `unroll` elements
/// an iteration, all read before they are combined (independent loads in
/// flight), then the rest one by one.
void scanRange(LineStart &ls, OpBuilder &b, ScanOp scan, Value base, Value from,
               Value to, ValueRange carry, int64_t unroll) {
  LineKernel &k = *ls.k;
  Location loc = k.loc;
  bool exclusive = scan.getExclusive();
  auto steps = [&](OpBuilder &wb, Value idx, int64_t n, ValueRange acc) {
    SmallVector<std::pair<Value, SmallVector<Value>>> xs;
    for (int64_t j = 0; j < n; ++j)
      xs.push_back(
          enterElement(ls, wb, scan.getInputs(), base,
                       arith::AddIOp::create(wb, loc, idx, cI64(wb, loc, j))));
    SmallVector<Value> a(acc);
    // The results' values of every element before the first store: an
    // epilogue reading an input again (x - scan(x)) would otherwise load
    // it after the previous element's store, one load in flight.
    SmallVector<DeferredStore> stores;
    for (auto &[flat, x] : xs) {
      SmallVector<Value> next = emitCombine(
          wb, loc, scan, a, x, [&](Value v) { return k.scalar(wb, v); });
      enterFlat(k, wb, flat);
      resultStores(ls, wb, scan.getResults(), exclusive ? a : next, flat,
                   stores);
      a = std::move(next);
    }
    k.store(wb, stores);
    k.em->clearCache();
    return a;
  };
  forUnrolled(b, loc, from, to, unroll, carry, steps);
  k.em->clearCache();
}

/// The first kernel of a split line scan (GroupKernels::linePartialKernel,
/// the scan kernel's params): a thread a (line, chunk) but each line's
/// last folds the chunk from its first element and stores the
/// accumulators at c * lines + line.
LogicalResult buildScanPartials(gpu::GPUModuleOp m, GroupOp group, ScanOp scan,
                                StringRef name, const Tiling &tiling) {
  LineStart ls =
      startLineKernel(m, group, scan, name.str(), GroupPlan::LineScan, tiling,
                      splitParams(scan, /*split=*/true));
  LineKernel &k = *ls.k;
  forChunks(ls, *ls.b, /*lastChunk=*/false,
            [&](OpBuilder &lb, Value, Value, Value base, Value k0, Value k1,
                Value t) {
              SmallVector<Value> first =
                  enterElement(ls, lb, scan.getInputs(), base, k0).second;
              k.em->clearCache();
              Value from =
                  arith::AddIOp::create(lb, k.loc, k0, cI64(lb, k.loc, 1));
              SmallVector<Value> acc =
                  foldRange(ls, lb, scan, scan.getInputs(), base, from, k1,
                            first, /*unroll=*/4, nullptr);
              for (auto [j, a] : llvm::enumerate(acc))
                k.store(lb, a, ls.more[2 + j], t);
            });
  return finishLineKernel(ls);
}

/// Items a lane takes in a chunk of a warp's row scan: 16 bytes of the
/// widest input (2 of i64 to 8 of i16), 8 at most.
int64_t rowScanItems(ScanOp scan) {
  int64_t bytes = 1;
  for (Value in : scan.getInputs())
    bytes = std::max<int64_t>(bytes,
                              (tensorTy(in).getElementTypeBitWidth() + 7) / 8);
  return std::clamp<int64_t>(16 / bytes, 1, 8);
}

/// Alignment of the vector stores of a warp row scan's result of element
/// type `et`: v elements, at most 16 bytes.
int64_t rowScanStoreAlign(Type et, int64_t v) {
  return std::min<int64_t>(16, v * byteWidth(et));
}

/// Whether a warp row scan stores a lane's v items with one vector store a
/// result (uniform): rows a multiple of v long (a lane's first item is
/// then a multiple of v from every row's start) and every result pointer
/// aligned to its vector store. The items are v consecutive elements of a
/// lane, so its scalar stores leave 2 to 8 bytes of every 16 to the other
/// stores (i16 pair scans of 1024-element rows ran at 0.6 TB/s).
Value rowScanVectorPath(LineStart &ls, OpBuilder &b, int64_t v) {
  LineKernel &k = *ls.k;
  Location loc = k.loc;
  Value ok = cmpI(b, loc, arith::CmpIPredicate::eq,
                  arith::RemUIOp::create(b, loc, ls.len, cI64(b, loc, v)),
                  cI64(b, loc, 0));
  for (auto [out, y] : llvm::zip(ls.outs, k.group.getYield().getValues())) {
    int64_t align = rowScanStoreAlign(tensorTy(y).getElementType(), v);
    Value addr =
        LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), out).getResult();
    ok = arith::AndIOp::create(
        b, loc, ok,
        cmpI(b, loc, arith::CmpIPredicate::eq,
             arith::AndIOp::create(b, loc, addr, cI64(b, loc, align - 1)),
             cI64(b, loc, 0)));
  }
  return ok;
}

/// The vector path's stores of a lane's items at `kks` (consecutive, in
/// the row at `base`), whose scan values are `vals`: each result's v
/// values (computed at each item) in one store.
void storeVectors(LineStart &ls, OpBuilder &b, ScanOp scan, Value base,
                  ArrayRef<Value> kks, ArrayRef<SmallVector<Value>> vals) {
  LineKernel &k = *ls.k;
  Location loc = k.loc;
  auto yields = k.group.getYield().getValues();
  SmallVector<SmallVector<Value>> items(yields.size());
  for (auto [kk, vs] : llvm::zip(kks, vals)) {
    enterFlat(k, b, arith::AddIOp::create(b, loc, base, kk));
    for (auto [r, x] : llvm::zip(scan.getResults(), vs))
      k.leaves[r] = x;
    for (auto [j, y] : llvm::enumerate(yields))
      items[j].push_back(k.element(b, y, {k.laneIndex}));
    k.em->clearCache();
  }
  int64_t v = kks.size();
  Value first = arith::AddIOp::create(b, loc, base, kks.front());
  for (auto [j, y] : llvm::enumerate(yields)) {
    Type et = tensorTy(y).getElementType();
    Value vecv = LLVM::PoisonOp::create(b, loc, VectorType::get({v}, et));
    for (auto [i, x] : llvm::enumerate(items[j]))
      vecv = LLVM::InsertElementOp::create(b, loc, vecv, x, cI32(b, loc, i));
    LLVM::StoreOp::create(b, loc, vecv, k.gep(b, ls.outs[j], et, first),
                          rowScanStoreAlign(et, v));
  }
}

/// The scan of rows (the last dimension, inner = 1) with a warp a row:
/// grid-stride over the rows by warps; a row in chunks of 32 * v elements,
/// lane j taking elements j*v .. j*v + v - 1 of the chunk. A lane reads its
/// v elements (clamped into the row: past the end they are garbage that
/// only later lanes and items see), folds them in order, the lanes' totals
/// are scanned over the warp, and each item's value is
/// carry (+) (lanes before) (+) (its lane's items up to it); the carry, from
/// ls.init, is the last lane's inclusive value of a whole chunk. Rows of
/// 8192 read 256 bytes a warp load where a thread a row read 8.
void buildWarpRowScan(LineStart &ls, ScanOp scan, int64_t v) {
  LineKernel &k = *ls.k;
  OpBuilder &b = *ls.b;
  Location loc = k.loc;
  bool exclusive = scan.getExclusive();
  auto scalarFn = [&](OpBuilder &sb) {
    return [&k, &sb](Value x) { return k.scalar(sb, x); };
  };
  auto combine = [&](OpBuilder &cb, ValueRange a, ValueRange x) {
    return emitCombine(cb, loc, scan, a, x, scalarFn(cb));
  };
  auto [gtid, stride] = k.gridStride(b);
  Value vec = rowScanVectorPath(ls, b, v);
  Value c32 = cI64(b, loc, 32);
  Value lane = arith::RemUIOp::create(b, loc, gtid, c32);
  Value warp = arith::DivUIOp::create(b, loc, gtid, c32);
  Value warps = arith::DivUIOp::create(b, loc, stride, c32);
  Value chunk = cI64(b, loc, 32 * v);
  Value last = arith::SubIOp::create(b, loc, ls.len, cI64(b, loc, 1));
  scf::ForOp::create(
      b, loc, warp, ls.lines, warps, ValueRange{},
      [&](OpBuilder &rb, Location, Value row, ValueRange) {
        Value base = arith::MulIOp::create(rb, loc, row, ls.len);
        // The row is line (o, i) = (row, 0) of the view (inner = 1).
        k.lineOuter = row, k.lineInner = cI64(rb, loc, 0);
        scf::ForOp::create(
            rb, loc, cI64(rb, loc, 0), ls.len, chunk, ls.init,
            [&](OpBuilder &cb, Location, Value c, ValueRange carry) {
              Value first = arith::AddIOp::create(
                  cb, loc, c,
                  arith::MulIOp::create(cb, loc, lane, cI64(cb, loc, v)));
              // The lane's items, all read before any is combined.
              SmallVector<Value> kks;
              SmallVector<SmallVector<Value>> xs;
              for (int64_t j = 0; j < v; ++j) {
                Value kk =
                    arith::AddIOp::create(cb, loc, first, cI64(cb, loc, j));
                kks.push_back(kk);
                Value at = arith::MinSIOp::create(cb, loc, kk, last);
                xs.push_back(
                    enterElement(ls, cb, scan.getInputs(), base, at).second);
              }
              SmallVector<SmallVector<Value>> own{xs[0]};
              for (int64_t j = 1; j < v; ++j)
                own.push_back(combine(cb, own.back(), xs[j]));
              SmallVector<Value> incl =
                  warpInclusiveScan(cb, loc, lane, own.back(), combine);
              // carry (+) the lanes before this one.
              SmallVector<Value> before;
              for (Value x : incl)
                before.push_back(shuffleValue(cb, loc, x, cI32(cb, loc, 1),
                                              gpu::ShuffleMode::UP));
              Value lane0 = cmpI(cb, loc, arith::CmpIPredicate::eq, lane,
                                 cI64(cb, loc, 0));
              SmallVector<Value> pre =
                  selAll(cb, loc, lane0, carry, combine(cb, carry, before));
              SmallVector<SmallVector<Value>> vals;
              for (int64_t j = 0; j < v; ++j)
                vals.push_back(
                    exclusive ? (j == 0 ? pre : combine(cb, pre, own[j - 1]))
                              : combine(cb, pre, own[j]));
              // A lane's items whole in the row, on the vector path: one
              // store of v elements a result.
              Value whole =
                  cmpI(cb, loc, arith::CmpIPredicate::slt, kks.back(), ls.len);
              scf::IfOp::create(
                  cb, loc, arith::AndIOp::create(cb, loc, vec, whole),
                  [&](OpBuilder &tb, Location) {
                    storeVectors(ls, tb, scan, base, kks, vals);
                    scf::YieldOp::create(tb, loc);
                  },
                  [&](OpBuilder &eb, Location) {
                    for (int64_t j = 0; j < v; ++j) {
                      Value in = cmpI(eb, loc, arith::CmpIPredicate::slt,
                                      kks[j], ls.len);
                      auto ifIn = scf::IfOp::create(eb, loc, in, false);
                      OpBuilder tb = ifIn.getThenBodyBuilder();
                      Value flat = arith::AddIOp::create(tb, loc, base, kks[j]);
                      enterFlat(k, tb, flat);
                      storeResults(ls, tb, scan.getResults(), vals[j], flat);
                      k.em->clearCache();
                    }
                    scf::YieldOp::create(eb, loc);
                  });
              k.em->clearCache();
              // The next chunk's carry: the last lane's (whole chunks only
              // go on).
              SmallVector<Value> next;
              for (Value x : combine(cb, carry, incl))
                next.push_back(shuffleValue(cb, loc, x, cI32(cb, loc, 31),
                                            gpu::ShuffleMode::IDX));
              scf::YieldOp::create(cb, loc, next);
            });
        k.lineOuter = k.lineInner = Value();
        k.em->clearCache();
        scf::YieldOp::create(rb, loc);
      });
}

} // namespace

FailureOr<GroupKernels> buildLineScan(gpu::GPUModuleOp m, GroupOp group,
                                      ScanOp scan, StringRef prefix,
                                      Tiling tiling) {
  Block &body = group.getBody().front();
  for (Operation &op : body)
    if (isa<ReduceOp>(op))
      return op.emitOpError("GPU code generation: a reduction cannot be part "
                            "of a scan group");
  // Broadcasts of lower-rank group operands are read at the coordinates of
  // the flat index (KernelBase's coordinate hook).
  if (!isFlatGroup(group))
    return group.emitOpError("GPU code generation: a scan group over rank > 1 "
                             "tensors takes tensors of the scan's shape only "
                             "(rank-0 operands and broadcasts of operands "
                             "aside)");
  int64_t rank = tensorTy(scan.getInputs()[0]).getRank();
  for (Value y : group.getYield().getValues())
    if (tensorTy(y).getRank() != rank)
      return group.emitOpError("GPU code generation: every result of a scan "
                               "group over rank > 1 tensors has the scan's "
                               "shape");
  // Blocks of 256, whatever the tile shape of the single-pass scans. Rows
  // (the last dimension) take a warp each; other lines a thread.
  // Scans along a dimension but the last whose accumulators can be
  // stored split lines into chunks where there are too few lines to fill
  // the GPU (the host's choice): a column scan of 8192 x 8192 is 8192
  // threads, a thread a column.
  bool rows = scan.getScanDim() == rank - 1;
  bool split = !rows && storableAccumulators(scan.getResultTypes());
  LineStart ls =
      startLineKernel(m, group, scan, (prefix + "_linescan").str(),
                      GroupPlan::LineScan, tiling, splitParams(scan, split));
  LineKernel &k = *ls.k;
  OpBuilder &b = *ls.b;
  if (rows) {
    // A warp a row in flight for every warp an SM holds: the grid is the
    // SMs' (the host reads their count), not the flat scans' fixed one.
    ls.gk.lineScanLanes = 32;
    ls.gk.tiling.grid = 0;
    ls.gk.tiling.blocksPerSM = std::max<int64_t>(
        1, TargetAttr::lookup(group).getMaxThreadsPerSM() / kLineThreads);
    buildWarpRowScan(ls, scan, rowScanItems(scan));
    if (failed(finishLineKernel(ls)))
      return failure();
    return ls.gk;
  }
  // Elements a thread reads before it combines and stores them: a loop
  // that loads, combines and stores one element a step keeps one load in
  // flight (the next load may alias the store before it), so a thread a
  // column of bytes moved one byte a memory round trip.
  int64_t unroll = lineUnroll(scan.getInputs());
  if (!split) {
    forLines(k, b, ls.lines, ls.len, ls.inner,
             [&](OpBuilder &lb, Value, Value base) {
               scanRange(ls, lb, scan, base, cI64(lb, k.loc, 0), ls.len,
                         ls.init, unroll);
             });
    if (failed(finishLineKernel(ls)))
      return failure();
    return ls.gk;
  }
  // A thread a (line, chunk): the carry is the init folded with the
  // line's partials of the chunks before (in order), then the chunk is
  // scanned from it. With chunks = 1 that is the whole line from the init.
  forChunks(ls, b, /*lastChunk=*/true,
            [&](OpBuilder &lb, Value line, Value c, Value base, Value k0,
                Value k1, Value) {
              ValueRange carry =
                  foldPartials(ls, lb, scan, line, cI64(lb, k.loc, 0), c,
                               cI64(lb, k.loc, 1), ls.init, /*first=*/2);
              scanRange(ls, lb, scan, base, k0, k1, carry, unroll);
            });
  if (failed(finishLineKernel(ls)))
    return failure();
  ls.gk.linePartialKernel = (prefix + "_linescanpart").str();
  // The threads the target keeps resident, as the split line reductions;
  // at most lineMaxChunks chunks, since a chunk's carry reads the partials
  // of those before it.
  TargetAttr target = TargetAttr::lookup(group);
  ls.gk.lineSplitThreads = target.getSmCount() * target.getMaxThreadsPerSM();
  ls.gk.lineMinChunk = 128;
  ls.gk.lineMaxChunks = 128;
  for (Value r : scan.getResults())
    ls.gk.partialTypes.push_back(tensorTy(r).getElementType());
  if (failed(
          buildScanPartials(m, group, scan, ls.gk.linePartialKernel, tiling)))
    return failure();
  return ls.gk;
}

} // namespace gpugen
} // namespace fuse
