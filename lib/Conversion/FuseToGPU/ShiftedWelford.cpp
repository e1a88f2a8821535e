//===- ShiftedWelford.cpp - Welford reductions in the flat reduce kernels -===//
//
// Shifted-sum accumulation of fuse-fusion's Welford reduction by the flat
// reduce kernels (Kernels.cpp); see ShiftedWelford.h.
//
//===----------------------------------------------------------------------===//

#include "ShiftedWelford.h"

#include "fuse/Dialect/Fuse/Utils/ElementEmitter.h"
#include "fuse/Dialect/Fuse/Utils/Welford.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace fuse {
namespace gpugen {

namespace {

/// True when `v` is a result of a fuse.map whose yielded value for it is a
/// constant matching `pattern` (the same value at every element).
template <typename Pattern> bool isConstantMapResult(Value v, Pattern pattern) {
  auto res = dyn_cast<OpResult>(v);
  auto map = res ? dyn_cast<MapOp>(res.getOwner()) : MapOp();
  if (!map)
    return false;
  Value y = map.getYield().getValues()[res.getResultNumber()];
  return matchPattern(y, pattern);
}

} // namespace

/// fuse-fusion's Welford tuple reduction: a full reduction of element
/// tuples (1 : i64, x, 0.0) into (count, mean, M2) whose combiner region is
/// exactly Chan's merge (isChanMergeCombiner compares it with the builder
/// fusion uses; any other region keeps its own meaning). The merge is
/// commutative, so the reduce kernels accumulate it with the grid-stride layout
/// of the built-in kinds:
///  * per thread a shift c (x at the thread's first element) and per lane
///    s1 = sum(x - c), s2 = sum((x - c)^2): a subtraction, an add and an
///    fma per element, no division;
///  * once per thread, (count, mean - b, M2) with M2 = s2 - s1 * s1 / count,
///    where b = x[0] is one base for the whole grid: the merges then work
///    on means near 0 instead of near the data's offset (f32 means of data
///    around 1000 would be rounded to 6e-5, a large error in the deltas);
///  * threads, warps and blocks merged with the combiner region in the
///    fixed order of the built-in kinds (deterministic); b is added back
///    to the mean before the reduction's init and the epilogue.
/// Anything else with a combiner region takes the ordered kernels.
bool isShiftedWelford(ReduceOp r) {
  if (r.hasBuiltinKinds() || !r.isFullReduction() || r.getInputs().size() != 3)
    return false;
  auto et = [&](unsigned i) {
    return tensorTy(r.getInputs()[i]).getElementType();
  };
  auto ft = dyn_cast<FloatType>(et(1));
  if (!ft || et(2) != ft || !et(0).isInteger(64))
    return false;
  return isConstantMapResult(r.getInputs()[0], m_One()) &&
         isConstantMapResult(r.getInputs()[2], m_AnyZeroFloat()) &&
         isChanMergeCombiner(r);
}

/// The type of the shifted sums of a Welford reduction: f32 for narrower
/// floats, else x's type.
FloatType welfordAccType(ReduceOp r) {
  auto ft = cast<FloatType>(tensorTy(r.getInputs()[1]).getElementType());
  if (ft.getWidth() < 32)
    return Float32Type::get(r.getContext());
  return ft;
}

Value castFloat(OpBuilder &b, Location loc, Value v, Type to) {
  auto from = cast<FloatType>(v.getType());
  if (from == to)
    return v;
  if (from.getWidth() < cast<FloatType>(to).getWidth())
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}

/// The Welford reduction's x at flat index `idx` (i64) as type `at`, or 0
/// when `guard` is false (nothing is loaded then).
Value emitGuardedX(FlatKernel &k, OpBuilder &b, ReduceOp r, FloatType at,
                   Value idx, Value guard) {
  Location loc = k.loc;
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{at}, guard,
                                /*withElseRegion=*/true);
  {
    OpBuilder tb = ifOp.getThenBodyBuilder();
    k.em->clearCache();
    k.laneIndex = nullptr;
    k.laneValue.clear();
    Value x = k.element(tb, r.getInputs()[1], {toIndex(tb, loc, idx)});
    scf::YieldOp::create(tb, loc, castFloat(tb, loc, x, at));
  }
  {
    OpBuilder eb = ifOp.getElseBodyBuilder();
    scf::YieldOp::create(eb, loc,
                         ValueRange{arith::ConstantOp::create(
                             eb, loc, eb.getFloatAttr(at, 0.0))});
  }
  // Values emitted inside the `if` do not dominate what follows.
  k.em->clearCache();
  return ifOp.getResult(0);
}

