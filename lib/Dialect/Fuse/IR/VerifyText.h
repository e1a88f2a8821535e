//===- VerifyText.h - shared helpers of the fuse op verifiers ---*- C++ -*-===//
//
// Shared by the files that hold the fuse ops' verifiers (FuseOps.cpp,
// CombinerOps.cpp, OrderOps.cpp): when two shapes can agree, how a
// diagnostic prints one, and the checks of inputs and body regions that
// several ops make (defined in FuseOps.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_LIB_DIALECT_FUSE_IR_VERIFYTEXT_H
#define FUSE_LIB_DIALECT_FUSE_IR_VERIFYTEXT_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Region.h"
#include "llvm/ADT/STLExtras.h"

#include <string>

namespace fuse {

/// True when two shapes can be equal at run time: same rank, and equal
/// sizes wherever both are static.
inline bool shapesCompatible(llvm::ArrayRef<int64_t> a,
                             llvm::ArrayRef<int64_t> b) {
  if (a.size() != b.size())
    return false;
  for (auto [x, y] : llvm::zip_equal(a, b))
    if (!mlir::ShapedType::isDynamic(x) && !mlir::ShapedType::isDynamic(y) &&
        x != y)
      return false;
  return true;
}

inline std::string shapeString(llvm::ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      s += ", ";
    s += mlir::ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
  }
  return s + "]";
}

namespace detail {

inline mlir::RankedTensorType tensorTypeOf(mlir::Value v) {
  return llvm::cast<mlir::RankedTensorType>(v.getType());
}

/// There is at least one input (`*_c1`) and all inputs share one shape
/// (`*_c2`).
llvm::LogicalResult verifySameShapes(mlir::Operation *op,
                                     mlir::ValueRange inputs,
                                     llvm::StringRef what);

/// Checks the block of a body region: one argument per type in `argTypes`
/// (the count, then each type).
llvm::LogicalResult verifyBlockArgs(mlir::Operation *op, mlir::Region &region,
                                    mlir::TypeRange argTypes,
                                    llvm::StringRef what);

/// Checks that the block ends in a fuse.yield of `types` (the terminator,
/// the count, then each type).
llvm::LogicalResult verifyYield(mlir::Operation *op, mlir::Region &region,
                                mlir::TypeRange types, llvm::StringRef what);

/// The element types of the tensors `values`.
llvm::SmallVector<mlir::Type> elementTypes(mlir::ValueRange values);

} // namespace detail
} // namespace fuse

#endif // FUSE_LIB_DIALECT_FUSE_IR_VERIFYTEXT_H
