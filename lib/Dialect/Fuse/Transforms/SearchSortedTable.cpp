//===- SearchSortedTable.cpp - 8-bit needles searched once a value --------===//
//
// fuse-searchsorted-table (the GPU pipeline): a fuse.searchsorted of 8-bit
// needles has at most 256 different answers. It becomes the search of all
// 256 values (an i8 iota, whose element k is the value of byte k, searched
// in the op's own order and side) and a fuse.gather of that table at each
// needle's byte: a read of a 2 KB table an element, where the search was
// ceil(log2(n + 1)) dependent reads of `sorted`. The table is a group of
// its own (one small launch); the gather fuses with the needles' producer
// and consumers as the search did.
//
//===----------------------------------------------------------------------===//

#include "fuse/Dialect/Fuse/Transforms/Passes.h"

#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace fuse {
#define GEN_PASS_DEF_FUSESEARCHSORTEDTABLEPASS
#include "fuse/Dialect/Fuse/Transforms/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

namespace {

constexpr int64_t kTableSize = 256;

/// Whether `s` is worth a table: 8-bit needles, more of them than the
/// table has entries (or a dynamic count), not a broadcast (canonicalization
/// already searches a broadcast's source once a value).
bool wantsTable(SearchSortedOp s) {
  auto ty = cast<RankedTensorType>(s.getValues().getType());
  if (!ty.getElementType().isInteger(8))
    return false;
  if (ty.hasStaticShape() && ty.getNumElements() <= kTableSize)
    return false;
  return !s.getValues().getDefiningOp<BroadcastOp>();
}

struct FuseSearchSortedTablePass
    : fuse::impl::FuseSearchSortedTablePassBase<FuseSearchSortedTablePass> {
  void runOnOperation() override {
    SmallVector<SearchSortedOp> searches;
    getOperation()->walk([&](SearchSortedOp s) {
      if (wantsTable(s))
        searches.push_back(s);
    });
    for (SearchSortedOp s : searches) {
      OpBuilder b(s);
      Location loc = s.getLoc();
      Type i8 = b.getI8Type(), i64 = b.getI64Type();
      Value bytes =
          IotaOp::create(b, loc, RankedTensorType::get({kTableSize}, i8),
                         ValueRange{}, IntegerAttr());
      Value table = SearchSortedOp::create(
          b, loc, RankedTensorType::get({kTableSize}, i64), s.getSorted(),
          bytes, s.getSideAttr(), s.getIntegerOrderAttr());
      // A needle's entry is its byte: k for the iota's element k.
      auto needlesTy = cast<RankedTensorType>(s.getValues().getType());
      auto index = MapOp::create(b, loc, TypeRange{needlesTy.clone(i64)},
                                 ValueRange{s.getValues()});
      {
        OpBuilder::InsertionGuard guard(b);
        Block *blk = b.createBlock(&index.getBody(), {}, {i8}, {loc});
        YieldOp::create(
            b, loc,
            ValueRange{arith::ExtUIOp::create(b, loc, i64, blk->getArgument(0))
                           .getResult()});
      }
      Value found =
          GatherOp::create(b, loc, s.getType(), table, index.getResult(0));
      s.replaceAllUsesWith(found);
      s.erase();
    }
  }
};

} // namespace