/// The shifts of one thread (type `at`): {thread shift, grid base}. The
/// thread shift is x at the thread's first element (the first of chunk
/// `gtid` on the vector path, element `gtid` on the scalar path), clamped
/// to n - 1, so that it lies among the values the thread sums; the base is
/// x[0]. Both are 0 when n = 0.
std::pair<Value, Value> emitWelfordShifts(FlatKernel &k, OpBuilder &b,
                                          ReduceOp r, FloatType at, Value n,
                                          Value nchunks, int64_t vw) {
  Location loc = k.loc;
  Value gtid = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, k.blockId(b),
                            cI64(b, loc, k.tiling.blockThreads)),
      k.threadId(b));
  Value vectorPath =
      cmpI(b, loc, arith::CmpIPredicate::sgt, nchunks, cI64(b, loc, 0));
  Value first =
      sel(b, loc, vectorPath,
          arith::MulIOp::create(b, loc, gtid, cI64(b, loc, vw)), gtid);
  Value idx = arith::MinSIOp::create(
      b, loc, first, arith::SubIOp::create(b, loc, n, cI64(b, loc, 1)));
  Value nonEmpty = cmpI(b, loc, arith::CmpIPredicate::sgt, n, cI64(b, loc, 0));
  Value shift = emitGuardedX(k, b, r, at, idx, nonEmpty);
  Value base = emitGuardedX(k, b, r, at, cI64(b, loc, 0), nonEmpty);
  return {shift, base};
}

/// One thread's (count, mean - base, M2) from its shifted sums:
/// mean - base = (shift - base) + s1 / count, M2 = max(s2 - s1 * s1 / count,
/// 0), or +inf where s2 overflowed. An empty thread gives (0, 0, 0), the
/// identity of Chan's merge (exactly: the merge returns the other side
/// unchanged, fuse-fusion's rewriteVariance).
SmallVector<Value> welfordFromSums(OpBuilder &b, Location loc, ReduceOp r,
                                   Value shift, Value base, Value count,
                                   Value s1, Value s2) {
  auto ft = cast<FloatType>(tensorTy(r.getInputs()[1]).getElementType());
  Type at = s1.getType();
  Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(at, 0.0));
  Value one = arith::ConstantOp::create(b, loc, b.getFloatAttr(at, 1.0));
  Value empty = cmpI(b, loc, arith::CmpIPredicate::eq, count, cI64(b, loc, 0));
  Value nf = arith::SIToFPOp::create(b, loc, at, count);
  Value q = arith::DivFOp::create(b, loc, s1, sel(b, loc, empty, one, nf));
  Value rel = arith::AddFOp::create(
      b, loc, arith::SubFOp::create(b, loc, shift, base), q);
  Value mean = sel(b, loc, empty, zero, rel);
  Value m2 =
      arith::SubFOp::create(b, loc, s2, arith::MulFOp::create(b, loc, s1, q));
  // Rounding can leave a tiny negative M2 for nearly constant data (NaN
  // stays NaN: the comparison is false).
  Value neg =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, m2, zero);
  m2 = sel(b, loc, neg, zero, m2);
  // s2 = +inf (a squared deviation past the largest float) makes M2 inf,
  // not inf - inf = NaN.
  Value inf = arith::ConstantOp::create(
      b, loc,
      b.getFloatAttr(at,
                     APFloat::getInf(cast<FloatType>(at).getFloatSemantics())));
  m2 = sel(b, loc,
           arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, s2, inf),
           inf, m2);
  return {count, castFloat(b, loc, mean, ft), castFloat(b, loc, m2, ft)};
}

/// (count, mean - base, M2) -> (count, mean, M2).
SmallVector<Value> welfordAddBase(OpBuilder &b, Location loc,
                                  ArrayRef<Value> acc, Value base) {
  Type ft = acc[1].getType();
  Value mean = arith::AddFOp::create(
      b, loc, castFloat(b, loc, acc[1], base.getType()), base);
  return {acc[0], castFloat(b, loc, mean, ft), acc[2]};
}

} // namespace gpugen
} // namespace fuse
