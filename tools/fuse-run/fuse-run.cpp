//===- fuse-run.cpp - JIT-run a fuse pipeline on the CPU ------------------===//
//
// Parses a module, lowers it with the `fuse-to-cpu` pipeline, JIT-compiles
// it with MLIR's ExecutionEngine at -O3 and calls one entry function on
// inputs read from .npy files or generated at random, then prints, saves
// and/or times the results. See `fuse-run --help`.
//
// Calling convention (ABI). After `fuse-to-cpu`, every tensor is an
// identity-layout memref and the public entry is an llvm.func whose memref
// parameters are expanded into their descriptor fields (allocated pointer,
// aligned pointer, offset, sizes..., strides...) by convert-func-to-llvm.
// fuse-run calls the ExecutionEngine's packed wrapper `_mlir_<entry>`
// (ExecutionEngine::invokePacked): one pointer per LLVM parameter, then
// one pointer to storage for the return value. The return value is the
// descriptor struct of a single memref result, or a struct with one member
// per result (natural C layout). No `llvm.emit_c_interface` is needed.
//
// Inputs are read-only: tensor arguments of the entry get
// `bufferization.writable = false` before lowering, so bufferization never
// writes into the caller's arrays. Result buffers are malloc'd by the
// generated code; fuse-run copies them out (honouring offset and strides,
// and reading dynamic sizes, such as a filter's count, from the returned
// descriptor) and frees each distinct allocated pointer once, skipping
// pointers of inputs and of constant globals.
//
//===----------------------------------------------------------------------===//

#include "Npy.h"

#include "fuse/InitAll.h"
#include "fuse/Pipelines/Pipelines.h"
#include "fuse/Support/LLVM.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <math.h>
#include <random>
#include <string>
#include <vector>

using namespace fuse;
namespace cl = llvm::cl;

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

static cl::OptionCategory runCat("fuse-run options");

static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("<input .mlir file, or - for "
                                               "stdin>"),
                                      cl::init("-"), cl::cat(runCat));

static cl::opt<std::string>
    entryName("entry",
              cl::desc("Function to run (default: the only public function "
                       "with a body)"),
              cl::value_desc("NAME"), cl::cat(runCat));

static cl::list<std::string> argSpecs(
    "arg",
    cl::desc("One per entry argument, in order. SPEC is PATH.npy, "
             "rand:SHAPE (SHAPE: 1000003, 64x4096, 0, or 'scalar' for rank "
             "0; floats uniform in [-1,1) and never 0, integers uniform in "
             "[-100,100], i1 random bits) or scalar:VALUE for a non-tensor "
             "argument"),
    cl::value_desc("SPEC"), cl::cat(runCat));

static cl::opt<uint64_t> seed("seed",
                              cl::desc("Seed of the rand: generator (default "
                                       "0; same seed, same inputs)"),
                              cl::init(0), cl::cat(runCat));

static cl::opt<std::string>
    outDir("out",
           cl::desc("Write result i to DIR/result<i>.npy (DIR is created)"),
           cl::value_desc("DIR"), cl::cat(runCat));

static cl::opt<bool>
    saveInputs("save-inputs",
               cl::desc("Also write the inputs used to DIR/arg<i>.npy "
                        "(needs --out; non-tensor arguments are saved as "
                        "rank-0 arrays)"),
               cl::cat(runCat));

static cl::opt<bool>
    printResults("print",
                 cl::desc("Print each result (shape, dtype, values; long "
                          "arrays elided as numpy does) on stdout"),
                 cl::cat(runCat));

static cl::opt<unsigned> repeat(
    "repeat",
    cl::desc("After the first (warm-up) call, time N more calls and print "
             "'time: median X ms, min Y ms over N runs' on stdout"),
    cl::value_desc("N"), cl::init(0), cl::cat(runCat));

static cl::opt<bool>
    noFusion("no-fusion",
             cl::desc("Build fuse-to-cpu with fusion=false (one loop nest "
                      "per op)"),
             cl::cat(runCat));

static cl::opt<bool>
    dumpLLVM("dump-llvm",
             cl::desc("Print the lowered LLVM-dialect module on stdout and "
                      "exit (no arguments needed)"),
             cl::cat(runCat));

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

[[noreturn]] static void fail(const llvm::Twine &message) {
  llvm::outs().flush();
  llvm::errs() << "fuse-run: " << message << "\n";
  std::exit(1);
}

