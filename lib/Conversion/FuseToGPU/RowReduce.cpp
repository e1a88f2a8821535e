//===- RowReduce.cpp - row_reduce and ordered (custom) reduce kernels -----===//
//
// Two kernel generators of convert-fuse-to-gpu (see docs/gpu-codegen.md):
//
// * row_reduce groups (reductions over the inner dimension of a rank-2
//   tensor, maps over the same rows reading the row results through
//   fuse.broadcast, per-row epilogues): one block per row (rows loop when
//   rows exceed the grid). When cols <= block * items-per-thread the row is
//   loaded once into registers (16-byte vector loads when every row start
//   is 16-byte aligned, else predicated scalar loads), every stage
//   (reduction) is computed from the registers with a block reduction
//   (warp butterflies + one shared-memory exchange), and the results are
//   written once (vector stores). Longer rows take a fallback that walks
//   the row once per stage and once more for the outputs (re-reads through
//   L2/global memory).
//
// * reduce groups with a custom combiner region (other than fusion's
//   Welford reduction, which Kernels.cpp accumulates with shifted sums):
//   the combiner may be non-commutative, so the order of operands is
//   kept: each thread combines a contiguous range of elements in order,
//   threads/warps/blocks are combined in index order
//   (shuffle-down trees), and every accumulator carries a "has value" flag,
//   so no identity is needed: result = init (+) x0 (+) x1 (+) ...
//   Same host plan as built-in reductions (GroupPlan::Reduce), with one
//   extra i32 partial holding the per-block flag.
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"

#include "fuse/Dialect/Fuse/Utils/ElementEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/ScopeExit.h"

#include "llvm/ADT/bit.h"

using namespace mlir;

