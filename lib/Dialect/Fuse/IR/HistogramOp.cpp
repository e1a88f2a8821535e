//===- HistogramOp.cpp - fuse.histogram -----------------------------------===//
//
// The verifier of fuse.histogram. Each diagnostic carries a tag with a case
// in test/Dialect/Fuse/invalid.mlir.
//
//===----------------------------------------------------------------------===//

#include "fuse/Dialect/Fuse/IR/FuseOps.h"

using namespace mlir;
using namespace fuse;

LogicalResult HistogramOp::verify() {
  auto in = getIndices().getType();
  auto res = getResult().getType();
  // histogram_c1: bin indices of rank >= 1, integers of 8 to 64 bits.
  if (in.getRank() < 1)
    return emitOpError() << "requires bin indices of rank 1 or more, but "
                            "they have rank 0";
  auto it = dyn_cast<IntegerType>(in.getElementType());
  if (!it || it.getWidth() < 8)
    return emitOpError() << "requires integer bin indices of 8 to 64 bits, "
                            "not "
                         << in.getElementType();
  // histogram_c2: counts are a rank-1 tensor of i32 or i64.
  if (res.getRank() != 1)
    return emitOpError() << "requires rank-1 counts, but the result has rank "
                         << res.getRank();
  if (!res.getElementType().isInteger(32) &&
      !res.getElementType().isInteger(64))
    return emitOpError() << "counts must be i32 or i64, not "
                         << res.getElementType();
  // histogram_c3: the `bins` operand gives a dynamic size, and only that.
  if (res.isDynamicDim(0) && !getBins())
    return emitOpError() << "a result of dynamic size needs a `bins` operand";
  if (!res.isDynamicDim(0) && getBins())
    return emitOpError() << "a `bins` operand is given, but the result has "
                            "the static size "
                         << res.getDimSize(0);
  return success();
}
