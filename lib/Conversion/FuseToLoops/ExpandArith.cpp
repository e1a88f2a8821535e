//===- ExpandArith.cpp - arith expansions for the CPU pipeline ------------===//
//
// fuse-expand-arith: upstream arith-expand minus its maximumf/minimumf
// rewrite (see Passes.td for why), with its bf16 conversions as integer
// code: the host C runtime (libgcc before GCC 13) has no __truncsfbf2.
//
//===----------------------------------------------------------------------===//

#include "fuse/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace fuse {
#define GEN_PASS_DEF_FUSEEXPANDARITHPASS
#include "fuse/Conversion/Passes.h.inc"
} // namespace fuse

using namespace mlir;

namespace {

/// `arith.extf` of bf16 to f64 as bf16 -> f32 (exact, then expanded to a
/// shift) -> f64.
struct ExtBF16ToF64 : OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getIn().getType().isBF16() || !op.getType().isF64())
      return failure();
    Value f = arith::ExtFOp::create(rewriter, op.getLoc(),
                                    rewriter.getF32Type(), op.getIn());
    rewriter.replaceOpWithNewOp<arith::ExtFOp>(op, op.getType(), f);
    return success();
  }
};

/// `arith.truncf` of f64 to bf16, correctly rounded, through an f32
/// rounded to odd: when f64 -> f32 is inexact, the f32 toward zero with
/// its last bit set. Its 16 bits beyond bf16's precision keep the sticky
/// information, so the f32 -> bf16 rounding to nearest even is the f64's.
struct TruncF64ToBF16 : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getIn().getType().isF64() || !op.getType().isBF16() ||
        op.getRoundingmodeAttr())
      return failure();
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value x = op.getIn();
    Type f32 = b.getF32Type(), i32 = b.getI32Type();
    Value t = arith::TruncFOp::create(b, loc, f32, x);
    Value back = arith::ExtFOp::create(b, loc, b.getF64Type(), t);
    // Inexact (and not NaN: NaN != NaN would count as inexact).
    Value inexact =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, back, x);
    Value absBack = math::AbsFOp::create(b, loc, back);
    Value absX = math::AbsFOp::create(b, loc, x);
    Value away =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, absBack, absX);
    // Sign-magnitude: one less in the bits is one ulp toward zero.
    Value bits = arith::BitcastOp::create(b, loc, i32, t);
    Value one = arith::ConstantIntOp::create(b, loc, i32, 1);
    Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
    Value down = arith::SelectOp::create(b, loc, away, one, zero);
    Value odd = arith::OrIOp::create(
        b, loc, arith::SubIOp::create(b, loc, bits, down), one);
    Value sel = arith::SelectOp::create(b, loc, inexact, odd, bits);
    Value r = arith::BitcastOp::create(b, loc, f32, sel);
    rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, op.getType(), r);
    return success();
  }
};

struct FuseExpandArithPass
    : fuse::impl::FuseExpandArithPassBase<FuseExpandArithPass> {
  void runOnOperation() override {
    // convert-arith-to-llvm copies an extf/truncf's fast-math attribute
    // unconverted (math-extend-to-supported-types gives the widened
    // conversions the math op's flags), which LLVM IR export rejects; the
    // flags mean nothing on a conversion.
    getOperation()->walk([](Operation *op) {
      if (isa<arith::ExtFOp, arith::TruncFOp>(op))
        op->removeAttr("fastmath");
    });
    RewritePatternSet patterns(&getContext());
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    arith::populateExpandScalingExtTruncPatterns(patterns);
    patterns.add<ExtBF16ToF64, TruncF64ToBF16>(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