namespace fuse {
namespace gpugen {
namespace {


/// An scf.if yielding one value of type `t` per branch.
Value ifValue(OpBuilder &b, Location loc, Value cond, Type t,
              function_ref<Value(OpBuilder &)> thenFn,
              function_ref<Value(OpBuilder &)> elseFn) {
  auto op = scf::IfOp::create(b, loc, TypeRange{t}, cond, true);
  OpBuilder tb = op.getThenBodyBuilder();
  scf::YieldOp::create(tb, loc, thenFn(tb));
  OpBuilder eb = op.getElseBodyBuilder();
  scf::YieldOp::create(eb, loc, elseFn(eb));
  return op.getResult(0);
}

/// Shuffles `v` (any int/float width) with `mode`; the second value is the
/// shuffle's validity (the source lane exists).
std::pair<Value, Value> shuffle(OpBuilder &b, Location loc, Value v,
                                int64_t offset, gpu::ShuffleMode mode) {
  Value valid;
  Value r = shuffleValue(b, loc, v, cI32(b, loc, offset), mode, &valid);
  return {r, valid};
}

/// The PTX special register `reg` (e.g. %tid.x) as i32, read where it is
/// needed: unlike gpu.thread_id, LLVM neither hoists nor shares the read,
/// so nothing derived from it stays live across a loop or a barrier (a
/// re-read costs one S2R).
Value readSpecial(OpBuilder &b, Location loc, StringRef reg) {
  return LLVM::InlineAsmOp::create(
             b, loc, b.getI32Type(), ValueRange{},
             b.getStringAttr(("mov.u32 $0, " + reg + ";").str()),
             b.getStringAttr("=r"), b.getUnitAttr(), UnitAttr(),
             LLVM::TailCallKindAttr(), LLVM::AsmDialectAttr(), ArrayAttr())
      .getResult(0);
}

MemRefType smemType(MLIRContext *ctx, Type et) {
  return MemRefType::get(
      {32}, et, MemRefLayoutAttrInterface{},
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
}

SmallVector<ReduceOp> reductionsOf(Block &body) {
  SmallVector<ReduceOp> ops;
  for (Operation &op : body)
    if (auto r = dyn_cast<ReduceOp>(op))
      ops.push_back(r);
  return ops;
}

/// Start values of the accumulators of `r`: built-in identities, or zeros
/// for custom combiners (never combined: the "has value" flag guards them).
SmallVector<Value> startValues(OpBuilder &b, Location loc, ReduceOp r) {
  SmallVector<Value> out;
  for (auto [i, in] : llvm::enumerate(r.getInputs())) {
    Type et = tensorTy(in).getElementType();
    TypedAttr a = r.hasBuiltinKinds() ? getKindIdentity(r.getKind(i), et)
                                      : cast<TypedAttr>(b.getZeroAttr(et));
    out.push_back(arith::ConstantOp::create(b, loc, a));
  }
  return out;
}

/// Kernel state shared by both generators: KernelBase (the common
/// parameters, the element emitter and its leaves: reduce results held in
/// registers; lane mode: the current flat index and the operands' elements
/// at it) plus the row mode and the reductions' combiners.
struct Gen : KernelBase {
  // Row mode: elements held in registers, found by their column value.
  Value rowIdx;
  DenseMap<Value, unsigned> colSlot;
  DenseMap<unsigned, SmallVector<Value>> regs;

  /// `flat`: the ordered reduce kernels over inputs of rank > 1 (every
  /// tensor of the group has one shape, addressed at its flat index).
  Gen(GroupOp g, Location l, const Tiling &t, bool flat = false)
      : KernelBase(g, l, t,
                   KernelOptions{/*flatLanes=*/flat, /*rank0ViaGep=*/true}) {}

  SmallVector<Value> combine(OpBuilder &b, ReduceOp r, ValueRange acc,
                             ValueRange x) {
    return emitCombine(b, loc, r, acc, x,
                       [&](Value v) { return scalar(b, v); });
  }
  SmallVector<Value> inits(OpBuilder &b, ReduceOp r) {
    return emitInitialAccumulators(b, loc, r,
                                   [&](Value v) { return scalar(b, v); });
  }
  /// `init (+) v` when the reduction has inits.
  SmallVector<Value> applyInit(OpBuilder &b, ReduceOp r, SmallVector<Value> v) {
    if (r.getInits().empty())
      return v;
    return combine(b, r, inits(b, r), v);
  }

protected:
  /// Row mode: the element of row rowIdx at a column held in `regs`.
  Value heldElement(unsigned arg, ValueRange idx) override {
    if (!rowIdx || idx.size() != 2 || idx[0] != rowIdx)
      return Value();
    auto s = colSlot.find(idx[1]);
    auto r = regs.find(arg);
    if (s == colSlot.end() || r == regs.end())
      return Value();
    return r->second[s->second];
  }
};

//===----------------------------------------------------------------------===//
// Block reductions
//===----------------------------------------------------------------------===//

/// Built-in kinds: xor butterflies (every lane ends with the same value),
/// then the warps' values through `smem`, combined in warp order by every
/// thread. The leading barrier protects `smem` from a previous use.
SmallVector<Value> blockAllReduce(Gen &g, OpBuilder &b, ReduceOp r,
                                  SmallVector<Value> acc, ValueRange smem) {
  Location loc = g.loc;
  return blockFold(
      b, loc, std::move(acc), smem, g.tiling.blockThreads / 32,
      [&](OpBuilder &lb) {
        // Lane and warp in 32 bits, from a fresh read of the thread id
        // (the shared-memory address is not kept live between stages).
        Value t = readSpecial(lb, loc, "%tid.x");
        Value lane = arith::AndIOp::create(lb, loc, t, cI32(lb, loc, 31));
        Value warp = arith::IndexCastUIOp::create(
            lb, loc, lb.getIndexType(),
            arith::ShRUIOp::create(lb, loc, t, cI32(lb, loc, 5)));
        return std::make_pair(lane, warp);
      },
      [&](OpBuilder &cb, ValueRange a, ValueRange x) {
        return g.combine(cb, r, a, x);
      });
}

/// Narrow rows: groups of R = 2^shift threads (1 <= R <= maxGroupThreads:
/// half the block on the vector path, up to the whole block off it)
/// reduce one row each. Xor butterflies of offsets 16 down to 1, each step
/// kept only where its offset is below R (a group of fewer than 32 lanes
/// is aligned within its warp, so smaller offsets stay inside it; the
/// larger ones would mix rows); for R > 32 lane 0 of each warp writes
/// `smem[warp]` (after a barrier that protects a previous use) and every
/// thread folds its group's warps in warp order. `shift` is uniform over
/// the block (it comes from cols), so the branch around the barriers is
/// too; R <= 32 needs neither.
SmallVector<Value> groupAllReduce(Gen &g, OpBuilder &b, ReduceOp r,
                                  SmallVector<Value> acc, ValueRange smem,
                                  Value shift, int64_t maxGroupThreads) {
  Location loc = g.loc;
  acc = warpFold(
      b, loc, std::move(acc),
      [&](OpBuilder &cb, ValueRange a, ValueRange x) {
        return g.combine(cb, r, a, x);
      },
      // off < R, i.e. log2(off) < shift.
      [&](OpBuilder &kb, int64_t off) {
        return cmpI(kb, loc, arith::CmpIPredicate::ugt, shift,
                    cI32(kb, loc, llvm::Log2_64(off)));
      });
  const int64_t warps = g.tiling.blockThreads / 32;
  if (warps < 2)
    return acc;
  auto ifOp = scf::IfOp::create(
      b, loc, ValueRange(acc).getTypes(),
      cmpI(b, loc, arith::CmpIPredicate::ugt, shift, cI32(b, loc, 5)),
      /*withElse=*/true);
  OpBuilder tb = ifOp.getThenBodyBuilder();
  Value t = readSpecial(tb, loc, "%tid.x");
  Value lane = arith::AndIOp::create(tb, loc, t, cI32(tb, loc, 31));
  Value warp = arith::ShRUIOp::create(tb, loc, t, cI32(tb, loc, 5));
  publishWarpValues(tb, loc, acc, smem, lane, warp);
  // Warps per group 2^(shift - 5); the group's first warp.
  Value perGroup = arith::ShLIOp::create(
      tb, loc, cI32(tb, loc, 1),
      arith::SubIOp::create(tb, loc, shift, cI32(tb, loc, 5)));
  Value first = arith::AndIOp::create(
      tb, loc, warp,
      arith::XOrIOp::create(
          tb, loc, arith::SubIOp::create(tb, loc, perGroup, cI32(tb, loc, 1)),
          cI32(tb, loc, -1)));
  auto loadWarp = [&](OpBuilder &lb, Value w) {
    SmallVector<Value> x;
    Value wi = arith::IndexCastUIOp::create(lb, loc, lb.getIndexType(), w);
    for (Value s : smem)
      x.push_back(memref::LoadOp::create(lb, loc, s, ValueRange{wi}));
    return x;
  };
  // The group's warps in warp order: first + k for k < perGroup (at most
  // maxGroupThreads / 32). (One register path for every width, R up to
  // the whole block, measured slower at 4096 columns (docs/performance.md):
  // the runtime strides and selects in the instruction-bound path.)
  auto groupFold = [&](OpBuilder &fb) {
    SmallVector<Value> res = loadWarp(fb, first);
    for (int64_t k = 1; k < maxGroupThreads / 32; ++k) {
      Value w = arith::AndIOp::create(
          fb, loc, arith::AddIOp::create(fb, loc, first, cI32(fb, loc, k)),
          cI32(fb, loc, warps - 1));
      SmallVector<Value> x = loadWarp(fb, w);
      res = selAll(fb, loc,
                   cmpI(fb, loc, arith::CmpIPredicate::slt, cI32(fb, loc, k),
                        perGroup),
                   g.combine(fb, r, res, x), res);
    }
    return res;
  };
  SmallVector<Value> res = groupFold(tb);
  scf::YieldOp::create(tb, loc, res);
  OpBuilder eb = ifOp.getElseBodyBuilder();
  scf::YieldOp::create(eb, loc, acc);
  return SmallVector<Value>(ifOp.getResults());
}

/// One element x merged into the online max/sum pair (fuse-tile's
/// online-max-sum): (m, s) holds the maximum m of the elements seen and
/// s = sum of exp(e - m) over them; x gives (x, s exp(m - x) + 1) when
/// x > m, else (m, s + exp(x - m)): one exponential. x = -inf adds nothing
/// (also while m is still -inf, where x - m is NaN); NaN propagates (max
/// and sum). A maximum of +-inf leaves s meaningless: the caller sets the
/// two-pass result, NaN. `flags`: the fast-math flags of the pipeline's
/// own exponential (an approximate one stays approximate).
std::pair<Value, Value> onlineMerge(Gen &g, OpBuilder &b, ReduceOp max,
                                    Value m, Value s, Value x,
                                    arith::FastMathFlagsAttr flags) {
  Location loc = g.loc;
  auto ft = cast<FloatType>(m.getType());
  const llvm::fltSemantics &sem = ft.getFloatSemantics();
  auto fc = [&](const APFloat &v) -> Value {
    return arith::ConstantOp::create(b, loc, FloatAttr::get(ft, v));
  };
  Value d = arith::SubFOp::create(b, loc, x, m);
  Value gt = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, d,
                                   fc(APFloat::getZero(sem)));
  Value e = math::ExpOp::create(
      b, loc,
      arith::SelectOp::create(b, loc, gt, arith::NegFOp::create(b, loc, d),
                              d),
      flags);
  Value xNinf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x,
                                      fc(APFloat::getInf(sem, true)));
  Value ns = arith::SelectOp::create(
      b, loc, gt,
      arith::AddFOp::create(b, loc, arith::MulFOp::create(b, loc, s, e),
                            fc(APFloat::getOne(sem))),
      arith::AddFOp::create(
          b, loc, s,
          arith::SelectOp::create(b, loc, xNinf, fc(APFloat::getZero(sem)),
                                  e)));
  return {g.combine(b, max, {m}, {x})[0], ns};
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
    // ha && hx: both; ha only: a; else x (hx only, or neither).
    SmallVector<Value> onlyOne = selAll(b, loc, ha, a.slice(base, ni),
                                        x.slice(base, ni));
    Value two = arith::AndIOp::create(b, loc, ha, hx);
    out.append(selAll(b, loc, two, both, onlyOne));
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

//===----------------------------------------------------------------------===//
// row_reduce
//===----------------------------------------------------------------------===//

/// `r` is a single-input float reduction of built-in kind `kind`, no init.
bool isPlainFloatReduce(ReduceOp r, CombinerKind kind) {
  return r.hasBuiltinKinds() && r.getInputs().size() == 1 &&
         r.getInits().empty() && r.getKind(0) == kind &&
         isa<FloatType>(tensorTy(r.getInputs()[0]).getElementType());
}

/// The online max/sum pair (fuse-tile's online-max-sum): `sum` adds
/// exp(X - broadcast(max)) over the rows of X, `max` is the row maximum
/// of the same X:
///   %m = fuse.reduce max %X dims [1]
///   %b = fuse.broadcast %m dims [1] (...)
///   %e = fuse.map %X, %b { %d = arith.subf %x, %mb; %ex = math.exp %d;
///                          fuse.yield %ex }
///   %s = fuse.reduce add %e dims [1]
/// (logsumexp, softmax). Both are then computed in one walk over the row,
/// whose exponentials take the flags of the map's exp. Returns that exp,
/// null when the two are not such a pair.
math::ExpOp onlineMaxSumExp(ReduceOp max, ReduceOp sum) {
  if (!isPlainFloatReduce(max, CombinerKind::Max) ||
      !isPlainFloatReduce(sum, CombinerKind::Add))
    return {};
  auto map = sum.getInputs()[0].getDefiningOp<MapOp>();
  if (!map || map.getInputs().size() != 2 || map->getNumResults() != 1 ||
      map.getInputs()[0] != max.getInputs()[0])
    return {};
  auto bc = map.getInputs()[1].getDefiningOp<BroadcastOp>();
  if (!bc || bc.getInput() != max.getResults()[0] ||
      bc.getDims() != ArrayRef<int64_t>{1})
    return {};
  Block &mb = map.getBody().front();
  if (mb.getOperations().size() != 3)
    return {};
  auto sub = dyn_cast<arith::SubFOp>(&mb.front());
  auto ex = dyn_cast<math::ExpOp>(sub ? sub->getNextNode() : nullptr);
  auto yield = dyn_cast<YieldOp>(mb.getTerminator());
  bool pair = sub && ex && yield && sub.getLhs() == mb.getArgument(0) &&
              sub.getRhs() == mb.getArgument(1) && ex.getOperand() == sub &&
              yield->getNumOperands() == 1 && yield->getOperand(0) == ex;
  return pair ? ex : math::ExpOp();
}

/// Body arguments of rank 2 read elementwise (not only as gather sources).
bool readDirectly(BlockArgument arg) {
  return llvm::any_of(arg.getUsers(), [&](Operation *user) {
    auto gth = dyn_cast<GatherOp>(user);
    return !gth || gth.getIndices() == arg;
  });
}

} // namespace

namespace {

/// Marks the scf.if ops that choose a row kernel's path ("narrow": narrow
/// rows or the block paths; "narrow_vec": narrow rows on the vector path
/// or off it; "fits": the register path or the long rows).
constexpr const char *kRowPathAttr = "fuse.row_path";

/// The narrow vector-path kernel's occupancy hint (nvvm.minctasm), carried
/// on the path kernel until splitRowKernel gives it to that kernel.
constexpr const char *kNarrowMinCtasAttr = "fuse.narrow_minctasm";

/// One kernel per path: the kernel `f` is cloned into `<name>_narrow` (its
/// narrow and narrow_vec choices fixed true), `<name>_narrow_scalar`
/// (narrow true, narrow_vec false) and `<name>_long` (narrow and fits false),
/// and `f` keeps the register path (narrow false, fits true);
/// canonicalization drops the paths not taken. (The staged long rows'
/// kernels are built on their own: RowKernelKind.) Each kernel is
/// a part of the code, so LLVM and ptxas compile them on parallel threads
/// (fuse-gpu-module-to-binary, ptxas --split-compile), and the host picks
/// the kernel by the same conditions (the RowReduce launch in
/// FuseToGPU.cpp).
void splitRowKernel(gpu::GPUFuncOp f, GroupKernels &gk, int64_t capacity) {
  // The choice taken in place (the path's ops moved before the scf.if,
  // which goes with the other path): canonicalization never walks the
  // dropped path.
  auto fix = [](gpu::GPUFuncOp k, StringRef path, bool value) {
    SmallVector<scf::IfOp> ifs;
    k.walk([&](scf::IfOp op) {
      auto tag = op->getAttrOfType<StringAttr>(kRowPathAttr);
      if (tag && tag.getValue() == path)
        ifs.push_back(op);
    });
    for (scf::IfOp op : ifs) {
      Block *taken = value ? op.thenBlock() : op.elseBlock();
      Block *parent = op->getBlock();
      parent->getOperations().splice(Block::iterator(op),
                                     taken->getOperations(), taken->begin(),
                                     std::prev(taken->end()));
      op.erase();
    }
  };
  bool hasNarrow = false;
  f.walk([&](scf::IfOp op) {
    if (auto tag = op->getAttrOfType<StringAttr>(kRowPathAttr))
      hasNarrow |= tag.getValue() == "narrow";
  });
  OpBuilder b(f);
  b.setInsertionPointAfter(f);
  auto variant = [&](StringRef suffix) {
    auto k = cast<gpu::GPUFuncOp>(b.clone(*f));
    k.setName((gk.kernel + suffix).str());
    return k;
  };
  SmallVector<gpu::GPUFuncOp> all = {f};
  if (hasNarrow) {
    gpu::GPUFuncOp narrow = variant("_narrow");
    fix(narrow, "narrow", true);
    fix(narrow, "narrow_vec", true);
    gk.narrowKernel = narrow.getName().str();
    all.push_back(narrow);
    gpu::GPUFuncOp scalar = variant("_narrow_scalar");
    fix(scalar, "narrow", true);
    fix(scalar, "narrow_vec", false);
    gk.narrowScalarKernel = scalar.getName().str();
    all.push_back(scalar);
  }
  gpu::GPUFuncOp longK = variant("_long");
  fix(longK, "narrow", false);
  fix(longK, "fits", false);
  gk.longKernel = longK.getName().str();
  all.push_back(longK);
  fix(f, "narrow", false);
  fix(f, "fits", true);
  gk.rowCapacity = capacity;
  for (gpu::GPUFuncOp k : all) {
    k.walk([](scf::IfOp op) { op->removeAttr(kRowPathAttr); });
    Attribute narrowHint = k->removeAttr(kNarrowMinCtasAttr);
    if (narrowHint && k.getName() == gk.narrowKernel)
      k->setAttr("nvvm.minctasm", narrowHint);
  }
}

/// Which kernel buildRowKernel builds: the row kernel split by path, or
/// the staged long rows' kernel alone, with the group's threads or with
/// the most (tiling.stagedThreads, for rows that leave one block an SM).
enum class RowKernelKind { Paths, Staged, StagedWide };

FailureOr<GroupKernels> buildRowKernel(gpu::GPUModuleOp m, GroupOp group,
                                       StringRef prefix, const Tiling &tiling,
                                       ArrayRef<ReduceOp> reds,
                                       RowKernelKind kind);

} // namespace

FailureOr<GroupKernels> buildRowReduceKernels(gpu::GPUModuleOp m,
                                              GroupOp group, StringRef prefix,
                                              const Tiling &tiling) {
  Block &body = group.getBody().front();
  SmallVector<ReduceOp> reds = reductionsOf(body);
  if (reds.empty())
    return group.emitOpError("GPU code generation: a row_reduce group needs "
                             "a fuse.reduce");
  // A lone reduction over another dimension, or with a combiner region:
  // the line kernel.
  bool handled = false;
  FailureOr<GroupKernels> line =
      buildLineReduce(m, group, prefix, tiling, handled);
  if (handled)
    return line;
  for (ReduceOp r : reds) {
    auto in = tensorTy(r.getInputs()[0]);
    SmallVector<int64_t> rd = r.getReducedDims();
    if (in.getRank() != 2 || rd.size() != 1 || rd[0] != 1)
      return r.emitOpError("GPU code generation: a row_reduce group takes "
                           "reductions over dimension 1 of rank-2 tensors "
                           "only");
    if (!r.hasBuiltinKinds())
      return r.emitOpError("GPU code generation: custom combiner regions are "
                           "not supported in row_reduce groups yet; use "
                           "built-in kinds");
  }
  // Every tensor of the body: rank 2 (the rows), rank 1 (per row) or 0.
  auto badRank = [](Value v) {
    auto t = tensorTy(v);
    return t && t.getRank() > 2;
  };
  for (BlockArgument a : body.getArguments())
    if (badRank(a))
      return group.emitOpError("GPU code generation: row_reduce operands "
                               "must have rank <= 2");
  for (Operation &op : body) {
    if (isa<ScanOp, FilterOp, GroupOp>(op))
      return op.emitOpError("GPU code generation: not supported in a "
                            "row_reduce group");
    if (isa<GatherOp, IotaOp>(op))
      return op.emitOpError("GPU code generation: gather and iota are not "
                            "supported in row_reduce groups yet");
    for (Value res : op.getResults())
      if (badRank(res))
        return op.emitOpError("GPU code generation: row_reduce values must "
                              "have rank <= 2");
  }
  for (Value y : group.getYield().getValues())
    if (tensorTy(y).getRank() == 0)
      return group.emitOpError("GPU code generation: a row_reduce group "
                               "yields rank-1 or rank-2 tensors only");

  FailureOr<GroupKernels> gk =
      buildRowKernel(m, group, prefix, tiling, reds, RowKernelKind::Paths);
  if (failed(gk))
    return failure();
  // Staged long rows (fuse-tile's staged-rows; groups with rank-2 results,
  // whose output walk reads the row again; not with whole-rows, whose one
  // kernel chooses its paths in itself): a kernel of their own, and a
  // second with staged-threads threads for rows over half the chip's
  // shared memory (one block an SM: more threads copy and walk the row;
  // fewer blocks of more threads were slower for smaller rows).
  bool direct = llvm::any_of(body.getArguments(), [](BlockArgument arg) {
    auto tt = tensorTy(arg);
    return tt && tt.getRank() == 2 && readDirectly(arg);
  });
  bool rowWide = llvm::any_of(group.getYield().getValues(), [](Value y) {
    return tensorTy(y).getRank() == 2;
  });
  if (tiling.stagedRows > 0 && direct && rowWide) {
    FailureOr<GroupKernels> sk =
        buildRowKernel(m, group, prefix, tiling, reds, RowKernelKind::Staged);
    if (failed(sk))
      return failure();
    gk->stagedKernel = sk->kernel;
    gk->stagedElementBytes = sk->stagedElementBytes;
    // (None when no staged row can be that long.)
    if (tiling.stagedThreads && tiling.stagedThreads != tiling.blockThreads &&
        tiling.stagedRows > tiling.stagedWideRows) {
      Tiling wt = tiling;
      wt.blockThreads = tiling.stagedThreads;
      FailureOr<GroupKernels> wk = buildRowKernel(m, group, prefix, wt, reds,
                                                  RowKernelKind::StagedWide);
      if (failed(wk))
        return failure();
      gk->stagedWideKernel = wk->kernel;
      gk->stagedThreads = tiling.stagedThreads;
    }
  }
  return gk;
}

namespace {

/// The kernels of a row_reduce group that passed buildRowReduceKernels'
/// checks: `<prefix>_rows`, split by path (splitRowKernel), or the staged
/// long rows' kernel alone, `<prefix>_rows_staged` or
/// `<prefix>_rows_staged_wide` (tiling.blockThreads its threads).
FailureOr<GroupKernels> buildRowKernel(gpu::GPUModuleOp m, GroupOp group,
                                       StringRef prefix, const Tiling &tiling,
                                       ArrayRef<ReduceOp> reds,
                                       RowKernelKind kind) {
  const bool stagedOnly = kind != RowKernelKind::Paths;
  Location loc = group.getLoc();
  MLIRContext *ctx = group.getContext();
  Block &body = group.getBody().front();
  GroupKernels gk;
  gk.plan = GroupPlan::RowReduce;
  gk.tiling = tiling;
  gk.kernel = (prefix + (kind == RowKernelKind::Paths    ? "_rows"
                         : kind == RowKernelKind::Staged ? "_rows_staged"
                                                         : "_rows_staged_wide"))
                  .str();
  // Vector width: 16 bytes of the common width of the rank-2 tensors.
  int64_t width = 0;
  bool mixed = false;
  auto seeWidth = [&](Value v) {
    auto t = tensorTy(v);
    if (!t || t.getRank() != 2)
      return;
    int64_t w = byteWidth(t.getElementType());
    if (width && width != w)
      mixed = true;
    width = w;
  };
  for (Value v : llvm::concat<Value>(group.getOperands(), group.getResults()))
    seeWidth(v);
  int64_t vw = (!width || mixed) ? 1 : 16 / width;
  if (tiling.vectorWidth > 0 && tiling.vectorWidth < vw)
    vw = llvm::bit_floor(static_cast<uint64_t>(tiling.vectorWidth));
  vw = std::max<int64_t>(vw, 1);
  gk.vectorWidth = vw;
  const int64_t bt = tiling.blockThreads;
  const int64_t chunksPerThread = tiling.unroll; // vectors per thread
  const int64_t capacity = bt * chunksPerThread * vw;
  // Narrow rows (fuse-tile's narrow-rows): a row that needs at most bt / 2
  // threads (need = ceil(cols / (chunksPerThread * vw))) goes to a group of
  // R = max(narrow-rows, bit_ceil(need)) threads, bt / R rows per block: a
  // block of one row of 1024 f32 holds a single 16-byte vector per thread
  // between two barriers per reduction (latency-bound); four rows of 64
  // threads hold four each, and rows of up to 32 threads' elements need no
  // barrier (a warp of 64-column rows holds eight rows of four threads).
  const bool narrowPath = tiling.narrowRows && bt >= 64 && !stagedOnly;
  if (narrowPath)
    gk.narrowRowItems = chunksPerThread * vw;
  // With rank-2 results (softmax), groups of fewer than 4 threads (less
  // than 64 bytes of a row a vector instruction) only for rows of at most
  // two chunks a thread: at 16 columns groups of 2 measured faster than
  // groups of 1 (four 16-byte stores a thread, each instruction writing
  // half of every sector it touches) and of 4 (one chunk a thread); at 32
  // columns groups of 4 faster than of 2 (docs/performance.md). Rank-1
  // results keep the smallest groups, which measured fastest for them.
  const bool rank2Out = llvm::any_of(group.getResults(), [](Value v) {
    return tensorTy(v).getRank() == 2;
  });
  // Off the vector path (scalar, striped), rank-2 results take groups of
  // at least 32 bytes of elements, so that a store instruction writes whole
  // 32-byte sectors of a row rather than halves; the smallest such group
  // measured best, and rank-1 results (no rank-2 stores) measured faster
  // in smaller groups (docs/performance.md). Cost: with R >= 8 known, the
  // butterflies' keep tests of offsets 1-4 fold away and the kernel
  // schedules differently, measured slower at 129 columns (groups of 16
  // either way); a run-time max(R, 8) folds the same way in LLVM.
  // Hiding the bound (the shift through an opaque copy) measured faster
  // at 129 columns but slower at 33: not kept.
  // Off the vector path, rank-2 results take groups of up to the whole
  // block: every such row that fits the registers (need <= bt, cols <=
  // capacity) is narrow, so its stores are striped (a store instruction
  // writes consecutive elements) instead of the register path's chunked
  // scalar stores (4 bytes of every 16 an instruction), and the register
  // path serves the vector path only (a compare per chunk, no scalar
  // loads). This measured faster (docs/performance.md), also for rows
  // narrow either way (the scalar kernel differs only in its fold reaching
  // 8 warps, a different schedule; measured, not explained). Rank-1
  // results keep half the block: wide rows measured slower in groups of
  // 256 (32 runtime-strided slots a thread) than on the register path.
  if (narrowPath)
    gk.narrowScalarMaxThreads = rank2Out ? bt : bt / 2;
  if (narrowPath && rank2Out) {
    gk.narrowSmallCols = 2 * vw;
    int64_t minBytes = 8;
    for (Value v : group.getResults())
      if (tensorTy(v).getRank() == 2)
        minBytes = std::min<int64_t>(minBytes,
                                     byteWidth(tensorTy(v).getElementType()));
    gk.narrowScalarMinThreads =
        std::max<int64_t>(tiling.narrowRows, 32 / std::max<int64_t>(1, minBytes));
  }

  // Shared-memory exchange buffers. The stages run one after the other and
  // blockAllReduce's leading barrier protects a buffer from its previous
  // use, so input i of a reduction takes the first buffer of its element
  // type that no other input of the same reduction holds (one buffer for
  // softmax's max and sum: one shared address per thread, not two).
  SmallVector<Type> smem;
  SmallVector<SmallVector<unsigned>> smemOf; // per reduction, per input
  for (ReduceOp r : reds) {
    SmallVector<unsigned> taken;
    for (Value in : r.getInputs()) {
      Type st = smemType(ctx, tensorTy(in).getElementType());
      unsigned k = 0;
      while (k < smem.size() &&
             (smem[k] != st || llvm::is_contained(taken, k)))
        ++k;
      if (k == smem.size())
        smem.push_back(st);
      taken.push_back(k);
    }
    smemOf.push_back(taken);
  }
  // online-max-sum: pairs of stages (max at ri, sum at ri + 1) that the
  // long-row walk computes together, with the fast-math flags of their
  // map's exp.
  llvm::SmallDenseMap<unsigned, arith::FastMathFlagsAttr> pairAt;
  if (tiling.onlineMaxSum)
    for (unsigned ri = 0; ri + 1 < reds.size(); ++ri)
      if (math::ExpOp ex = onlineMaxSumExp(reds[ri], reds[ri + 1])) {
        pairAt[ri] = ex.getFastmathAttr();
        ++ri;
      }
  auto i64 = IntegerType::get(ctx, 64);
  auto i32 = IntegerType::get(ctx, 32);
  SmallVector<Type> params = commonParams(group);
  params.push_back(i64);                        // rows
  params.push_back(i64);                        // cols
  params.push_back(i32);                        // vec: 16-byte rows
  params.append(group.getNumResults(), LLVM::LLVMPointerType::get(ctx, 1));
  gpu::GPUFuncOp f = createKernel(m, loc, gk.kernel, params, smem, bt);
  // Occupancy hint (nvvm.minctasm -> .minnctapersm): the kernel is latency
  // bound (load, barrier, reduce, barrier), so resident blocks matter, and
  // without a target ptxas spends registers freely. Estimate per thread:
  // the register-held elements (32-bit words) plus about 16 for addresses,
  // accumulators, the row and math temporaries, plus 8 when rank-2 results
  // keep mapped values live through the last stage to the stores
  // (softmax: 40 -> 6 blocks of 256; logsumexp: 32 -> 8 blocks, both
  // without spills). Registers are granted per warp in units of 256.
  // The temporaries are values of the elements' width: with 8-byte
  // elements twice the words (f64 logsumexp spilled 16 bytes at 32).
  // The narrow vector-path kernel (its own hint, set by splitRowKernel)
  // takes 8 words more when a thread holds more than 16 words in more
  // than 4 chunks: each chunk keeps a column guard and an offset.
  // logsumexp at 32 f32 a thread (8 chunks): 48 registers (5 blocks)
  // spilled 4 bytes there; with 8 more (4 blocks, 62 registers, no
  // spills) it measured faster at 512 and 1024 columns and about as fast
  // at 33 and 129, while the scalar narrow kernel at 4 blocks measured
  // slower (docs/performance.md), so the others keep the plain estimate.
  // (ptxas fits the narrow kernel without spills on the plain estimate at
  // 32 f16 a thread, 4 chunks: 47 registers; and at 16 f64, whose words
  // the estimate already doubles: 60.)
  {
    int64_t held = 0, words = 1;
    for (BlockArgument arg : body.getArguments())
      if (auto tt = tensorTy(arg);
          tt && tt.getRank() == 2 && readDirectly(arg)) {
        int64_t w =
            std::max<int64_t>(1, (byteWidth(tt.getElementType()) + 3) / 4);
        held += chunksPerThread * vw * w;
        words = std::max(words, w);
      }
    int64_t regs = held + 16 * words + (rank2Out ? 8 * words : 0);
    auto blocksFor = [&](int64_t r) -> int64_t {
      if (r > 255)
        return 0; // (no hint)
      // The wide staged kernel's rows leave one block an SM.
      if (kind == RowKernelKind::StagedWide)
        return 1;
      int64_t perWarp = llvm::alignTo(r * 32, 256);
      return std::min<int64_t>(65536 / (perWarp * (bt / 32)),
                               std::max<int64_t>(1, 2048 / bt));
    };
    auto i32Attr = [&](int64_t v) {
      return Builder(ctx).getI32IntegerAttr(static_cast<int32_t>(v));
    };
    if (int64_t blocks = blocksFor(regs); blocks >= 1)
      f->setAttr("nvvm.minctasm", i32Attr(blocks));
    int64_t narrowRegs =
        regs + (chunksPerThread > 4 && held > 16 * words ? 8 * words : 0);
    if (int64_t blocks = blocksFor(narrowRegs); blocks >= 1)
      f->setAttr(kNarrowMinCtasAttr, i32Attr(blocks));
  }
  Gen g(group, loc, tiling);
  g.func = f;
  OpBuilder b = OpBuilder::atBlockBegin(&f.getBody().front());
  g.setUp(b);
  Value rows = g.extra[0], cols = g.extra[1];
  Value vecFlag =
      cmpI(b, loc, arith::CmpIPredicate::ne, g.extra[2], cI32(b, loc, 0));
  // Set while a register path known to be on the vector path is generated
  // (cols % vw == 0, aligned): a chunk's slots are all inside the row or
  // all outside, so one compare per chunk.
  bool vectorRowPath = false;
  // Set while the narrow rows off the vector path are generated: the
  // vector path is known not taken (scalar loads and stores only).
  bool scalarRowPath = false;
  // Set while the narrow-rows path is generated: log2 of the threads per
  // row (i32, uniform) and whether the group's row exists (i1; a group
  // past the last row reads the last row and stores nothing).
  Value narrowShift, narrowValid;
  ValueRange outs = ValueRange(g.extra).drop_front(3);
  auto yields = group.getYield().getValues();
  auto wg = f.getWorkgroupAttributions();
  Value t = g.threadId(b);
  const auto noWrap = arith::IntegerOverflowFlags::nsw |
                      arith::IntegerOverflowFlags::nuw;

  // The stages: each reduction over the current row, in body order. `elem`
  // gives the reduction inputs of one element slot; `accumulate` folds the
  // row's elements of this thread into `acc`.
  using Accumulate = function_ref<SmallVector<Value>(
      OpBuilder &, ReduceOp, SmallVector<Value>)>;
  auto runStage = [&](OpBuilder &rb, unsigned ri, Accumulate accumulate) {
    ReduceOp r = reds[ri];
    SmallVector<Value> acc = accumulate(rb, r, startValues(rb, loc, r));
    SmallVector<Value> sm;
    for (unsigned k : smemOf[ri])
      sm.push_back(wg[k]);
    acc = narrowShift
              ? groupAllReduce(g, rb, r, acc, sm, narrowShift,
                               scalarRowPath ? gk.narrowScalarMaxThreads
                                             : bt / 2)
              : blockAllReduce(g, rb, r, acc, sm);
    acc = g.applyInit(rb, r, acc);
    for (auto [res, v] : llvm::zip(r.getResults(), acc))
      g.leaves[res] = v;
  };
  auto runStages = [&](OpBuilder &rb, Accumulate accumulate) {
    for (unsigned ri = 0; ri < reds.size(); ++ri)
      runStage(rb, ri, accumulate);
  };
  // Rank-1 results: every thread computes them, thread 0 (of the row's
  // group, narrow rows) stores.
  auto storeRowResults = [&](OpBuilder &rb, Value row) {
    Value rIdx = toIndex(rb, loc, row);
    SmallVector<std::pair<Value, Value>> st;
    for (auto [y, out] : llvm::zip(yields, outs))
      if (tensorTy(y).getRank() == 1)
        st.push_back({g.element(rb, y, {rIdx}), out});
    if (st.empty())
      return;
    Value tid = readSpecial(rb, loc, "%tid.x");
    Value storing;
    if (narrowShift) {
      Value mask = arith::SubIOp::create(
          rb, loc,
          arith::ShLIOp::create(rb, loc, cI32(rb, loc, 1), narrowShift),
          cI32(rb, loc, 1));
      storing = arith::AndIOp::create(
          rb, loc, narrowValid,
          cmpI(rb, loc, arith::CmpIPredicate::eq,
               arith::AndIOp::create(rb, loc, tid, mask), cI32(rb, loc, 0)));
    } else {
      storing = cmpI(rb, loc, arith::CmpIPredicate::eq, tid, cI32(rb, loc, 0));
    }
    scf::IfOp::create(
        rb, loc, storing,
        [&](OpBuilder &ib, Location l) {
          for (auto [v, out] : st)
            g.store(ib, v, out, row);
          scf::YieldOp::create(ib, l);
        });
  };
  // `fn(i)` for i = block id, block id + grid, ... while i * perStep <
  // rows (perStep: rows a block takes per step, Value() for one: then i is
  // the row). The step re-reads %nctaid.x at the latch: no stride register
  // stays live and LLVM sees no affine induction to strength-reduce into
  // extra pointers.
  auto rowsLoop = [&](OpBuilder &ob, function_ref<void(OpBuilder &, Value)> fn,
                      Value perStep) {
    auto i64 = ob.getI64Type();
    auto loop = scf::WhileOp::create(ob, loc, TypeRange{i64},
                                     ValueRange{g.blockId(ob)});
    Block *before = ob.createBlock(&loop.getBefore(), {}, {i64}, {loc});
    OpBuilder bb = OpBuilder::atBlockEnd(before);
    Value first = before->getArgument(0);
    if (perStep)
      first = arith::MulIOp::create(bb, loc, first, perStep);
    scf::ConditionOp::create(
        bb, loc, cmpI(bb, loc, arith::CmpIPredicate::slt, first, rows),
        ValueRange{before->getArgument(0)});
    Block *after = ob.createBlock(&loop.getAfter(), {}, {i64}, {loc});
    OpBuilder ab = OpBuilder::atBlockEnd(after);
    Value i = after->getArgument(0);
    fn(ab, i);
    Value step = arith::ExtUIOp::create(ab, loc, i64,
                                        readSpecial(ab, loc, "%nctaid.x"));
    scf::YieldOp::create(ab, loc,
                         ValueRange{arith::AddIOp::create(ab, loc, i, step)});
    ob.setInsertionPointAfter(loop);
  };

  // Registers: element slot j*vw+k of thread t holds column
  // t*vw + j*bt*vw + k. Per row, each operand/result gets one 64-bit pointer
  // to the thread's first column (row * cols + t*vw, the only 64-bit index
  // arithmetic); every access is that pointer plus a constant, and slot
  // validity is `constant < rem` with rem = cols - t*vw in 32 bits (no
  // per-slot column values stay live).
  // `tp` plus `off` elements of type `et` (a constant offset).
  auto offsetPtr = [&](OpBuilder &pb, Value tp, Type et, int64_t off) {
    if (!off)
      return tp;
    return Value(
        LLVM::GEPOp::create(pb, loc, tp.getType(), et, tp,
                            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(off)}));
  };
  // The rank-2 body arguments read elementwise (loaded into g.regs by the
  // register path and the long rows' output tiles): argument number and
  // element type.
  SmallVector<std::pair<unsigned, Type>> directArgs;
  for (BlockArgument arg : body.getArguments())
    if (auto tt = tensorTy(arg); tt && tt.getRank() == 2 && readDirectly(arg))
      directArgs.push_back({arg.getArgNumber(), tt.getElementType()});
  auto registerRow = [&](OpBuilder &rb, Value row) {
    g.em->clearCache();
    g.leaves.clear();
    g.regs.clear();
    g.colSlot.clear();
    Value rowIV = row;
    row = opaqueCopy(rb, loc, row);
    g.rowIdx = toIndex(rb, loc, row);
    Value cols32 = arith::TruncIOp::create(rb, loc, rb.getI32Type(), cols);
    // Per phase (loads, each stage, stores): the thread's first column
    // t*vw, rem = cols - t*vw and the thread's element offset
    // row*cols + t*vw, from a fresh thread id read.
    // Narrow rows: the thread's place in its group (tid mod R), the
    // chunk stride R*vw (slot j*vw + k at column tcol + j*stride + k), and
    // rem = 0 in a group past the last row (no slot valid). Narrow rows
    // off the vector path are striped instead: slot s at column
    // t' + s*R (stride R, tcol = t'), so a group's lanes load and store
    // consecutive elements (with the chunked layout each scalar store
    // instruction writes 4 of every 16 bytes, which measured slower;
    // docs/performance.md).
    const bool striped = narrowShift && scalarRowPath;
    Value tcol, rem, first, stride;
    auto newPhase = [&](OpBuilder &pb) {
      Value tid = readSpecial(pb, loc, "%tid.x");
      if (narrowShift) {
        Value r = arith::ShLIOp::create(pb, loc, cI32(pb, loc, 1), narrowShift);
        tid = arith::AndIOp::create(
            pb, loc, tid, arith::SubIOp::create(pb, loc, r, cI32(pb, loc, 1)));
        stride = striped ? r
                         : arith::ShLIOp::create(pb, loc, cI32(pb, loc, vw),
                                                 narrowShift);
      }
      tcol = striped ? tid
                     : arith::MulIOp::create(pb, loc, tid, cI32(pb, loc, vw),
                                             noWrap);
      rem = arith::SubIOp::create(pb, loc, cols32, tcol);
      if (narrowShift)
        rem = arith::SelectOp::create(pb, loc, narrowValid, rem,
                                      cI32(pb, loc, 0));
    };
    auto newFirst = [&](OpBuilder &pb) {
      first = arith::AddIOp::create(
          pb, loc,
          arith::MulIOp::create(pb, loc, opaqueCopy(pb, loc, rowIV), cols),
          arith::ExtUIOp::create(pb, loc, pb.getI64Type(), tcol));
    };
    newPhase(rb);
    newFirst(rb);
    SmallVector<int64_t> slotOff;
    for (int64_t j = 0; j < chunksPerThread; ++j)
      for (int64_t k = 0; k < vw; ++k)
        slotOff.push_back(j * bt * vw + k);
    // A slot's column offset from tcol (i32): a constant, or for narrow
    // rows j*stride + k of the current phase.
    auto slotOffset = [&](OpBuilder &ob, unsigned slot) -> Value {
      if (!narrowShift)
        return cI32(ob, loc, slotOff[slot]);
      if (striped)
        return slot ? Value(arith::MulIOp::create(ob, loc, stride,
                                                  cI32(ob, loc, slot), noWrap))
                    : cI32(ob, loc, 0);
      int64_t j = slot / vw, k = slot % vw;
      if (!j)
        return cI32(ob, loc, k);
      Value base = arith::MulIOp::create(ob, loc, stride, cI32(ob, loc, j),
                                         noWrap);
      return k ? Value(arith::AddIOp::create(ob, loc, base, cI32(ob, loc, k),
                                             noWrap))
               : base;
    };
    SmallVector<Value> colIdx;
    for (unsigned slot = 0; slot < slotOff.size(); ++slot) {
      Value c = slotOff[slot] ? arith::AddIOp::create(
                                    rb, loc, tcol, slotOffset(rb, slot), noWrap)
                              : tcol;
      Value ci = arith::IndexCastUIOp::create(rb, loc, rb.getIndexType(), c);
      g.colSlot[ci] = colIdx.size();
      colIdx.push_back(ci);
    }
    // Slot validity, built where it is used (a compare with a constant)
    // from the current phase's rem.
    auto validAt = [&](OpBuilder &vb, unsigned slot) -> Value {
      if (vectorRowPath)
        slot -= slot % vw;
      return cmpI(vb, loc, arith::CmpIPredicate::slt, slotOffset(vb, slot),
                  rem);
    };
    // Narrow rows: whether any thread of a group holds a column of chunk
    // `s0 / vw` (slots s0 .. s0 + vw - 1), i.e. the chunk's first column
    // for the group's thread 0 is inside the row. Uniform (cols and R), so
    // chunks past the row (a row needs ceil(cols / R) of the thread's
    // slots: more than half, but often not all) are skipped by a branch
    // instead of computed and discarded slot by slot: the narrow kernels
    // issue every instruction of every slot otherwise (logsumexp_rows at
    // 129 columns computed 16 slots for 9 columns a thread).
    auto chunkNeeded = [&](OpBuilder &cb, unsigned s0) -> Value {
      return cmpI(cb, loc, arith::CmpIPredicate::slt, slotOffset(cb, s0),
                  cols32);
    };
    auto skippable = [&](int64_t j) { return narrowShift && j > 0; };
    // On the vector-row paths the vector path is known to be taken.
    Value vec = vectorRowPath
                    ? Value(arith::ConstantIntOp::create(rb, loc, 1, 1))
                : scalarRowPath
                    ? Value(arith::ConstantIntOp::create(rb, loc, 0, 1))
                    : vecFlag;
    // Plain GEPs: a thread past the end of the last row forms addresses
    // it never dereferences.
    auto threadPtr = [&](OpBuilder &pb, Value base, Type et) {
      return g.gep(pb, base, et, first);
    };
    // `tp` plus the slot's offset (a constant GEP unless narrow).
    auto slotPtr = [&](OpBuilder &pb, Value tp, Type et, unsigned slot) {
      if (!narrowShift || (!striped && slot < static_cast<unsigned>(vw)))
        return offsetPtr(pb, tp, et, slotOff[slot]);
      if (striped && !slot)
        return tp;
      return g.gep(pb, tp, et,
                   arith::ExtUIOp::create(pb, loc, pb.getI64Type(),
                                          slotOffset(pb, slot)));
    };
    auto zeroOf = [&](OpBuilder &zb, Type ty) -> Value {
      return arith::ConstantOp::create(zb, loc,
                                       cast<TypedAttr>(zb.getZeroAttr(ty)));
    };
    // Load every directly read rank-2 operand once.
    for (const auto &direct : directArgs) {
      // (no structured bindings: lambdas capture these, a C++20 feature)
      unsigned n = direct.first;
      Type et = direct.second;
      auto vt = VectorType::get({vw}, et);
      Value tp = threadPtr(rb, g.ptr[n], et);
      SmallVector<Value> &slots = g.regs[n];
      auto scalarLoad = [&](OpBuilder &sb, unsigned slot) {
        return ifValue(
            sb, loc, validAt(sb, slot), et,
            [&](OpBuilder &ib) -> Value {
              return LLVM::LoadOp::create(ib, loc, et,
                                          slotPtr(ib, tp, et, slot),
                                          byteWidth(et));
            },
            [&](OpBuilder &ib) { return zeroOf(ib, et); });
      };
      for (int64_t j = 0; j < chunksPerThread; ++j) {
        unsigned s0 = j * vw;
        auto loadChunk = [&](OpBuilder &cb) -> Value {
          if (vw == 1)
            return scalarLoad(cb, s0);
          return ifValue(
            cb, loc, vec, vt,
            [&](OpBuilder &ib) {
              // cols % vw == 0: the chunk is whole or outside.
              return ifValue(
                  ib, loc, validAt(ib, s0), vt,
                  [&](OpBuilder &jb) -> Value {
                    return LLVM::LoadOp::create(
                        jb, loc, vt, slotPtr(jb, tp, et, s0),
                        byteWidth(et) * vw);
                  },
                  [&](OpBuilder &jb) { return zeroOf(jb, vt); });
            },
            [&](OpBuilder &ib) {
              Value acc = LLVM::PoisonOp::create(ib, loc, vt);
              for (int64_t k = 0; k < vw; ++k)
                acc = LLVM::InsertElementOp::create(
                    ib, loc, acc, scalarLoad(ib, s0 + k), cI32(ib, loc, k));
              return acc;
            });
        };
        Type ct = vw == 1 ? et : Type(vt);
        Value v = skippable(j)
                      ? ifValue(rb, loc, chunkNeeded(rb, s0), ct, loadChunk,
                                [&](OpBuilder &zb) { return zeroOf(zb, ct); })
                      : loadChunk(rb);
        if (vw == 1) {
          slots.push_back(v);
          continue;
        }
        for (int64_t k = 0; k < vw; ++k)
          slots.push_back(
              LLVM::ExtractElementOp::create(rb, loc, v, cI32(rb, loc, k)));
      }
    }
    runStages(rb, [&](OpBuilder &sb, ReduceOp r, SmallVector<Value> acc) {
      newPhase(sb);
      // Folds chunk j (slots j*vw ..) into `a`; returns the chunk's
      // inputs, slot by slot.
      auto foldChunk = [&](OpBuilder &fb, int64_t j, SmallVector<Value> &a) {
        unsigned s0 = j * vw;
        SmallVector<Value> inputs;
        if (vectorRowPath && vw > 1) {
          // A chunk's slots are all valid or all not: its elements are
          // computed as always, its combines (same order) sit under one
          // branch instead of a select per slot.
          SmallVector<SmallVector<Value>> xs(vw);
          for (int64_t k = 0; k < vw; ++k)
            for (Value in : r.getInputs()) {
              xs[k].push_back(g.element(fb, in, {g.rowIdx, colIdx[s0 + k]}));
              inputs.push_back(xs[k].back());
            }
          auto ifOp = scf::IfOp::create(fb, loc, ValueRange(a).getTypes(),
                                        validAt(fb, s0), /*withElse=*/true);
          OpBuilder tb = ifOp.getThenBodyBuilder();
          SmallVector<Value> c = a;
          for (int64_t k = 0; k < vw; ++k)
            c = g.combine(tb, r, c, xs[k]);
          scf::YieldOp::create(tb, loc, c);
          OpBuilder eb = ifOp.getElseBodyBuilder();
          scf::YieldOp::create(eb, loc, a);
          a = SmallVector<Value>(ifOp.getResults());
          return inputs;
        }
        for (int64_t k = 0; k < vw; ++k) {
          SmallVector<Value> xs;
          for (Value in : r.getInputs())
            xs.push_back(g.element(fb, in, {g.rowIdx, colIdx[s0 + k]}));
          SmallVector<Value> nw = g.combine(fb, r, a, xs);
          a = selAll(fb, loc, validAt(fb, s0 + k), nw, a);
          inputs.append(xs);
        }
        return inputs;
      };
      for (int64_t j = 0; j < chunksPerThread; ++j) {
        if (!skippable(j)) {
          foldChunk(sb, j, acc);
          continue;
        }
        // The chunk under its branch; the inputs computed there (e.g.
        // softmax's exp(x - max), which the stores use again) leave it as
        // results.
        unsigned s0 = j * vw;
        SmallVector<Type> types(ValueRange(acc).getTypes());
        for (int64_t k = 0; k < vw; ++k)
          for (Value in : r.getInputs())
            types.push_back(tensorTy(in).getElementType());
        auto ifOp = scf::IfOp::create(sb, loc, types, chunkNeeded(sb, s0),
                                      /*withElse=*/true);
        OpBuilder tb = ifOp.getThenBodyBuilder();
        SmallVector<Value> a = acc;
        SmallVector<Value> inner = foldChunk(tb, j, a);
        SmallVector<Value> yielded = a;
        yielded.append(inner);
        scf::YieldOp::create(tb, loc, yielded);
        OpBuilder eb = ifOp.getElseBodyBuilder();
        SmallVector<Value> none = acc;
        for (Type t : ArrayRef<Type>(types).drop_front(acc.size()))
          none.push_back(zeroOf(eb, t));
        scf::YieldOp::create(eb, loc, none);
        g.em->forgetInside(ifOp);
        acc.assign(ifOp.getResults().begin(),
                   ifOp.getResults().begin() + acc.size());
        unsigned ri = acc.size(), ii = 0;
        for (int64_t k = 0; k < vw; ++k)
          for (Value in : r.getInputs()) {
            Value x = inner[ii++], res = ifOp.getResult(ri++);
            if (ifOp->isAncestor(x.getParentBlock()->getParentOp()))
              g.em->remember(in, {g.rowIdx, colIdx[s0 + k]}, res);
          }
      }
      return acc;
    });
    // Rank-2 results: one vector store per chunk.
    for (auto yo : llvm::zip(yields, outs)) {
      Value y = std::get<0>(yo), out = std::get<1>(yo);
      if (tensorTy(y).getRank() != 2)
        continue;
      Type et = tensorTy(y).getElementType();
      auto vt = VectorType::get({vw}, et);
      newPhase(rb);
      newFirst(rb);
      Value tp = threadPtr(rb, out, et);
      for (int64_t j = 0; j < chunksPerThread; ++j) {
        unsigned s0 = j * vw;
        scf::IfOp chunkIf;
        if (skippable(j)) {
          chunkIf = scf::IfOp::create(rb, loc, TypeRange{},
                                      chunkNeeded(rb, s0),
                                      /*withElse=*/false);
          rb.setInsertionPoint(chunkIf.thenBlock()->getTerminator());
        }
        llvm::scope_exit closeChunk([&] {
          if (chunkIf) {
            rb.setInsertionPointAfter(chunkIf);
            g.em->forgetInside(chunkIf);
          }
        });
        SmallVector<Value> lanes;
        for (int64_t k = 0; k < vw; ++k)
          lanes.push_back(g.element(rb, y, {g.rowIdx, colIdx[s0 + k]}));
        auto storeLane = [&](OpBuilder &ib, int64_t k) {
          scf::IfOp::create(ib, loc, validAt(ib, s0 + k),
                            [&](OpBuilder &kb, Location kl) {
                              LLVM::StoreOp::create(
                                  kb, kl, lanes[k],
                                  slotPtr(kb, tp, et, s0 + k),
                                  byteWidth(et));
                              scf::YieldOp::create(kb, kl);
                            });
        };
        if (vw == 1) {
          storeLane(rb, 0);
          continue;
        }
        Value v = LLVM::PoisonOp::create(rb, loc, vt);
        for (int64_t k = 0; k < vw; ++k)
          v = LLVM::InsertElementOp::create(rb, loc, v, lanes[k],
                                            cI32(rb, loc, k));
        scf::IfOp::create(
            rb, loc, vec,
            [&](OpBuilder &ib, Location il) {
              scf::IfOp::create(ib, il, validAt(ib, s0),
                                [&](OpBuilder &jb, Location jl) {
                                  LLVM::StoreOp::create(
                                      jb, jl, v,
                                      slotPtr(jb, tp, et, s0),
                                      byteWidth(et) * vw);
                                  scf::YieldOp::create(jb, jl);
                                });
              scf::YieldOp::create(ib, il);
            },
            [&](OpBuilder &ib, Location il) {
              for (int64_t k = 0; k < vw; ++k)
                storeLane(ib, k);
              scf::YieldOp::create(ib, il);
            });
      }
    }
    storeRowResults(rb, row);
    g.em->clearCache();
    g.rowIdx = nullptr;
  };

