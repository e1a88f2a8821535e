//===- Tiling.cpp - the tiling of a fused group ----------------------------===//

#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;

namespace fuse {

LogicalResult TilingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, int64_t blockThreads,
    int64_t grid, int64_t itemsPerThread, int64_t vectorWidth, bool, bool,
    int64_t pollDelay, int64_t lookbackDelay, int64_t finishPrefetch,
    int64_t longRowItems, int64_t longRowStageItems, bool, bool,
    int64_t narrowRows, int64_t stagedRows, int64_t stagedThreads,
    int64_t wideRowThreads, int64_t segmentPiece) {
  auto warps = [](int64_t n) { return n >= 32 && n <= 1024 && n % 32 == 0; };
  auto in = [](int64_t v, int64_t lo, int64_t hi) {
    return v >= lo && v <= hi;
  };
  if (!warps(blockThreads))
    return emitError() << "tiling blockThreads must be a multiple of 32 "
                          "from 32 to 1024, not "
                       << blockThreads;
  if (!in(grid, 0, std::numeric_limits<int32_t>::max()))
    return emitError() << "tiling grid must be 0 (sized by the host) to "
                          "2^31-1, not "
                       << grid;
  if (!in(itemsPerThread, 1, 1024))
    return emitError() << "tiling itemsPerThread must be 1 to 1024, not "
                       << itemsPerThread;
  if (!in(vectorWidth, 1, 16) || !llvm::isPowerOf2_64(vectorWidth))
    return emitError() << "tiling vectorWidth must be a power of two up to "
                          "16, not "
                       << vectorWidth;
  if (!in(pollDelay, 0, 1000000) || !in(lookbackDelay, 0, 1000000))
    return emitError() << "tiling pollDelay and lookbackDelay must be 0 to "
                          "1000000 ns";
  if (!in(finishPrefetch, 0, 8))
    return emitError() << "tiling finishPrefetch must be 0-8, not "
                       << finishPrefetch;
  if (!in(longRowItems, 0, 32))
    return emitError() << "tiling longRowItems must be 0-32, not "
                       << longRowItems;
  if (!in(longRowStageItems, 0, 32))
    return emitError() << "tiling longRowStageItems must be 0-32, not "
                       << longRowStageItems;
  if (narrowRows != 0 &&
      (!in(narrowRows, 1, 32) || !llvm::isPowerOf2_64(narrowRows)))
    return emitError() << "tiling narrowRows must be 0 or a power of two up "
                          "to 32, not "
                       << narrowRows;
  if (stagedRows < 0)
    return emitError() << "tiling stagedRows must not be negative";
  if (segmentPiece < 0)
    return emitError() << "tiling segmentPiece must not be negative";
  if (stagedThreads != 0 && !warps(stagedThreads))
    return emitError() << "tiling stagedThreads must be 0 or a multiple of "
                          "32 from 32 to 1024, not "
                       << stagedThreads;
  if (wideRowThreads != 0 &&
      (!warps(wideRowThreads) || wideRowThreads <= blockThreads))
    return emitError() << "tiling wideRowThreads must be 0 or a multiple of "
                          "32 above blockThreads ("
                       << blockThreads << ") up to 1024, not "
                       << wideRowThreads;
  return success();
}

} // namespace fuse
