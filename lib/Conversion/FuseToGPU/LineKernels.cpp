//===- LineKernels.cpp - line kernels: scans and reductions along a dim ---===//
//
// The line family: a thread walks one line (o, i) of the outer x len x
// inner view of a tensor sequentially, for scans over rank > 1 tensors
// and partial reductions along any dimension (GroupPlan::LineScan,
// GroupPlan::LineReduce).
//
//===----------------------------------------------------------------------===//

#include "LineKernels.h"
#include "KernelGen.h"
#include "RowKernels.h"
#include "fuse/Dialect/Fuse/IR/FuseDialect.h"
#include "fuse/Dialect/Fuse/Utils/ElementEmitter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace fuse {
namespace gpugen {

namespace line {

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
        k.lineOuter = o, k.lineInner = i;
        body(lb, line, base);
        k.lineOuter = k.lineInner = Value();
        k.em->clearCache();
        scf::YieldOp::create(lb, l);
      });
}

Value LineKernel::laneCoordHint(OpBuilder &b, Value tensor, int64_t d) {
  if (!elementFlat || laneIndex != elementFlat ||
      tensorTy(tensor).getRank() != lineRank)
    return Value();
  if (d == lineDim)
    return toIndex(b, loc, elementK);
  if (!lineOuter || !lineInner)
    return Value();
  // i in the dimensions after the line's (o in those before it), d's
  // coordinate: divided by the sizes after d within them, then modulo
  // size[d] unless d is the first of them (i < inner, o < outer).
  bool after = d > lineDim;
  int64_t last = after ? lineRank : lineDim;
  Value coord = toIndex(b, loc, after ? lineInner : lineOuter);
  Value stride;
  for (int64_t e = d + 1; e < last; ++e) {
    FailureOr<Value> s = em->emitDim(b, loc, tensor, e);
    if (failed(s))
      return Value();
    stride =
        stride ? arith::MulIOp::create(b, loc, stride, *s).getResult() : *s;
  }
  if (stride)
    coord = arith::DivUIOp::create(b, loc, coord, stride);
  if (d != (after ? lineDim + 1 : 0)) {
    FailureOr<Value> size = em->emitDim(b, loc, tensor, d);
    if (failed(size))
      return Value();
    coord = arith::RemUIOp::create(b, loc, coord, *size);
  }
  return coord;
}

/// Makes flat index `flat` (i64) the kernel's current element.
void enterFlat(LineKernel &k, OpBuilder &b, Value flat) {
  k.em->clearCache();
  k.laneIndex = toIndex(b, k.loc, flat);
  k.laneValue.clear();
}

LineStart startLineKernel(gpu::GPUModuleOp m, GroupOp group, Operation *op,
                          std::string name, GroupPlan plan, Tiling tiling,
                          TypeRange more, TypeRange workgroup) {
  Location loc = group.getLoc();
  MLIRContext *ctx = group.getContext();
  tiling.blockThreads = kLineThreads;
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
  params.append(more.begin(), more.end());
  params.append(group.getNumResults(), globalPtr(ctx));
  auto f = createKernel(m, loc, ls.gk.kernel, params, workgroup,
                        tiling.blockThreads);
  ls.k = std::make_unique<LineKernel>(group, loc, tiling);
  LineKernel &k = *ls.k;
  k.func = f;
  k.lineRank = tensorTy(op->getOperand(0)).getRank();
  k.lineDim = ls.gk.lineDim;
  ls.b.emplace(OpBuilder::atBlockBegin(&f.getBody().front()));
  OpBuilder &b = *ls.b;
  k.setUp(b);
  ls.lines = k.extra[0];
  ls.len = k.extra[1];
  ls.inner = k.extra[2];
  ls.more.assign(k.extra.begin() + 3, k.extra.begin() + 3 + more.size());
  ls.outs.assign(k.extra.begin() + 3 + more.size(), k.extra.end());
  ls.init = emitInitialAccumulators(
      b, loc, op, [&k, &b](Value v) { return k.scalar(b, v); });
  return ls;
}

