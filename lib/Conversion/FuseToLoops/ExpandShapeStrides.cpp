//===- ExpandShapeStrides.cpp - expand_shape with dynamic groups ----------===//
//
// fuse-expand-shape-strides (Passes.td): memref.expand_shape ops with two
// or more dynamic sizes in one reassociation group, on which MLIR 22's
// expand-strided-metadata crashes, as memref.reinterpret_cast.
//
//===----------------------------------------------------------------------===//

#include "fuse/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace fuse {
#define GEN_PASS_DEF_FUSEEXPANDSHAPESTRIDESPASS
#include "fuse/Conversion/Passes.h.inc"
} // namespace fuse

using namespace mlir;

namespace {

/// Whether some reassociation group of `op` has two or more dynamic sizes.
bool hasDynamicGroup(memref::ExpandShapeOp op) {
  MemRefType t = op.getResultType();
  for (const ReassociationIndices &group : op.getReassociationIndices())
    if (llvm::count_if(group, [&](int64_t d) { return t.isDynamicDim(d); }) > 1)
      return true;
  return false;
}

struct ExpandShapeAsReinterpretCast : OpRewritePattern<memref::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(memref::ExpandShapeOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasDynamicGroup(op))
      return failure();
    MemRefType type = op.getResultType();
    SmallVector<int64_t> staticStrides;
    int64_t staticOffset;
    if (failed(type.getStridesAndOffset(staticStrides, staticOffset)))
      return rewriter.notifyMatchFailure(op, "result layout is not strided");
    Location loc = op.getLoc();
    auto meta =
        memref::ExtractStridedMetadataOp::create(rewriter, loc, op.getSrc());
    SmallVector<OpFoldResult> sizes = op.getMixedOutputShape();
    SmallVector<OpFoldResult> srcStrides = meta.getConstifiedMixedStrides();
    SmallVector<OpFoldResult> strides(type.getRank());
    for (auto [srcDim, group] : llvm::enumerate(op.getReassociationIndices())) {
      // Row-major within the group: the last dimension keeps the source
      // dimension's stride, each earlier one is the next one's stride
      // times the next one's size.
      OpFoldResult stride = srcStrides[srcDim];
      for (size_t i = group.size(); i-- > 0;) {
        strides[group[i]] = stride;
        if (i > 0)
          stride = mulOFRs(rewriter, loc, stride, sizes[group[i]]);
      }
    }
    // The result type's static entries must appear as constants.
    for (auto [i, s] : llvm::enumerate(staticStrides))
      if (!ShapedType::isDynamic(s))
        strides[i] = rewriter.getIndexAttr(s);
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (!type.isDynamicDim(d))
        sizes[d] = rewriter.getIndexAttr(type.getDimSize(d));
    OpFoldResult offset = ShapedType::isDynamic(staticOffset)
                              ? meta.getConstifiedMixedOffset()
                              : rewriter.getIndexAttr(staticOffset);
    rewriter.replaceOpWithNewOp<memref::ReinterpretCastOp>(
        op, type, meta.getBaseBuffer(), offset, sizes, strides);
    return success();
  }

  static OpFoldResult mulOFRs(PatternRewriter &rewriter, Location loc,
                              OpFoldResult a, OpFoldResult b) {
    std::optional<int64_t> ca = getConstantIntValue(a);
    std::optional<int64_t> cb = getConstantIntValue(b);
    if (ca && cb)
      return rewriter.getIndexAttr(*ca * *cb);
    return arith::MulIOp::create(
               rewriter, loc, getValueOrCreateConstantIndexOp(rewriter, loc, a),
               getValueOrCreateConstantIndexOp(rewriter, loc, b))
        .getResult();
  }
};

struct FuseExpandShapeStridesPass
    : fuse::impl::FuseExpandShapeStridesPassBase<FuseExpandShapeStridesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandShapeAsReinterpretCast>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
