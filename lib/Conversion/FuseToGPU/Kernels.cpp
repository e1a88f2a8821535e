//===- Kernels.cpp - GPU kernels of fused groups --------------------------===//
//
// Each kernel is a gpu.func written with gpu/arith/scf/memref ops plus LLVM
// dialect loads and stores on `!llvm.ptr<1>` (global) pointers, so that the
// NVPTX backend sees address space 1 and emits ld.global.v4 / st.global.v4.
// The scalar code of group bodies comes from fuse's ElementEmitter.
//
//===----------------------------------------------------------------------===//

#include "FlatKernel.h"
#include "ShiftedWelford.h"

#include "fuse/Dialect/Fuse/Utils/ElementEmitter.h"
#include "fuse/Dialect/Fuse/Utils/Welford.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace fuse {
namespace gpugen {
namespace {

/// Memory element types the kernels can load and store.
bool isStorable(Type t) {
  if (auto it = dyn_cast<IntegerType>(t))
    return it.getWidth() >= 8;
  return isa<FloatType>(t);
}

/// Block-wide reduction of `accs` (the accumulators of one reduce op) with
/// its combiner: warp butterflies, then the warps' values through shared
/// memory `smem` (one buffer per accumulator), combined in warp order by
/// every thread. Deterministic; the result is valid in every thread.
SmallVector<Value> blockReduce(FlatKernel &k, OpBuilder &b, ReduceOp op,
                               SmallVector<Value> accs, ValueRange smem) {
  Location loc = k.loc;
  auto scalarFn = [&](Value v) { return k.scalar(b, v); };
  return blockFold(
      b, loc, std::move(accs), smem, k.tiling.blockThreads / 32,
      [&](OpBuilder &lb) {
        Value tid = k.threadId(lb);
        Value lane = arith::AndIOp::create(lb, loc, tid, cI64(lb, loc, 31));
        Value warp = toIndex(
            lb, loc, arith::ShRUIOp::create(lb, loc, tid, cI64(lb, loc, 5)));
        return std::make_pair(lane, warp);
      },
      [&](OpBuilder &cb, ValueRange a, ValueRange x) {
        return emitCombine(cb, loc, op, a, x, scalarFn);
      });
}

SmallVector<Value> identities(OpBuilder &b, Location loc, ReduceOp op) {
  SmallVector<Value> out;
  for (auto [i, in] : llvm::enumerate(op.getInputs()))
    out.push_back(arith::ConstantOp::create(
        b, loc, getKindIdentity(op.getKind(i), tensorTy(in).getElementType())));
  return out;
}

/// Identities of the block/finish accumulators of reduction `r`: the kinds'
/// identities, or (0, 0, 0) for a shifted Welford reduction.
SmallVector<Value> accIdentities(OpBuilder &b, Location loc, ReduceOp r) {
  if (r.hasBuiltinKinds())
    return identities(b, loc, r);
  SmallVector<Value> out;
  for (Value in : r.getInputs())
    out.push_back(arith::ConstantOp::create(
        b, loc, b.getZeroAttr(tensorTy(in).getElementType())));
  return out;
}

/// In thread 0: applies the inits to the block results `finals`, then
/// evaluates and stores every group result (rank 0) to `outs`.
void emitFinalize(FlatKernel &k, OpBuilder &b, ArrayRef<ReduceOp> reds,
                  ArrayRef<SmallVector<Value>> finals, ValueRange outs) {
  Location loc = k.loc;
  k.em->clearCache();
  k.laneIndex = nullptr;
  auto scalarFn = [&](Value v) { return k.scalar(b, v); };
  for (auto [opc, fin] : llvm::zip(reds, finals)) {
    ReduceOp op = opc;
    SmallVector<Value> r(fin);
    if (!op.getInits().empty()) {
      SmallVector<Value> inits = emitInitialAccumulators(b, loc, op, scalarFn);
      r = emitCombine(b, loc, op, inits, r, scalarFn);
    }
    for (auto [res, v] : llvm::zip(op.getResults(), r))
      k.leaves[res] = v;
  }
  for (auto [v, out] : llvm::zip(k.group.getYield().getValues(), outs)) {
    if (tensorTy(v).getRank() != 0)
      continue; // an elementwise side output, stored in the loop
    Value x = k.element(b, v, {});
    LLVM::StoreOp::create(b, loc, x, out, byteWidth(x.getType()));
  }
}

//===----------------------------------------------------------------------===//
// Checks
//===----------------------------------------------------------------------===//

LogicalResult checkBoundaryTypes(GroupOp group) {
  for (Value v : llvm::concat<Value>(group.getOperands(), group.getResults()))
    if (auto t = tensorTy(v); t && !isStorable(t.getElementType()))
      return group.emitOpError("GPU code generation: element type ")
             << t.getElementType()
             << " cannot be read or written by a kernel (fuse-bool-bytes "
                "makes i1 tensors bytes at group boundaries, except a "
                "searchsorted's table and a segmented reduction's inputs)";
  return success();
}

} // namespace

bool isFlatGroup(GroupOp group, bool computedReads) {
  int64_t rank = -1;
  bool ok = true;
  // Operands read only as inputs of broadcasts (x - v[:, None]), only at
  // positions computed from data (a gather's source, a searchsorted's
  // sorted tensor, both rank 1), or only for their sizes (a tensor.dim a
  // map body reads, hoisted to the group body) may have another shape:
  // they are not read at the lane's index.
  auto onlyBroadcast = [&](Value v) {
    auto a = dyn_cast<BlockArgument>(v);
    return a && !a.use_empty() &&
           llvm::all_of(a.getUses(), [&](OpOperand &use) {
             return isa<BroadcastOp, tensor::DimOp>(use.getOwner()) ||
                    (computedReads && isReadAtComputedPositions(use));
           });
  };
  auto see = [&](Value v) {
    auto t = tensorTy(v);
    if (!t || t.getRank() == 0 || onlyBroadcast(v))
      return;
    if (rank >= 0 && rank != t.getRank())
      ok = false;
    rank = t.getRank();
  };
  Block &body = group.getBody().front();
  for (BlockArgument a : body.getArguments())
    see(a);
  for (Operation &op : body) {
    if (auto r = dyn_cast<ReduceOp>(op)) {
      for (Value in : r.getInputs())
        see(in);
      continue; // results are rank 0 for full reductions
    }
    if (auto h = dyn_cast<HistogramOp>(op)) {
      see(h.getIndices());
      continue; // the counts are written by atomics, not over the domain
    }
    for (Value res : op.getResults())
      see(res);
    if (auto bc = dyn_cast<BroadcastOp>(op))
      if (tensorTy(bc.getInput()).getRank() != 0 &&
          !onlyBroadcast(bc.getInput()))
        ok = false;
  }
  return ok;
}

//===----------------------------------------------------------------------===//
// elementwise
//===----------------------------------------------------------------------===//

static FailureOr<GroupKernels>
buildElementwise(gpu::GPUModuleOp m, GroupOp group, StringRef prefix,
                 const Tiling &tiling) {
  Location loc = group.getLoc();
  MLIRContext *ctx = group.getContext();
  GroupKernels gk;
  gk.plan = GroupPlan::Elementwise;
  gk.tiling = tiling;
  gk.vectorWidth = flatVectorWidth(group, tiling, Widths::Widest);
  gk.kernel = (prefix + "_ew").str();
  SmallVector<Type> params = commonParams(group);
  params.push_back(IntegerType::get(ctx, 64)); // n
  params.push_back(IntegerType::get(ctx, 64)); // nchunks
  params.append(group.getNumResults(), globalPtr(ctx));
  auto f = createKernel(m, loc, gk.kernel, params, {}, tiling.blockThreads);
  FlatKernel k(group, loc, tiling);
  k.func = f;
  OpBuilder b = OpBuilder::atBlockBegin(&f.getBody().front());
  k.setUp(b);
  Value n = k.extra[0], nchunks = k.extra[1];
  ValueRange outs = ValueRange(k.extra).drop_front(2);
  auto yields = group.getYield().getValues();
  auto step = [&](OpBuilder &sb, ArrayRef<Value> chunks, int64_t vw,
                  ValueRange) -> SmallVector<Value> {
    auto vals = preload(k, sb, chunks, vw);
    for (auto [u, c] : llvm::enumerate(chunks)) {
      SmallVector<SmallVector<Value>> lanes(yields.size());
      for (int64_t l = 0; l < vw; ++l) {
        enterLane(k, sb, vals[u], c, vw, l);
        for (auto [j, y] : llvm::enumerate(yields))
          lanes[j].push_back(k.element(sb, y, {k.laneIndex}));
      }
      for (auto [j, y] : llvm::enumerate(yields))
        storeLanes(k, sb, lanes[j], outs[j], c);
    }
    return {};
  };
  emitFlatLoops(k, b, n, nchunks, gk.vectorWidth, {}, step);
  gpu::ReturnOp::create(b, loc);
  if (k.failedLeaf)
    return group.emitOpError("GPU code generation: unsupported value in an "
                             "elementwise group body");
  return gk;
}

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

namespace {

/// The plan of a reduce group's two kernels (partial, finish), read by
/// both builders and, as GroupKernels, by the host launch.
struct ReducePlan {
  GroupOp group;
  Location loc;
  Tiling tiling;
  SmallVector<ReduceOp> reds;
  /// Results of rank > 0 are elementwise values over the reduced domain
  /// (e.g. y = f(x) returned beside sum(y)): the partial kernel stores
  /// them as it goes, like an elementwise kernel.
  SmallVector<unsigned> sideOuts;
  GroupKernels gk;
  SmallVector<Type> smemTypes;
  unsigned numPartials = 0, numOuts = 0;

