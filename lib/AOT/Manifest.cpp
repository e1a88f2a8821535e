//===- Manifest.cpp - the AOT signature manifest ---------------------------===//
//
// See AOTCompile.h for the format. The sizes of the results are derived
// from the entry before fusion (fusion does not change what a result
// holds) by the dialect's shape rule (fuse/Dialect/Fuse/IR/Shapes.h), with
// the entry's arguments as leaves; index values are followed through
// arguments, constants, tensor.dim and integer arithmetic.
//
//===----------------------------------------------------------------------===//

#include "fuse/AOT/AOTCompile.h"

#include "fuse/Conversion/FuseToGPU/FuseToGPU.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/Fuse/IR/Shapes.h"
#include "fuse/Dialect/Fuse/Utils/SizeAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace fuse {
namespace aot {

//===----------------------------------------------------------------------===//
// The manifest
//===----------------------------------------------------------------------===//

namespace {

std::string typeString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

/// Sizes of an entry's values as expressions over its arguments.
struct SizeInfer {
  DenseMap<Value, std::string> scalars;
  DenseMap<Value, SmallVector<std::string>> tensors;

  static std::string bin(StringRef op, StringRef a, StringRef c) {
    return ("(" + a + " " + op + " " + c + ")").str();
  }
  static std::string fn(StringRef name, StringRef a, StringRef c) {
    return (name + "(" + a + ", " + c + ")").str();
  }

  FailureOr<std::string> scalar(Value v) {
    if (auto it = scalars.find(v); it != scalars.end())
      return it->second;
    if (Value outer = groupOperandOf(v))
      return scalar(outer);
    Operation *def = v.getDefiningOp();
    if (!def)
      return failure();
    if (auto c = dyn_cast<arith::ConstantOp>(def)) {
      if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
        return std::to_string(i.getInt());
      return failure();
    }
    if (auto d = dyn_cast<tensor::DimOp>(def)) {
      std::optional<int64_t> c = d.getConstantIndex();
      FailureOr<SmallVector<std::string>> src = dims(d.getSource());
      if (!c || failed(src) || *c < 0 || *c >= int64_t(src->size()))
        return failure();
      return (*src)[*c];
    }
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
            arith::ExtUIOp, arith::TruncIOp>(def))
      return scalar(def->getOperand(0));
    if (def->getNumOperands() != 2)
      return failure();
    FailureOr<std::string> a = scalar(def->getOperand(0));
    FailureOr<std::string> c = scalar(def->getOperand(1));
    if (failed(a) || failed(c))
      return failure();
    if (isa<arith::AddIOp>(def))
      return bin("+", *a, *c);
    if (isa<arith::SubIOp>(def))
      return bin("-", *a, *c);
    if (isa<arith::MulIOp>(def))
      return bin("*", *a, *c);
    if (isa<arith::DivSIOp, arith::DivUIOp>(def))
      return fn("div", *a, *c);
    if (isa<arith::CeilDivSIOp, arith::CeilDivUIOp>(def))
      return fn("ceildiv", *a, *c);
    if (isa<arith::FloorDivSIOp>(def))
      return fn("floordiv", *a, *c);
    if (isa<arith::RemSIOp, arith::RemUIOp>(def))
      return fn("rem", *a, *c);
    if (isa<arith::MinSIOp, arith::MinUIOp>(def))
      return fn("min", *a, *c);
    if (isa<arith::MaxSIOp, arith::MaxUIOp>(def))
      return fn("max", *a, *c);
    return failure();
  }

  /// The dialect's shape rule (dimOrigin) with the entry's arguments as
  /// leaves.
  FailureOr<SmallVector<std::string>> dims(Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t)
      return failure();
    if (auto it = tensors.find(v); it != tensors.end())
      return it->second;
    SmallVector<std::string> in;
    for (int64_t i = 0; i < t.getRank(); ++i) {
      if (!t.isDynamicDim(i)) {
        in.push_back(std::to_string(t.getDimSize(i)));
        continue;
      }
      DimOrigin o = dimOrigin(v, i);
      if (o.kind == DimOrigin::Kind::Dim) {
        FailureOr<SmallVector<std::string>> from = dims(o.value);
        if (failed(from) || o.dim >= int64_t(from->size()))
          return failure();
        in.push_back((*from)[o.dim]);
      } else if (o.kind == DimOrigin::Kind::Scalar) {
        FailureOr<std::string> e = scalar(o.value);
        if (failed(e))
          return failure();
        in.push_back(*e);
      } else {
        return failure();
      }
    }
    tensors[v] = in;
    return in;
  }
};

/// Whether function result `r` is sized by a fuse.filter's kept count (a
/// filter's result, or a map/scan/gather of one): the entry then takes an
/// `outK_count` for it, as the GPU host code declares.
bool isFilterResult(Value r) { return static_cast<bool>(filterCountSource(r)); }