  // Long rows: one walk over the row per stage, one element per thread per
  // step, then one more for the rank-2 outputs (64-bit columns: a row may
  // exceed 2^31 elements). The output walk goes in tiles of bt * items
  // columns (items: fuse-tile's long-row-items): element i of thread t at
  // column tile + t + i*bt (coalesced scalar accesses, any alignment),
  // every operand element of the tile loaded before any is used or stored
  // (items loads in flight per thread, no guards: the tile is whole), then
  // the last < bt * items columns one element per step (measured faster
  // than an untiled output walk). Tiled stage walks gain little for their
  // extra compile time: rows of 1056 resident blocks exceed L2, so every
  // stage re-reads from DRAM (docs/performance.md); online-max-sum walks
  // once for a max and the sum of exp(x - max) after it.
  const int64_t items = tiling.longRowItems;
  const int64_t tileCols = bt * std::max<int64_t>(1, items);
  // Staged long rows (fuse-tile's staged-rows; groups with rank-2 results,
  // whose output walk reads the row again): the block copies the row's
  // directly read operands into dynamic shared memory once (16-byte
  // cp.async chunks on the vector path, else element by element),
  // and every walk reads them there: the row crosses the memory bus once
  // instead of twice. Operand k's region starts at the sum of
  // alignTo(cols * bytes, 16) of those before it; the host passes the sum
  // as the launch's dynamic shared memory.
  SmallVector<Value> stageRegion; // per directArgs entry, !llvm.ptr<3>
  SmallVector<int64_t> stagedBytes; // element bytes per directArgs entry
  for (auto [n, et] : directArgs)
    stagedBytes.push_back(byteWidth(et));
  // The element of staged operand k at column c (i64).
  auto stagedPtr = [&](OpBuilder &ob, unsigned k, Value c) {
    Type et = directArgs[k].second;
    return Value(LLVM::GEPOp::create(ob, loc, stageRegion[k].getType(), et,
                                     stageRegion[k],
                                     ArrayRef<LLVM::GEPArg>{c}));
  };
  // Row mode for one column of a walk: the staged operands' elements at
  // column c (index ci) held as registers.
  auto holdStaged = [&](OpBuilder &ob, Value rIdx, Value ci, Value c) {
    g.rowIdx = rIdx;
    g.regs.clear();
    g.colSlot.clear();
    g.colSlot[ci] = 0;
    for (auto [k, na] : llvm::enumerate(directArgs))
      g.regs[na.first].push_back(LLVM::LoadOp::create(
          ob, loc, na.second, stagedPtr(ob, k, c), byteWidth(na.second)));
  };
  auto dropHeld = [&]() {
    g.rowIdx = nullptr;
    g.regs.clear();
    g.colSlot.clear();
  };
  // Copies row `rowBase` (element offset) into the regions, between
  // barriers (the first: the previous row's readers are done).
  auto stageRow = [&](OpBuilder &rb, Value rowBase) {
    Value base = dynamicSharedBase(f, rb, loc);
    stageRegion.clear();
    Value off = cI64(rb, loc, 0);
    for (int64_t eb : stagedBytes) {
      stageRegion.push_back(LLVM::GEPOp::create(
          rb, loc, base.getType(), rb.getI8Type(), base,
          ArrayRef<LLVM::GEPArg>{off}));
      off = arith::AddIOp::create(rb, loc, off,
                                  stagedRegionBytes(rb, loc, cols, eb));
    }
    gpu::BarrierOp::create(rb, loc);
    // Off the vector path, element by element: 4- and 8-byte elements with
    // cp.async of their size (all in flight at once; docs/performance.md),
    // others loaded and stored.
    auto scalarCopy = [&](OpBuilder &ob) {
      bool async = false;
      scf::ForOp::create(
          ob, loc, t, cols, cI64(ob, loc, bt), ValueRange{},
          [&](OpBuilder &ib, Location il, Value c, ValueRange) {
            Value at = arith::AddIOp::create(ib, il, rowBase, c);
            for (auto [k, na] : llvm::enumerate(directArgs)) {
              int64_t eb = byteWidth(na.second);
              Value src = g.gep(ib, g.ptr[na.first], na.second, at);
              if (eb == 4 || eb == 8) {
                NVVM::CpAsyncOp::create(
                    ib, il, stagedPtr(ib, k, c), src,
                    ib.getI32IntegerAttr(eb),
                    NVVM::LoadCacheModifierKindAttr::get(
                        ib.getContext(), NVVM::LoadCacheModifierKind::CA),
                    Value());
                async = true;
                continue;
              }
              Value v = LLVM::LoadOp::create(ib, il, na.second, src, eb);
              LLVM::StoreOp::create(ib, il, v, stagedPtr(ib, k, c), eb);
            }
            scf::YieldOp::create(ib, il);
          });
      if (async) {
        NVVM::CpAsyncCommitGroupOp::create(ob, loc);
        NVVM::CpAsyncWaitGroupOp::create(ob, loc, 0);
      }
    };
    if (vw == 1) {
      scalarCopy(rb);
    } else {
      scf::IfOp::create(
          rb, loc, vecFlag,
          [&](OpBuilder &ib, Location il) {
            Value start = arith::MulIOp::create(ib, il, t, cI64(ib, il, vw));
            scf::ForOp::create(
                ib, il, start, cols, cI64(ib, il, bt * vw), ValueRange{},
                [&](OpBuilder &jb, Location jl, Value c, ValueRange) {
                  Value at = arith::AddIOp::create(jb, jl, rowBase, c);
                  for (auto [k, na] : llvm::enumerate(directArgs))
                    NVVM::CpAsyncOp::create(
                        jb, jl, stagedPtr(jb, k, c),
                        g.gep(jb, g.ptr[na.first], na.second, at),
                        jb.getI32IntegerAttr(16),
                        NVVM::LoadCacheModifierKindAttr::get(
                            jb.getContext(), NVVM::LoadCacheModifierKind::CG),
                        Value());
                  scf::YieldOp::create(jb, jl);
                });
            NVVM::CpAsyncCommitGroupOp::create(ib, il);
            NVVM::CpAsyncWaitGroupOp::create(ib, il, 0);
            scf::YieldOp::create(ib, il);
          },
          [&](OpBuilder &ib, Location il) {
            scalarCopy(ib);
            scf::YieldOp::create(ib, il);
          });
    }
    gpu::BarrierOp::create(rb, loc);
  };
  auto longRow = [&](OpBuilder &rb, Value row) {
    g.em->clearCache();
    g.leaves.clear();
    g.rowIdx = nullptr;
    Value rIdx = toIndex(rb, loc, row);
    Value rowBase = arith::MulIOp::create(rb, loc, row, cols);
    Value step = cI64(rb, loc, bt);
    const bool staged = stagedOnly;
    if (staged)
      stageRow(rb, rowBase);
    // One tile at column `tc`: loads the directly read rank-2 operands into
    // g.regs and returns the columns of the thread's elements (index).
    auto loadTile = [&](OpBuilder &ib, Value tc) {
      g.em->clearCache();
      g.regs.clear();
      g.colSlot.clear();
      g.rowIdx = rIdx;
      Value c0 = arith::AddIOp::create(ib, loc, tc, t);
      Value first = arith::AddIOp::create(ib, loc, rowBase, c0);
      SmallVector<Value> colIdx;
      for (int64_t i = 0; i < items; ++i) {
        Value c =
            i ? arith::AddIOp::create(ib, loc, c0, cI64(ib, loc, i * bt)) : c0;
        Value ci = toIndex(ib, loc, c);
        g.colSlot[ci] = i;
        colIdx.push_back(ci);
      }
      for (auto [k, na] : llvm::enumerate(directArgs)) {
        auto [n, et] = na;
        Value tp = staged ? stagedPtr(ib, k, c0) : g.gep(ib, g.ptr[n], et, first);
        for (int64_t i = 0; i < items; ++i)
          g.regs[n].push_back(LLVM::LoadOp::create(
              ib, loc, et, offsetPtr(ib, tp, et, i * bt), byteWidth(et)));
      }
      return std::make_pair(colIdx, first);
    };
    auto endTile = [&]() {
      g.em->clearCache();
      g.regs.clear();
      g.colSlot.clear();
      g.rowIdx = nullptr;
    };
    auto walk = [&](OpBuilder &sb, ReduceOp r, SmallVector<Value> acc) {
      auto loop = scf::ForOp::create(
          sb, loc, t, cols, step, acc,
          [&](OpBuilder &ib, Location il, Value c, ValueRange a) {
            g.em->clearCache();
            Value ci = toIndex(ib, il, c);
            if (staged)
              holdStaged(ib, rIdx, ci, c);
            SmallVector<Value> xs;
            for (Value in : r.getInputs())
              xs.push_back(g.element(ib, in, {rIdx, ci}));
            scf::YieldOp::create(ib, il, g.combine(ib, r, a, xs));
          });
      g.em->clearCache();
      dropHeld();
      return SmallVector<Value>(loop.getResults());
    };
    for (unsigned ri = 0; ri < reds.size(); ++ri) {
      if (!pairAt.contains(ri)) {
        runStage(rb, ri, walk);
        continue;
      }
      // online-max-sum: one walk for the max and the sum of exp(x - max)
      // (onlineMerge per element). Across the block: the maximum M, then
      // each thread's s scaled by exp(m - M) (0 for m = -inf) and summed.
      // A row maximum of +-inf gives the two-pass result, NaN (exp(inf -
      // inf) or exp(-inf - -inf) summed; cols > 0 here).
      ReduceOp rmax = reds[ri], rsum = reds[ri + 1];
      arith::FastMathFlagsAttr expFlags = pairAt.lookup(ri);
      Value x0 = rmax.getInputs()[0];
      auto ft = cast<FloatType>(tensorTy(x0).getElementType());
      const llvm::fltSemantics &sem = ft.getFloatSemantics();
      auto fc = [&](OpBuilder &cb, const APFloat &v) -> Value {
        return arith::ConstantOp::create(cb, loc, FloatAttr::get(ft, v));
      };
      auto loop = scf::ForOp::create(
          rb, loc, t, cols, step,
          ValueRange{fc(rb, APFloat::getInf(sem, true)),
                     fc(rb, APFloat::getZero(sem))},
          [&](OpBuilder &ib, Location il, Value c, ValueRange a) {
            g.em->clearCache();
            Value ci = toIndex(ib, il, c);
            if (staged)
              holdStaged(ib, rIdx, ci, c);
            Value x = g.element(ib, x0, {rIdx, ci});
            auto [nm, ns] =
                onlineMerge(g, ib, rmax, a[0], a[1], x, expFlags);
            scf::YieldOp::create(ib, il, ValueRange{nm, ns});
          });
      g.em->clearCache();
      dropHeld();
      Value m = loop.getResult(0);
      Value mx = blockAllReduce(g, rb, rmax, {m}, {wg[smemOf[ri][0]]})[0];
      Value scale = arith::SelectOp::create(
          rb, loc,
          arith::CmpFOp::create(rb, loc, arith::CmpFPredicate::OEQ, m,
                                fc(rb, APFloat::getInf(sem, true))),
          fc(rb, APFloat::getZero(sem)),
          math::ExpOp::create(rb, loc, arith::SubFOp::create(rb, loc, m, mx),
                              expFlags));
      Value part = arith::MulFOp::create(rb, loc, loop.getResult(1), scale);
      Value sm =
          blockAllReduce(g, rb, rsum, {part}, {wg[smemOf[ri + 1][0]]})[0];
      Value isInf = arith::CmpFOp::create(
          rb, loc, arith::CmpFPredicate::OEQ,
          math::AbsFOp::create(rb, loc, mx), fc(rb, APFloat::getInf(sem)));
      sm = arith::SelectOp::create(rb, loc, isInf,
                                   fc(rb, APFloat::getNaN(sem)), sm);
      g.leaves[rmax.getResults()[0]] = mx;
      g.leaves[rsum.getResults()[0]] = sm;
      ++ri;
    }
    SmallVector<std::pair<Value, Value>> rank2;
    for (auto [y, out] : llvm::zip(yields, outs))
      if (tensorTy(y).getRank() == 2)
        rank2.push_back({y, out});
    if (!rank2.empty()) {
      // The tiles end and the single steps start at tilesEnd (+ t).
      Value tilesEnd, stepStart = t;
      if (items) {
        tilesEnd = arith::SubIOp::create(
            rb, loc, cols,
            arith::RemUIOp::create(rb, loc, cols, cI64(rb, loc, tileCols)));
        stepStart = arith::AddIOp::create(rb, loc, tilesEnd, t);
        scf::ForOp::create(
            rb, loc, cI64(rb, loc, 0), tilesEnd, cI64(rb, loc, tileCols),
            ValueRange{},
            [&](OpBuilder &ib, Location il, Value tc, ValueRange) {
              auto [colIdx, first] = loadTile(ib, tc);
              for (auto [y, out] : rank2)
                for (auto [i, ci] : llvm::enumerate(colIdx))
                  g.store(ib, g.element(ib, y, {rIdx, ci}), out,
                          i ? arith::AddIOp::create(
                                  ib, il, first,
                                  cI64(ib, il, static_cast<int64_t>(i) * bt))
                            : first);
              endTile();
              scf::YieldOp::create(ib, il);
            });
        endTile();
      }
      scf::ForOp::create(rb, loc, stepStart, cols, step, ValueRange{},
                         [&](OpBuilder &ib, Location il, Value c, ValueRange) {
                           g.em->clearCache();
                           Value ci = toIndex(ib, il, c);
                           if (staged)
                             holdStaged(ib, rIdx, ci, c);
                           for (auto [y, out] : rank2)
                             g.store(ib, g.element(ib, y, {rIdx, ci}), out,
                                     arith::AddIOp::create(ib, il, rowBase, c));
                           scf::YieldOp::create(ib, il);
                         });
      g.em->clearCache();
      dropHeld();
    }
    storeRowResults(rb, row);
    g.em->clearCache();
  };

