//===- Search.cpp - the binary search of fuse.searchsorted ----------------===//
//
// See Search.h.
//
//===----------------------------------------------------------------------===//

#include "fuse/Dialect/Fuse/Utils/Search.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace fuse;

Value fuse::buildSearchLess(OpBuilder &b, Location loc, Value x, Value y,
                            bool isUnsigned) {
  Type t = x.getType();
  if (isa<IntegerType>(t)) {
    bool u = isUnsigned || t.isInteger(1);
    return arith::CmpIOp::create(
        b, loc, u ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt, x,
        y);
  }
  // x < y, or y is NaN and x is not.
  Value lt = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, y);
  Value yNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, y, y);
  Value xNum = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ORD, x, x);
  Value nanAfter = arith::AndIOp::create(b, loc, yNan, xNum);
  return arith::OrIOp::create(b, loc, lt, nanAfter);
}

OpenSearch fuse::openSearch(OpBuilder &b, Location loc, Value n) {
  Type idx = b.getIndexType();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  auto loop = scf::WhileOp::create(b, loc, TypeRange{idx, idx},
                                   ValueRange{zero, n});
  Block *before = b.createBlock(&loop.getBefore(), {}, {idx, idx},
                                {loc, loc});
  Value more = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                     before->getArgument(0),
                                     before->getArgument(1));
  scf::ConditionOp::create(b, loc, more, before->getArguments());
  Block *after = b.createBlock(&loop.getAfter(), {}, {idx, idx}, {loc, loc});
  // lo + hi < 2^63 for any tensor size, so the sum does not wrap.
  Value sum = arith::AddIOp::create(b, loc, after->getArgument(0),
                                    after->getArgument(1));
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value mid = arith::ShRUIOp::create(b, loc, sum, one);
  return {loop, mid};
}

Value fuse::closeSearch(OpBuilder &b, Location loc, OpenSearch &search,
                        Value element, Value needle, SearchSortedOp op) {
  // Left: element < needle; right: !(needle < element).
  Value right =
      op.isRight()
          ? arith::XOrIOp::create(
                b, loc,
                buildSearchLess(b, loc, needle, element, op.isUnsigned()),
                arith::ConstantIntOp::create(b, loc, 1, 1))
                .getResult()
          : buildSearchLess(b, loc, element, needle, op.isUnsigned());
  Block *after = &search.loop.getAfter().front();
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value midPlus = arith::AddIOp::create(b, loc, search.mid, one);
  Value lo =
      arith::SelectOp::create(b, loc, right, midPlus, after->getArgument(0));
  Value hi =
      arith::SelectOp::create(b, loc, right, after->getArgument(1), search.mid);
  scf::YieldOp::create(b, loc, ValueRange{lo, hi});
  b.setInsertionPointAfter(search.loop);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                    search.loop.getResult(0));
}
