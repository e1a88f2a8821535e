//===- RowBlocks.cpp - pieces of the row and ordered reduce kernels ------===//
//
// The pieces the row_reduce kernels (RowReduce.cpp, RowRegisterPath.cpp,
// RowLongPath.cpp) and the ordered reduce kernels (OrderedReduce.cpp)
// share: the block and narrow-group reductions, the online max-sum merge,
// and small helpers (RowKernels.h declares them).
//
//===----------------------------------------------------------------------===//

#include "RowKernels.h"

#include "fuse/Dialect/Fuse/Utils/ElementEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/bit.h"

using namespace mlir;

namespace fuse {
namespace gpugen {

//===----------------------------------------------------------------------===//
// Shared pieces
//===----------------------------------------------------------------------===//

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
      res = selAll(
          fb, loc,
          cmpI(fb, loc, arith::CmpIPredicate::slt, cI32(fb, loc, k), perGroup),
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
std::pair<Value, Value> onlineMerge(Gen &g, OpBuilder &b, ReduceOp max, Value m,
                                    Value s, Value x,
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
      arith::SelectOp::create(b, loc, gt, arith::NegFOp::create(b, loc, d), d),
      flags);
  Value xNinf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x,
                                      fc(APFloat::getInf(sem, true)));
  Value ns = arith::SelectOp::create(
      b, loc, gt,
      arith::AddFOp::create(b, loc, arith::MulFOp::create(b, loc, s, e),
                            fc(APFloat::getOne(sem))),
      arith::AddFOp::create(b, loc, s,
                            arith::SelectOp::create(
                                b, loc, xNinf, fc(APFloat::getZero(sem)), e)));
  return {g.combine(b, max, {m}, {x})[0], ns};
}

/// Body arguments of rank 2 read elementwise (not only at computed
/// positions, as gather sources are, nor only for their sizes, as a map's
/// unread input is: staging those would copy bytes nothing reads).
bool readDirectly(BlockArgument arg) {
  return llvm::any_of(arg.getUses(), [](OpOperand &use) {
    return !isReadAtComputedPositions(use) && !readsNoElements(use);
  });
}

} // namespace gpugen
} // namespace fuse
