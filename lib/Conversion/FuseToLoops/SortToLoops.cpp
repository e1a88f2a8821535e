//===- SortToLoops.cpp - fuse.sort as a merge sort over tensors -----------===//
//
// The reference lowering of fuse.sort: a bottom-up merge sort, stable by
// construction (a merge takes the left run's element unless the right
// run's is strictly before it), on copies of the operands. Pass p merges
// runs of 2^p elements into runs of 2^(p+1) in new tensors and copies them
// back into the ones the passes carry: ceil(log2(n)) passes of n steps and
// a copy each.
//
// Keys compare through the op's comparator region, when it has one, else in
// the order fuse.sort documents, which is CUB's radix order: floats through
// their bits mapped to an unsigned integer that orders like the values (sign
// bit set: all bits flipped; clear: the sign bit set), with -0.0 mapped where
// +0.0 is, so a NaN whose sign bit is set lands before -inf and one whose sign
// bit is clear after +inf.
//
//===----------------------------------------------------------------------===//

#include "Accumulate.h"
#include "fuse/Conversion/Passes.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace fuse;

namespace {

Value cIndex(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// A float key as an unsigned integer of its width ordered like the keys.
Value orderedBits(OpBuilder &b, Location loc, Value key, FloatType ft) {
  unsigned w = ft.getWidth();
  auto it = IntegerType::get(b.getContext(), w);
  Value bits = arith::BitcastOp::create(b, loc, it, key);
  auto c = [&](const APInt &v) {
    return arith::ConstantOp::create(b, loc, it, IntegerAttr::get(it, v));
  };
  Value sign = c(APInt::getSignMask(w));
  Value zero = c(APInt::getZero(w));
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, bits, zero);
  Value flipped = arith::XOrIOp::create(b, loc, bits, c(APInt::getAllOnes(w)));
  Value signSet = arith::XOrIOp::create(b, loc, bits, sign);
  Value u = arith::SelectOp::create(b, loc, negative, flipped, signSet);
  // -0.0 sorts with +0.0: both map to the sign bit alone.
  Value magnitude =
      arith::AndIOp::create(b, loc, bits, c(APInt::getSignedMaxValue(w)));
  Value isZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, magnitude, zero);
  return arith::SelectOp::create(b, loc, isZero, sign, u);
}

