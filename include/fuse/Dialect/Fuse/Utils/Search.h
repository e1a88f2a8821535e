//===- Search.h - the binary search of fuse.searchsorted --------*- C++ -*-===//
//
// One binary search per element, shared by the CPU lowering of a lone
// fuse.searchsorted and by the element emitter (fused groups on the CPU and
// the GPU), so both backends compare and step in exactly the same way:
//
//   key = searchKey(v)                      (once per needle)
//   lo = 0, hi = n
//   while lo < hi:
//     mid = (lo + hi) / 2
//     if goesRight(sorted[mid], key): lo = mid + 1 else: hi = mid
//   result = lo                 (n instead for a NaN needle with `right`)
//
// goesRight is one compare, because the search is bound by the
// instructions of its loop (a small sorted tensor stays in L1): integers
// x < v (left) or x <= v (right), signed or unsigned; floats x <= key
// (ordered, so a NaN element never goes right), key being v for `right`
// and, for `left`, the float just below v (+inf for a NaN needle, which
// goes after every number; NaN, which nothing is below, for -inf). That
// is the op's order: NaN after every number, -0.0 equal to +0.0. The
// caller reads sorted[mid] between openSearch and closeSearch, at the
// builder's point inside the loop, however it reads elements.
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_DIALECT_FUSE_UTILS_SEARCH_H
#define FUSE_DIALECT_FUSE_UTILS_SEARCH_H

#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace fuse {

/// A binary search left open for the caller to read `sorted[mid]`.
struct OpenSearch {
  SearchSortedOp op;
  scf::WhileOp loop;
  /// The position to read (`index`), defined inside the loop.
  Value mid;
  /// The needle as goesRight compares it, and whether it is NaN (floats
  /// with `right`: the result is then the length).
  Value key, nanNeedle;
  Value n;
};

/// Builds the search of `needle` over `[0, n)` (`n` an `index`) at the
/// builder's point and leaves the builder inside the loop, after `mid`.
OpenSearch openSearch(OpBuilder &b, Location loc, SearchSortedOp op, Value n,
                      Value needle);

/// Ends the loop with `element` (sorted[mid]), puts the builder after the
/// loop and returns the insertion point as `i64`.
Value closeSearch(OpBuilder &b, Location loc, OpenSearch &search,
                  Value element);

} // namespace fuse

#endif // FUSE_DIALECT_FUSE_UTILS_SEARCH_H
