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

/// `arith.sitofp` / `arith.uitofp` of an integer wider than f32's 24 bits
/// to bf16, correctly rounded: the magnitude's top 24 bits with a sticky
/// bit for the rest (rounded to odd, exact in f32) scaled by a power of
/// two, then f32 -> bf16 to nearest even. The f32 step that
/// arith-emulate-unsupported-floats would take rounds twice (606076929 ->
/// 0x4E10 instead of 0x4E11); the GPU converts in one cvt.rn.bf16.
template <typename OpT> struct IntToBF16 : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    auto it = dyn_cast<IntegerType>(op.getIn().getType());
    if (!op.getType().isBF16() || !it || it.getWidth() <= 24)
      return failure();
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    unsigned w = it.getWidth();
    auto cst = [&](int64_t v) {
      return arith::ConstantIntOp::create(b, loc, it, v).getResult();
    };
    Value x = op.getIn(), a = x, neg;
    if (std::is_same_v<OpT, arith::SIToFPOp>) {
      neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, cst(0));
      a = arith::SelectOp::create(b, loc, neg,
                                  arith::SubIOp::create(b, loc, cst(0), x), x);
    }
    Value bits = arith::SubIOp::create(
        b, loc, cst(w), math::CountLeadingZerosOp::create(b, loc, a));
    Value sh = arith::MaxSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, bits, cst(24)), cst(0));
    Value mask = arith::SubIOp::create(
        b, loc, arith::ShLIOp::create(b, loc, cst(1), sh), cst(1));
    Value lost =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                              arith::AndIOp::create(b, loc, a, mask), cst(0));
    Value t =
        arith::OrIOp::create(b, loc, arith::ShRUIOp::create(b, loc, a, sh),
                             arith::ExtUIOp::create(b, loc, it, lost));
    Type f32 = b.getF32Type(), i32 = b.getI32Type();
    Value f = arith::UIToFPOp::create(b, loc, f32, t);
    // 2^sh as f32 bits: (sh + 127) << 23, sh <= 40.
    Value sh32 = arith::TruncIOp::create(b, loc, i32, sh);
    Value expBits = arith::ShLIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, sh32,
                              arith::ConstantIntOp::create(b, loc, i32, 127)),
        arith::ConstantIntOp::create(b, loc, i32, 23));
    f = arith::MulFOp::create(b, loc, f,
                              arith::BitcastOp::create(b, loc, f32, expBits));
    if (neg)
      f = arith::SelectOp::create(b, loc, neg, arith::NegFOp::create(b, loc, f),
                                  f);
    rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, op.getType(), f);
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
    patterns.add<ExtBF16ToF64, TruncF64ToBF16, IntToBF16<arith::SIToFPOp>,
                 IntToBF16<arith::UIToFPOp>>(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
