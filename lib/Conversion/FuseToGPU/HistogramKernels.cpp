//===- HistogramKernels.cpp - GPU kernels of histogram groups -------------===//
//
// A histogram group (GroupPlan::Histogram) is one pass over the bin
// indices, computed by the fused prologue in registers. The host zeroes the
// counts, then launches one of two kernels, both grid-stride flat loops
// (FlatKernel.h):
//  * `count`: each block counts its elements in a copy of the counts in
//    shared memory (i32, nbins of them, dynamic shared memory), then adds
//    every non-zero count to the result with one global atomic. Shared
//    atomics absorb the contention of popular bins, and the global
//    atomics number blocks x bins, independent of n;
//  * `count_global`: for bin counts whose shared copy does not fit a block,
//    each element adds one to its bin in global memory.
// Counts are integers, so the order of the atomics does not change them:
// the result is the same on every run.
//
//===----------------------------------------------------------------------===//

#include "FlatKernel.h"

#include "fuse/Dialect/Fuse/IR/FuseDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace fuse {
namespace gpugen {
namespace {

/// The plan both kernels and the host launch read.
struct HistogramPlan {
  GroupOp group;
  Location loc;
  Tiling tiling;
  HistogramOp hist;
  /// The other results: values over the bin indices' elements, stored as
  /// the pass goes (like an elementwise kernel).
  SmallVector<unsigned> sideOuts;
  GroupKernels gk;

