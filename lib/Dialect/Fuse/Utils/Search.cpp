//===- Search.cpp - the binary search of fuse.searchsorted ----------------===//
//
// See Search.h.
//
//===----------------------------------------------------------------------===//

#include "fuse/Dialect/Fuse/Utils/Search.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace fuse;

/// The largest float below `v` (-denorm_min below either zero), NaN below
/// -inf and +inf for a NaN: for every element x, x < v in the op's order
/// exactly when x <= the result, ordered.
static Value floatBelow(OpBuilder &b, Location loc, Value v) {
  auto ft = cast<FloatType>(v.getType());
  unsigned w = ft.getWidth();
  auto it = b.getIntegerType(w);
  auto ci = [&](const APInt &x) {
    return arith::ConstantOp::create(b, loc, IntegerAttr::get(it, x))
        .getResult();
  };
  auto cf = [&](const APFloat &x) {
    return arith::ConstantOp::create(b, loc, FloatAttr::get(ft, x)).getResult();
  };
  const llvm::fltSemantics &sem = ft.getFloatSemantics();
  Value bits = arith::BitcastOp::create(b, loc, it, v);
  Value zero = cf(APFloat::getZero(sem));
  Value one = ci(APInt(w, 1));
  // Away from zero: a positive float's predecessor has bits - 1, a
  // negative one's bits + 1.
  Value pos = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, v, zero);
  Value stepped = arith::SelectOp::create(
      b, loc, pos, arith::SubIOp::create(b, loc, bits, one),
      arith::AddIOp::create(b, loc, bits, one));
  Value isZero =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, v, zero);
  Value below = arith::SelectOp::create(
      b, loc, isZero, ci(APInt::getSignMask(w) | APInt(w, 1)), stepped);
  Value result = arith::BitcastOp::create(b, loc, ft, below);
  Value isNegInf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, v,
                                         cf(APFloat::getInf(sem, true)));
  result = arith::SelectOp::create(b, loc, isNegInf, cf(APFloat::getNaN(sem)),
                                   result);
  Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, v, v);
  return arith::SelectOp::create(b, loc, isNaN, cf(APFloat::getInf(sem)),
                                 result);
}

OpenSearch fuse::openSearch(OpBuilder &b, Location loc, SearchSortedOp op,
                            Value n, Value needle) {
  OpenSearch s;
  s.op = op;
  s.n = n;
  s.key = needle;
  if (isa<FloatType>(needle.getType())) {
    if (op.isRight())
      s.nanNeedle = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO,
                                          needle, needle);
    else
      s.key = floatBelow(b, loc, needle);
  }
  Type idx = b.getIndexType();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  s.loop =
      scf::WhileOp::create(b, loc, TypeRange{idx, idx}, ValueRange{zero, n});
  Block *before =
      b.createBlock(&s.loop.getBefore(), {}, {idx, idx}, {loc, loc});
  Value more =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                            before->getArgument(0), before->getArgument(1));
  scf::ConditionOp::create(b, loc, more, before->getArguments());
  Block *after = b.createBlock(&s.loop.getAfter(), {}, {idx, idx}, {loc, loc});
  // lo + hi < 2^63 for any tensor size, so the sum does not wrap.
  Value sum = arith::AddIOp::create(b, loc, after->getArgument(0),
                                    after->getArgument(1));
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  s.mid = arith::ShRUIOp::create(b, loc, sum, one);
  return s;
}

/// Whether `x` goes before the search's key: the position is after it.
static Value goesRight(OpBuilder &b, Location loc, OpenSearch &s, Value x) {
  if (isa<FloatType>(x.getType()))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, x, s.key);
  // i1 orders false < true, so it compares unsigned.
  bool u = s.op.isUnsigned() || x.getType().isInteger(1);
  arith::CmpIPredicate pred =
      s.op.isRight()
          ? (u ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle)
          : (u ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt);
  return arith::CmpIOp::create(b, loc, pred, x, s.key);
}

Value fuse::closeSearch(OpBuilder &b, Location loc, OpenSearch &s,
                        Value element) {
  Value right = goesRight(b, loc, s, element);
  Block *after = &s.loop.getAfter().front();
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value midPlus = arith::AddIOp::create(b, loc, s.mid, one);
  Value lo =
      arith::SelectOp::create(b, loc, right, midPlus, after->getArgument(0));
  Value hi =
      arith::SelectOp::create(b, loc, right, after->getArgument(1), s.mid);
  scf::YieldOp::create(b, loc, ValueRange{lo, hi});
  b.setInsertionPointAfter(s.loop);
  Value pos = s.loop.getResult(0);
  if (s.nanNeedle) // a NaN goes after everything, NaN elements included
    pos = arith::SelectOp::create(b, loc, s.nanNeedle, s.n, pos);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), pos);
}