  ReducePlan(GroupOp group, const Tiling &tiling)
      : group(group), loc(group.getLoc()), tiling(tiling) {}
};

LogicalResult planReduce(ReducePlan &p, StringRef prefix) {
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
    if (!r.hasBuiltinKinds() && !isShiftedWelford(r))
      return r.emitOpError("GPU code generation: custom combiner regions "
                           "take the ordered reduce kernels");
  }
  for (auto [j, y] : llvm::enumerate(group.getYield().getValues()))
    if (tensorTy(y).getRank() != 0)
      p.sideOuts.push_back(j);
  GroupKernels &gk = p.gk;
  gk.plan = GroupPlan::Reduce;
  gk.tiling = p.tiling;
  gk.vectorWidth = flatVectorWidth(group, p.tiling, Widths::Widest);
  // Nothing read or written a lane (the reduced elements are computed, an
  // iota's or a broadcast scalar's): chunks of 4 consecutive elements
  // anyway, so that their coordinates step from lane to lane instead of a
  // division each (laneCoord).
  if (gk.vectorWidth == 1 && p.tiling.vectorWidth != 1 &&
      directOperandsOf(group.getBody().front()).empty() &&
      llvm::none_of(group.getResults(), [](Value v) {
        auto t = tensorTy(v);
        return t && t.getRank() > 0;
      }))
    gk.vectorWidth = 4;
  gk.kernel = (prefix + "_partial").str();
  gk.finishKernel = (prefix + "_finish").str();
  for (ReduceOp r : p.reds)
    for (Value res : r.getResults()) {
      Type et = tensorTy(res).getElementType();
      gk.partialTypes.push_back(et);
      p.smemTypes.push_back(MemRefType::get(
          {32}, et, MemRefLayoutAttrInterface{},
          gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup)));
    }
  p.numPartials = gk.partialTypes.size();
  p.numOuts = group.getNumResults();
  return success();
}

