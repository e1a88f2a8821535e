//===- BuiltinCombiners.cpp - combiner regions as built-in kinds ---------===//
//
// fuse-builtin-combiners: the combiner regions that spell out built-in
// kinds become those kinds (the pattern is FuseFolds.cpp's, also a
// canonicalization). A pass of its own rather than the canonicalizer in
// the pipelines: the canonicalizer would also fold an identity map into
// its input, which removes the copy a user's `copy` pipeline asks for.
//
//===----------------------------------------------------------------------===//

#include "fuse/Dialect/Fuse/Transforms/Passes.h"

#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace fuse {
#define GEN_PASS_DEF_FUSEBUILTINCOMBINERSPASS
#include "fuse/Dialect/Fuse/Transforms/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

namespace {

struct FuseBuiltinCombinersPass
    : fuse::impl::FuseBuiltinCombinersPassBase<FuseBuiltinCombinersPass> {
  void runOnOperation() override {
    unsigned count = 0;
    RewritePatternSet patterns(&getContext());
    populateCombinerToKindsPatterns(patterns, &count);
    // One walk: each rewrite stands alone (no folding or dead-code
    // removal around it, and a rewritten op matches nothing again).
    walkAndApplyPatterns(getOperation(), std::move(patterns));
    numRewritten += count;
  }
};

} // namespace
