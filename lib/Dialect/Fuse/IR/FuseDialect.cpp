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
  ArrayRef<Type> args = fn.getArgumentTypes();
  auto bad = [&](SizeAttr s) -> std::string {
    if (!s || s.getSource() == SizeSource::Static)
      return "";
    int64_t a = s.getValue();
    if (a >= static_cast<int64_t>(args.size()))
      return "names argument " + std::to_string(a) + " of a function with " +
             std::to_string(args.size());
    auto t = dyn_cast<RankedTensorType>(args[a]);
    if (s.getSource() == SizeSource::Arg)
      return isa<IndexType>(args[a])
                 ? ""
                 : "names argument " + std::to_string(a) +
                       " as an index scalar, which it is not";
    if (!t || s.getDim() >= t.getRank())
      return "names dimension " + std::to_string(s.getDim()) + " of argument " +
             std::to_string(a) + ", which is not a ranked tensor of that rank";
    return "";
  };
  for (auto check : list.getAsRange<SizeCheckAttr>())
    for (SizeAttr s : {check.getLhs(), check.getRhs()})
      if (std::string why = bad(s); !why.empty())
        return op->emitError()
               << "'" << SizeCheckAttr::getAttrName() << "': a check " << why;
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