/// Whether key `a` comes strictly before key `b` in `op`'s order.
Value before(OpBuilder &b, Location loc, SortOp op, Value x, Value y) {
  if (op.isDescending())
    std::swap(x, y);
  if (op.hasComparator())
    return inlineBody(b, op.getComparator(), SmallVector<Value, 2>{x, y})[0];
  Type et = x.getType();
  if (auto ft = dyn_cast<FloatType>(et)) {
    x = orderedBits(b, loc, x, ft);
    y = orderedBits(b, loc, y, ft);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  // i1 orders false < true whatever the integer order (as an unsigned
  // byte, as CUB sorts bools).
  bool isUnsigned = op.isUnsigned() || et.isInteger(1);
  return arith::CmpIOp::create(b, loc,
                               isUnsigned ? arith::CmpIPredicate::ult
                                          : arith::CmpIPredicate::slt,
                               x, y);
}

/// The number of merge passes: ceil(log2(n)), 0 for n <= 1.
Value passCount(OpBuilder &b, Location loc, Value n) {
  Type idx = b.getIndexType();
  Value one = cIndex(b, loc, 1), zero = cIndex(b, loc, 0);
  auto loop = scf::WhileOp::create(
      b, loc, TypeRange{idx, idx}, ValueRange{one, zero},
      [&](OpBuilder &bb, Location l, ValueRange args) {
        Value more = arith::CmpIOp::create(bb, l, arith::CmpIPredicate::ult,
                                           args[0], n);
        scf::ConditionOp::create(bb, l, more, args);
      },
      [&](OpBuilder &bb, Location l, ValueRange args) {
        Value w = arith::AddIOp::create(bb, l, args[0], args[0]);
        Value c = arith::AddIOp::create(bb, l, args[1], cIndex(bb, l, 1));
        scf::YieldOp::create(bb, l, ValueRange{w, c});
      });
  return loop.getResult(1);
}

/// One merge of runs [lo, mid) and [mid, hi) of `src` into `dst` (keys
/// first, then the values if any) at [lo, hi).
SmallVector<Value> mergeRuns(OpBuilder &b, Location loc, SortOp op,
                             ValueRange src, ValueRange dst, Value lo,
                             Value mid, Value hi, Value last) {
  SmallVector<Value> iters{lo, mid};
  iters.append(dst.begin(), dst.end());
  auto loop = scf::ForOp::create(
      b, loc, lo, hi, cIndex(b, loc, 1), iters,
      [&](OpBuilder &bb, Location l, Value k, ValueRange it) {
        Value i = it[0], j = it[1];
        // Exhausted runs read a clamped index; select discards it.
        Value ic = arith::MinUIOp::create(bb, l, i, last);
        Value jc = arith::MinUIOp::create(bb, l, j, last);
        Value ki = tensor::ExtractOp::create(bb, l, src[0], ic);
        Value kj = tensor::ExtractOp::create(bb, l, src[0], jc);
        Value rightLeft =
            arith::CmpIOp::create(bb, l, arith::CmpIPredicate::ult, j, hi);
        Value leftDone =
            arith::CmpIOp::create(bb, l, arith::CmpIPredicate::uge, i, mid);
        Value right = arith::AndIOp::create(
            bb, l, rightLeft,
            arith::OrIOp::create(bb, l, leftDone, before(bb, l, op, kj, ki)));
        Value from = arith::SelectOp::create(bb, l, right, jc, ic);
        SmallVector<Value> next{
            arith::SelectOp::create(bb, l, right, i,
                                    arith::AddIOp::create(bb, l, i,
                                                          cIndex(bb, l, 1))),
            arith::SelectOp::create(
                bb, l, right, arith::AddIOp::create(bb, l, j, cIndex(bb, l, 1)),
                j)};
        Value key = arith::SelectOp::create(bb, l, right, kj, ki);
        next.push_back(tensor::InsertOp::create(bb, l, key, it[2], k));
        for (size_t t = 1; t < src.size(); ++t) {
          Value v = tensor::ExtractOp::create(bb, l, src[t], from);
          next.push_back(tensor::InsertOp::create(bb, l, v, it[2 + t], k));
        }
        scf::YieldOp::create(bb, l, next);
      });
  return SmallVector<Value>(loop.getResults().drop_front(2));
}

struct SortToLoops : OpRewritePattern<SortOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SortOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value n = tensor::DimOp::create(b, loc, op.getKeys(), 0);
    Value one = cIndex(b, loc, 1), zero = cIndex(b, loc, 0);
    // The last index (0 for an empty input, where no merge step runs).
    Value last = arith::SelectOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, n, zero),
        arith::SubIOp::create(b, loc, n, one), zero);
    // The passes sort copies: in place on the operands, bufferization would
    // write into the caller's buffers (function arguments are writable).
    SmallVector<Value> init;
    for (Value operand : op.getOperands())
      init.push_back(bufferization::AllocTensorOp::create(
          b, loc, cast<RankedTensorType>(operand.getType()), ValueRange{},
          operand));
    // An argsort's positions start as 0, 1, ..., n - 1.
    if (op.hasPositions())
      init.push_back(buildElementwise(
          b, loc, op.getCarried().getType(), ValueRange{n},
          [](OpBuilder &nb, Location l, ValueRange ivs) {
            return SmallVector<Value>{
                arith::IndexCastOp::create(nb, l, nb.getI64Type(), ivs[0])};
          })[0]);
    auto passes = scf::ForOp::create(
        b, loc, zero, passCount(b, loc, n), one, init,
        [&](OpBuilder &pb, Location l, Value p, ValueRange src) {
          Value width = arith::ShLIOp::create(pb, l, one, p);
          Value step = arith::AddIOp::create(pb, l, width, width);
          SmallVector<Value> dst;
          for (Value s : src) {
            auto t = cast<RankedTensorType>(s.getType());
            dst.push_back(tensor::EmptyOp::create(
                pb, l, t, t.isDynamicDim(0) ? ValueRange{n} : ValueRange{}));
          }
          auto runs = scf::ForOp::create(
              pb, l, zero, n, step, dst,
              [&](OpBuilder &rb, Location rl, Value lo, ValueRange out) {
                Value mid = arith::MinUIOp::create(
                    rb, rl, arith::AddIOp::create(rb, rl, lo, width), n);
                Value hi = arith::MinUIOp::create(
                    rb, rl, arith::AddIOp::create(rb, rl, lo, step), n);
                scf::YieldOp::create(
                    rb, rl, mergeRuns(rb, rl, op, src, out, lo, mid, hi, last));
              });
          // The merged runs are copied back into the pass's tensors: a loop
          // that yields its own (updated) tensors bufferizes in place. (A
          // whole-tensor insert_slice would fold away where the length is
          // static.)
          SmallVector<Value> back;
          for (auto [merged, into] : llvm::zip(runs.getResults(), src))
            back.push_back(bufferization::MaterializeInDestinationOp::create(
                               pb, l, merged, into)
                               .getResult());
          scf::YieldOp::create(pb, l, back);
        });
    rewriter.replaceOp(op, passes.getResults());
    return success();
  }
};

} // namespace

void fuse::populateSortToLoopsPatterns(RewritePatternSet &patterns) {
  patterns.add<SortToLoops>(patterns.getContext());
}