/// The partial kernel's loop accumulators, per reduce: built-in kinds
/// [input][lane]; a shifted Welford reduction s1[lane], s2[lane], then its
/// i64 count.
struct ReduceAccs {
  SmallVector<Value> inits;
  SmallVector<unsigned> accBase;
  /// Welford: the thread's shift and the grid's base (null for built-in
  /// kinds).
  SmallVector<Value> shifts, bases;
};

ReduceAccs initialAccumulators(const ReducePlan &p, FlatKernel &k, OpBuilder &b,
                               Value n, Value nchunks) {
  Location loc = p.loc;
  const int64_t vw = p.gk.vectorWidth;
  ReduceAccs a;
  for (ReduceOp r : p.reds) {
    a.accBase.push_back(a.inits.size());
    if (r.hasBuiltinKinds()) {
      a.shifts.push_back(nullptr);
      a.bases.push_back(nullptr);
      SmallVector<Value> id = identities(b, loc, r);
      for (Value v : id)
        for (int64_t l = 0; l < vw; ++l)
          a.inits.push_back(v);
      continue;
    }
    FloatType at = welfordAccType(r);
    Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(at, 0.0));
    a.inits.append(2 * vw, zero);
    a.inits.push_back(cI64(b, loc, 0));
    auto [shift, base] = emitWelfordShifts(k, b, r, at, n, nchunks, vw);
    a.shifts.push_back(shift);
    a.bases.push_back(base);
  }
  return a;
}