/// Stores the group's results (but those numbered in `skip`) at flat
/// index `at` of the current element, with `vals` as the values of
/// `opResults` (the scan's or reduction's).
void storeResults(LineStart &ls, OpBuilder &b, ValueRange opResults,
                  ValueRange vals, Value at, ArrayRef<unsigned> skip) {
  SmallVector<DeferredStore> stores;
  resultStores(ls, b, opResults, vals, at, stores, skip);
  ls.k->store(b, stores);
}

void resultStores(LineStart &ls, OpBuilder &b, ValueRange opResults,
                  ValueRange vals, Value at, DeferredStores &stores,
                  ArrayRef<unsigned> skip) {
  LineKernel &k = *ls.k;
  for (auto [r, v] : llvm::zip(opResults, vals))
    k.leaves[r] = v;
  for (auto [j, y] : llvm::enumerate(k.group.getYield().getValues()))
    if (!llvm::is_contained(skip, j))
      stores.push_back({k.element(b, y, {k.laneIndex}), ls.outs[j], at});
}

/// Ends a line kernel: its return, and the error for a value in the body
/// that the element emitter could not produce.
LogicalResult finishLineKernel(LineStart &ls) {
  LineKernel &k = *ls.k;
  gpu::ReturnOp::create(*ls.b, k.loc);
  if (k.failedLeaf)
    return k.group.emitOpError("GPU code generation: unsupported value in a ")
           << stringifyGroupKind(k.group.getKind()) << " group body";
  return success();
}

/// Makes element `kk` of the line starting at flat index `base` the
/// kernel's current element; returns its flat index (base + kk * inner)
/// and the elements of `inputs` there.
std::pair<Value, SmallVector<Value>> enterElement(LineStart &ls, OpBuilder &b,
                                                  ValueRange inputs, Value base,
                                                  Value kk) {
  LineKernel &k = *ls.k;
  Value flat = arith::AddIOp::create(
      b, k.loc, base, arith::MulIOp::create(b, k.loc, kk, ls.inner));
  enterFlat(k, b, flat);
  k.elementK = kk;
  k.elementFlat = k.laneIndex;
  SmallVector<Value> xs;
  for (Value in : inputs)
    xs.push_back(k.element(b, in, {k.laneIndex}));
  return {flat, xs};
}

/// Runs `steps(idx, n, acc)` over elements [from, to): n = `unroll`
/// elements an iteration, then the rest one by one, each call returning
/// the accumulators the next one takes. Returns the last accumulators.
SmallVector<Value> forUnrolled(OpBuilder &b, Location loc, Value from, Value to,
                               int64_t unroll, ValueRange acc, StepsFn steps) {
  Value u = cI64(b, loc, unroll);
  Value count = arith::SubIOp::create(b, loc, to, from);
  Value whole = arith::AddIOp::create(
      b, loc, from,
      arith::MulIOp::create(b, loc, arith::DivSIOp::create(b, loc, count, u),
                            u));
  auto main = scf::ForOp::create(
      b, loc, from, whole, u, acc,
      [&](OpBuilder &wb, Location wl, Value idx, ValueRange a) {
        scf::YieldOp::create(wb, wl, steps(wb, idx, unroll, a));
      });
  auto rest = scf::ForOp::create(
      b, loc, whole, to, cI64(b, loc, 1), main.getResults(),
      [&](OpBuilder &wb, Location wl, Value idx, ValueRange a) {
        scf::YieldOp::create(wb, wl, steps(wb, idx, 1, a));
      });
  return SmallVector<Value>(rest.getResults());
}

/// Folds `op`'s elements idx = from .. to - 1 from `acc` in order:
/// `unroll` elements an iteration, whose inputs (`enter`) are all read
/// before they are combined and any of their results stored (independent
/// loads in flight), then the rest one by one. Returns the accumulators.
SmallVector<Value> foldUnrolled(LineKernel &k, OpBuilder &b, Operation *op,
                                Value from, Value to, ValueRange acc,
                                int64_t unroll, EnterFn enter) {
  Location loc = k.loc;
  SmallVector<Value> last = forUnrolled(
      b, loc, from, to, unroll, acc,
      [&](OpBuilder &wb, Value idx, int64_t n, ValueRange a) {
        SmallVector<SmallVector<Value>> xs;
        SmallVector<DeferredStore> stores;
        for (int64_t j = 0; j < n; ++j)
          xs.push_back(enter(
              wb,
              j == 0 ? idx
                     : arith::AddIOp::create(wb, loc, idx, cI64(wb, loc, j))
                           .getResult(),
              stores));
        SmallVector<Value> next(a);
        for (ArrayRef<Value> x : xs)
          next = emitCombine(wb, loc, op, next, x,
                             [&](Value v) { return k.scalar(wb, v); });
        k.store(wb, stores);
        return next;
      });
  k.em->clearCache();
  return last;
}

