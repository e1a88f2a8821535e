//===- EntryHeader.cpp - the C header of compiled entries -----------------===//
//
// Renders each #fuse.entry as a C declaration with its documentation
// comment: the interface of the host function convert-fuse-to-gpu built
// (see EntryAttr in FuseDialect.td for the argument order).
//
//===----------------------------------------------------------------------===//

#include "fuse/Pipelines/EntryHeader.h"

#include "fuse/Conversion/FuseToGPU/FuseToGPU.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace fuse {
namespace {

/// The C type of an element or scalar of type `t`.
std::string cTypeName(Type t) {
  if (t.isF32())
    return "float";
  if (t.isF64())
    return "double";
  if (t.isF16() || t.isBF16())
    return "uint16_t";
  if (t.isIndex())
    return "int64_t";
  if (auto it = dyn_cast<IntegerType>(t))
    return "int" + std::to_string(it.getWidth() < 8 ? 8 : it.getWidth()) +
           "_t";
  return "void";
}

/// How the caller names an extent: `in0_d1`, `in2`, a number.
std::string sizeText(SizeAttr s) {
  switch (s.getSource()) {
  case SizeSource::Static:
    return std::to_string(s.getValue());
  case SizeSource::ArgDim:
    return "in" + std::to_string(s.getValue()) + "_d" +
           std::to_string(s.getDim());
  case SizeSource::Arg:
    return "in" + std::to_string(s.getValue());
  case SizeSource::Computed:
    return "?";
  case SizeSource::Kept:
    return "the filter's count";
  }
  return "?";
}

/// What output `i` holds and how large the caller allocates it.
std::string outputSizeText(EntryOutputAttr out, size_t i) {
  ArrayAttr sizes = out.getSizes();
  switch (out.getCount()) {
  case OutputCount::Kept:
    return "capacity " + sizeText(cast<SizeAttr>(sizes[0])) +
           " elements; the first *out" + std::to_string(i) +
           "_count hold the kept elements";
  case OutputCount::FromKept:
    return "capacity: the size of the filtered input; the first *out" +
           std::to_string(i) + "_count elements are written";
  case OutputCount::None:
    break;
  }
  if (sizes.empty())
    return "1 element";
  std::string text;
  for (auto [k, s] : llvm::enumerate(sizes))
    text += (k ? " x " : "") + sizeText(cast<SizeAttr>(s));
  return text;
}

/// The sizes `e` checks before any work, as the caller names them:
/// "in1_d0 == in0_d0, in2 >= 0" ("" when none).
std::string checksText(EntryAttr e) {
  std::string text;
  if (!e.getChecks())
    return text;
  for (auto c : e.getChecks().getAsRange<SizeCheckAttr>()) {
    text += text.empty() ? "" : ", ";
    text += sizeText(c.getLhs());
    text += c.getKind() == SizeCheckKind::NonNegative
                ? " >= 0"
                : " == " + sizeText(c.getRhs());
  }
  return text;
}

/// The parameters of `e` before its counts: inputs (with their dims) and
/// outputs, each with its documentation line.
void emitDataParams(EntryAttr e, ArrayRef<EntryOutputAttr> outs,
                    function_ref<void(const std::string &)> param,
                    llvm::raw_ostream &docOs) {
  for (auto [i, a] : llvm::enumerate(e.getInputs())) {
    Type t = cast<TypeAttr>(a).getValue();
    std::string an = "in" + std::to_string(i);
    if (auto tt = dyn_cast<RankedTensorType>(t)) {
      param("const " + cTypeName(tt.getElementType()) + " *" + an);
      docOs << " *  " << an << ": device pointer to " << tt
            << ", row-major, dims";
      for (int64_t d = 0; d < tt.getRank(); ++d) {
        std::string dn = an + "_d" + std::to_string(d);
        param("int64_t " + dn);
        docOs << " " << dn;
      }
      docOs << (tt.getRank() ? "" : " (none: one element)") << ".\n";
    } else {
      param(cTypeName(t) + " " + an);
      docOs << " *  " << an << ": scalar " << t << ".\n";
    }
  }
  for (auto [i, out] : llvm::enumerate(outs))
    param(cTypeName(cast<RankedTensorType>(out.getType()).getElementType()) +
          " *out" + std::to_string(i));
  for (auto [i, out] : llvm::enumerate(outs))
    docOs << " *  out" << i << ": device pointer to " << out.getType()
          << ", caller-allocated, " << outputSizeText(out, i) << ".\n";
}

/// The documentation comment and the declaration of `e` (and of its
/// workspace form, where it has one).
void emitEntry(llvm::raw_ostream &os, EntryAttr e) {
  SmallVector<EntryOutputAttr> outs;
  for (Attribute a : e.getOutputs())
    outs.push_back(cast<EntryOutputAttr>(a));
  bool ws = e.getWorkspace() == WorkspaceForm::Available;
  for (bool form : {false, true}) {
    if (form && !ws)
      break;
    std::string name = (e.getName() + (form ? kWorkspaceSuffix : "")).str();
    std::string decl, doc;
    llvm::raw_string_ostream declOs(decl), docOs(doc);
    declOs << "fuse_status_t " << name << "(";
    if (form)
      docOs << "/** " << name << ": " << e.getName()
            << " in its capture-safe form: it allocates nothing and never "
               "waits\n"
            << " * for the device, so a call can be captured into a CUDA "
               "graph.\n";
    else
      docOs << "/** " << name << ": compiled fuse pipeline (" << e.getGroups()
            << " fused group(s)).\n";
    bool firstParam = true;
    auto param = [&](const std::string &text) {
      declOs << (firstParam ? "" : ", ") << text;
      firstParam = false;
    };
    emitDataParams(e, outs, param, docOs);
    for (auto [i, out] : llvm::enumerate(outs))
      if (out.getCount() != OutputCount::None) {
        param("int64_t *out" + std::to_string(i) + "_count");
        if (form)
          docOs << " *  out" << i << "_count: device pointer (or NULL) to "
                << "one int64_t receiving, in stream order, the number of "
                   "elements kept in out"
                << i << ".\n";
        else
          docOs << " *  out" << i << "_count: host pointer (or NULL) "
                << "receiving the number of elements kept in out" << i
                << "; the call synchronizes `stream` to read it.\n";
      }
    if (form) {
      param("void *workspace");
      param("int64_t *workspace_bytes");
      docOs << " *  workspace: device memory for the temporaries, 256-byte "
               "aligned, or NULL:\n"
            << " *    then the call checks its arguments, writes the bytes "
               "it needs (at\n"
            << " *    least 1) to *workspace_bytes and launches nothing (call "
               "it before a\n"
            << " *    capture: the first call loads the kernels).\n"
            << " *  workspace_bytes: the workspace's size in bytes (at least "
               "what the\n"
            << " *    query gave for the same sizes).\n";
    }
    param("fuse_stream_t stream");
    declOs << ");";
    docOs << " *  stream: CUstream to run on (NULL: the runtime's per-thread "
             "default).\n"
          << " *  Asynchronous on `stream`. n = 0 launches nothing (a "
             "reduction still writes its init/identity).\n";
    if (std::string checks = checksText(e); !checks.empty())
      docOs << " *  Sizes checked before any work (FUSE_ERROR_INVALID_ARGUMENT "
               "otherwise):\n *    "
            << checks << ".\n";
    if (!form && !ws)
      docOs << " *  No capture-safe form: " << e.getWorkspaceNote() << ".\n";
    docOs << " *  Returns FUSE_SUCCESS or an error code; see "
             "fuse_last_error_message(). */";
    os << doc << "\n" << decl << "\n\n";
  }
}

} // namespace

std::string emitEntryHeader(ModuleOp module, StringRef guard) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "/* Generated by fuse-compile. Do not edit.\n"
     << " * Link with the object file of the same name and the fuse runtime\n"
     << " * (libfuse_runtime). Pointers are device pointers (fuse_malloc or\n"
     << " * cudaMalloc); 16-byte aligned pointers take the vector path. */\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <stdint.h>\n#include \"fuse_runtime.h\"\n\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  if (auto entries = module->getAttrOfType<ArrayAttr>(EntryAttr::getAttrName()))
    for (Attribute a : entries)
      if (auto e = dyn_cast<EntryAttr>(a))
        emitEntry(os, e);
  os << "#ifdef __cplusplus\n} /* extern \"C\" */\n#endif\n\n#endif /* "
     << guard << " */\n";
  return out;
}

} // namespace fuse