  // cols is uniform: the choice is made once, outside the rows loops, so
  // neither path's loop-carried values weigh on the other.
  Value fits = cmpI(b, loc, arith::CmpIPredicate::sle, cols,
                    cI64(b, loc, capacity));
  // Narrow rows: need = ceil(cols / C) threads; R = 2^shift the smallest
  // power of two >= need and >= tiling.narrowRows (fuse-tile's narrow-rows,
  // default 1); the path when need <= bt / 2, in two forms
  // (kernels of their own once split): rows on the vector path (chunks
  // whole or outside the row, one compare each) and rows off it (scalar
  // loads and stores, a compare per slot), instead of the block's register
  // path (one row of 77 columns a 256-thread block). Narrow rows measured
  // faster up to 2048 columns (4096 unchanged), for longer compiles
  // (docs/performance.md).
  Value narrowFits, shift, need;
  // log2 R for groups of at least minThreads.
  auto groupShift = [&](OpBuilder &ob, int64_t minThreads) {
    return selectNarrowGroup(
        ob, loc, arith::CmpIPredicate::ule, cols, need, bt, minThreads,
        gk.narrowSmallCols,
        [&](int64_t p) { return cI32(ob, loc, llvm::Log2_64(p)); },
        cI32(ob, loc, llvm::Log2_64(bt)));
  };
  if (narrowPath) {
    int64_t c = chunksPerThread * vw;
    need = arith::DivUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, cols, cI64(b, loc, c - 1)),
        cI64(b, loc, c));
    shift = groupShift(b, tiling.narrowRows);
    narrowFits = narrowRowsFit(b, loc, arith::CmpIPredicate::ule, need,
                               vecFlag, bt, gk.narrowScalarMaxThreads);
  }
  // The narrow rows' loop: block steps of bt / R rows (uniform over the
  // block, so the barriers are reached by every thread), the group's row
  // = step * (bt / R) + tid / R; a group past the last row takes part with
  // the last row's reads and no valid slot or store.
  auto narrowRowsLoop = [&](OpBuilder &ob) {
    auto i64 = ob.getI64Type();
    Value perBlock = arith::ShRUIOp::create(
        ob, loc, cI64(ob, loc, bt), arith::ExtUIOp::create(ob, loc, i64, shift));
    rowsLoop(
        ob,
        [&](OpBuilder &ab, Value stepIdx) {
          Value row = arith::AddIOp::create(
              ab, loc, arith::MulIOp::create(ab, loc, stepIdx, perBlock),
              arith::ExtUIOp::create(
                  ab, loc, i64,
                  arith::ShRUIOp::create(
                      ab, loc, readSpecial(ab, loc, "%tid.x"), shift)));
          narrowValid = cmpI(ab, loc, arith::CmpIPredicate::slt, row, rows);
          narrowShift = shift;
          registerRow(ab, arith::MinSIOp::create(
                              ab, loc, row,
                              arith::SubIOp::create(ab, loc, rows,
                                                    cI64(ab, loc, 1))));
          narrowShift = narrowValid = nullptr;
        },
        perBlock);
  };
  // A path choice: scf.if on `cond` with `taken` and `other`, tagged
  // (kRowPathAttr) so that the kernel's variants below can fix it.
  auto pathIf = [&](OpBuilder &ob, Value cond, StringRef tag,
                    function_ref<void(OpBuilder &)> taken,
                    function_ref<void(OpBuilder &)> other) {
    auto op = scf::IfOp::create(
        ob, loc, cond,
        [&](OpBuilder &ib, Location l) {
          taken(ib);
          scf::YieldOp::create(ib, l);
        },
        [&](OpBuilder &ib, Location l) {
          other(ib);
          scf::YieldOp::create(ib, l);
        });
    op->setAttr(kRowPathAttr, StringAttr::get(ctx, tag));
  };
  auto longRows = [&](OpBuilder &ob) { rowsLoop(ob, longRow, Value()); };
  auto blockPaths = [&](OpBuilder &ob) {
    pathIf(
        ob, fits, "fits",
        [&](OpBuilder &ib) {
          // Rows off the vector path reach it only where the narrow
          // scalar kernel stops at half the block.
          vectorRowPath = narrowPath && gk.narrowScalarMaxThreads == bt;
          rowsLoop(ib, registerRow, Value());
          vectorRowPath = false;
        },
        longRows);
  };
  auto generalPaths = [&](OpBuilder &ob) {
    if (!narrowPath)
      return blockPaths(ob);
    pathIf(
        ob, narrowFits, "narrow",
        [&](OpBuilder &ib) {
          pathIf(
              ib, vecFlag, "narrow_vec",
              [&](OpBuilder &jb) {
                vectorRowPath = true;
                narrowRowsLoop(jb);
                vectorRowPath = false;
              },
              [&](OpBuilder &jb) {
                scalarRowPath = true;
                Value shared = shift;
                if (gk.narrowScalarMinThreads > tiling.narrowRows)
                  shift = groupShift(jb, gk.narrowScalarMinThreads);
                narrowRowsLoop(jb);
                shift = shared;
                scalarRowPath = false;
              });
        },
        blockPaths);
  };
  if (stagedOnly) {
    // A staged kernel: the host launches it for rows past the register
    // path whose operands fit tiling.stagedRows.
    longRows(b);
    gk.stagedElementBytes = stagedBytes;
  } else {
    generalPaths(b);
  }
  gpu::ReturnOp::create(b, loc);
  if (g.failedLeaf)
    return group.emitOpError("GPU code generation: unsupported value in a "
                             "row_reduce group body");
  if (!stagedOnly)
    splitRowKernel(f, gk, capacity);
  f->removeAttr(kNarrowMinCtasAttr); // (one kernel: the plain estimate)
  return gk;
}

} // namespace