  HistogramPlan(GroupOp group, const Tiling &tiling)
      : group(group), loc(group.getLoc()), tiling(tiling) {}
};

LogicalResult planHistogram(HistogramPlan &p, StringRef prefix) {
  GroupOp group = p.group;
  for (Operation &op : group.getBody().front())
    if (auto h = dyn_cast<HistogramOp>(op)) {
      if (p.hist)
        return group.emitOpError("GPU code generation: a histogram group "
                                 "holds one fuse.histogram");
      p.hist = h;
    }
  if (!p.hist)
    return group.emitOpError("GPU code generation: a histogram group needs a "
                             "fuse.histogram");
  GroupKernels &gk = p.gk;
  bool countsReturned = false;
  auto domainRank = tensorTy(p.hist.getIndices()).getRank();
  for (auto [j, y] : llvm::enumerate(group.getYield().getValues())) {
    if (y == p.hist.getResult()) {
      gk.countsResult = j;
      countsReturned = true;
      continue;
    }
    if (isa<BlockArgument>(y) || tensorTy(y).getRank() != domainRank)
      return group.emitOpError("GPU code generation: a histogram group "
                               "returns its counts and values over its bin "
                               "indices' elements only");
    p.sideOuts.push_back(j);
  }
  // Counts nobody reads (fusion keeps a dead histogram with the maps it
  // shares a group with): the kernels only store the other results.
  if (!countsReturned)
    gk.countsResult = -1;
  gk.plan = GroupPlan::Histogram;
  gk.tiling = p.tiling;
  // The vector width of the streams over the elements: the counts are
  // written by atomics, one bin at a time.
  SmallVector<Value> streams(group.getOperands());
  for (unsigned j : p.sideOuts)
    streams.push_back(group.getResult(j));
  gk.vectorWidth = vectorWidthOf(
      streams, p.tiling, [](RankedTensorType t) { return t.getRank() > 0; });
  gk.kernel = (prefix + "_count").str();
  gk.globalCountKernel = (prefix + "_count_global").str();
  gk.sharedCountLimit = TargetAttr::lookup(group).getSharedMemoryPerBlock();
  return success();
}

/// `bin` (any integer width, read as signed) as i64, and whether it lies in
/// [0, nbins): one unsigned compare, a negative bin being a huge unsigned
/// value.
std::pair<Value, Value> binInRange(OpBuilder &b, Location loc, Value bin,
                                   Value nbins) {
  if (bin.getType().getIntOrFloatBitWidth() < 64)
    bin = arith::ExtSIOp::create(b, loc, b.getI64Type(), bin);
  return {bin, cmpI(b, loc, arith::CmpIPredicate::ult, bin, nbins)};
}

/// Adds `v` to the element at `idx` of `base` (an i32 or i64 array in
/// shared or global memory) with a relaxed atomic; the result is unused,
/// so it becomes a `red`.
void atomicAdd(OpBuilder &b, Location loc, Value base, Value idx, Value v) {
  Value p = LLVM::GEPOp::create(b, loc, base.getType(), v.getType(), base,
                                ArrayRef<LLVM::GEPArg>{idx});
  LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add, p, v,
                            LLVM::AtomicOrdering::monotonic, "device");
}

/// `for (i = tid; i < nbins; i += blockThreads) body(i)`.
void forEachBin(FlatKernel &k, OpBuilder &b, Value nbins,
                function_ref<void(OpBuilder &, Value)> body) {
  Location loc = k.loc;
  scf::ForOp::create(b, loc, k.threadId(b), nbins,
                     cI64(b, loc, k.tiling.blockThreads), ValueRange{},
                     [&](OpBuilder &lb, Location, Value i, ValueRange) {
                       body(lb, i);
                       scf::YieldOp::create(lb, loc);
                     });
}

/// One kernel: params common, n, nchunks, nbins, then the group's result
/// pointers. `privatized` counts in shared memory first.
LogicalResult buildCountKernel(gpu::GPUModuleOp m, const HistogramPlan &p,
                               bool privatized) {
  GroupOp group = p.group;
  HistogramOp hist = p.hist;
  Location loc = p.loc;
  MLIRContext *ctx = group.getContext();
  auto i64 = IntegerType::get(ctx, 64);
  SmallVector<Type> params = commonParams(group);
  params.append({i64, i64, i64}); // n, nchunks, nbins
  params.append(group.getNumResults(), globalPtr(ctx));
  auto f =
      createKernel(m, loc, privatized ? p.gk.kernel : p.gk.globalCountKernel,
                   params, {}, p.tiling.blockThreads);
  FlatKernel k(group, loc, p.tiling);
  k.func = f;
  OpBuilder b = OpBuilder::atBlockBegin(&f.getBody().front());
  k.setUp(b);
  Value n = k.extra[0], nchunks = k.extra[1], nbins = k.extra[2];
  ValueRange outs = ValueRange(k.extra).drop_front(3);
  bool counting = p.gk.countsResult >= 0;
  Value counts = counting ? outs[p.gk.countsResult] : Value();
  Type countType = tensorTy(hist.getResult()).getElementType();
  auto i32 = b.getI32Type();
  Value shared;
  privatized = privatized && counting;
  if (privatized) {
    shared = dynamicSharedBase(f, b, loc);
    forEachBin(k, b, nbins, [&](OpBuilder &lb, Value i) {
      LLVM::StoreOp::create(lb, loc, cI32(lb, loc, 0),
                            k.gep(lb, shared, i32, i), 4);
    });
    gpu::BarrierOp::create(b, loc);
  }
  auto yields = group.getYield().getValues();
  auto step = [&](OpBuilder &sb, ArrayRef<Value> chunks, int64_t vw,
                  ValueRange) -> SmallVector<Value> {
    auto vals = preload(k, sb, chunks, vw);
    for (auto [u, c] : llvm::enumerate(chunks)) {
      SmallVector<SmallVector<Value>> sideLanes(p.sideOuts.size());
      for (int64_t l = 0; l < vw; ++l) {
        enterLane(k, sb, vals[u], c, vw, l);
        for (auto [si, j] : llvm::enumerate(p.sideOuts))
          sideLanes[si].push_back(k.element(sb, yields[j], {k.laneIndex}));
        if (!counting)
          continue;
        auto [bin, in] = binInRange(
            sb, loc, k.element(sb, hist.getIndices(), {k.laneIndex}), nbins);
        scf::IfOp::create(sb, loc, in, [&](OpBuilder &tb, Location) {
          if (privatized)
            atomicAdd(tb, loc, shared, bin, cI32(tb, loc, 1));
          else
            atomicAdd(tb, loc, counts, bin,
                      arith::ConstantOp::create(
                          tb, loc, tb.getIntegerAttr(countType, 1)));
          scf::YieldOp::create(tb, loc);
        });
      }
      for (auto [si, j] : llvm::enumerate(p.sideOuts))
        storeLanes(k, sb, sideLanes[si], outs[j], c);
    }
    return {};
  };
  emitFlatLoops(k, b, n, nchunks, p.gk.vectorWidth, {}, step);
  if (privatized) {
    gpu::BarrierOp::create(b, loc);
    forEachBin(k, b, nbins, [&](OpBuilder &lb, Value i) {
      Value c =
          LLVM::LoadOp::create(lb, loc, i32, k.gep(lb, shared, i32, i), 4);
      Value nonZero =
          cmpI(lb, loc, arith::CmpIPredicate::ne, c, cI32(lb, loc, 0));
      scf::IfOp::create(lb, loc, nonZero, [&](OpBuilder &tb, Location) {
        // A block counts fewer than 2^31 elements (the host's choice), so
        // the i32 count is non-negative.
        Value wide = c;
        if (countType != i32)
          wide = arith::ExtUIOp::create(tb, loc, countType, c);
        atomicAdd(tb, loc, counts, i, wide);
        scf::YieldOp::create(tb, loc);
      });
    });
  }
  gpu::ReturnOp::create(b, loc);
  if (k.failedLeaf)
    return group.emitOpError("GPU code generation: unsupported value in a "
                             "histogram group body");
  return success();
}

} // namespace

FailureOr<GroupKernels> buildHistogramGroup(gpu::GPUModuleOp m, GroupOp group,
                                            StringRef prefix,
                                            const Tiling &tiling) {
  HistogramPlan plan(group, tiling);
  if (failed(planHistogram(plan, prefix)) ||
      failed(buildCountKernel(m, plan, /*privatized=*/true)) ||
      failed(buildCountKernel(m, plan, /*privatized=*/false)))
    return failure();
  return plan.gk;
}

} // namespace gpugen
} // namespace fuse