static std::string typeString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

//===----------------------------------------------------------------------===//
// Element types and host arrays
//===----------------------------------------------------------------------===//

namespace {

enum class Elem { I1, I8, I16, I32, I64, Index, F16, BF16, F32, F64 };

std::optional<Elem> elemOf(Type t) {
  if (auto it = dyn_cast<IntegerType>(t)) {
    if (it.isUnsigned())
      return std::nullopt;
    switch (it.getWidth()) {
    case 1:
      return Elem::I1;
    case 8:
      return Elem::I8;
    case 16:
      return Elem::I16;
    case 32:
      return Elem::I32;
    case 64:
      return Elem::I64;
    default:
      return std::nullopt;
    }
  }
  if (isa<IndexType>(t))
    return Elem::Index;
  if (t.isF16())
    return Elem::F16;
  if (t.isBF16())
    return Elem::BF16;
  if (t.isF32())
    return Elem::F32;
  if (t.isF64())
    return Elem::F64;
  return std::nullopt;
}

unsigned widthOf(Elem e) {
  switch (e) {
  case Elem::I1:
  case Elem::I8:
    return 1;
  case Elem::I16:
  case Elem::F16:
  case Elem::BF16:
    return 2;
  case Elem::I32:
  case Elem::F32:
    return 4;
  case Elem::I64:
  case Elem::Index:
  case Elem::F64:
    return 8;
  }
  return 1;
}

bool isFloat(Elem e) {
  return e == Elem::F16 || e == Elem::BF16 || e == Elem::F32 || e == Elem::F64;
}

/// The .npy dtype of `e`; bf16 has none.
std::optional<npy::DType> npyOf(Elem e) {
  switch (e) {
  case Elem::I1:
    return npy::DType::Bool;
  case Elem::I8:
    return npy::DType::Int8;
  case Elem::I16:
    return npy::DType::Int16;
  case Elem::I32:
    return npy::DType::Int32;
  case Elem::I64:
  case Elem::Index:
    return npy::DType::Int64;
  case Elem::F16:
    return npy::DType::Float16;
  case Elem::F32:
    return npy::DType::Float32;
  case Elem::F64:
    return npy::DType::Float64;
  case Elem::BF16:
    return std::nullopt;
  }
  return std::nullopt;
}

const char *elemName(Elem e) {
  if (auto d = npyOf(e))
    return npy::dtypeName(*d);
  return "bfloat16";
}

const llvm::fltSemantics &semanticsOf(Elem e) {
  switch (e) {
  case Elem::F16:
    return llvm::APFloat::IEEEhalf();
  case Elem::BF16:
    return llvm::APFloat::BFloat();
  case Elem::F32:
    return llvm::APFloat::IEEEsingle();
  default:
    return llvm::APFloat::IEEEdouble();
  }
}

/// Stores `v` rounded to float type `e` at `dst`; returns the stored value.
double storeFloat(Elem e, double v, uint8_t *dst) {
  if (e == Elem::F64) {
    std::memcpy(dst, &v, 8);
    return v;
  }
  if (e == Elem::F32) {
    float f = static_cast<float>(v);
    std::memcpy(dst, &f, 4);
    return f;
  }
  llvm::APFloat ap(v);
  bool losesInfo;
  ap.convert(semanticsOf(e), llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  uint16_t bits = static_cast<uint16_t>(ap.bitcastToAPInt().getZExtValue());
  std::memcpy(dst, &bits, 2);
  return ap.convertToDouble();
}

double loadFloat(Elem e, const uint8_t *src) {
  if (e == Elem::F64) {
    double d;
    std::memcpy(&d, src, 8);
    return d;
  }
  if (e == Elem::F32) {
    float f;
    std::memcpy(&f, src, 4);
    return f;
  }
  uint16_t bits;
  std::memcpy(&bits, src, 2);
  llvm::APFloat ap(semanticsOf(e), llvm::APInt(16, bits));
  bool losesInfo;
  ap.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
             &losesInfo);
  return ap.convertToDouble();
}

void storeInt(Elem e, int64_t v, uint8_t *dst) {
  switch (widthOf(e)) {
  case 1: {
    int8_t x = static_cast<int8_t>(e == Elem::I1 ? (v != 0) : v);
    std::memcpy(dst, &x, 1);
    return;
  }
  case 2: {
    int16_t x = static_cast<int16_t>(v);
    std::memcpy(dst, &x, 2);
    return;
  }
  case 4: {
    int32_t x = static_cast<int32_t>(v);
    std::memcpy(dst, &x, 4);
    return;
  }
  default:
    std::memcpy(dst, &v, 8);
  }
}

int64_t loadInt(Elem e, const uint8_t *src) {
  switch (widthOf(e)) {
  case 1: {
    int8_t x;
    std::memcpy(&x, src, 1);
    return e == Elem::I1 ? (x & 1) : x;
  }
  case 2: {
    int16_t x;
    std::memcpy(&x, src, 2);
    return x;
  }
  case 4: {
    int32_t x;
    std::memcpy(&x, src, 4);
    return x;
  }
  default: {
    int64_t x;
    std::memcpy(&x, src, 8);
    return x;
  }
  }
}

/// A C-order array on the host (or a scalar, with rank 0).
struct HostArray {
  Elem elem = Elem::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
  int64_t numElements() const { return npy::numElements(shape); }
};

/// One argument or result of the entry, from its signature before lowering.
struct Slot {
  Type type;
  bool isTensor = false;
  Elem elem = Elem::F32;
  std::vector<int64_t> shape; // ShapedType::kDynamic for dynamic sizes
  unsigned rank() const { return shape.size(); }
};

constexpr int64_t kMaxRank = 16;

Slot describe(Type type, const llvm::Twine &what) {
  Slot s;
  s.type = type;
  if (auto t = dyn_cast<RankedTensorType>(type)) {
    s.isTensor = true;
    s.shape.assign(t.getShape().begin(), t.getShape().end());
    if (t.getRank() > kMaxRank)
      fail(what + ": rank " + llvm::Twine(t.getRank()) +
           " is above fuse-run's limit of " + llvm::Twine(kMaxRank));
    type = t.getElementType();
  } else if (isa<ShapedType>(type)) {
    fail(what + ": unsupported type " + typeString(type) +
         " (fuse-run passes ranked tensors and scalars)");
  }
  std::optional<Elem> e = elemOf(type);
  if (!e)
    fail(what + ": unsupported element type " + typeString(type) +
         " (supported: i1, i8, i16, i32, i64, index, f16, bf16, f32, f64)");
  s.elem = *e;
  return s;
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

/// 64-bit generator, reproducible across platforms (std distributions are
/// not): splitmix64.
struct Rng {
  uint64_t state;
  explicit Rng(uint64_t s) : state(s) {}
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [-1, 1).
  double symmetric() { return double(next() >> 11) * 0x1.0p-52 - 1.0; }
};

constexpr uint64_t kMaxBytes = uint64_t(1) << 38;

std::string gotString(const HostArray &a, const char *dtype) {
  return std::string(dtype) + " array of shape " + npy::shapeString(a.shape);
}

void checkShape(const Slot &slot, const HostArray &a, const char *dtype,
                const llvm::Twine &what) {
  bool ok = a.shape.size() == slot.rank();
  for (unsigned d = 0; ok && d < slot.rank(); ++d)
    ok = slot.shape[d] == ShapedType::kDynamic || slot.shape[d] == a.shape[d];
  if (!ok)
    fail(what + ": expected " + typeString(slot.type) + ", got " +
         gotString(a, dtype));
}

std::vector<int64_t> parseShape(StringRef text, const llvm::Twine &what) {
  std::vector<int64_t> shape;
  if (text == "scalar")
    return shape;
  SmallVector<StringRef> parts;
  text.split(parts, 'x');
  bool tooLarge = false;
  uint64_t count = 1;
  for (StringRef p : parts) {
    uint64_t v;
    if (p.empty() || p.getAsInteger(10, v) || v > uint64_t(INT64_MAX))
      fail(what + ": bad shape '" + text +
           "' (expected sizes joined by 'x', like 64x4096, or 'scalar')");
    shape.push_back(static_cast<int64_t>(v));
    if (v > kMaxBytes)
      tooLarge = true;
    else
      count = std::min<uint64_t>(count * v, kMaxBytes + 1);
  }
  if ((tooLarge && count != 0) || count * 8 > kMaxBytes)
    fail(what + ": shape '" + text + "' is too large");
  return shape;
}

HostArray makeRandom(const Slot &slot, StringRef shapeText, Rng &rng,
                     const llvm::Twine &what) {
  HostArray a;
  a.elem = slot.elem;
  a.shape = parseShape(shapeText, what);
  checkShape(slot, a, elemName(slot.elem), what);
  int64_t n = a.numElements();
  unsigned w = widthOf(a.elem);
  a.data.resize(size_t(n) * w);
  for (int64_t i = 0; i < n; ++i) {
    uint8_t *dst = a.data.data() + i * w;
    if (isFloat(a.elem)) {
      // Redraw values that round to zero in the element type.
      while (storeFloat(a.elem, rng.symmetric(), dst) == 0.0) {
      }
    } else if (a.elem == Elem::I1) {
      storeInt(a.elem, int64_t(rng.next() >> 63), dst);
    } else {
      storeInt(a.elem, int64_t(rng.next() % 201) - 100, dst);
    }
  }
  return a;
}

HostArray readNpy(const Slot &slot, const std::string &path,
                  const llvm::Twine &what) {
  npy::Array file;
  std::string error;
  if (!npy::readFile(path, file, error))
    fail(what + ": " + path + ": " + error);
  HostArray a;
  a.elem = slot.elem;
  a.shape = file.shape;
  std::optional<npy::DType> want = npyOf(slot.elem);
  if (!want)
    fail(what + ": " + path + ": bf16 has no .npy dtype (use rand:SHAPE)");
  if (*want != file.dtype || a.shape.size() != slot.rank())
    fail(what + ": expected " + typeString(slot.type) + ", got " +
         gotString(a, npy::dtypeName(file.dtype)));
  checkShape(slot, a, npy::dtypeName(file.dtype), what);
  a.data = std::move(file.data);
  if (a.elem == Elem::I1)
    for (uint8_t &b : a.data)
      if (b > 1)
        fail(what + ": " + path +
             ": bool array holds a byte other than 0 "
             "or 1");
  return a;
}

HostArray parseScalar(const Slot &slot, StringRef text,
                      const llvm::Twine &what) {
  HostArray a;
  a.elem = slot.elem;
  a.data.resize(widthOf(slot.elem));
  if (isFloat(slot.elem)) {
    double v;
    if (text.trim().getAsDouble(v))
      fail(what + ": bad " + typeString(slot.type) + " value '" + text + "'");
    storeFloat(slot.elem, v, a.data.data());
    return a;
  }
  int64_t v;
  if (slot.elem == Elem::I1 && (text == "true" || text == "false"))
    v = text == "true";
  else if (text.trim().getAsInteger(0, v))
    fail(what + ": bad " + typeString(slot.type) + " value '" + text + "'");
  unsigned bits = slot.elem == Elem::Index ? 64 : widthOf(slot.elem) * 8;
  if (slot.elem == Elem::I1 ? (v != 0 && v != 1)
                            : (bits < 64 && (v < -(int64_t(1) << (bits - 1)) ||
                                             v >= (int64_t(1) << bits))))
    fail(what + ": value '" + text + "' does not fit " + typeString(slot.type));
  storeInt(slot.elem, v, a.data.data());
  return a;
}

HostArray makeInput(const Slot &slot, StringRef spec, Rng &rng,
                    const llvm::Twine &what) {
  if (spec.consume_front("scalar:")) {
    if (slot.isTensor)
      fail(what + ": " + typeString(slot.type) +
           " is a tensor: give PATH.npy or rand:SHAPE, not scalar:VALUE");
    return parseScalar(slot, spec, what);
  }
  if (!slot.isTensor)
    fail(what + ": " + typeString(slot.type) +
         " is not a tensor: give scalar:VALUE");
  if (spec.consume_front("rand:"))
    return makeRandom(slot, spec, rng, what);
  if (spec.ends_with(".npy"))
    return readNpy(slot, spec.str(), what);
  fail(what + ": bad spec '" + spec +
       "' (expected PATH.npy, rand:SHAPE or scalar:VALUE)");
}

void writeNpy(const HostArray &a, const std::string &path,
              const llvm::Twine &what) {
  std::optional<npy::DType> d = npyOf(a.elem);
  if (!d)
    fail(what + ": bf16 has no .npy dtype; cannot write " + path);
  npy::Array out;
  out.dtype = *d;
  out.shape = a.shape;
  out.data = a.data;
  std::string error;
  if (!npy::writeFile(path, out, error))
    fail(path + ": " + error);
}

//===----------------------------------------------------------------------===//
// Printing (numpy-like: threshold 1000 elements, 3 edge items)
//===----------------------------------------------------------------------===//

std::string formatElement(Elem e, const uint8_t *p) {
  char buf[64];
  if (isFloat(e)) {
    double v = loadFloat(e, p);
    if (std::isnan(v))
      return "nan";
    if (std::isinf(v))
      return v > 0 ? "inf" : "-inf";
    std::snprintf(buf, sizeof(buf), e == Elem::F64 ? "%.16g" : "%.8g", v);
    return buf;
  }
  int64_t v = loadInt(e, p);
  if (e == Elem::I1)
    return v ? "True" : "False";
  std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(v));
  return buf;
}

void printLevel(llvm::raw_ostream &os, const HostArray &a, unsigned dim,
                int64_t base, bool elide, unsigned indent) {
  int64_t size = a.shape[dim];
  int64_t stride = 1;
  for (unsigned d = dim + 1; d < a.shape.size(); ++d)
    stride *= a.shape[d];
  os << "[";
  bool last = dim + 1 == a.shape.size();
  for (int64_t i = 0; i < size; ++i) {
    if (elide && size > 6 && i == 3) {
      os << (last ? "..., " : "...,\n" + std::string(indent + 1, ' '));
      i = size - 3;
    }
    if (last)
      os << formatElement(a.elem, a.data.data() + (base + i) * widthOf(a.elem));
    else
      printLevel(os, a, dim + 1, base + i * stride, elide, indent + 1);
    if (i + 1 < size)
      os << (last ? ", " : ",\n" + std::string(indent + 1, ' '));
  }
  os << "]";
}

void printArray(llvm::raw_ostream &os, const HostArray &a) {
  if (a.shape.empty()) {
    os << formatElement(a.elem, a.data.data()) << "\n";
    return;
  }
  printLevel(os, a, 0, 0, a.numElements() > 1000, 0);
  os << "\n";
}

//===----------------------------------------------------------------------===//
// Calling the JIT-compiled entry
//===----------------------------------------------------------------------===//

/// Byte size and alignment of a lowered argument/result: a memref
/// descriptor {ptr, ptr, i64, [r x i64], [r x i64]} or a scalar.
std::pair<size_t, size_t> loweredLayout(const Slot &s) {
  if (s.isTensor)
    return {8 * (3 + 2 * s.rank()), 8};
  size_t w = widthOf(s.elem);
  return {w, w};
}

constexpr uintptr_t kGlobalSentinel = 0xdeadbeef;

struct Invocation {
  const std::vector<Slot> &args;
  const std::vector<Slot> &results;
  const std::vector<HostArray> &inputs;