/// One step of the partial kernel's flat loops: folds the lanes of
/// `chunks` (cvw elements each) into the accumulators `iters` and stores
/// the side results.
SmallVector<Value> foldReduceChunks(const ReducePlan &p, FlatKernel &k,
                                    const ReduceAccs &ra, OpBuilder &sb,
                                    ArrayRef<Value> chunks, int64_t cvw,
                                    ValueRange iters, ValueRange outs) {
  Location loc = p.loc;
  const int64_t vw = p.gk.vectorWidth;
  SmallVector<Value> accs(iters);
  auto vals = preload(k, sb, chunks, cvw);
  auto scalarFn = [&](Value v) { return k.scalar(sb, v); };
  auto yields = k.group.getYield().getValues();
  for (auto [u, c] : llvm::enumerate(chunks)) {
    SmallVector<SmallVector<Value>> sideLanes(p.sideOuts.size());
    for (int64_t l = 0; l < cvw; ++l) {
      enterLane(k, sb, vals[u], c, cvw, l);
      for (auto [si, j] : llvm::enumerate(p.sideOuts))
        sideLanes[si].push_back(k.element(sb, yields[j], {k.laneIndex}));
      for (auto [ri, r] : llvm::enumerate(p.reds)) {
        ReduceOp red = r;
        unsigned base = ra.accBase[ri];
        if (Value shift = ra.shifts[ri]) {
          // d = x - c; s1 += d; s2 += d * d.
          Value x = k.element(sb, red.getInputs()[1], {k.laneIndex});
          x = castFloat(sb, loc, x, shift.getType());
          Value d = arith::SubFOp::create(sb, loc, x, shift);
          Value &s1 = accs[base + l], &s2 = accs[base + vw + l];
          s1 = arith::AddFOp::create(sb, loc, s1, d);
          s2 = LLVM::FMAOp::create(sb, loc, d, d, s2);
          continue;
        }
        unsigned ni = red.getInputs().size();
        SmallVector<Value> cur, xs;
        for (unsigned i = 0; i < ni; ++i) {
          cur.push_back(accs[base + i * vw + l]);
          xs.push_back(k.element(sb, red.getInputs()[i], {k.laneIndex}));
        }
        SmallVector<Value> nw = emitCombine(sb, loc, red, cur, xs, scalarFn);
        for (unsigned i = 0; i < ni; ++i)
          accs[base + i * vw + l] = nw[i];
      }
    }
    for (auto [si, j] : llvm::enumerate(p.sideOuts))
      storeLanes(k, sb, sideLanes[si], outs[j], c);
  }
  // Welford counts: every element of these chunks.
  for (auto [ri, r] : llvm::enumerate(p.reds))
    if (ra.shifts[ri]) {
      Value &cnt = accs[ra.accBase[ri] + 2 * vw];
      cnt = arith::AddIOp::create(
          sb, loc, cnt,
          cI64(sb, loc, static_cast<int64_t>(chunks.size()) * cvw));
    }
  return accs;
}