/// Folds `op`'s inputs over elements [from, to) of the line starting at
/// flat index `base`, from `acc` (foldUnrolled). `visit` (optional) runs
/// while each element is the current one.
SmallVector<Value>
foldRange(LineStart &ls, OpBuilder &b, Operation *op, ValueRange inputs,
          Value base, Value from, Value to, ValueRange acc, int64_t unroll,
          function_ref<void(OpBuilder &, Value flat, DeferredStores &)> visit) {
  return foldUnrolled(*ls.k, b, op, from, to, acc, unroll,
                      [&](OpBuilder &eb, Value kk, DeferredStores &stores) {
                        auto [flat, xs] =
                            enterElement(ls, eb, inputs, base, kk);
                        if (visit)
                          visit(eb, flat, stores);
                        return xs;
                      });
}

int64_t lineUnroll(ValueRange inputs) {
  int64_t bytes = 8;
  for (Value in : inputs)
    bytes = std::min<int64_t>(bytes,
                              (tensorTy(in).getElementTypeBitWidth() + 7) / 8);
  return std::clamp<int64_t>(16 / std::max<int64_t>(bytes, 1), 4, 16);
}

/// Whether accumulators of the element types of `results` (a reduction's
/// or a scan's) can be stored as partials (int of 8 to 64 bits, or float).
bool storableAccumulators(TypeRange results) {
  return llvm::all_of(results, [](Type t) {
    Type e = cast<RankedTensorType>(t).getElementType();
    if (auto it = dyn_cast<IntegerType>(e))
      return it.getWidth() >= 8 && it.getWidth() <= 64;
    return isa<FloatType>(e);
  });
}
/// The parameters a split line kernel takes after inner: chunkLen,
/// chunks and a partial pointer per accumulator of `op` (none unless
/// `split`).
SmallVector<Type> splitParams(Operation *op, bool split) {
  SmallVector<Type> more;
  if (!split)
    return more;
  MLIRContext *ctx = op->getContext();
  more.append(2, IntegerType::get(ctx, 64)); // chunkLen, chunks
  more.append(op->getNumResults(), globalPtr(ctx));
  return more;
}

/// A split line kernel's work: calls `body(line, c, base, k0, k1, t)` for
/// each (line, chunk) pair t = c * lines + line a thread takes (lines
/// fastest, so that a warp's threads read consecutive addresses when
/// inner > 1), grid-stride, over the chunk's elements [k0, k1) =
/// [c * chunkLen, min(len, (c + 1) * chunkLen)); all chunks, or all but
/// each line's last (`lastChunk` false).
void forChunks(LineStart &ls, OpBuilder &b, bool lastChunk,
               function_ref<void(OpBuilder &, Value line, Value c, Value base,
                                 Value k0, Value k1, Value t)>
                   body) {
  LineKernel &k = *ls.k;
  Location loc = k.loc;
  Value chunkLen = ls.more[0], chunks = ls.more[1];
  if (!lastChunk)
    chunks = arith::SubIOp::create(b, loc, chunks, cI64(b, loc, 1));
  auto [gtid, stride] = k.gridStride(b);
  Value work = arith::MulIOp::create(b, loc, ls.lines, chunks);
  Value lenInner = arith::MulIOp::create(b, loc, ls.len, ls.inner);
  scf::ForOp::create(
      b, loc, gtid, work, stride, ValueRange{},
      [&](OpBuilder &lb, Location ll, Value t, ValueRange) {
        Value line = arith::RemUIOp::create(lb, ll, t, ls.lines);
        Value c = arith::DivUIOp::create(lb, ll, t, ls.lines);
        Value o = arith::DivUIOp::create(lb, ll, line, ls.inner);
        Value i = arith::RemUIOp::create(lb, ll, line, ls.inner);
        Value base = arith::AddIOp::create(
            lb, ll, arith::MulIOp::create(lb, ll, o, lenInner), i);
        Value k0 = arith::MulIOp::create(lb, ll, c, chunkLen);
        Value k1 = arith::MinSIOp::create(
            lb, ll, ls.len, arith::AddIOp::create(lb, ll, k0, chunkLen));
        k.lineOuter = o, k.lineInner = i;
        body(lb, line, c, base, k0, k1, t);
        k.lineOuter = k.lineInner = Value();
        k.em->clearCache();
        scf::YieldOp::create(lb, ll);
      });
}