  /// One 8-byte slot per lowered parameter; scalars sit in the low bytes
  /// (little-endian hosts).
  std::vector<uint64_t> params;
  std::vector<size_t> resultOffsets;
  std::vector<uint64_t> resultStorage;
  llvm::SmallPtrSet<void *, 8> inputPointers;

  Invocation(const std::vector<Slot> &args, const std::vector<Slot> &results,
             const std::vector<HostArray> &inputs)
      : args(args), results(results), inputs(inputs) {
    static uint64_t emptyStorage[2];
    for (size_t i = 0; i < args.size(); ++i) {
      const HostArray &in = inputs[i];
      if (!args[i].isTensor) {
        uint64_t slot = 0;
        std::memcpy(&slot, in.data.data(), in.data.size());
        params.push_back(slot);
        continue;
      }
      void *ptr = in.data.empty() ? static_cast<void *>(emptyStorage)
                                  : const_cast<uint8_t *>(in.data.data());
      inputPointers.insert(ptr);
      params.push_back(reinterpret_cast<uintptr_t>(ptr)); // allocated
      params.push_back(reinterpret_cast<uintptr_t>(ptr)); // aligned
      params.push_back(0);                                // offset
      for (int64_t s : in.shape)
        params.push_back(uint64_t(s));
      int64_t stride = 1;
      std::vector<uint64_t> strides(in.shape.size());
      for (int64_t d = int64_t(in.shape.size()) - 1; d >= 0; --d) {
        strides[d] = uint64_t(stride);
        stride *= std::max<int64_t>(in.shape[d], 1);
      }
      params.insert(params.end(), strides.begin(), strides.end());
    }
    // Natural C layout of the returned struct.
    size_t offset = 0, align = 1;
    for (const Slot &r : results) {
      auto [size, a] = loweredLayout(r);
      offset = (offset + a - 1) / a * a;
      resultOffsets.push_back(offset);
      offset += size;
      align = std::max(align, a);
    }
    resultStorage.assign((offset + 7) / 8 + 1, 0);
  }

