//===- FuseDialect.cpp - the fuse dialect ---------------------------------===//
#include "fuse/Dialect/Fuse/IR/FuseDialect.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace fuse;

#include "fuse/Dialect/Fuse/IR/FuseOpsDialect.cpp.inc"
#include "fuse/Dialect/Fuse/IR/FuseEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "fuse/Dialect/Fuse/IR/FuseAttrs.cpp.inc"

void FuseDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "fuse/Dialect/Fuse/IR/FuseOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "fuse/Dialect/Fuse/IR/FuseAttrs.cpp.inc"
      >();
}