/// `acc` folded with the partials of chunks from, from + step, ... < to of
/// `line` (at c * lines + line, pointers from ls.more[first]), in order.
ValueRange foldPartials(LineStart &ls, OpBuilder &b, Operation *op, Value line,
                        Value from, Value to, Value step, ValueRange acc,
                        unsigned first) {
  LineKernel &k = *ls.k;
  Location loc = k.loc;
  return scf::ForOp::create(
             b, loc, from, to, step, acc,
             [&](OpBuilder &wb, Location wl, Value cc, ValueRange a) {
               Value at = arith::AddIOp::create(
                   wb, wl, arith::MulIOp::create(wb, wl, cc, ls.lines), line);
               SmallVector<Value> xs;
               for (auto [j, r] : llvm::enumerate(op->getResults()))
                 xs.push_back(k.load(wb, tensorTy(r).getElementType(),
                                     ls.more[first + j], at));
               scf::YieldOp::create(
                   wb, wl, emitCombine(wb, wl, op, a, xs, [&](Value v) {
                     return k.scalar(wb, v);
                   }));
             })
      .getResults();
}
} // namespace line

namespace {

using namespace line;

/// Stores a line reduction's results (the group's but the side results,
/// elementwise over its input) at `line`, its flat index in the reduced
/// shape, with `acc` as the reduction's values.
void storeLineResults(LineStart &ls, OpBuilder &b, ReduceOp red, ValueRange acc,
                      ArrayRef<unsigned> sideOuts, Value line) {
  enterFlat(*ls.k, b, line);
  storeResults(ls, b, red.getResults(), acc, line, sideOuts);
}

/// Stores the group's results at `line` with `total` (the line's fold from
/// the identity) combined after the reduction's inits, if it has any.
void storeTotal(LineStart &ls, OpBuilder &b, ReduceOp red,
                SmallVector<Value> total, ArrayRef<unsigned> sideOuts,
                Value line) {
  LineKernel &k = *ls.k;
  if (!red.getInits().empty())
    total = emitCombine(b, k.loc, red, ls.init, total,
                        [&](Value v) { return k.scalar(b, v); });
  storeLineResults(ls, b, red, total, sideOuts, line);
}

/// The stores of the side results (`sideOuts`: the group's elementwise
/// results over the reduction's input) at flat index `flat`, the current
/// element, their values computed here.
void sideResultStores(LineStart &ls, OpBuilder &b, ArrayRef<unsigned> sideOuts,
                      Value flat, DeferredStores &stores) {
  LineKernel &k = *ls.k;
  auto yields = k.group.getYield().getValues();
  for (unsigned j : sideOuts)
    stores.push_back(
        {k.element(b, yields[j], {k.laneIndex}), ls.outs[j], flat});
}

/// The kernel folding a split line reduction's partials (GroupKernels::
/// lineCombineKernel): params common, lines, len, inner, chunks, one
/// partial pointer per accumulator, out pointers. Line l's partials are at
/// c * lines + l, c = 0 ... chunks - 1. Combiner regions: a thread folds a
/// line's partials in order from the init. Built-in kinds (commutative,
/// with identities; lineCombineLanes = 32): a warp a line, lane j folding
/// chunks j, j + 32, ... from the identity, then xor butterflies (a fixed
/// tree) and init (+) total; a thread a line would wait on one load after
/// another (column sums of 16 columns in 1024 chunks: 110 us on an H100,
/// against the tile kernel's 730). Either stores the group's results at
/// the line as the one-pass kernel does.
LogicalResult buildLineCombine(gpu::GPUModuleOp m, GroupOp group, ReduceOp red,
                               StringRef name, ArrayRef<unsigned> sideOuts,
                               const Tiling &tiling, bool warpPerLine) {
  MLIRContext *ctx = group.getContext();
  SmallVector<Type> more{IntegerType::get(ctx, 64)};
  more.append(red.getNumResults(), globalPtr(ctx));
  LineStart ls = startLineKernel(m, group, red, name.str(),
                                 GroupPlan::LineReduce, tiling, more);
  LineKernel &k = *ls.k;
  OpBuilder &b = *ls.b;
  Location loc = k.loc;
  Value chunks = ls.more[0];
  auto scalarFn = [&](OpBuilder &sb) {
    return [&k, &sb](Value v) { return k.scalar(sb, v); };
  };
  // Folds partials c = from, from + step, ... < chunks of `line` from acc.
  auto foldChunks = [&](OpBuilder &fb, Value line, Value from, Value step,
                        ValueRange acc) {
    return foldPartials(ls, fb, red, line, from, chunks, step, acc,
                        /*first=*/1);
  };
  if (!warpPerLine) {
    forLines(k, b, ls.lines, ls.len, ls.inner,
             [&](OpBuilder &lb, Value line, Value) {
               ValueRange total = foldChunks(lb, line, cI64(lb, loc, 0),
                                             cI64(lb, loc, 1), ls.init);
               storeLineResults(ls, lb, red, total, sideOuts, line);
             });
  } else {
    auto [gtid, stride] = k.gridStride(b);
    Value w32 = cI64(b, loc, 32);
    Value lane = arith::RemUIOp::create(b, loc, gtid, w32);
    Value isLead =
        cmpI(b, loc, arith::CmpIPredicate::eq, lane, cI64(b, loc, 0));
    scf::ForOp::create(
        b, loc, arith::DivUIOp::create(b, loc, gtid, w32), ls.lines,
        arith::DivUIOp::create(b, loc, stride, w32), ValueRange{},
        [&](OpBuilder &lb, Location ll, Value line, ValueRange) {
          SmallVector<Value> part(
              foldChunks(lb, line, lane, w32, startValues(lb, ll, red)));
          SmallVector<Value> total = warpFold(
              lb, ll, part, [&](OpBuilder &cb, ValueRange a, ValueRange x) {
                return emitCombine(cb, ll, red, a, x, scalarFn(cb));
              });
          scf::IfOp::create(lb, ll, isLead, [&](OpBuilder &ib, Location il) {
            storeTotal(ls, ib, red, total, sideOuts, line);
            k.em->clearCache();
            scf::YieldOp::create(ib, il);
          });
          k.em->clearCache();
          scf::YieldOp::create(lb, ll);
        });
  }
  return finishLineKernel(ls);
}

/// The tile kernel of a split line reduction with built-in kinds over few
/// columns (GroupKernels::lineTileKernel): params as the split kernel's
/// (common, lines, len, inner, chunkLen, chunks, partial ptrs, out ptrs).
/// A block takes work item (o, c): rows [c * chunkLen, min(len, (c + 1) *
/// chunkLen)) of outer slice o, a contiguous run of memory. Its threads
/// cover R = blockThreads / inner whole rows a step (thread t: column
/// t % inner, row offset t / inner), so a warp reads consecutive
/// addresses and the block walks its run front to back like a flat
/// reduction, where a thread per line would keep lines * chunks slow
/// streams of inner * bytes apart. Built-in kinds are commutative and have
/// identities: each thread folds its rows from the identity, and thread
/// column t folds the R row offsets' values through shared memory in
/// order. One chunk (chunks = 1) stores the group's results (init (+)
/// total); split lines store partials at c * lines + line for the combine
/// kernel, as the split kernel does.
LogicalResult buildLineTile(gpu::GPUModuleOp m, GroupOp group, ReduceOp red,
                            StringRef name, ArrayRef<unsigned> sideOuts,
                            const Tiling &tiling, int64_t unroll) {
  MLIRContext *ctx = group.getContext();
  Type i64 = IntegerType::get(ctx, 64);
  SmallVector<Type> more{i64, i64}; // chunkLen, chunks
  more.append(red.getNumResults(), globalPtr(ctx));
  auto wg = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  SmallVector<Type> smemTypes;
  for (Value r : red.getResults())
    smemTypes.push_back(MemRefType::get({kLineThreads},
                                        tensorTy(r).getElementType(),
                                        MemRefLayoutAttrInterface(), wg));
  LineStart ls =
      startLineKernel(m, group, red, name.str(), GroupPlan::LineReduce, tiling,
                      more, smemTypes);
  LineKernel &k = *ls.k;
  OpBuilder &b = *ls.b;
  Location loc = k.loc;
  // Sixteen rows a thread in flight (the caller's unroll) with half the
  // threads an SM holds (4 blocks of 256 on sm_90, 64 registers; the runs
  // are two waves). Measured on an H100 (1 GiB f32, column sums, maxima
  // and means of 16, 64 and 256 columns, fuse-run-aot medians, 1024 runs):
  // 381-389 us; 8 rows at 8 blocks an SM (32 registers, spills) 492-499;
  // 8 rows at 6 blocks 419-421; 4 rows at 8 blocks 407-414; runs
  // interleaved by tiles of R x 8 rows (the blocks reading neighbouring
  // tiles at a time) 436-460.
  int64_t blocksPerSM = std::max<int64_t>(
      1, TargetAttr::lookup(group).getMaxThreadsPerSM() / (2 * kLineThreads));
  k.func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                  b.getI32IntegerAttr(blocksPerSM));
  auto smem = k.func.getWorkgroupAttributions();
  Value chunkLen = ls.more[0], chunks = ls.more[1];
  auto scalarFn = [&](OpBuilder &sb) {
    return [&k, &sb](Value v) { return k.scalar(sb, v); };
  };
  Value bt = cI64(b, loc, kLineThreads);
  Value tid = k.threadId(b);
  Value rowsStep = arith::DivUIOp::create(b, loc, bt, ls.inner);
  Value col = arith::RemUIOp::create(b, loc, tid, ls.inner);
  Value ro = arith::DivUIOp::create(b, loc, tid, ls.inner);
  Value active = cmpI(b, loc, arith::CmpIPredicate::ult, ro, rowsStep);
  Value outer = arith::DivUIOp::create(b, loc, ls.lines, ls.inner);
  Value items = arith::MulIOp::create(b, loc, outer, chunks);
  Value lenInner = arith::MulIOp::create(b, loc, ls.len, ls.inner);
  Value single =
      cmpI(b, loc, arith::CmpIPredicate::eq, chunks, cI64(b, loc, 1));
  Value tidIdx = toIndex(b, loc, tid);
  scf::ForOp::create(
      b, loc, k.blockId(b), items, k.gridDim(b), ValueRange{},
      [&](OpBuilder &lb, Location ll, Value w, ValueRange) {
        Value o = arith::DivUIOp::create(lb, ll, w, chunks);
        Value c = arith::RemUIOp::create(lb, ll, w, chunks);
        Value base = arith::AddIOp::create(
            lb, ll, arith::MulIOp::create(lb, ll, o, lenInner), col);
        // The thread's element at `row`: its inputs (side results stored).
        auto enterRow = [&](OpBuilder &eb, Value row, DeferredStores &st) {
          auto [flat, xs] = enterElement(ls, eb, red.getInputs(), base, row);
          sideResultStores(ls, eb, sideOuts, flat, st);
          return xs;
        };
        // Folds rows first, first + R, ... (cnt of them) from `acc`.
        auto foldRows = [&](OpBuilder &fb, Value first, Value cnt,
                            ValueRange acc) {
          return foldUnrolled(
              k, fb, red, cI64(fb, ll, 0), cnt, acc, unroll,
              [&](OpBuilder &eb, Value j, DeferredStores &st) {
                return enterRow(eb,
                                arith::AddIOp::create(
                                    eb, ll, first,
                                    arith::MulIOp::create(eb, ll, j, rowsStep)),
                                st);
              });
        };
        // Rows first, first + R, ... below `end`: none for an inactive
        // thread or a run shorter than the thread's row offset.
        auto rowsBelow = [&](OpBuilder &cb, Value first, Value end) {
          Value left = arith::SubIOp::create(cb, ll, end, first);
          Value has = arith::AndIOp::create(
              cb, ll, active,
              cmpI(cb, ll, arith::CmpIPredicate::sgt, left, cI64(cb, ll, 0)));
          return sel(cb, ll, has,
                     arith::CeilDivSIOp::create(cb, ll, left, rowsStep),
                     cI64(cb, ll, 0));
        };
        Value k0 = arith::MulIOp::create(lb, ll, c, chunkLen);
        Value k1 = arith::MinSIOp::create(
            lb, ll, ls.len, arith::AddIOp::create(lb, ll, k0, chunkLen));
        Value first = arith::AddIOp::create(lb, ll, k0, ro);
        SmallVector<Value> folded = foldRows(
            lb, first, rowsBelow(lb, first, k1), startValues(lb, ll, red));
        k.em->clearCache();
        // The block's rows of each column, in row-offset order (the leading
        // barrier protects the previous item's reads).
        gpu::BarrierOp::create(lb, ll);
        for (auto [j, a] : llvm::enumerate(folded))
          memref::StoreOp::create(lb, ll, a, smem[j], ValueRange{tidIdx});
        gpu::BarrierOp::create(lb, ll);
        Value mine = cmpI(lb, ll, arith::CmpIPredicate::ult, tid, ls.inner);
        scf::IfOp::create(lb, ll, mine, [&](OpBuilder &ib, Location il) {
          SmallVector<Value> init;
          for (BlockArgument s : smem)
            init.push_back(
                memref::LoadOp::create(ib, il, s, ValueRange{tidIdx}));
          SmallVector<Value> fold = foldSmemColumn(
              ib, il, smem, cI64(ib, il, 1), rowsStep, ls.inner, tid, init,
              [&](OpBuilder &fb, ValueRange a, ValueRange x) {
                return emitCombine(fb, il, red, a, x, scalarFn(fb));
              });
          Value line = arith::AddIOp::create(
              ib, il, arith::MulIOp::create(ib, il, o, ls.inner), tid);
          scf::IfOp::create(
              ib, il, single,
              [&](OpBuilder &sb, Location sl) {
                storeTotal(ls, sb, red, fold, sideOuts, line);
                scf::YieldOp::create(sb, sl);
              },
              [&](OpBuilder &pb, Location pl) {
                Value at = arith::AddIOp::create(
                    pb, pl, arith::MulIOp::create(pb, pl, c, ls.lines), line);
                for (auto [j, a] : llvm::enumerate(fold))
                  k.store(pb, a, ls.more[2 + j], at);
                scf::YieldOp::create(pb, pl);
              });
          k.em->clearCache();
          scf::YieldOp::create(ib, il);
        });
        k.em->clearCache();
        scf::YieldOp::create(lb, ll);
      });
  return finishLineKernel(ls);
}

} // namespace

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

  // Lines split into chunks (the host's choice, when there are too few
  // lines to fill the GPU) need accumulators that can be stored.
  bool split = storableAccumulators(red.getResultTypes());
  LineStart ls =
      startLineKernel(m, group, red, (prefix + "_linereduce").str(),
                      GroupPlan::LineReduce, tiling, splitParams(red, split));
  LineKernel &k = *ls.k;
  OpBuilder &b = *ls.b;
  auto sideStores = [&](OpBuilder &wb, Value flat, DeferredStores &stores) {
    sideResultStores(ls, wb, sideOuts, flat, stores);
  };
  int64_t unroll = lineUnroll(red.getInputs());
  // One thread a line: the line folded from the init, the group's results
  // stored at its flat index in the reduced shape.
  auto wholeLines = [&](OpBuilder &wb) {
    forLines(k, wb, ls.lines, ls.len, ls.inner,
             [&](OpBuilder &lb, Value line, Value base) {
               SmallVector<Value> total = foldRange(
                   ls, lb, red, red.getInputs(), base, cI64(lb, loc, 0), ls.len,
                   ls.init, unroll, sideStores);
               storeLineResults(ls, lb, red, total, sideOuts, line);
             });
  };
  if (!split) {
    wholeLines(b);
  } else {
    // A thread a (line, chunk), lines fastest (a warp's threads read
    // consecutive addresses when inner > 1), over the chunk's elements
    // [c * chunkLen, min(len, (c + 1) * chunkLen)). One fold loop serves
    // both forms, which keeps the kernel (and its compile time) small:
    // a line in one chunk (chunks = 1, also over an empty dimension)
    // folds from the init and stores the group's results at the line;
    // split lines (never an empty chunk: the host's split) fold from the
    // chunk's first element and store the accumulators as partials at
    // c * lines + line for the combine kernel.
    Value single =
        cmpI(b, loc, arith::CmpIPredicate::eq, ls.more[1], cI64(b, loc, 1));
    forChunks(
        ls, b, /*lastChunk=*/true,
        [&](OpBuilder &lb, Value line, Value, Value base, Value k0, Value k1,
            Value t) {
          Location ll = loc;
          auto start = scf::IfOp::create(
              lb, ll, single,
              [&](OpBuilder &ib, Location il) {
                scf::YieldOp::create(ib, il, ls.init);
              },
              [&](OpBuilder &eb, Location el) {
                auto [flat0, first] =
                    enterElement(ls, eb, red.getInputs(), base, k0);
                SmallVector<DeferredStore> stores;
                sideStores(eb, flat0, stores);
                k.store(eb, stores);
                scf::YieldOp::create(eb, el, first);
              });
          k.em->clearCache();
          Value from = arith::SelectOp::create(
              lb, ll, single, k0,
              arith::AddIOp::create(lb, ll, k0, cI64(lb, ll, 1)));
          SmallVector<Value> acc =
              foldRange(ls, lb, red, red.getInputs(), base, from, k1,
                        start.getResults(), unroll, sideStores);
          scf::IfOp::create(
              lb, ll, single,
              [&](OpBuilder &ib, Location il) {
                storeLineResults(ls, ib, red, acc, sideOuts, line);
                scf::YieldOp::create(ib, il);
              },
              [&](OpBuilder &eb, Location el) {
                for (auto [j, a] : llvm::enumerate(acc))
                  k.store(eb, a, ls.more[2 + j], t);
                scf::YieldOp::create(eb, el);
              });
        });
  }
  if (failed(finishLineKernel(ls)))
    return failure();
  if (split) {
    ls.gk.lineCombineKernel = (prefix + "_linecombine").str();
    // The threads the target keeps resident (H100/H200: 132 SMs x 2048),
    // so that column sums of few columns keep loads in flight; chunks of
    // 64 or more keep the partials' traffic under 1/64 of the input's.
    TargetAttr target = TargetAttr::lookup(group);
    ls.gk.lineSplitThreads = target.getSmCount() * target.getMaxThreadsPerSM();
    ls.gk.lineMinChunk = 64;
    for (Value r : red.getResults())
      ls.gk.partialTypes.push_back(tensorTy(r).getElementType());
    bool builtin = red.hasBuiltinKinds();
    ls.gk.lineCombineLanes = builtin ? 32 : 1;
    if (failed(buildLineCombine(m, group, red, ls.gk.lineCombineKernel,
                                sideOuts, tiling, /*warpPerLine=*/builtin)))
      return failure();
    // Built-in kinds over lines of at most a block's threads also get the
    // tile kernel (the host picks it by the sizes).
    if (builtin) {
      ls.gk.lineTileKernel = (prefix + "_linetile").str();
      ls.gk.lineTileMinItems = 16;
      if (failed(buildLineTile(m, group, red, ls.gk.lineTileKernel, sideOuts,
                               tiling, /*unroll=*/16)))
        return failure();
    }
  }
  return ls.gk;
}
} // namespace gpugen
} // namespace fuse