  size_t numParams() const { return params.size(); }

  /// Calls the packed wrapper once; results stay in resultStorage.
  void call(ExecutionEngine &engine, StringRef name) {
    std::fill(resultStorage.begin(), resultStorage.end(), 0);
    SmallVector<void *> packed;
    for (uint64_t &p : params)
      packed.push_back(&p);
    packed.push_back(resultStorage.data());
    if (llvm::Error err = engine.invokePacked(name, packed))
      fail("calling '" + name + "' failed: " + llvm::toString(std::move(err)));
  }

  const uint8_t *resultBytes(size_t i) const {
    return reinterpret_cast<const uint8_t *>(resultStorage.data()) +
           resultOffsets[i];
  }

  /// Copies the results out of the returned buffers.
  std::vector<HostArray> collect() const {
    std::vector<HostArray> out;
    for (size_t i = 0; i < results.size(); ++i) {
      const Slot &r = results[i];
      const uint8_t *bytes = resultBytes(i);
      HostArray a;
      a.elem = r.elem;
      unsigned w = widthOf(r.elem);
      if (!r.isTensor) {
        a.data.assign(bytes, bytes + w);
        out.push_back(std::move(a));
        continue;
      }
      int64_t f[3 + 2 * kMaxRank];
      std::memcpy(f, bytes, 8 * (3 + 2 * r.rank()));
      const uint8_t *aligned = reinterpret_cast<const uint8_t *>(f[1]);
      int64_t offset = f[2];
      a.shape.assign(f + 3, f + 3 + r.rank());
      const int64_t *strides = f + 3 + r.rank();
      for (int64_t s : a.shape)
        if (s < 0)
          fail("result #" + llvm::Twine(i) + " has a negative size");
      int64_t n = a.numElements();
      a.data.resize(size_t(n) * w);
      // Strided copy, innermost dimension fastest.
      std::vector<int64_t> idx(r.rank(), 0);
      for (int64_t k = 0; k < n; ++k) {
        int64_t src = offset;
        for (unsigned d = 0; d < r.rank(); ++d)
          src += idx[d] * strides[d];
        std::memcpy(a.data.data() + k * w, aligned + src * w, w);
        for (int64_t d = int64_t(r.rank()) - 1; d >= 0; --d) {
          if (++idx[d] < a.shape[d])
            break;
          idx[d] = 0;
        }
      }
      out.push_back(std::move(a));
    }
    return out;
  }