/// The partial kernel's accumulators folded over lanes, then over the
/// block: per reduction its block values.
SmallVector<SmallVector<Value>>
foldLanesAndBlock(const ReducePlan &p, FlatKernel &k, const ReduceAccs &ra,
                  OpBuilder &b, ArrayRef<Value> accs) {
  Location loc = p.loc;
  const int64_t vw = p.gk.vectorWidth;
  auto scalarFn = [&](Value v) { return k.scalar(b, v); };
  SmallVector<SmallVector<Value>> blockVals;
  unsigned s = 0;
  for (auto [ri, r] : llvm::enumerate(p.reds)) {
    ReduceOp red = r;
    unsigned base = ra.accBase[ri];
    unsigned ni = red.getInputs().size();
    SmallVector<Value> acc;
    if (ra.shifts[ri]) {
      // The lanes share the shift: their sums add up.
      Value s1 = accs[base], s2 = accs[base + vw];
      for (int64_t l = 1; l < vw; ++l) {
        s1 = arith::AddFOp::create(b, loc, s1, accs[base + l]);
        s2 = arith::AddFOp::create(b, loc, s2, accs[base + vw + l]);
      }
      acc = welfordFromSums(b, loc, red, ra.shifts[ri], ra.bases[ri],
                            accs[base + 2 * vw], s1, s2);
    } else {
      for (unsigned i = 0; i < ni; ++i)
        acc.push_back(accs[base + i * vw]);
      for (int64_t l = 1; l < vw; ++l) {
        SmallVector<Value> x;
        for (unsigned i = 0; i < ni; ++i)
          x.push_back(accs[base + i * vw + l]);
        acc = emitCombine(b, loc, red, acc, x, scalarFn);
      }
    }
    auto smem = k.func.getWorkgroupAttributions().slice(s, ni);
    SmallVector<Value> smemVals(smem.begin(), smem.end());
    blockVals.push_back(blockReduce(k, b, red, acc, smemVals));
    s += ni;
  }
  return blockVals;
}

/// Stage 1: per-block partials (or, with `single`, the final results).
LogicalResult buildReducePartial(gpu::GPUModuleOp m, const ReducePlan &p) {
  GroupOp group = p.group;
  Location loc = p.loc;
  MLIRContext *ctx = group.getContext();
  auto i64 = IntegerType::get(ctx, 64);
  SmallVector<Type> params = commonParams(group);
  params.push_back(i64); // n
  params.push_back(i64); // nchunks
  params.append(p.numPartials, globalPtr(ctx));
  params.append(p.numOuts, globalPtr(ctx));
  params.push_back(IntegerType::get(ctx, 32)); // single
  auto f = createKernel(m, loc, p.gk.kernel, params, p.smemTypes,
                        p.tiling.blockThreads);
  FlatKernel k(group, loc, p.tiling);
  k.func = f;
  OpBuilder b = OpBuilder::atBlockBegin(&f.getBody().front());
  k.setUp(b);
  Value n = k.extra[0], nchunks = k.extra[1];
  ValueRange partials = ValueRange(k.extra).slice(2, p.numPartials);
  ValueRange outs = ValueRange(k.extra).slice(2 + p.numPartials, p.numOuts);
  Value single = k.extra.back();
  ReduceAccs ra = initialAccumulators(p, k, b, n, nchunks);
  auto step = [&](OpBuilder &sb, ArrayRef<Value> chunks, int64_t cvw,
                  ValueRange iters) -> SmallVector<Value> {
    return foldReduceChunks(p, k, ra, sb, chunks, cvw, iters, outs);
  };
  SmallVector<Value> accs =
      emitFlatLoops(k, b, n, nchunks, p.gk.vectorWidth, ra.inits, step);
  SmallVector<SmallVector<Value>> blockVals =
      foldLanesAndBlock(p, k, ra, b, accs);
  SmallVector<Value> flatBlock;
  for (const SmallVector<Value> &v : blockVals)
    flatBlock.append(v);
  Value isT0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                     k.threadId(b), cI64(b, loc, 0));
  scf::IfOp::create(b, loc, isT0, [&](OpBuilder &tb, Location l) {
    Value isSingle = arith::CmpIOp::create(tb, l, arith::CmpIPredicate::ne,
                                           single, cI32(tb, l, 0));
    scf::IfOp::create(
        tb, l, isSingle,
        [&](OpBuilder &sb, Location sl) {
          SmallVector<SmallVector<Value>> finals(blockVals);
          for (auto [ri, base] : llvm::enumerate(ra.bases))
            if (base)
              finals[ri] = welfordAddBase(sb, sl, finals[ri], base);
          emitFinalize(k, sb, p.reds, finals, outs);
          scf::YieldOp::create(sb, sl);
        },
        [&](OpBuilder &pb, Location pl) {
          Value bid = k.blockId(pb);
          for (auto [v, pp] : llvm::zip(flatBlock, partials))
            LLVM::StoreOp::create(pb, pl, v, k.gep(pb, pp, v.getType(), bid),
                                  byteWidth(v.getType()));
          scf::YieldOp::create(pb, pl);
        });
    scf::YieldOp::create(tb, l);
  });
  gpu::ReturnOp::create(b, loc);
  if (k.failedLeaf)
    return group.emitOpError("GPU code generation: unsupported value in a "
                             "reduce group body");
  return success();
}

