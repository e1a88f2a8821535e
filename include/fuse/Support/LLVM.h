//===- LLVM.h - MLIR and LLVM names inside namespace fuse -------*- C++ -*-===//
//
// fuse's C++ lives in namespace `fuse`; this makes MLIR's and LLVM's
// common names usable there unqualified (as CIRCT does for circt).
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_SUPPORT_LLVM_H
#define FUSE_SUPPORT_LLVM_H

#include "mlir/Support/LLVM.h"

namespace fuse {
using namespace mlir;
} // namespace fuse

#endif // FUSE_SUPPORT_LLVM_H