//===----------------------------------------------------------------------===//
// Ordered reductions (custom combiners)
//===----------------------------------------------------------------------===//

namespace {

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

} // namespace

FailureOr<GroupKernels> buildOrderedReduceKernels(gpu::GPUModuleOp m,
                                                  GroupOp group,
                                                  StringRef prefix,
                                                  const Tiling &tiling) {
  Location loc = group.getLoc();
  MLIRContext *ctx = group.getContext();
  Block &body = group.getBody().front();
  SmallVector<ReduceOp> reds = reductionsOf(body);
  if (reds.empty())
    return group.emitOpError("GPU code generation: a reduce group needs a "
                             "fuse.reduce");
  for (ReduceOp r : reds) {
    if (!r.isFullReduction())
      return r.emitOpError("GPU code generation: a reduce group takes full "
                           "reductions only (use a row_reduce group)");
  }
  // Inputs of rank > 1 (the group has one shape: buildGroupKernels checked
  // isFlatGroup) are read at their flat index.
  bool flat = llvm::any_of(reds, [](ReduceOp r) {
    return tensorTy(r.getInputs()[0]).getRank() > 1;
  });
  // Results of rank > 0 are elementwise values over the reduced domain
  // (e.g. y = f(x) returned beside a reduction of y): the partial kernel
  // stores them at each element it folds.
  SmallVector<unsigned> sideOuts;
  for (auto [j, y] : llvm::enumerate(group.getYield().getValues()))
    if (tensorTy(y).getRank() != 0)
      sideOuts.push_back(j);
  GroupKernels gk;
  gk.plan = GroupPlan::Reduce;
  gk.tiling = tiling;
  gk.kernel = (prefix + "_opartial").str();
  gk.finishKernel = (prefix + "_ofinish").str();
  // Vector width of the flat operands (16 bytes of their common width).
  int64_t width = 0;
  bool mixed = false;
  for (Value v : group.getOperands())
    if (auto t = tensorTy(v); t && t.getRank() > 0) {
      int64_t w = byteWidth(t.getElementType());
      mixed |= width && width != w;
      width = w;
    }
  int64_t vw = (!width || mixed) ? 1 : 16 / width;
  if (tiling.vectorWidth > 0 && tiling.vectorWidth < vw)
    vw = llvm::bit_floor(static_cast<uint64_t>(tiling.vectorWidth));
  vw = std::max<int64_t>(vw, 1);
  gk.vectorWidth = vw;
  SmallVector<Type> smem;
  for (ReduceOp r : reds)
    for (Value res : r.getResults()) {
      Type et = tensorTy(res).getElementType();
      gk.partialTypes.push_back(et);
      smem.push_back(smemType(ctx, et));
    }
  smem.push_back(smemType(ctx, IntegerType::get(ctx, 32)));
  gk.partialTypes.push_back(IntegerType::get(ctx, 32)); // has-value flags
  unsigned numAcc = gk.partialTypes.size() - 1;
  unsigned numPartials = gk.partialTypes.size();
  unsigned numOuts = group.getNumResults();
  auto i64 = IntegerType::get(ctx, 64);
  auto gptr = LLVM::LLVMPointerType::get(ctx, 1);
  SmallVector<Type> common = commonParams(group);
  const int64_t bt = tiling.blockThreads;

  // Folds x into (acc, has) in order.
  auto fold = [&](Gen &g, OpBuilder &b, SmallVector<Value> acc, Value has,
                  SmallVector<Value> x) {
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
  };
  // The contiguous range [s, e) of thread `gid` out of `nthreads` over
  // `count` items, in multiples of `unit`.
  auto range = [&](OpBuilder &b, Value gid, Value nthreads, Value count,
                   int64_t unit) {
    Value per = arith::CeilDivSIOp::create(b, loc, count, nthreads);
    per = arith::MulIOp::create(
        b, loc, arith::CeilDivSIOp::create(b, loc, per, cI64(b, loc, unit)),
        cI64(b, loc, unit));
    Value s = arith::MinSIOp::create(
        b, loc, arith::MulIOp::create(b, loc, gid, per), count);
    Value e = arith::MinSIOp::create(b, loc, arith::AddIOp::create(b, loc, s, per),
                                     count);
    return std::make_pair(s, e);
  };

  // Stage 1.
  {
    SmallVector<Type> params(common);
    params.push_back(i64); // n
    params.push_back(i64); // nchunks (0: unaligned, scalar loads)
    params.append(numPartials, gptr);
    params.append(numOuts, gptr);
    params.push_back(IntegerType::get(ctx, 32)); // single
    gpu::GPUFuncOp f = createKernel(m, loc, gk.kernel, params, smem, bt);
    Gen g(group, loc, tiling, flat);
    g.func = f;
    OpBuilder b = OpBuilder::atBlockBegin(&f.getBody().front());
    g.setUp(b);
    Value n = g.extra[0], nchunks = g.extra[1];
    ValueRange partials = ValueRange(g.extra).slice(2, numPartials);
    ValueRange outs = ValueRange(g.extra).slice(2 + numPartials, numOuts);
    Value single = g.extra.back();
    Value t = g.threadId(b);
    Value gid = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, g.blockId(b), cI64(b, loc, bt)), t);
    Value nthreads =
        arith::MulIOp::create(b, loc, g.gridDim(b), cI64(b, loc, bt));
    auto [s, e] = range(b, gid, nthreads, n, vw);
    SmallVector<Value> acc;
    for (ReduceOp r : reds)
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
      for (unsigned j : sideOuts)
        g.store(eb, g.element(eb, yields[j], {g.laneIndex}), outs[j], flat);
      SmallVector<Value> xs;
      for (ReduceOp r : reds)
        for (Value in : r.getInputs())
          xs.push_back(g.element(eb, in, {g.laneIndex}));
      return xs;
    };
    // Vector part: [s, s + ((e - s) / vw) * vw) when aligned.
    Value scalarFrom = s;
    if (vw > 1) {
      Value aligned = cmpI(b, loc, arith::CmpIPredicate::sgt, nchunks,
                          cI64(b, loc, 0));
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
              a = k == 0 ? fold(g, lb, a, h, xs) : [&] {
                SmallVector<Value> o;
                unsigned base = 0;
                for (ReduceOp r : reds) {
                  unsigned ni = r.getInputs().size();
                  o.append(g.combine(lb, r,
                                     ArrayRef<Value>(a).slice(base, ni),
                                     ArrayRef<Value>(xs).slice(base, ni)));
                  base += ni;
                }
                return o;
              }();
            }
            a.push_back(cBool(lb, l, true));
            scf::YieldOp::create(lb, l, a);
          });
      g.em->clearCache();
      g.laneIndex = nullptr;
      acc = SmallVector<Value>(loop.getResults().drop_back());
      has = loop.getResults().back();
      // s + (ce - cs) * vw: never before s (s may be n, not a multiple).
      scalarFrom = arith::AddIOp::create(
          b, loc, s,
          arith::MulIOp::create(b, loc, arith::SubIOp::create(b, loc, ce, cs),
                                cI64(b, loc, vw)));
    }
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
            a = fold(g, lb, a, args.back(), elementXs(lb, i));
            a.push_back(cBool(lb, l, true));
            scf::YieldOp::create(lb, l, a);
          });
      g.em->clearCache();
      g.laneIndex = nullptr;
      acc = SmallVector<Value>(loop.getResults().drop_back());
      has = loop.getResults().back();
    }
    auto wg = f.getWorkgroupAttributions();
    SmallVector<Value> sm(wg.begin(), wg.begin() + numAcc);
    auto red = blockOrderedReduce(g, b, reds, acc, has, sm, wg[numAcc]);
    SmallVector<Value> total = red.first;
    Value th = red.second;
    scf::IfOp::create(
        b, loc, cmpI(b, loc, arith::CmpIPredicate::eq, t, cI64(b, loc, 0)),
        [&](OpBuilder &tb, Location l) {
          scf::IfOp::create(
              tb, l,
              cmpI(tb, l, arith::CmpIPredicate::ne, single, cI32(tb, l, 0)),
              [&](OpBuilder &sb, Location sl) {
                finalizeOrdered(g, sb, reds, total, th, outs);
                scf::YieldOp::create(sb, sl);
              },
              [&](OpBuilder &pb, Location pl) {
                Value blk = g.blockId(pb);
                for (auto [v, p] : llvm::zip(total, partials))
                  g.store(pb, v, p, blk);
                g.store(pb, arith::ExtUIOp::create(pb, pl, pb.getI32Type(),
                                                     th),
                          partials.back(), blk);
                scf::YieldOp::create(pb, pl);
              });
          scf::YieldOp::create(tb, l);
        });
    gpu::ReturnOp::create(b, loc);
    if (g.failedLeaf)
      return group.emitOpError("GPU code generation: unsupported value in a "
                               "reduce group body");
  }

  // Stage 2: one block combines the partials in block order.
  {
    SmallVector<Type> params(common);
    params.push_back(i64); // count
    params.append(numPartials, gptr);
    params.append(numOuts, gptr);
    gpu::GPUFuncOp f = createKernel(m, loc, gk.finishKernel, params, smem, bt);
    Gen g(group, loc, tiling, flat);
    g.func = f;
    OpBuilder b = OpBuilder::atBlockBegin(&f.getBody().front());
    g.setUp(b);
    Value count = g.extra[0];
    ValueRange partials = ValueRange(g.extra).slice(1, numPartials);
    ValueRange outs = ValueRange(g.extra).slice(1 + numPartials, numOuts);
    Value t = g.threadId(b);
    auto [s, e] = range(b, t, cI64(b, loc, bt), count, 1);
    SmallVector<Value> inits;
    for (ReduceOp r : reds)
      inits.append(startValues(b, loc, r));
    inits.push_back(cBool(b, loc, false));
    auto loop = scf::ForOp::create(
        b, loc, s, e, cI64(b, loc, 1), inits,
        [&](OpBuilder &lb, Location l, Value i, ValueRange args) {
          SmallVector<Value> xs;
          for (unsigned j = 0; j < numAcc; ++j)
            xs.push_back(g.load(lb, gk.partialTypes[j], partials[j], i));
          Value xh = cmpI(lb, l, arith::CmpIPredicate::ne,
                         g.load(lb, lb.getI32Type(), partials.back(), i),
                         cI32(lb, l, 0));
          Value h = args.back();
          SmallVector<Value> a =
              combineFlagged(g, lb, reds, args.drop_back(), h, xs, xh);
          a.push_back(arith::OrIOp::create(lb, l, h, xh));
          scf::YieldOp::create(lb, l, a);
        });
    auto wg = f.getWorkgroupAttributions();
    SmallVector<Value> sm(wg.begin(), wg.begin() + numAcc);
    auto red = blockOrderedReduce(
        g, b, reds, SmallVector<Value>(loop.getResults().drop_back()),
        loop.getResults().back(), sm, wg[numAcc]);
    SmallVector<Value> total = red.first;
    Value th = red.second;
    scf::IfOp::create(
        b, loc, cmpI(b, loc, arith::CmpIPredicate::eq, t, cI64(b, loc, 0)),
        [&](OpBuilder &tb, Location l) {
          finalizeOrdered(g, tb, reds, total, th, outs);
          scf::YieldOp::create(tb, l);
        });
    gpu::ReturnOp::create(b, loc);
    if (g.failedLeaf)
      return group.emitOpError("GPU code generation: unsupported value in a "
                               "reduce group body");
  }
  return gk;
}

} // namespace gpugen
} // namespace fuse
