//===- OrderedReduce.cpp - reduce kernels of custom combiners -------------===//
//
// reduce groups with a custom combiner region (other than fusion's Welford
// reduction, which Kernels.cpp accumulates with shifted sums): the
// combiner may be non-commutative, so the order of operands is kept: each
// thread combines a contiguous range of elements in order, threads, warps
// and blocks are combined in index order (shuffle-down trees), and every
// accumulator carries a "has value" flag, so no identity is needed:
// result = init (+) x0 (+) x1 (+) ...
// Same host plan as built-in reductions (GroupPlan::Reduce), with one
// extra i32 partial holding the per-block flag.
//
//===----------------------------------------------------------------------===//

#include "RowKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
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

/// Ordered block reduction of flagged accumulators: shuffle-down trees
/// (lane 0 ends with lanes 0..31 in order), warps in order through `smem`
/// (accumulators, then the i32 flags). Valid in thread 0 only.
std::pair<SmallVector<Value>, Value>
blockOrderedReduce(Gen &g, OpBuilder &b, ArrayRef<ReduceOp> reds,
                   SmallVector<Value> acc, Value has, ValueRange smem,
                   Value smemFlag) {
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

  OrderedReducePlan(GroupOp group, const Tiling &tiling)
      : group(group), loc(group.getLoc()), tiling(tiling) {}

  /// Folds x into (acc, has) in order.
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

/// Checks the group and decides the plan: kernel names, vector width of
/// the flat operands, partials and shared buffers.
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
  // The flat operands' width (the results are scalars).
  gk.vectorWidth =
      vectorWidthOf(group.getOperands(), p.tiling,
                    [](RankedTensorType t) { return t.getRank() > 0; });
  for (ReduceOp r : p.reds)
    for (Value res : r.getResults()) {
      Type et = tensorTy(res).getElementType();
      gk.partialTypes.push_back(et);
      p.smem.push_back(smemType(ctx, et));
    }
  p.smem.push_back(smemType(ctx, IntegerType::get(ctx, 32)));
  gk.partialTypes.push_back(IntegerType::get(ctx, 32)); // has-value flags
  p.numAcc = gk.partialTypes.size() - 1;
  p.numPartials = gk.partialTypes.size();
  p.numOuts = group.getNumResults();
  return success();
}

/// The partial kernel's vector part: [s, s + ((e - s) / vw) * vw) when
/// aligned (nchunks > 0), folded into (acc, has); returns where the
/// scalar part starts.
Value foldVectorPart(const OrderedReducePlan &p, Gen &g, OpBuilder &b,
                     Value s, Value e, Value nchunks,
                     ArrayRef<unsigned> flatArgs,
                     function_ref<SmallVector<Value>(OpBuilder &, Value)>
                         elementXs,
                     SmallVector<Value> &acc, Value &has) {
  Location loc = p.loc;
  GroupOp group = p.group;
  Block &body = group.getBody().front();
  const int64_t vw = p.gk.vectorWidth;
  Value aligned =
      cmpI(b, loc, arith::CmpIPredicate::sgt, nchunks, cI64(b, loc, 0));
  Value cs = arith::DivSIOp::create(b, loc, s, cI64(b, loc, vw));
  Value full = arith::DivSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, e, s), cI64(b, loc, vw));
  Value ce = arith::AddIOp::create(
      b, loc, cs, sel(b, loc, aligned, full, cI64(b, loc, 0)));
  SmallVector<Value> inits(acc);
  inits.push_back(has);
  auto loop = scf::ForOp::create(
      b, loc, cs, ce, cI64(b, loc, 1), inits,
      [&](OpBuilder &lb, Location l, Value c, ValueRange args) {
        SmallVector<Value> a(args.drop_back());
        Value h = args.back();
        DenseMap<unsigned, Value> vecs;
        for (unsigned n : flatArgs) {
          Type et = tensorTy(body.getArgument(n)).getElementType();
          auto vt = VectorType::get({vw}, et);
          vecs[n] = LLVM::LoadOp::create(lb, l, vt,
                                         g.gep(lb, g.ptr[n], vt, c),
                                         byteWidth(et) * vw);
        }
        for (int64_t k = 0; k < vw; ++k) {
          g.em->clearCache();
          Value flat = arith::AddIOp::create(
              lb, l, arith::MulIOp::create(lb, l, c, cI64(lb, l, vw)),
              cI64(lb, l, k));
          g.laneIndex = toIndex(lb, l, flat);
          g.laneValue.clear();
          for (auto [n, v] : vecs)
            g.laneValue[n] =
                LLVM::ExtractElementOp::create(lb, l, v, cI32(lb, l, k));
          SmallVector<Value> xs = elementXs(lb, flat);
          a = k == 0 ? p.fold(g, lb, a, h, xs) : p.combineAll(g, lb, a, xs);
        }
        a.push_back(cBool(lb, l, true));
        scf::YieldOp::create(lb, l, a);
      });
  g.em->clearCache();
  g.laneIndex = nullptr;
  acc = SmallVector<Value>(loop.getResults().drop_back());
  has = loop.getResults().back();
  // s + (ce - cs) * vw: never before s (s may be n, not a multiple).
  return arith::AddIOp::create(
      b, loc, s,
      arith::MulIOp::create(b, loc, arith::SubIOp::create(b, loc, ce, cs),
                            cI64(b, loc, vw)));
}

/// Stage 1: each thread folds its contiguous range in order, the block
/// combines its threads in order; thread 0 stores the block's partial
/// (or, with `single` set, the final results).
LogicalResult buildOrderedPartial(gpu::GPUModuleOp m,
                                  const OrderedReducePlan &p) {
  GroupOp group = p.group;
  Location loc = p.loc;
  MLIRContext *ctx = group.getContext();
  Block &body = group.getBody().front();
  const int64_t bt = p.tiling.blockThreads;
  const int64_t vw = p.gk.vectorWidth;
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
  Value gid = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, g.blockId(b), cI64(b, loc, bt)),
      t);
  Value nthreads =
      arith::MulIOp::create(b, loc, g.gridDim(b), cI64(b, loc, bt));
  auto [s, e] = p.range(b, gid, nthreads, n, vw);
  SmallVector<Value> acc;
  for (ReduceOp r : p.reds)
    acc.append(startValues(b, loc, r));
  Value has = cBool(b, loc, false);
  // Flat operands read elementwise.
  SmallVector<unsigned> flatArgs;
  for (BlockArgument arg : body.getArguments())
    if (auto tt = tensorTy(arg); tt && tt.getRank() > 0 && readDirectly(arg))
      flatArgs.push_back(arg.getArgNumber());
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
  Value scalarFrom = s;
  if (vw > 1)
    scalarFrom = foldVectorPart(p, g, b, s, e, nchunks, flatArgs, elementXs,
                                acc, has);
  {
    SmallVector<Value> inits(acc);
    inits.push_back(has);
    auto loop = scf::ForOp::create(
        b, loc, scalarFrom, e, cI64(b, loc, 1), inits,
        [&](OpBuilder &lb, Location l, Value i, ValueRange args) {
          g.em->clearCache();
          g.laneIndex = toIndex(lb, l, i);
          g.laneValue.clear();
          SmallVector<Value> a(args.drop_back());
          a = p.fold(g, lb, a, args.back(), elementXs(lb, i));
          a.push_back(cBool(lb, l, true));
          scf::YieldOp::create(lb, l, a);
        });
    g.em->clearCache();
    g.laneIndex = nullptr;
    acc = SmallVector<Value>(loop.getResults().drop_back());
    has = loop.getResults().back();
  }
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