/// The finish kernel's loop over the partials (thread t folds partials
/// t, t + B, ...): the accumulators after it, one per reduction input.
scf::ForOp finishLoop(const ReducePlan &p, FlatKernel &k, OpBuilder &b,
                      Value count, ValueRange partials,
                      SmallVector<Value> inits) {
  Location loc = p.loc;
  const Tiling &tiling = p.tiling;
  ArrayRef<Type> partialTypes = p.gk.partialTypes;
  // Partials base .. base + n - 1 at index i, loaded.
  auto loadRange = [&](OpBuilder &lb, Location l, Value i, unsigned base,
                       unsigned n) {
    SmallVector<Value> xs;
    for (unsigned j = base; j < base + n; ++j) {
      Type et = partialTypes[j];
      xs.push_back(LLVM::LoadOp::create(
          lb, l, et, k.gep(lb, partials[j], et, i), byteWidth(et)));
    }
    return xs;
  };
  // Folds into the accumulators `args` reduction by reduction;
  // `xsFor(base, ni)` gives a reduction's partials (loaded there, or
  // carried).
  auto combineInto =
      [&](OpBuilder &lb, Location l, ValueRange args,
          function_ref<SmallVector<Value>(unsigned, unsigned)> xsFor) {
        auto scalarFn = [&](Value v) { return k.scalar(lb, v); };
        SmallVector<Value> out;
        unsigned base = 0;
        for (ReduceOp r : p.reds) {
          unsigned ni = r.getInputs().size();
          SmallVector<Value> cur(args.slice(base, ni));
          out.append(emitCombine(lb, l, r, cur, xsFor(base, ni), scalarFn));
          base += ni;
        }
        return out;
      };
  unsigned numAccs = inits.size();
  unsigned np = partialTypes.size();
  int64_t depth = tiling.finishPrefetch;
  if (depth <= 0) {
    // Each reduction's partials loaded just before their fold.
    return scf::ForOp::create(
        b, loc, k.threadId(b), count, cI64(b, loc, tiling.blockThreads),
        inits, [&](OpBuilder &lb, Location l, Value i, ValueRange args) {
          scf::YieldOp::create(
              lb, l, combineInto(lb, l, args, [&](unsigned base, unsigned n) {
                return loadRange(lb, l, i, base, n);
              }));
        });
  }
  // Thread t folds partials t, t + B, t + 2B, ... in that order (the same
  // result as above) while the next `depth` of them are already loading:
  // they ride along as loop-carried values, so one copy of the combine
  // serves. A partial past `count` is never folded; its slot holds zeros.
  int64_t bt = tiling.blockThreads;
  auto loadOrZero = [&](OpBuilder &lb, Location l, Value i) {
    Value inRange =
        arith::CmpIOp::create(lb, l, arith::CmpIPredicate::slt, i, count);
    auto ifOp =
        scf::IfOp::create(lb, l, TypeRange(partialTypes), inRange, true);
    OpBuilder tb = ifOp.getThenBodyBuilder();
    scf::YieldOp::create(tb, l, loadRange(tb, l, i, 0, np));
    OpBuilder eb = ifOp.getElseBodyBuilder();
    SmallVector<Value> zeros;
    for (Type et : partialTypes)
      zeros.push_back(arith::ConstantOp::create(
          eb, l, cast<TypedAttr>(eb.getZeroAttr(et))));
    scf::YieldOp::create(eb, l, zeros);
    return SmallVector<Value>(ifOp.getResults());
  };
  Value tid = k.threadId(b);
  SmallVector<Value> carried(inits);
  for (int64_t u = 0; u < depth; ++u)
    carried.append(loadOrZero(
        b, loc,
        u ? arith::AddIOp::create(b, loc, tid, cI64(b, loc, u * bt)) : tid));
  return scf::ForOp::create(
      b, loc, tid, count, cI64(b, loc, bt), carried,
      [&](OpBuilder &lb, Location l, Value i, ValueRange args) {
        SmallVector<Value> next = loadOrZero(
            lb, l, arith::AddIOp::create(lb, l, i, cI64(lb, l, depth * bt)));
        SmallVector<Value> out = combineInto(
            lb, l, args.take_front(numAccs), [&](unsigned base, unsigned n) {
              return SmallVector<Value>(args.slice(numAccs + base, n));
            });
        for (int64_t u = 1; u < depth; ++u)
          llvm::append_range(out, args.slice(numAccs + u * np, np));
        out.append(next);
        scf::YieldOp::create(lb, l, out);
      });
}

