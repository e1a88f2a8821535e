//===- Entry.cpp - the C interface of a compiled entry --------------------===//
//
// Verifiers of #fuse.size, #fuse.entry_output and #fuse.entry: the typed
// description of each entry that convert-fuse-to-gpu leaves on the module
// and fuse-compile renders as the AOT header; and of #fuse.size_check, a
// size check a rewrite recorded on a function.
//
//===----------------------------------------------------------------------===//

#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace fuse {

LogicalResult SizeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               SizeSource source, int64_t value, int64_t dim) {
  switch (source) {
  case SizeSource::Static:
    if (value < 0 || dim != 0)
      return emitError() << "a static size takes a non-negative value and "
                            "no dim, not value "
                         << value << ", dim " << dim;
    return success();
  case SizeSource::ArgDim:
    if (value < 0 || dim < 0)
      return emitError() << "an arg_dim size names an argument and a "
                            "dimension, not value "
                         << value << ", dim " << dim;
    return success();
  case SizeSource::Arg:
    if (value < 0 || dim != 0)
      return emitError() << "an arg size names an argument and no dim, not "
                            "value "
                         << value << ", dim " << dim;
    return success();
  case SizeSource::Computed:
  case SizeSource::Kept:
    if (value != 0 || dim != 0)
      return emitError() << "a " << stringifySizeSource(source)
                         << " size takes no value or dim";
    return success();
  }
  return success();
}

LogicalResult
SizeCheckAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      SizeCheckKind kind, SizeAttr lhs, SizeAttr rhs) {
  auto names = [](SizeAttr s) {
    return s.getSource() == SizeSource::ArgDim ||
           s.getSource() == SizeSource::Arg;
  };
  if (!names(lhs))
    return emitError() << "a size check's lhs names an argument (arg_dim or "
                          "arg), not a "
                       << stringifySizeSource(lhs.getSource()) << " size";
  if (kind == SizeCheckKind::NonNegative) {
    if (rhs)
      return emitError() << "a non_negative check takes no rhs";
    if (lhs.getSource() != SizeSource::Arg)
      return emitError() << "a non_negative check is of a scalar argument "
                            "(arg), not an arg_dim size";
    return success();
  }
  if (!rhs)
    return emitError() << "an equal check takes an rhs";
  if (!names(rhs) && rhs.getSource() != SizeSource::Static)
    return emitError() << "an equal check's rhs is an arg_dim, arg or static "
                          "size, not a "
                       << stringifySizeSource(rhs.getSource()) << " size";
  return success();
}

LogicalResult
EntryOutputAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        Type type, ArrayAttr sizes, OutputCount count) {
  auto tt = dyn_cast<RankedTensorType>(type);
  if (!tt)
    return emitError() << "an entry output is a ranked tensor, not " << type;
  if (!llvm::all_of(sizes, [](Attribute a) { return isa<SizeAttr>(a); }))
    return emitError() << "entry output sizes are #fuse.size attributes";
  if (static_cast<int64_t>(sizes.size()) != tt.getRank())
    return emitError() << "an entry output of rank " << tt.getRank()
                       << " takes " << tt.getRank() << " sizes, not "
                       << sizes.size();
  if (count != OutputCount::None && tt.getRank() != 1)
    return emitError() << "a counted entry output has rank 1";
  return success();
}

/// Why size `s` does not fit the arguments `args` ("" when it does): an
/// arg_dim or arg size names an argument that exists and is a tensor of
/// that rank (arg_dim) or a scalar (arg; an index one where `indexScalar`);
/// other sources name no argument.
static std::string sizeProblem(SizeAttr s, ArrayRef<Type> args,
                               bool indexScalar) {
  if (!s ||
      (s.getSource() != SizeSource::Arg && s.getSource() != SizeSource::ArgDim))
    return "";
  int64_t a = s.getValue();
  if (a >= static_cast<int64_t>(args.size()))
    return "names argument " + std::to_string(a) + " of a function with " +
           std::to_string(args.size());
  auto t = dyn_cast<RankedTensorType>(args[a]);
  if (s.getSource() == SizeSource::Arg) {
    bool ok = indexScalar ? isa<IndexType>(args[a]) : !t;
    return ok ? ""
              : "names argument " + std::to_string(a) +
                    (indexScalar ? " as an index scalar" : " as a scalar") +
                    ", which it is not";
  }
  if (!t || s.getDim() >= t.getRank())
    return "names dimension " + std::to_string(s.getDim()) + " of argument " +
           std::to_string(a) + ", which is not a ranked tensor of that rank";
  return "";
}

std::string sizeChecksProblem(ArrayRef<Attribute> checks, ArrayRef<Type> args) {
  for (Attribute a : checks) {
    auto check = dyn_cast<SizeCheckAttr>(a);
    if (!check)
      return "is not a #fuse.size_check";
    for (SizeAttr s : {check.getLhs(), check.getRhs()})
      if (std::string why = sizeProblem(s, args, /*indexScalar=*/true);
          !why.empty())
        return why;
  }
  return "";
}

LogicalResult EntryAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                StringRef name, int64_t groups,
                                ArrayAttr inputs, ArrayAttr outputs,
                                WorkspaceForm workspace,
                                StringRef workspaceNote, ArrayAttr checks) {
  if (name.empty())
    return emitError() << "an entry needs a name";
  if ((workspace == WorkspaceForm::None) == workspaceNote.empty())
    return emitError() << "an entry's workspace_note says why it has no "
                          "workspace form: given exactly when workspace is "
                          "none";
  if (groups < 0)
    return emitError() << "an entry's group count is not negative";
  SmallVector<Type> types;
  for (Attribute a : inputs) {
    auto ta = dyn_cast<TypeAttr>(a);
    if (!ta)
      return emitError() << "entry inputs are types, not " << a;
    types.push_back(ta.getValue());
  }
  for (Attribute a : outputs) {
    auto out = dyn_cast<EntryOutputAttr>(a);
    if (!out)
      return emitError() << "entry outputs are #fuse.entry_output, not " << a;
    for (Attribute s : out.getSizes())
      if (std::string why = sizeProblem(cast<SizeAttr>(s), types,
                                        /*indexScalar=*/false);
          !why.empty())
        return emitError() << "an entry output size " << why;
  }
  if (checks)
    if (std::string why = sizeChecksProblem(checks.getValue(), types);
        !why.empty())
      return emitError() << "an entry's size check " << why;
  return success();
}

} // namespace fuse
