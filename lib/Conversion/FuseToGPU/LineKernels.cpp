//===- LineKernels.cpp - line kernels: scans and reductions along a dim ---===//
//
// The line family: a thread walks one line (o, i) of the outer x len x
// inner view of a tensor sequentially, for scans over rank > 1 tensors
// and partial reductions along any dimension (GroupPlan::LineScan,
// GroupPlan::LineReduce).
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"
#include "fuse/Dialect/Fuse/Utils/ElementEmitter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace fuse {
namespace gpugen {

namespace {

/// A line-scan kernel under construction: tensors of the group's one shape
/// are addressed at their flat index (flatLanes).
struct LineKernel : KernelBase {
  LineKernel(GroupOp group, Location loc, const Tiling &t)
      : KernelBase(group, loc, t, KernelOptions{/*flatLanes=*/true}) {}
};

/// The thread's lines of a line kernel: calls `body(line, base)` for each
/// line (i64) it takes in a grid-stride loop over `lines`, with `base` the
/// flat index of the line's first element, (o * len) * inner + i.
void forLines(LineKernel &k, OpBuilder &b, Value lines, Value len,
              Value inner,
              function_ref<void(OpBuilder &, Value line, Value base)> body) {
  Location loc = k.loc;
  auto [gtid, stride] = k.gridStride(b);
  Value lenInner = arith::MulIOp::create(b, loc, len, inner);
  scf::ForOp::create(
      b, loc, gtid, lines, stride, ValueRange{},
      [&](OpBuilder &lb, Location l, Value line, ValueRange) {
        Value o = arith::DivUIOp::create(lb, l, line, inner);
        Value i = arith::RemUIOp::create(lb, l, line, inner);
        Value base = arith::AddIOp::create(
            lb, l, arith::MulIOp::create(lb, l, o, lenInner), i);
        body(lb, line, base);
        k.em->clearCache();
        scf::YieldOp::create(lb, l);
      });
}

/// Makes flat index `flat` (i64) the kernel's current element.
void enterFlat(LineKernel &k, OpBuilder &b, Value flat) {
  k.em->clearCache();
  k.laneIndex = toIndex(b, k.loc, flat);
  k.laneValue.clear();
}

/// The common start of a line kernel (GroupPlan::LineScan, LineReduce):
/// kernel `name` with params common, lines, len, inner and the out
/// pointers, in blocks of 256 threads; the kernel set up, and the starting
/// accumulators of `op` (a fuse.scan or fuse.reduce).
struct LineStart {
  GroupKernels gk;
  std::unique_ptr<LineKernel> k;
  std::optional<OpBuilder> b;
  Value lines, len, inner;
  SmallVector<Value> outs, init;
};

LineStart startLineKernel(gpu::GPUModuleOp m, GroupOp group, Operation *op,
                          std::string name, GroupPlan plan, Tiling tiling) {
  Location loc = group.getLoc();
  MLIRContext *ctx = group.getContext();
  tiling.blockThreads = 256;
  LineStart ls;
  ls.gk.plan = plan;
  ls.gk.tiling = tiling;
  ls.gk.lineOp = op;
  if (auto s = dyn_cast<ScanOp>(op))
    ls.gk.lineDim = s.getScanDim();
  else
    ls.gk.lineDim = cast<ReduceOp>(op).getReducedDims()[0];
  ls.gk.vectorWidth = 1;
  ls.gk.kernel = std::move(name);
  auto i64 = IntegerType::get(ctx, 64);
  SmallVector<Type> params = commonParams(group);
  params.append({i64, i64, i64}); // lines, len, inner
  params.append(group.getNumResults(), globalPtr(ctx));
  auto f = createKernel(m, loc, ls.gk.kernel, params, {}, tiling.blockThreads);
  ls.k = std::make_unique<LineKernel>(group, loc, tiling);
  LineKernel &k = *ls.k;
  k.func = f;
  ls.b.emplace(OpBuilder::atBlockBegin(&f.getBody().front()));
  OpBuilder &b = *ls.b;
  k.setUp(b);
  ls.lines = k.extra[0];
  ls.len = k.extra[1];
  ls.inner = k.extra[2];
  ls.outs.assign(k.extra.begin() + 3, k.extra.end());
  ls.init = emitInitialAccumulators(
      b, loc, op, [&k, &b](Value v) { return k.scalar(b, v); });
  return ls;
}

/// Stores the group's results at flat index `at` of the current element,
/// with `vals` as the values of `opResults` (the scan's or reduction's).
void storeResults(LineStart &ls, OpBuilder &b, ValueRange opResults,
                  ValueRange vals, Value at) {
  LineKernel &k = *ls.k;
  for (auto [r, v] : llvm::zip(opResults, vals))
    k.leaves[r] = v;
  for (auto [y, out] : llvm::zip(k.group.getYield().getValues(), ls.outs))
    k.store(b, k.element(b, y, {k.laneIndex}), out, at);
}

/// Folds `op`'s inputs (a fuse.scan's or fuse.reduce's) along the line
/// starting at flat index `base`, in order from ls.init: element k, at
/// base + k * inner, becomes the kernel's current element, and `step`
/// (optional) sees the accumulators before and after it. Returns the last
/// accumulators.
ValueRange foldLine(LineStart &ls, OpBuilder &b, Operation *op,
                    ValueRange inputs, Value base,
                    function_ref<void(OpBuilder &, Value flat, ValueRange acc,
                                      ValueRange next)>
                        step = nullptr) {
  LineKernel &k = *ls.k;
  Location loc = k.loc;
  auto walk = scf::ForOp::create(
      b, loc, cI64(b, loc, 0), ls.len, cI64(b, loc, 1), ls.init,
      [&](OpBuilder &wb, Location wl, Value kk, ValueRange acc) {
        Value flat = arith::AddIOp::create(
            wb, wl, base, arith::MulIOp::create(wb, wl, kk, ls.inner));
        enterFlat(k, wb, flat);
        SmallVector<Value> xs;
        for (Value in : inputs)
          xs.push_back(k.element(wb, in, {k.laneIndex}));
        SmallVector<Value> next = emitCombine(
            wb, wl, op, acc, xs, [&](Value v) { return k.scalar(wb, v); });
        if (step)
          step(wb, flat, acc, next);
        scf::YieldOp::create(wb, wl, next);
      });
  return walk.getResults();
}

} // namespace

/// Scans over rank > 1 tensors (GroupPlan::LineScan): every tensor of the
/// group has the scan's shape (rank-0 operands and broadcasts of group
/// operands aside). A thread scans one line (o, i) of the outer x len x
/// inner view sequentially: element k of the line is at flat index
/// (o * len + k) * inner + i, so the threads of a warp, taking consecutive
/// lines, read consecutive addresses when inner > 1 (a scan along any
/// dimension but the last) and consecutive rows when inner = 1.
FailureOr<GroupKernels> buildLineScan(gpu::GPUModuleOp m, GroupOp group,
                                      ScanOp scan, StringRef prefix,
                                      Tiling tiling) {
  Location loc = group.getLoc();
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
  // One thread per line (blocks of 256, whatever the tile shape of the
  // single-pass scans).
  LineStart ls = startLineKernel(m, group, scan, (prefix + "_linescan").str(),
                                 GroupPlan::LineScan, tiling);
  LineKernel &k = *ls.k;
  OpBuilder &b = *ls.b;
  bool exclusive = scan.getExclusive();
  forLines(k, b, ls.lines, ls.len, ls.inner,
           [&](OpBuilder &lb, Value, Value base) {
    foldLine(ls, lb, scan, scan.getInputs(), base,
             [&](OpBuilder &wb, Value flat, ValueRange acc, ValueRange next) {
               storeResults(ls, wb, scan.getResults(),
                            exclusive ? acc : next, flat);
             });
  });
  gpu::ReturnOp::create(b, loc);
  if (k.failedLeaf)
    return group.emitOpError("GPU code generation: unsupported value in a "
                             "scan group body");
  return ls.gk;
}


FailureOr<GroupKernels> buildLineReduce(gpu::GPUModuleOp m, GroupOp group,
                                        StringRef prefix, const Tiling &tiling,
                                        bool &handled) {
  handled = false;
  Location loc = group.getLoc();
  Block &body = group.getBody().front();
  // The form: one partial reduction over one dimension of a rank >= 2
  // input, the results its results or elementwise values over its input;
  // the other ops of the body scalar or
  // elementwise over the input's shape (maps, iotas, broadcasts of lower
  // rank operands, read at the coordinates of the flat index: e.g. the
  // positions of an argmax along a dimension).
  ReduceOp red;
  for (Operation &op : body) {
    if (auto r = dyn_cast<ReduceOp>(op)) {
      if (red)
        return failure();
      red = r;
    }
  }
  if (!red || red.isFullReduction())
    return failure();
  SmallVector<int64_t> rd = red.getReducedDims();
  int64_t rank = tensorTy(red.getInputs()[0]).getRank();
  if (rd.size() != 1 || rank < 2)
    return failure();
  for (Operation &op : body) {
    if (isa<ReduceOp, YieldOp>(op))
      continue;
    if (llvm::any_of(op.getResultTypes(), [&](Type t) {
          auto tt = dyn_cast<RankedTensorType>(t);
          return tt && tt.getRank() != rank;
        }))
      return failure();
  }
  if (!isFlatGroup(group))
    return failure();
  // Results: the reduction's, and elementwise values over its input
  // (stored at each element as the line passes it).
  SmallVector<unsigned> sideOuts;
  for (auto [j, y] : llvm::enumerate(group.getYield().getValues())) {
    if (y.getDefiningOp() == red.getOperation())
      continue;
    if (tensorTy(y).getRank() != rank)
      return failure();
    sideOuts.push_back(j);
  }
  // The row kernels take built-in reductions over the last dimension of a
  // rank-2 tensor.
  if (rank == 2 && rd[0] == 1 && red.hasBuiltinKinds())
    return failure();
  handled = true;

  LineStart ls = startLineKernel(m, group, red,
                                 (prefix + "_linereduce").str(),
                                 GroupPlan::LineReduce, tiling);
  LineKernel &k = *ls.k;
  OpBuilder &b = *ls.b;
  auto yields = group.getYield().getValues();
  forLines(k, b, ls.lines, ls.len, ls.inner,
           [&](OpBuilder &lb, Value line, Value base) {
             ValueRange total = foldLine(
                 ls, lb, red, red.getInputs(), base,
                 [&](OpBuilder &wb, Value flat, ValueRange, ValueRange) {
                   for (unsigned j : sideOuts)
                     k.store(wb, k.element(wb, yields[j], {k.laneIndex}),
                             ls.outs[j], flat);
                 });
             // The reduction's results at the line's flat index in the reduced
             // shape.
             enterFlat(k, lb, line);
             for (auto [r, v] : llvm::zip(red.getResults(), total))
               k.leaves[r] = v;
             for (auto [j, y] : llvm::enumerate(yields))
               if (!llvm::is_contained(sideOuts, j))
                 k.store(lb, k.element(lb, y, {k.laneIndex}), ls.outs[j], line);
           });
  gpu::ReturnOp::create(b, loc);
  if (k.failedLeaf)
    return group.emitOpError("GPU code generation: unsupported value in a "
                             "row_reduce group body");
  return ls.gk;
}
} // namespace gpugen
} // namespace fuse
