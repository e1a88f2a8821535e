//===- FastMath.cpp - fast-math flags on every float op -------------------===//
//
// See FuseFastMathPass in Passes.td: the flags a pipeline's author would
// write on each op (`arith.divf ... fastmath<arcp>`), given once for the
// whole module (fuse-compile --fastmath).
//
//===----------------------------------------------------------------------===//

#include "fuse/Dialect/Fuse/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace fuse {
#define GEN_PASS_DEF_FUSEFASTMATHPASS
#include "fuse/Dialect/Fuse/Transforms/Passes.h.inc"
} // namespace fuse

using namespace mlir;

LogicalResult fuse::addFastMathFlags(Operation *root, StringRef flags,
                                     std::string &error) {
  StringRef spec = flags.trim();
  if (spec.empty())
    return success();
  std::optional<arith::FastMathFlags> add =
      arith::symbolizeFastMathFlags(spec);
  if (!add) {
    error = "unknown fast-math flags '" + spec.str() +
            "' (comma-separated: reassoc, nnan, ninf, nsz, arcp, contract, "
            "afn, or fast)";
    return failure();
  }
  MLIRContext *ctx = root->getContext();
  root->walk([&](arith::ArithFastMathInterface op) {
    arith::FastMathFlags have = arith::FastMathFlags::none;
    if (arith::FastMathFlagsAttr a = op.getFastMathFlagsAttr())
      have = a.getValue();
    op->setAttr(op.getFastMathAttrName(),
                arith::FastMathFlagsAttr::get(ctx, have | *add));
  });
  return success();
}

namespace {

struct FuseFastMathPass
    : fuse::impl::FuseFastMathPassBase<FuseFastMathPass> {
  using Base::Base;

  void runOnOperation() override {
    std::string error;
    if (failed(fuse::addFastMathFlags(getOperation(), flags, error))) {
      getOperation()->emitError() << "fuse-fastmath: " << error;
      signalPassFailure();
    }
  }
};

} // namespace
