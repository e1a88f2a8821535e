//===- AOTCompile.cpp - fuse-compile's code path, shared with fuse-run ----===//
//
// See AOTCompile.h. The manifest's sizes are derived here from the ops of
// the entry before fusion (fusion does not change what a result holds):
// map, scan and filter keep the shape of their first input, reduce drops
// its reduced dimensions, gather takes the indices' shape, broadcast and
// iota take new sizes from index values, and a fuse.group result has the
// shape of the value its body yields. Index values are followed through
// arguments, constants, tensor.dim and integer arithmetic.
//
//===----------------------------------------------------------------------===//

#include "AOTCompile.h"

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

void makeGPUOptions(FuseToGPUOptions &o, const CompileOptions &options,
                    StringRef format) {
  o.chip = options.chip;
  o.features = options.features;
  o.optLevel = options.optLevel;
  o.ptxasOptLevel = options.ptxasOptLevel;
  o.jobs = options.jobs;
  o.toolkitPath = options.toolkitPath;
  o.format = format.str();
  o.fusion = options.fusion;
  o.tileOptions = options.tileOptions;
}

static bool isFuseOp(Operation *op) {
  return op->getDialect() && op->getDialect()->getNamespace() == "fuse";
}

/// Whether the module holds fuse ops or GPU modules, i.e. the pipeline
/// will serialize kernels and needs a CUDA toolkit.
static bool hasKernels(ModuleOp module) {
  return module
      .walk([](Operation *op) {
        return isa<gpu::GPUModuleOp>(op) || isFuseOp(op)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Functions without fuse ops pass through the GPU pipeline untouched
/// (convert-fuse-to-gpu leaves other code to its owner), but their tensors
/// have no lowering to the C ABI: an error at the function, not a failed
/// translation to LLVM IR after the pipeline.
static LogicalResult checkTensorFunctions(ModuleOp module) {
  auto isTensor = [](Type t) { return isa<TensorType>(t); };
  for (auto fn : module.getOps<func::FuncOp>()) {
    // (Declarations: convert-fuse-to-gpu drops unused private ones and
    // reports the others.)
    if (fn.isExternal())
      continue;
    bool hasFuse = fn.walk([](Operation *op) {
                       return isFuseOp(op) ? WalkResult::interrupt()
                                           : WalkResult::advance();
                     }).wasInterrupted();
    if (hasFuse)
      continue;
    if (llvm::any_of(fn.getArgumentTypes(), isTensor) ||
        llvm::any_of(fn.getResultTypes(), isTensor))
      return fn.emitError("fuse-compile: '")
             << fn.getSymName()
             << "' has tensor arguments or results but no fuse ops; "
                "fuse-compile compiles functions of fuse ops (to return an "
                "argument, copy it with a fuse.map that yields its element)";
  }
  return success();
}

LogicalResult runPipeline(ModuleOp module, const CompileOptions &options,
                          GPUPipelineStage stage, StringRef format,
                          const GPUSerializationSinks &sinks) {
  if (failed(checkTensorFunctions(module)))
    return failure();
  PassManager pm(module.getOperation()->getName());
  FuseToGPUOptions o;
  makeGPUOptions(o, options, format);
  std::string message;
  if (failed(checkTileOptions(o, message)))
    return module.emitError("fuse-compile: ") << message;
  if (hasKernels(module) && failed(checkCUDAToolkit(o, stage, message)))
    return module.emitError(message);
  buildFuseToGPUPipeline(pm, o, stage, sinks);
  if (options.timing)
    pm.enableTiming();
  return pm.run(module);
}

FailureOr<std::string> binaryBytes(ModuleOp module) {
  for (auto bin : module.getOps<gpu::BinaryOp>()) {
    auto obj = cast<gpu::ObjectAttr>(bin.getObjects()[0]);
    return obj.getObject().getValue().str();
  }
  return module.emitError("fuse-compile: no kernels were generated"),
         failure();
}

LogicalResult prefixEntries(ModuleOp module, StringRef prefix) {
  SymbolTable table(module);
  for (auto fn : llvm::to_vector(module.getOps<func::FuncOp>())) {
    if (!fn.isPublic() || fn.isExternal())
      continue;
    std::string name = (prefix + fn.getSymName()).str();
    if (table.lookup(name))
      return fn.emitError() << "fuse-compile: --prefix makes '" << name
                            << "', which already exists";
    if (failed(table.rename(fn, StringAttr::get(module.getContext(), name))))
      return failure();
  }
  return success();
}

/// Names of the entries described by convert-fuse-to-gpu.
static SmallVector<std::string> entryNames(ModuleOp module) {
  SmallVector<std::string> names;
  if (auto entries =
          module->getAttrOfType<ArrayAttr>(EntryAttr::getAttrName()))
    for (Attribute a : entries)
      if (auto e = dyn_cast<EntryAttr>(a))
        names.push_back(e.getName().str());
  return names;
}

LogicalResult addPackedWrappers(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Type ptrTy = LLVM::LLVMPointerType::get(ctx);
  for (const std::string &name : entryNames(module)) {
    auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
    if (!fn)
      return module.emitError("fuse-compile: entry '")
             << name << "' was not lowered to an llvm.func";
    std::string packedName = name + kPackedSuffix;
    if (module.lookupSymbol(packedName))
      return fn.emitError("fuse-compile: symbol '")
             << packedName << "' already exists";
    LLVM::LLVMFunctionType fnTy = fn.getFunctionType();
    Type resTy = fnTy.getReturnType();
    auto packedTy = LLVM::LLVMFunctionType::get(resTy, {ptrTy});
    Location loc = fn.getLoc();
    auto packed = LLVM::LLVMFuncOp::create(b, loc, packedName, packedTy);
    Block *entry = packed.addEntryBlock(b);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(entry);
    Value args = entry->getArgument(0);
    SmallVector<Value> operands;
    for (auto [i, t] : llvm::enumerate(fnTy.getParams())) {
      Value slot = LLVM::GEPOp::create(b, loc, ptrTy, ptrTy, args,
                                       ArrayRef<LLVM::GEPArg>{int32_t(i)});
      Value addr = LLVM::LoadOp::create(b, loc, ptrTy, slot);
      operands.push_back(LLVM::LoadOp::create(b, loc, t, addr));
    }
    auto call = LLVM::CallOp::create(b, loc, fn, operands);
    if (isa<LLVM::LLVMVoidType>(resTy))
      LLVM::ReturnOp::create(b, loc, ValueRange{});
    else
      LLVM::ReturnOp::create(b, loc, call.getResult());
  }
  return success();
}

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
    os << "  {\"name\": " << compact(fn.getSymName()) << ", \"symbol\": "
       << compact(symbol) << ", \"packed\": "
       << compact(symbol + kPackedSuffix) << ",\n   \"args\": [";
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

LogicalResult linkSharedLibrary(StringRef objectPath, StringRef libraryPath,
                                const CompileOptions &options) {
  std::string driver;
  if (!options.linker.empty()) {
    auto p = llvm::sys::findProgramByName(options.linker);
    if (!p) {
      llvm::errs() << "fuse-compile: linker '" << options.linker
                   << "' not found\n";
      return failure();
    }
    driver = *p;
  } else {
    for (const char *name : {"cc", "gcc", "clang"})
      if (auto p = llvm::sys::findProgramByName(name)) {
        driver = *p;
        break;
      }
    if (driver.empty()) {
      llvm::errs() << "fuse-compile: no C compiler (cc, gcc or clang) on PATH "
                      "to link the shared library; give one with --linker\n";
      return failure();
    }
  }
  // -Bsymbolic: the wrappers' calls bind to the library's own entries, so
  // an entry named like a libc function (select) is never interposed.
  SmallVector<StringRef> args = {driver,     "-shared",
                                 "-o",       libraryPath,
                                 objectPath, "-Wl,-Bsymbolic",
                                 "-Wl,-z,noexecstack"};
  std::string err;
  int rc = llvm::sys::ExecuteAndWait(driver, args, std::nullopt, {}, 0, 0,
                                     &err);
  if (rc != 0) {
    llvm::errs() << "fuse-compile: linking '" << libraryPath << "' with "
                 << driver << " failed"
                 << (err.empty() ? " (exit status " + std::to_string(rc) + ")"
                                 : ": " + err)
                 << "\n";
    return failure();
  }
  return success();
}

static LogicalResult writeFile(StringRef path, StringRef data) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (!ec) {
    os << data;
    os.close();
    ec = os.error();
  }
  if (ec) {
    llvm::errs() << "fuse-compile: cannot write '" << path
                 << "': " << ec.message() << "\n";
    return failure();
  }
  return success();
}

LogicalResult compileShared(ModuleOp module, const CompileOptions &options,
                            StringRef libraryPath, StringRef manifestPath) {
  OwningOpRef<ModuleOp> source = module.clone();
  if (!options.prefix.empty() && failed(prefixEntries(module, options.prefix)))
    return failure();
  if (failed(runPipeline(module, options, GPUPipelineStage::LLVM,
                         options.format)) ||
      failed(addPackedWrappers(module)))
    return failure();
  FailureOr<std::string> manifest = buildManifest(
      *source, module, options, llvm::sys::path::filename(libraryPath));
  if (failed(manifest))
    return failure();
  FailureOr<std::string> obj = emitHostObject(module);
  if (failed(obj))
    return failure();
  llvm::SmallString<128> objPath;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "fuse-compile", "o", objPath)) {
    llvm::errs() << "fuse-compile: cannot create a temporary file: "
                 << ec.message() << "\n";
    return failure();
  }
  llvm::FileRemover removeObj(objPath);
  if (failed(writeFile(objPath, *obj)) ||
      failed(linkSharedLibrary(objPath, libraryPath, options)) ||
      failed(writeFile(manifestPath, *manifest)))
    return failure();
  return success();
}

} // namespace aot
} // namespace fuse
