//===- FuseDialect.cpp - the fuse dialect ---------------------------------===//
#include "fuse/Dialect/Fuse/IR/FuseDialect.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
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

/// `fuse.size_checks` on `op`: a function's list of #fuse.size_check, each
/// size naming an argument the function has (a dimension within a tensor's
/// rank, an `index` scalar).
static LogicalResult verifySizeChecks(Operation *op, Attribute value) {
  auto fn = dyn_cast<FunctionOpInterface>(op);
  auto list = dyn_cast<ArrayAttr>(value);
  if (!fn || !list || !llvm::all_of(list, llvm::IsaPred<SizeCheckAttr>))
    return op->emitError() << "'" << SizeCheckAttr::getAttrName()
                           << "' must be a list of #fuse.size_check on a "
                              "function";
  if (std::string why =
          sizeChecksProblem(list.getValue(), fn.getArgumentTypes());
      !why.empty())
    return op->emitError() << "'" << SizeCheckAttr::getAttrName()
                           << "': a check " << why;
  return success();
}

LogicalResult FuseDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  Attribute value = attr.getValue();
  auto expect = [&](bool ok, StringRef what) -> LogicalResult {
    if (ok)
      return success();
    return op->emitError() << "'" << name << "' must be " << what;
  };
  if (name == TargetAttr::getAttrName())
    return expect(isa<ModuleOp>(op) && isa<TargetAttr>(value),
                  "a #fuse.target on a module");
  if (name == EntryAttr::getAttrName()) {
    auto list = dyn_cast<ArrayAttr>(value);
    return expect(isa<ModuleOp>(op) && list &&
                      llvm::all_of(list, llvm::IsaPred<EntryAttr>),
                  "a list of #fuse.entry on a module");
  }
  if (name == TilingAttr::getAttrName())
    return expect(isa<GroupOp>(op) && isa<TilingAttr>(value),
                  "a #fuse.tiling on a fuse.group");
  if (name == NotFusedAttrHelper::getNameStr()) {
    auto list = dyn_cast<ArrayAttr>(value);
    return expect(list && llvm::all_of(list, llvm::IsaPred<StringAttr>),
                  "a list of strings");
  }
  if (name == SizeCheckAttr::getAttrName())
    return verifySizeChecks(op, value);
  return op->emitError() << "unknown fuse attribute '" << name
                         << "' (known: fuse.target, fuse.entries, "
                            "fuse.tiling, fuse.not_fused, fuse.size_checks)";
}
