//===- VerifyText.h - shape helpers of the fuse op verifiers ----*- C++ -*-===//
//
// Shared by the files that hold the fuse ops' verifiers (FuseOps.cpp,
// OrderOps.cpp): when two shapes can agree, and how a diagnostic prints one.
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_LIB_DIALECT_FUSE_IR_VERIFYTEXT_H
#define FUSE_LIB_DIALECT_FUSE_IR_VERIFYTEXT_H

#include "mlir/IR/BuiltinTypes.h"
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

} // namespace fuse

#endif // FUSE_LIB_DIALECT_FUSE_IR_VERIFYTEXT_H
