//===- Welford.cpp - the Welford tuple reduction's combiner ---------------===//

#include "fuse/Dialect/Fuse/Utils/Welford.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace fuse;

void fuse::buildChanMerge(OpBuilder &b, Location loc, FloatType ft,
                          Region &region) {
  Type i64 = b.getI64Type();
  OpBuilder::InsertionGuard g(b);
  Block *blk = b.createBlock(&region, {}, {i64, ft, ft, i64, ft, ft},
                             SmallVector<Location>(6, loc));
  Value na = blk->getArgument(0), ma = blk->getArgument(1),
        qa = blk->getArgument(2), nb = blk->getArgument(3),
        mb = blk->getArgument(4), qb = blk->getArgument(5);
  // Chan et al.: n = na + nb; d = mb - ma; mean = ma + d * nb / n;
  // M2 = qa + qb + d^2 * na * nb / n; an empty side leaves the other.
  Value n = arith::AddIOp::create(b, loc, na, nb);
  Value nf = arith::SIToFPOp::create(b, loc, ft, n);
  Value naf = arith::SIToFPOp::create(b, loc, ft, na);
  Value nbf = arith::SIToFPOp::create(b, loc, ft, nb);
  Value zero = arith::ConstantIntOp::create(b, loc, 0, 64);
  Value empty =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, n, zero);
  Value one = arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, 1.0));
  Value safeN = arith::SelectOp::create(b, loc, empty, one, nf);
  Value d = arith::SubFOp::create(b, loc, mb, ma);
  Value wb = arith::DivFOp::create(b, loc, nbf, safeN);
  Value mean =
      arith::AddFOp::create(b, loc, ma, arith::MulFOp::create(b, loc, d, wb));
  // Where d overflows (means of opposite sign near the largest float),
  // the weighted average ma * na/n + mb * nb/n instead: it cannot
  // overflow, where ma + inf * wb would reach inf - inf = NaN in a later
  // merge.
  Value inf = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(ft, APFloat::getInf(ft.getFloatSemantics())));
  Value negInf = arith::ConstantOp::create(
      b, loc,
      b.getFloatAttr(ft, APFloat::getInf(ft.getFloatSemantics(), true)));
  // Operands built one statement each: the order of ops in the region is
  // fixed (isChanMergeCombiner compares regions op by op, and C++ leaves
  // the evaluation order of call arguments open).
  Value notNegInf =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, d, negInf);
  Value notInf =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, d, inf);
  Value dFinite = arith::AndIOp::create(b, loc, notInf, notNegInf);
  // 1 - nb/n rather than na/n: one division a merge (each is a
  // subroutine in ptxas' output, which compiles measurably slower); used
  // only on this overflow path, where its rounding (at most ulp(1)/2 of
  // an absolute error) is below f32's resolution of the result.
  Value wa = arith::SubFOp::create(b, loc, one, wb);
  Value mbWb = arith::MulFOp::create(b, loc, mb, wb);
  Value maWa = arith::MulFOp::create(b, loc, ma, wa);
  Value weighted = arith::AddFOp::create(b, loc, maWa, mbWb);
  Value isNaND = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, d, d);
  mean = arith::SelectOp::create(
      b, loc, arith::OrIOp::create(b, loc, dFinite, isNaND), mean, weighted);
  Value dd = arith::MulFOp::create(b, loc, d, d);
  Value t =
      arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, dd, naf), wb);
  Value q =
      arith::AddFOp::create(b, loc, arith::AddFOp::create(b, loc, qa, qb), t);
  // An empty side leaves the other exactly, also where d * d overflows
  // (inf * 0 would be NaN): the init (0, 0, 0) is merged with data whose
  // mean squared exceeds the largest float.
  Value aEmpty =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, na, zero);
  Value bEmpty =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, nb, zero);
  auto pick = [&](Value vb, Value va, Value merged) {
    return arith::SelectOp::create(
        b, loc, aEmpty, vb,
        arith::SelectOp::create(b, loc, bEmpty, va, merged));
  };
  YieldOp::create(b, loc, ValueRange{n, pick(mb, ma, mean), pick(qb, qa, q)});
}

