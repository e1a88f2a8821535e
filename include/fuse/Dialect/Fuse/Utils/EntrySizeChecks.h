//===- EntrySizeChecks.h - run-time size checks of an entry -----*- C++ -*-===//
//
// The equalities between the sizes a caller passes to an entry function
// (the dimensions of its tensor arguments and its `index` scalars) that the
// entry's fuse ops imply: a map's operands, a filter's inputs, a broadcast's
// size operand against the tensor it is zipped with, a row vector against
// the rows, a static dimension against the size the caller passes. They
// come from one analysis of the IR (SizeAnalysis' classes of equal
// dimensions), and every way of calling an entry evaluates them before any
// work starts: fuse-run on the CPU, and the generated C ABI of fuse-compile
// (used by fuse-run-aot, `fuse-run --gpu` and the Python GPU path).
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_DIALECT_FUSE_UTILS_ENTRYSIZECHECKS_H
#define FUSE_DIALECT_FUSE_UTILS_ENTRYSIZECHECKS_H

#include "fuse/Support/LLVM.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace fuse {

/// A size at the entry's boundary.
struct BoundarySize {
  enum class Kind {
    ArgDim,    ///< dimension `dim` of tensor argument `arg`
    ScalarArg, ///< `index` scalar argument `arg`
    Constant,  ///< a static size, `value`
  };
  Kind kind;
  unsigned arg = 0;
  int64_t dim = 0;
  int64_t value = 0;

  /// How messages name it: "in0 dimension 1", "in2", "4".
  std::string describe() const;
};

/// One check. Equal: `lhs == rhs` (rhs may be a Constant). NonNegative:
/// `lhs >= 0` (an `index` scalar that sizes a tensor).
struct SizeCheck {
  enum class Kind { Equal, NonNegative };
  Kind kind;
  BoundarySize lhs, rhs;

  /// The message as a printf format taking the two sizes (`%lld` each;
  /// NonNegative ignores the second), for generated code that formats it
  /// at run time.
  std::string messageFormat(llvm::StringRef entry) const;
  /// The message when the check fails, given the sizes seen: e.g.
  /// "dot: size mismatch: in1 dimension 0 is 10 but in0 dimension 0 is
  /// 1000; the pipeline combines them, so they must be equal".
  std::string message(llvm::StringRef entry, int64_t lhsValue,
                      int64_t rhsValue) const;
};

/// The checks of `fn`, in a fixed order (by argument, then dimension),
/// then those recorded in its `fuse.size_checks` (#fuse.size_check) that
/// the others do not imply. Sizes the analysis cannot relate to the
/// boundary (a filter's kept count) are not checked here.
SmallVector<SizeCheck> entrySizeChecks(mlir::func::FuncOp fn);

/// Whether the checks `after` imply every check of `before`: each equality
/// holds in `after`'s classes of equal sizes, and each size `before`
/// requires non-negative is required so in `after` too.
bool impliesChecks(ArrayRef<SizeCheck> after, ArrayRef<SizeCheck> before);

/// `c` as the typed attribute that fuse.size_checks and #fuse.entry list.
mlir::Attribute sizeCheckAttr(mlir::MLIRContext *ctx, const SizeCheck &c);

/// Records on `fn` (`fuse.size_checks`) those of `checks` that
/// entrySizeChecks(fn) does not imply yet: for a rewrite that expresses
/// the computation with fewer size equalities than it had (collapsed
/// rows), so that the entry still checks what its caller passes against
/// the program as written. Returns how many it recorded.
unsigned recordSizeChecks(mlir::func::FuncOp fn, ArrayRef<SizeCheck> checks);

/// A size the caller passes that must equal a fuse.filter's kept count or
/// a fuse.prefix's count (a value of that length zipped with an argument):
/// known only while the entry runs, so no check before the call compares
/// it: the GPU entry checks it once it reads the count (a zip of sizes
/// makes it read; such an entry has no workspace form), the CPU entries
/// right after the filter or prefix (fuse-cpu-count-checks). The tools
/// warn about each at the filter or prefix.
struct UncheckedSize {
  mlir::Operation *filter;
  BoundarySize size;
  /// A printf format with the size as given and the count (two %lld),
  /// for the GPU entry's check once it reads the count.
  std::string messageFormat(llvm::StringRef entry) const;
};
SmallVector<UncheckedSize> entryUncheckedSizes(mlir::func::FuncOp fn);

/// Two counts (filters' kept counts or prefixes' counts) that the entry
/// combines (a map of two filters' kept values): they must be equal, and
/// both are known only while the entry runs. `first` comes first in the
/// entry; the check runs once `second`'s count exists.
struct CountPair {
  mlir::Operation *first, *second;
  /// A printf format with `first`'s count and `second`'s (two %lld).
  std::string messageFormat(llvm::StringRef entry) const;
};
SmallVector<CountPair> entryCountPairs(mlir::func::FuncOp fn);

/// Emits a warning at the filter for each of entryUncheckedSizes(fn) and
/// entryCountPairs(fn).
void warnUncheckedSizes(mlir::func::FuncOp fn);

} // namespace fuse

#endif // FUSE_DIALECT_FUSE_UTILS_ENTRYSIZECHECKS_H
