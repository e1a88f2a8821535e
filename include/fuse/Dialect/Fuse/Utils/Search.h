//===- Search.h - the binary search of fuse.searchsorted --------*- C++ -*-===//
//
// One binary search per element, shared by the CPU lowering of a lone
// fuse.searchsorted and by the element emitter (fused groups on the CPU and
// the GPU), so both backends compare and step in exactly the same way:
//
//   lo = 0, hi = n
//   while lo < hi:
//     mid = (lo + hi) / 2
//     if goesRight(sorted[mid], v): lo = mid + 1 else: hi = mid
//   result = lo
//
// with goesRight(x, v) = x < v (left) or !(v < x) (right), `<` being the
// op's order (SearchSortedOp's description). The caller reads sorted[mid]
// between openSearch and closeSearch, at the builder's point inside the
// loop, however it reads elements.
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_DIALECT_FUSE_UTILS_SEARCH_H
#define FUSE_DIALECT_FUSE_UTILS_SEARCH_H

#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace fuse {

/// A binary search left open for the caller to read `sorted[mid]`.
struct OpenSearch {
  scf::WhileOp loop;
  /// The position to read (`index`), defined inside the loop.
  Value mid;
};

/// Builds the loop over `[0, n)` (`n` an `index`) at the builder's point
/// and leaves the builder inside it, after `mid`.
OpenSearch openSearch(OpBuilder &b, Location loc, Value n);

/// Ends the loop with `element` (sorted[mid]) compared to `needle` in the
/// order of `op`, puts the builder after the loop and returns the
/// insertion point as `i64`.
Value closeSearch(OpBuilder &b, Location loc, OpenSearch &search,
                  Value element, Value needle, SearchSortedOp op);

/// `x < y` in the order of searchsorted (and NumPy's sort): integers signed
/// or unsigned (`i1` always unsigned), floats by value with every NaN equal
/// and after +inf.
Value buildSearchLess(OpBuilder &b, Location loc, Value x, Value y,
                      bool isUnsigned);

} // namespace fuse

#endif // FUSE_DIALECT_FUSE_UTILS_SEARCH_H