  /// Frees every distinct result allocation that is not an input's nor a
  /// constant global's.
  void freeResults() {
    llvm::SmallPtrSet<void *, 8> freed;
    for (size_t i = 0; i < results.size(); ++i) {
      if (!results[i].isTensor)
        continue;
      void *allocated;
      std::memcpy(&allocated, resultBytes(i), sizeof(void *));
      if (!allocated ||
          reinterpret_cast<uintptr_t>(allocated) == kGlobalSentinel ||
          inputPointers.contains(allocated) || !freed.insert(allocated).second)
        continue;
      std::free(allocated);
    }
  }
};

/// libm functions the lowered code may call (math-to-llvm intrinsics and
/// math-to-libm calls), bound explicitly so they resolve even where the
/// process symbol search does not see libm.
llvm::orc::SymbolMap libmSymbols(llvm::orc::MangleAndInterner interner) {
  llvm::orc::SymbolMap map;
  auto add = [&](const char *name, auto *fn) {
    map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(fn),
                           llvm::JITSymbolFlags::Exported};
  };
  using F1 = float (*)(float);
  using D1 = double (*)(double);
  using F2 = float (*)(float, float);
  using D2 = double (*)(double, double);
  add("expf", static_cast<F1>(::expf));
  add("exp", static_cast<D1>(::exp));
  add("exp2f", static_cast<F1>(::exp2f));
  add("exp2", static_cast<D1>(::exp2));
  add("expm1f", static_cast<F1>(::expm1f));
  add("expm1", static_cast<D1>(::expm1));
  add("logf", static_cast<F1>(::logf));
  add("log", static_cast<D1>(::log));
  add("log2f", static_cast<F1>(::log2f));
  add("log2", static_cast<D1>(::log2));
  add("log10f", static_cast<F1>(::log10f));
  add("log10", static_cast<D1>(::log10));
  add("log1pf", static_cast<F1>(::log1pf));
  add("log1p", static_cast<D1>(::log1p));
  add("sqrtf", static_cast<F1>(::sqrtf));
  add("sqrt", static_cast<D1>(::sqrt));
  add("tanhf", static_cast<F1>(::tanhf));
  add("tanh", static_cast<D1>(::tanh));
  add("sinf", static_cast<F1>(::sinf));
  add("sin", static_cast<D1>(::sin));
  add("cosf", static_cast<F1>(::cosf));
  add("cos", static_cast<D1>(::cos));
  add("tanf", static_cast<F1>(::tanf));
  add("tan", static_cast<D1>(::tan));
  add("atanf", static_cast<F1>(::atanf));
  add("atan", static_cast<D1>(::atan));
  add("erff", static_cast<F1>(::erff));
  add("erf", static_cast<D1>(::erf));
  add("powf", static_cast<F2>(::powf));
  add("pow", static_cast<D2>(::pow));
  add("atan2f", static_cast<F2>(::atan2f));
  add("atan2", static_cast<D2>(::atan2));
  add("fmodf", static_cast<F2>(::fmodf));
  add("fmod", static_cast<D2>(::fmod));
  return map;
}

} // namespace