std::string elemName(Type t) {
  if (t.isIndex())
    return "index";
  return typeString(t);
}

llvm::json::Array shapeOf(RankedTensorType t) {
  llvm::json::Array shape;
  for (int64_t d : t.getShape())
    shape.push_back(ShapedType::isDynamic(d) ? llvm::json::Value(nullptr)
                                             : llvm::json::Value(d));
  return shape;
}

std::string stripParens(const std::string &e) {
  if (e.size() < 2 || e.front() != '(' || e.back() != ')')
    return e;
  int depth = 0;
  for (size_t i = 0; i + 1 < e.size(); ++i) {
    depth += e[i] == '(' ? 1 : e[i] == ')' ? -1 : 0;
    if (depth == 0)
      return e; // the first '(' closes before the end
  }
  return e.substr(1, e.size() - 2);
}

std::string compact(const llvm::json::Value &v) {
  return llvm::formatv("{0}", v).str();
}

} // namespace

FailureOr<std::string> buildManifest(ModuleOp source, ModuleOp lowered,
                                     const CompileOptions &options,
                                     StringRef library) {
  SmallVector<std::string> compiled = entryNames(lowered);
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "{\"format\": \"fuse-aot-manifest\", \"version\": 1,\n"
     << " \"library\": " << compact(library) << ", \"chip\": "
     << compact(options.chip) << ",\n \"entries\": [";
  bool firstEntry = true;
  for (auto fn : source.getOps<func::FuncOp>()) {
    if (!fn.isPublic() || fn.isExternal())
      continue;
    std::string symbol = options.prefix + fn.getSymName().str();
    if (!llvm::is_contained(compiled, symbol))
      continue;
    SizeInfer infer;
    Block &body = fn.getBody().front();
    os << (firstEntry ? "\n" : ",\n");
    firstEntry = false;
    // The workspace form's packed wrapper, or null where there is none.
    llvm::json::Value wsPacked = nullptr;
    if (auto entries =
            lowered->getAttrOfType<ArrayAttr>(EntryAttr::getAttrName()))
      for (Attribute a : entries)
        if (auto e = dyn_cast<EntryAttr>(a);
            e && e.getName() == symbol &&
            e.getWorkspace() == WorkspaceForm::Available)
          wsPacked = symbol + kWorkspaceSuffix + kPackedSuffix;
    os << "  {\"name\": " << compact(fn.getSymName()) << ", \"symbol\": "
       << compact(symbol) << ", \"packed\": "
       << compact(symbol + kPackedSuffix)
       << ", \"workspace_packed\": " << compact(std::move(wsPacked))
       << ",\n   \"args\": [";
    for (auto [i, a] : llvm::enumerate(body.getArguments())) {
      llvm::json::Object o;
      std::string in = "in" + std::to_string(i);
      if (auto t = dyn_cast<RankedTensorType>(a.getType())) {
        o["kind"] = "tensor";
        o["type"] = typeString(t);
        o["dtype"] = elemName(t.getElementType());
        o["rank"] = t.getRank();
        o["shape"] = shapeOf(t);
        SmallVector<std::string> d;
        for (int64_t k = 0; k < t.getRank(); ++k)
          d.push_back(t.isDynamicDim(k) ? in + "_d" + std::to_string(k)
                                        : std::to_string(t.getDimSize(k)));
        infer.tensors[a] = d;
      } else {
        o["kind"] = "scalar";
        o["type"] = typeString(a.getType());
        o["dtype"] = elemName(a.getType());
        if (a.getType().isIntOrIndex())
          infer.scalars[a] = in;
      }
      os << (i ? ",\n    " : "\n    ") << compact(llvm::json::Value(std::move(o)));
    }
    os << "],\n   \"results\": [";
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    for (auto [i, r] : llvm::enumerate(ret.getOperands())) {
      llvm::json::Object o;
      auto t = dyn_cast<RankedTensorType>(r.getType());
      if (!t)
        return fn.emitError("fuse-compile: result #")
               << i << " of '" << fn.getSymName() << "' is not a tensor";
      o["type"] = typeString(t);
      o["dtype"] = elemName(t.getElementType());
      o["rank"] = t.getRank();
      o["shape"] = shapeOf(t);
      FailureOr<SmallVector<std::string>> d = infer.dims(r);
      if (failed(d)) {
        o["size"] = nullptr;
      } else {
        llvm::json::Array size;
        for (const std::string &e : *d)
          size.push_back(stripParens(e));
        o["size"] = std::move(size);
      }
      o["filter"] = isFilterResult(r);
      os << (i ? ",\n    " : "\n    ") << compact(llvm::json::Value(std::move(o)));
    }
    os << "]}";
  }
  os << "\n ]}\n";
  return out;
}

} // namespace aot
} // namespace fuse