bool fuse::isChanMergeCombiner(ReduceOp r) {
  if (r.hasBuiltinKinds() || r.getInputs().size() != 3 ||
      r.getCombiner().empty())
    return false;
  auto et = [&](unsigned i) {
    return cast<RankedTensorType>(r.getInputs()[i].getType()).getElementType();
  };
  auto ft = dyn_cast<FloatType>(et(1));
  if (!ft || et(2) != ft || !et(0).isInteger(64))
    return false;
  // The reference lives in a detached region, destroyed on return.
  Region reference;
  OpBuilder b(r.getContext());
  buildChanMerge(b, r.getLoc(), ft, reference);
  return OperationEquivalence::isRegionEquivalentTo(
      &reference, &r.getCombiner(), OperationEquivalence::IgnoreLocations);
}

/// The body ops the centre reads (inside the body, before it), or failure
/// when it reads argument `xArg` or an op with effects or regions.
static FailureOr<SmallVector<Operation *>>
centreSlice(Block &body, Value centre, Value xArg) {
  llvm::SmallPtrSet<Operation *, 8> slice;
  SmallVector<Value> work{centre};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (v == xArg)
      return failure();
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != &body)
      continue;
    if (def->getNumRegions() || !isMemoryEffectFree(def))
      return failure();
    if (slice.insert(def).second)
      work.append(def->operand_begin(), def->operand_end());
  }
  SmallVector<Operation *> ordered;
  for (Operation &op : body.without_terminator())
    if (slice.contains(&op))
      ordered.push_back(&op);
  return ordered;
}

SmallVector<SquaredDeviation, 2> fuse::matchSquaredDeviation(MapOp map) {
  SmallVector<SquaredDeviation, 2> found;
  if (map.getNumResults() != 1 || map.getInputs().size() != 2)
    return found;
  Block &body = map.getBody().front();
  auto mul = map.getYield().getValues()[0].getDefiningOp<arith::MulFOp>();
  if (!mul || mul.getLhs() != mul.getRhs() || mul->getBlock() != &body)
    return found;
  auto sub = mul.getLhs().getDefiningOp<arith::SubFOp>();
  if (!sub || sub->getBlock() != &body)
    return found;
  for (unsigned xi = 0; xi < 2; ++xi) {
    BlockArgument argX = body.getArgument(xi);
    Value centre;
    if (sub.getLhs() == argX)
      centre = sub.getRhs();
    else if (sub.getRhs() == argX)
      centre = sub.getLhs();
    else
      continue;
    FailureOr<SmallVector<Operation *>> slice = centreSlice(body, centre, argX);
    if (failed(slice))
      continue;
    // Nothing else in the body.
    if (static_cast<int64_t>(slice->size()) + 2 !=
        static_cast<int64_t>(body.getOperations().size()) - 1)
      continue;
    found.push_back({xi, 1 - xi, centre});
  }
  return found;
}

Value fuse::buildCentre(OpBuilder &b, MapOp map, const SquaredDeviation &m,
                        Value cValue, function_ref<Value(Value)> outside) {
  Block &body = map.getBody().front();
  Value argC = body.getArgument(m.c);
  if (m.centre == argC)
    return cValue;
  FailureOr<SmallVector<Operation *>> slice =
      centreSlice(body, m.centre, body.getArgument(m.x));
  assert(succeeded(slice) && "buildCentre of an unmatched map");
  IRMapping mapping;
  mapping.map(argC, cValue);
  for (Operation *op : *slice) {
    for (Value operand : op->getOperands())
      if (!mapping.contains(operand) && operand.getParentBlock() != &body)
        mapping.map(operand, outside(operand));
    b.clone(*op, mapping);
  }
  return mapping.lookup(m.centre);
}