//===----------------------------------------------------------------------===//
// main
//===----------------------------------------------------------------------===//

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(runCat);
  cl::ParseCommandLineOptions(
      argc, argv,
      "fuse-run: JIT-run an entry function of a fuse pipeline on the CPU\n\n"
      "Lowers FILE with the fuse-to-cpu pipeline, compiles it at -O3 and "
      "calls the entry once\n(plus --repeat timed calls). Results are "
      "copied out of the generated code's buffers.\nErrors print "
      "'fuse-run: ...' (argument numbers count from 0) and exit 1.\n");

  // The pipeline is built from its textual form: its passes must be
  // registered.
  fuse::registerAllPasses();
  DialectRegistry registry;
  fuse::registerAllDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFile, &errorMessage);
  if (!file)
    fail("cannot open '" + inputFile + "': " + errorMessage);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    fail("cannot parse '" + inputFile + "'");

  // Pick the entry.
  std::vector<func::FuncOp> publicFuncs;
  for (auto f : module->getOps<func::FuncOp>())
    if (f.isPublic() && !f.isDeclaration())
      publicFuncs.push_back(f);
  std::string candidates;
  for (func::FuncOp f : publicFuncs)
    candidates += (candidates.empty() ? "" : ", ") + f.getName().str();
  if (candidates.empty())
    candidates = "none";
  func::FuncOp entry;
  if (!entryName.empty()) {
    for (func::FuncOp f : publicFuncs)
      if (f.getName() == entryName)
        entry = f;
    if (!entry)
      fail("no public function named '" + entryName +
           "' (candidates: " + candidates + ")");
  } else if (publicFuncs.size() == 1) {
    entry = publicFuncs.front();
  } else if (publicFuncs.empty()) {
    fail("'" + inputFile + "' has no public function with a body to run");
  } else {
    fail("several public functions (" + candidates +
         "): choose one with --entry NAME");
  }
  std::string name = entry.getName().str();

  // The signature before lowering.
  FunctionType fnType = entry.getFunctionType();
  std::vector<Slot> argSlots, resultSlots;
  for (auto [i, t] : llvm::enumerate(fnType.getInputs()))
    argSlots.push_back(describe(t, "argument #" + llvm::Twine(i)));
  for (auto [i, t] : llvm::enumerate(fnType.getResults()))
    resultSlots.push_back(describe(t, "result #" + llvm::Twine(i)));

  // Inputs first, so bad arguments fail fast.
  std::vector<HostArray> inputs;
  if (!dumpLLVM) {
    if (argSpecs.size() != argSlots.size())
      fail("'" + name + "' takes " + llvm::Twine(argSlots.size()) +
           " argument(s), got " + llvm::Twine(argSpecs.size()) + " --arg");
    if (saveInputs && outDir.empty())
      fail("--save-inputs needs --out DIR");
    Rng rng(seed);
    for (size_t i = 0; i < argSlots.size(); ++i)
      inputs.push_back(makeInput(argSlots[i], argSpecs[i], rng,
                                 "argument #" + llvm::Twine(i)));
    if (!outDir.empty()) {
      if (std::error_code ec = llvm::sys::fs::create_directories(outDir))
        fail("cannot create '" + outDir + "': " + ec.message());
    }
    if (saveInputs)
      for (size_t i = 0; i < inputs.size(); ++i) {
        llvm::SmallString<256> path(outDir);
        llvm::sys::path::append(path, "arg" + llvm::Twine(i) + ".npy");
        writeNpy(inputs[i], path.str().str(), "argument #" + llvm::Twine(i));
      }
  }

  // Inputs are read-only for the generated code.
  for (unsigned i = 0; i < entry.getNumArguments(); ++i)
    if (isa<TensorType>(entry.getArgument(i).getType()))
      entry.setArgAttr(i, "bufferization.writable",
                       BoolAttr::get(&context, false));

  PassManager pm(&context);
  FuseToCPUOptions options;
  options.fusion = !noFusion;
  buildFuseToCPUPipeline(pm, options);
  if (failed(pm.run(*module)))
    fail("lowering '" + inputFile + "' with fuse-to-cpu failed");

  if (dumpLLVM) {
    module->print(llvm::outs());
    llvm::outs() << "\n";
    return 0;
  }

  // Check the lowered signature against what the call will pass.
  auto lowered = module->lookupSymbol<LLVM::LLVMFuncOp>(name);
  if (!lowered)
    fail("'" + name + "' was not lowered to an llvm.func");
  Invocation inv(argSlots, resultSlots, inputs);
  if (lowered.getNumArguments() != inv.numParams())
    fail("'" + name + "' lowered to " + llvm::Twine(lowered.getNumArguments()) +
         " parameters, expected " + llvm::Twine(inv.numParams()) +
         " (unexpected calling convention)");

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb)
    fail("cannot detect the host target: " + llvm::toString(jtmb.takeError()));
  jtmb->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto tm = jtmb->createTargetMachine();
  if (!tm)
    fail("cannot create a target machine: " + llvm::toString(tm.takeError()));
  auto transformer = makeOptimizingTransformer(3, 0, tm->get());
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  auto engineOr =
      ExecutionEngine::create(*module, engineOptions, std::move(*tm));
  if (!engineOr)
    fail("JIT compilation failed: " + llvm::toString(engineOr.takeError()));
  std::unique_ptr<ExecutionEngine> engine = std::move(*engineOr);
  engine->registerSymbols(libmSymbols);
  engine->initialize();

  // First call: its results are the ones printed and saved.
  inv.call(*engine, name);
  std::vector<HostArray> outputs = inv.collect();
  inv.freeResults();

  if (printResults)
    for (size_t i = 0; i < outputs.size(); ++i) {
      llvm::outs() << "result #" << i << ": " << elemName(outputs[i].elem)
                   << " array of shape " << npy::shapeString(outputs[i].shape)
                   << "\n";
      printArray(llvm::outs(), outputs[i]);
    }
  if (!outDir.empty())
    for (size_t i = 0; i < outputs.size(); ++i) {
      llvm::SmallString<256> path(outDir);
      llvm::sys::path::append(path, "result" + llvm::Twine(i) + ".npy");
      writeNpy(outputs[i], path.str().str(), "result #" + llvm::Twine(i));
    }

  if (repeat > 0) {
    std::vector<double> ms;
    for (unsigned r = 0; r < repeat; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      inv.call(*engine, name);
      auto t1 = std::chrono::steady_clock::now();
      inv.freeResults();
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    double median = ms.size() % 2
                        ? ms[ms.size() / 2]
                        : (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) / 2;
    char buf[128];
    std::snprintf(buf, sizeof(buf),
                  "time: median %.4f ms, min %.4f ms over "
                  "%u runs\n",
                  median, ms.front(), unsigned(repeat));
    llvm::outs() << buf;
  }
  llvm::outs().flush();
  return 0;
}