/// Stage 2: one block combines the partials in a fixed order.
LogicalResult buildReduceFinish(gpu::GPUModuleOp m, const ReducePlan &p) {
  GroupOp group = p.group;
  Location loc = p.loc;
  MLIRContext *ctx = group.getContext();
  SmallVector<Type> params = commonParams(group);
  params.push_back(IntegerType::get(ctx, 64)); // count
  params.append(p.numPartials, globalPtr(ctx));
  params.append(p.numOuts, globalPtr(ctx));
  auto f = createKernel(m, loc, p.gk.finishKernel, params, p.smemTypes,
                        p.tiling.blockThreads);
  FlatKernel k(group, loc, p.tiling);
  k.func = f;
  OpBuilder b = OpBuilder::atBlockBegin(&f.getBody().front());
  k.setUp(b);
  Value count = k.extra[0];
  ValueRange partials = ValueRange(k.extra).slice(1, p.numPartials);
  ValueRange outs = ValueRange(k.extra).slice(1 + p.numPartials, p.numOuts);
  SmallVector<Value> inits;
  for (ReduceOp r : p.reds)
    inits.append(accIdentities(b, loc, r));
  scf::ForOp loop = finishLoop(p, k, b, count, partials, inits);
  SmallVector<SmallVector<Value>> blockVals;
  unsigned base = 0;
  for (ReduceOp r : p.reds) {
    unsigned ni = r.getInputs().size();
    SmallVector<Value> acc(loop.getResults().slice(base, ni));
    auto smem = f.getWorkgroupAttributions().slice(base, ni);
    SmallVector<Value> smemVals(smem.begin(), smem.end());
    blockVals.push_back(blockReduce(k, b, r, acc, smemVals));
    base += ni;
  }
  Value isT0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                     k.threadId(b), cI64(b, loc, 0));
  scf::IfOp::create(b, loc, isT0, [&](OpBuilder &tb, Location l) {
    // Welford partials hold mean - x[0]: add the base back.
    SmallVector<SmallVector<Value>> finals(blockVals);
    for (auto [ri, r] : llvm::enumerate(p.reds)) {
      ReduceOp red = r;
      if (red.hasBuiltinKinds())
        continue;
      Value nonEmpty = cmpI(tb, l, arith::CmpIPredicate::sgt, finals[ri][0],
                            cI64(tb, l, 0));
      Value base = emitGuardedX(k, tb, red, welfordAccType(red),
                                cI64(tb, l, 0), nonEmpty);
      finals[ri] = welfordAddBase(tb, l, finals[ri], base);
    }
    emitFinalize(k, tb, p.reds, finals, outs);
    scf::YieldOp::create(tb, l);
  });
  gpu::ReturnOp::create(b, loc);
  if (k.failedLeaf)
    return group.emitOpError("GPU code generation: unsupported value in a "
                             "reduce group body");
  return success();
}

} // namespace

