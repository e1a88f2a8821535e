//===- FuseDialect.h - the fuse dialect -------------------------*- C++ -*-===//
#ifndef FUSE_DIALECT_FUSE_IR_FUSEDIALECT_H
#define FUSE_DIALECT_FUSE_IR_FUSEDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dialect.h"
#include "fuse/Support/LLVM.h"

#include "fuse/Dialect/Fuse/IR/FuseOpsDialect.h.inc"

#endif // FUSE_DIALECT_FUSE_IR_FUSEDIALECT_H