static FailureOr<GroupKernels> buildReduce(gpu::GPUModuleOp m, GroupOp group,
                                           StringRef prefix,
                                           const Tiling &tiling) {
  ReducePlan plan(group, tiling);
  if (failed(planReduce(plan, prefix)) ||
      failed(buildReducePartial(m, plan)) ||
      failed(buildReduceFinish(m, plan)))
    return failure();
  return plan.gk;
}

//===----------------------------------------------------------------------===//
// Entry
//===----------------------------------------------------------------------===//

FailureOr<GroupKernels> buildGroupKernels(gpu::GPUModuleOp m, GroupOp group,
                                          StringRef prefix,
                                          const Tiling &tiling) {
  if (failed(checkBoundaryTypes(group)))
    return failure();
  GroupKind kind = group.getKind();
  if (kind == GroupKind::Elementwise || kind == GroupKind::Reduce) {
    if (!isFlatGroup(group, /*computedReads=*/true))
      return group.emitOpError("GPU code generation: ")
             << (kind == GroupKind::Elementwise ? "an " : "a ")
             << stringifyGroupKind(kind)
             << " group must read and write tensors of one shape (rank-0 "
                "broadcasts and broadcasts of group operands aside)";
    if (kind == GroupKind::Elementwise)
      return buildElementwise(m, group, prefix, tiling);
    // Custom combiners: ordered kernels with "has value" flags, except
    // fusion's Welford reduction (grid-stride shifted sums).
    if (llvm::any_of(reductionsOf(group.getBody().front()), [](ReduceOp r) {
          return !r.hasBuiltinKinds() && !isShiftedWelford(r);
        }))
      return buildOrderedReduceKernels(m, group, prefix, tiling);
    return buildReduce(m, group, prefix, tiling);
  }
  if (kind == GroupKind::RowReduce)
    return buildRowReduceKernels(m, group, prefix, tiling);
  if (kind == GroupKind::LineReduce) {
    bool handled = false;
    FailureOr<GroupKernels> line =
        buildLineReduce(m, group, prefix, tiling, handled);
    if (!handled)
      return group.emitOpError("GPU code generation: a line_reduce group "
                               "takes one reduction along one dimension of "
                               "a rank >= 2 tensor, the other ops "
                               "elementwise over its input's shape");
    return line;
  }
  if (kind == GroupKind::Scan)
    return buildScanGroup(m, group, prefix, tiling);
  if (kind == GroupKind::Histogram) {
    if (!isFlatGroup(group, /*computedReads=*/true))
      return group.emitOpError("GPU code generation: a histogram group must "
                               "read and write tensors of its bin indices' "
                               "shape (rank-0 broadcasts and broadcasts of "
                               "group operands aside)");
    return buildHistogramGroup(m, group, prefix, tiling);
  }
  if (kind == GroupKind::SegmentedReduce)
    return buildSegmentedReduceGroup(m, group, prefix, tiling);
  assert(kind == GroupKind::Filter && "every group kind has a builder");
  return buildFilterGroup(m, group, prefix, tiling);
}

} // namespace gpugen
} // namespace fuse
