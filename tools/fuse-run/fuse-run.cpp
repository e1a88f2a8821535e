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
// --gpu compiles the module with fuse-compile's code path
// (fuse/AOT/AOTCompile.h) into a temporary shared library and
// manifest and hands them to the runner fuse-run-aot uses
// (fuse/ToolSupport/AOTRunner.h, tools/support), linked in where the
// runtime is built. Arguments, .npy files, printing and timing are shared
// with fuse-run-aot (fuse/ToolSupport/HostArray.h, no LLVM).
//
//===----------------------------------------------------------------------===//

#include "HostSymbols.h"
#include "Shards.h"

#include "fuse/AOT/AOTCompile.h"
#include "fuse/ToolSupport/HostArray.h"
#include "fuse/ToolSupport/Npy.h"
#ifdef FUSE_RUN_HAVE_RUNTIME
#include "fuse/ToolSupport/AOTRunner.h"
#endif

#include "fuse/Dialect/Fuse/Transforms/Passes.h"
#include "fuse/Dialect/Fuse/Utils/EntrySizeChecks.h"
#include "fuse/Dialect/Fuse/Utils/ShardPlan.h"
#include "fuse/Dialect/Fuse/Utils/SizeAnalysis.h"
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
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"

#include "llvm/ADT/ScopeExit.h"
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
#include <csetjmp>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <math.h>
#include <string>
#include <vector>

using namespace fuse;
namespace cl = llvm::cl;
namespace aot = fuse::aot;

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
             "[-100,100], i1 random bits) or scalar:VALUE for a non-tensor or "
             "rank-0 tensor "
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
    gpu("gpu",
        cl::desc("Run on the GPU instead: compile FILE like `fuse-compile "
                 "--emit=shared` into a temporary shared library and "
                 "manifest and run it through the fuse runtime, as "
                 "fuse-run-aot does (needs ptxas, a C compiler to link, and "
                 "a GPU with its driver)"),
        cl::cat(runCat));

static cl::opt<std::string>
    gpuChip("chip",
            cl::desc("With --gpu: the GPU architecture to compile for"),
            cl::value_desc("sm_XY"), cl::init("sm_90"), cl::cat(runCat));

static cl::opt<std::string>
    keepDir("keep-artifacts",
            cl::desc("With --gpu: write the shared library and manifest to "
                     "DIR/<entry>.so and DIR/<entry>.json and keep them"),
            cl::value_desc("DIR"), cl::cat(runCat));

static cl::opt<unsigned> shardCount(
    "shards",
    cl::desc("Also run the entry sharded over N shards on N threads "
             "(fuse-shard: each shard takes its part of the split "
             "arguments, the leading dimension of the first tensor argument "
             "or of --shard-arg and every size tied to it, and the shards "
             "meet in "
             "fuse.all_gather), join the shards' results and check them "
             "against the unsharded run; printed and saved results are the "
             "sharded run's"),
    cl::value_desc("N"), cl::init(0), cl::cat(runCat));

static cl::opt<int> shardArg(
    "shard-arg",
    cl::desc("With --shards: the argument whose leading dimension is split "
             "(counting from 0; default: the first tensor argument of rank 1 "
             "or more)"),
    cl::value_desc("I"), cl::init(-1), cl::cat(runCat));

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
  run::fail(message.str());
}

static std::string typeString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

//===----------------------------------------------------------------------===//
// Entry signature
//===----------------------------------------------------------------------===//

namespace {

using run::allocationFailure;
using run::Elem;
using run::failedAllocationBytes;
using run::HostArray;
using run::kMaxRank;
using run::sizeError;
using run::Slot;
using run::widthOf;

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

Slot describe(Type type, const llvm::Twine &what) {
  Slot s;
  s.typeText = typeString(type);
  if (auto t = dyn_cast<RankedTensorType>(type)) {
    s.isTensor = true;
    for (int64_t d : t.getShape())
      s.shape.push_back(ShapedType::isDynamic(d) ? run::kDynamic : d);
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

/// The run-time size checks of `entry` (EntrySizeChecks.h) on the inputs:
/// the generated CPU code trusts its arguments' sizes, as the C ABI's
/// entries check them for the GPU.
void checkSizes(func::FuncOp entry, const std::vector<HostArray> &inputs) {
  // The fusing pipeline removes the work no result needs first
  // (addDeadWorkRemoval), and a dead op's size checks go with it, as the
  // GPU entries' do; the unfused reference keeps every op and every check.
  OwningOpRef<Operation *> copy;
  func::FuncOp checked = entry;
  if (!noFusion) {
    copy = entry->getParentOp()->clone();
    PassManager pm(entry.getContext(), copy.get()->getName().getStringRef());
    addDeadWorkRemoval(pm);
    if (failed(pm.run(copy.get())))
      fail("'" + entry.getName().str() +
           "': removing the dead work before the size checks failed");
    checked = cast<func::FuncOp>(
        SymbolTable::lookupSymbolIn(copy.get(), entry.getSymNameAttr()));
  }
  for (const SizeCheck &c : entrySizeChecks(checked)) {
    auto valueOf = [&](const BoundarySize &b) -> int64_t {
      switch (b.kind) {
      case BoundarySize::Kind::ArgDim:
        return inputs[b.arg].shape[b.dim];
      case BoundarySize::Kind::ScalarArg:
        return run::loadInt(inputs[b.arg].elem, inputs[b.arg].data.data());
      case BoundarySize::Kind::Constant:
        return b.value;
      }
      return 0;
    };
    int64_t l = valueOf(c.lhs), r = valueOf(c.rhs);
    bool ok = c.kind == SizeCheck::Kind::NonNegative ? l >= 0 : l == r;
    if (!ok)
      fail(c.message(entry.getName(), l, r));
  }
}

/// Sizes whose byte count overflows 64 bits: the generated code computes
/// allocation sizes in wrapping 64-bit arithmetic and would allocate too
/// little. Every tensor of the entry whose sizes the inputs fix (through
/// SizeAnalysis' classes) is checked before the call.
void checkByteSizes(func::FuncOp entry, const std::vector<HostArray> &inputs) {
  SizeAnalysis sizes(entry);
  llvm::DenseMap<SizeAnalysis::Dim, int64_t> known;
  for (BlockArgument a : entry.getArguments()) {
    const HostArray &in = inputs[a.getArgNumber()];
    if (auto t = dyn_cast<RankedTensorType>(a.getType())) {
      for (int64_t d = 0; d < t.getRank(); ++d)
        known[sizes.leader(a, d)] = in.shape[d];
    } else if (isa<IndexType>(a.getType())) {
      known[sizes.leader(a, -1)] = run::loadInt(in.elem, in.data.data());
    }
  }
  auto checkValue = [&](Value v, Operation *where) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || !t.getElementType().isIntOrFloat())
      return;
    int64_t elems = 1;
    bool overflow = false;
    for (int64_t d = 0; d < t.getRank(); ++d) {
      int64_t n = t.getDimSize(d);
      if (t.isDynamicDim(d)) {
        auto it = known.find(sizes.leader(v, d));
        if (it == known.end())
          return; // known only at run time (a filter's count)
        n = it->second;
      }
      overflow |= llvm::MulOverflow(elems, n, elems);
    }
    int64_t bytes = 0;
    int64_t width =
        std::max<int64_t>(1, (t.getElementType().getIntOrFloatBitWidth() + 7) / 8);
    overflow |= llvm::MulOverflow(elems, width, bytes);
    if (!overflow)
      return;
    std::string loc;
    llvm::raw_string_ostream os(loc);
    if (auto fl = dyn_cast<FileLineColLoc>(where->getLoc()))
      os << fl.getFilename().getValue() << ":" << fl.getLine() << ":"
         << fl.getColumn();
    else
      where->getLoc().print(os);
    fail(entry.getName() + ": sizes too large: a " + typeString(t) +
         " value of '" + where->getName().getStringRef() + "' at " + loc +
         " would take more than 2^63 bytes with these inputs");
  };
  entry.walk([&](Operation *op) {
    for (Value r : op->getResults())
      checkValue(r, op);
  });
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
    call(name, [&](SmallVectorImpl<void *> &packed) {
      if (llvm::Error err = engine.invokePacked(name, packed))
        fail("calling '" + name +
             "' failed: " + llvm::toString(std::move(err)));
    });
  }

  /// Calls the packed wrapper through `invoke` (the engine, or a function
  /// pointer looked up once where several threads call it).
  void call(StringRef name,
            function_ref<void(SmallVectorImpl<void *> &)> invoke) {
    std::fill(resultStorage.begin(), resultStorage.end(), 0);
    SmallVector<void *> packed;
    for (uint64_t &p : params)
      packed.push_back(&p);
    packed.push_back(resultStorage.data());
    jmp_buf onFailure;
    if (setjmp(onFailure)) {
      allocationFailure = nullptr;
      fail(name + ": cannot allocate " + llvm::Twine(failedAllocationBytes) +
           " bytes of host memory for a result or an intermediate of the "
           "pipeline");
    }
    allocationFailure = &onFailure;
    llvm::scope_exit done([] { allocationFailure = nullptr; });
    sizeError.clear();
    invoke(packed);
    if (!sizeError.empty())
      fail(sizeError);
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

} // namespace

//===----------------------------------------------------------------------===//
// --gpu
//===----------------------------------------------------------------------===//

#ifdef FUSE_RUN_HAVE_RUNTIME
/// Temporary files of --gpu, removed at exit (also after an error).
static llvm::SmallVector<std::string, 3> temporaries;

static void removeTemporaries() {
  for (auto it = temporaries.rbegin(); it != temporaries.rend(); ++it)
    llvm::sys::fs::remove(*it);
}
#endif

/// Compiles `module` like `fuse-compile --emit=shared` and runs entry `name`
/// through the runner of fuse-run-aot.
static int runOnGPU(ModuleOp module, const std::string &name,
                    const std::vector<std::string> &specs) {
#ifndef FUSE_RUN_HAVE_RUNTIME
  (void)module;
  (void)specs;
  fail("--gpu needs the fuse runtime, and this fuse-run was built without "
       "it (no CUDA toolkit was found when fuse was configured)");
#else
  llvm::SmallString<256> dir;
  if (!keepDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(keepDir))
      fail("cannot create '" + keepDir + "': " + ec.message());
    dir = keepDir;
  } else {
    if (std::error_code ec =
            llvm::sys::fs::createUniqueDirectory("fuse-run-gpu", dir))
      fail("cannot create a temporary folder: " + ec.message());
    temporaries.push_back(dir.str().str());
    std::atexit(removeTemporaries);
  }
  llvm::SmallString<256> lib(dir), manifest(dir);
  llvm::sys::path::append(lib, name + ".so");
  llvm::sys::path::append(manifest, name + ".json");
  if (keepDir.empty()) {
    temporaries.push_back(lib.str().str());
    temporaries.push_back(manifest.str().str());
  }
  // Only the entry is compiled: other public functions of the file need not
  // be supported by the GPU code generator.
  for (auto f : llvm::to_vector(module.getOps<func::FuncOp>()))
    if (f.getName() != name && f.isPublic() && !f.isDeclaration() &&
        SymbolTable::symbolKnownUseEmpty(f, module))
      f.erase();
  aot::CompileOptions options;
  options.chip = gpuChip;
  options.fusion = !noFusion;
  if (failed(aot::compileShared(module, options, lib, manifest)))
    fail("compiling '" + inputFile + "' for the GPU failed");

  run::AOTRunOptions o;
  o.manifest = manifest.str().str();
  o.library = lib.str().str();
  o.entry = name;
  o.args = specs;
  o.seed = seed;
  o.outDir = outDir;
  o.saveInputs = saveInputs;
  o.print = printResults;
  o.repeat = repeat;
  llvm::outs().flush();
  return run::runAOT(o);
#endif
}

//===----------------------------------------------------------------------===//
// main
//===----------------------------------------------------------------------===//

/// Reads the input file into `sourceMgr` (which main() keeps, with its
/// diagnostic handler, as long as the module, so that every diagnostic
/// names its source location); fails when it cannot be opened.
static void readInput(llvm::SourceMgr &sourceMgr) {
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFile, &errorMessage);
  if (!file)
    fail("cannot open '" + inputFile + "': " + errorMessage);
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
}

/// The entry to run: --entry, or the only public function with a body.
/// Fails, naming the candidates, when there is none or the choice is open.
static func::FuncOp pickEntry(ModuleOp module) {
  std::vector<func::FuncOp> publicFuncs;
  for (auto f : module.getOps<func::FuncOp>())
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
  return entry;
}

/// The checks of --arg and --save-inputs against the entry's signature,
/// made before anything is compiled, so that bad arguments fail fast.
static void checkArgumentOptions(const std::string &name,
                                 const std::vector<Slot> &argSlots) {
  if (argSpecs.size() != argSlots.size())
    fail("'" + name + "' takes " + llvm::Twine(argSlots.size()) +
         " argument(s), got " + llvm::Twine(argSpecs.size()) + " --arg");
  if (saveInputs && outDir.empty())
    fail("--save-inputs needs --out DIR");
}

/// The CPU run's inputs, made from --arg and checked against the entry's
/// size rules; --out's folder is created and --save-inputs honoured here,
/// before the (slower) lowering.
static std::vector<HostArray>
loadInputs(func::FuncOp entry, const std::string &name,
           const std::vector<Slot> &argSlots,
           const std::vector<std::string> &specs) {
  checkArgumentOptions(name, argSlots);
  std::vector<HostArray> inputs = run::makeInputs(name, argSlots, specs, seed);
  checkSizes(entry, inputs);
  checkByteSizes(entry, inputs);
  if (!outDir.empty())
    run::createDirectories(outDir);
  if (saveInputs)
    run::saveInputs(inputs, outDir);
  return inputs;
}

/// Lowers `module` with fuse-to-cpu, the entry's tensor arguments marked
/// read-only first so that bufferization never writes the caller's arrays.
static void lowerForCPU(MLIRContext &context, ModuleOp module,
                        func::FuncOp entry) {
  for (unsigned i = 0; i < entry.getNumArguments(); ++i)
    if (isa<TensorType>(entry.getArgument(i).getType()))
      entry.setArgAttr(i, "bufferization.writable",
                       BoolAttr::get(&context, false));

  PassManager pm(&context);
  FuseToCPUOptions options;
  options.fusion = !noFusion;
  buildFuseToCPUPipeline(pm, options);
  if (failed(pm.run(module)))
    fail("lowering '" + inputFile + "' with fuse-to-cpu failed");
}

/// Fails unless the lowered entry `name` takes the parameters `inv` passes.
static void checkLoweredSignature(ModuleOp module, const std::string &name,
                                  const Invocation &inv) {
  auto lowered = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
  if (!lowered)
    fail("'" + name + "' was not lowered to an llvm.func");
  if (lowered.getNumArguments() != inv.numParams())
    fail("'" + name + "' lowered to " + llvm::Twine(lowered.getNumArguments()) +
         " parameters, expected " + llvm::Twine(inv.numParams()) +
         " (unexpected calling convention)");
}

/// JIT-compiles the lowered `module` for the host at -O3, with libm bound
/// explicitly, malloc checked (fuseRunCheckedMalloc) and the size-error
/// hook of fuse-cpu-count-checks bound.
static std::unique_ptr<ExecutionEngine> createEngine(ModuleOp module) {
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
      ExecutionEngine::create(module, engineOptions, std::move(*tm));
  if (!engineOr)
    fail("JIT compilation failed: " + llvm::toString(engineOr.takeError()));
  std::unique_ptr<ExecutionEngine> engine = std::move(*engineOr);
  engine->registerSymbols(run::hostSymbols);
  engine->registerSymbols(shards::symbols);
  engine->initialize();
  return engine;
}

/// Calls the entry once and prints and saves its results, then times
/// --repeat more calls.
static void callAndReport(Invocation &inv, ExecutionEngine &engine,
                          const std::string &name) {
  // First call: its results are the ones printed and saved.
  inv.call(engine, name);
  std::vector<HostArray> outputs = inv.collect();
  inv.freeResults();

  if (printResults)
    llvm::outs() << run::formatResults(outputs);
  llvm::outs().flush();
  if (!outDir.empty())
    run::saveResults(outputs, outDir);

  if (repeat > 0) {
    std::vector<double> ms;
    for (unsigned r = 0; r < repeat; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      inv.call(engine, name);
      auto t1 = std::chrono::steady_clock::now();
      inv.freeResults();
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    llvm::outs() << run::formatTimes(ms);
  }
  llvm::outs().flush();
}

/// --shards=N: the unsharded run, then the entry rewritten by fuse-shard
/// on N threads, each on its part of the split arguments; checks the
/// joined results against the unsharded run's, then prints and saves them.
static void runSharded(MLIRContext &context, ModuleOp module,
                       func::FuncOp entry, const std::string &name,
                       const std::vector<Slot> &argSlots,
                       const std::vector<Slot> &resultSlots,
                       const std::vector<HostArray> &inputs) {
  unsigned n = shardCount;
  std::optional<unsigned> arg;
  if (shardArg >= 0)
    arg = unsigned(shardArg);
  FailureOr<ShardPlan> plan = planShards(entry, arg);
  if (failed(plan))
    fail("'" + name + "' cannot run sharded");
  OwningOpRef<ModuleOp> sharded = module.clone();
  // The entry alone: fuse-shard rewrites every public function.
  for (auto f : llvm::make_early_inc_range(sharded->getOps<func::FuncOp>()))
    if (f.getName() != name && !f.isDeclaration())
      f.erase();
  PassManager pm(&context);
  pm.addPass(createFuseShardPass(FuseShardPassOptions{shardArg}));
  if (failed(pm.run(*sharded)))
    fail("'" + name + "' cannot run sharded");
  lowerForCPU(context, *sharded, sharded->lookupSymbol<func::FuncOp>(name));
  lowerForCPU(context, module, entry);

  Invocation inv(argSlots, resultSlots, inputs);
  checkLoweredSignature(module, name, inv);
  std::unique_ptr<ExecutionEngine> engine = createEngine(module);
  inv.call(*engine, name);
  std::vector<HostArray> whole = inv.collect();
  inv.freeResults();

  checkLoweredSignature(*sharded, name, inv);
  std::unique_ptr<ExecutionEngine> shardEngine = createEngine(*sharded);
  auto fn = shardEngine->lookupPacked(name);
  if (!fn)
    fail("'" + name + "' not found: " + llvm::toString(fn.takeError()));
  std::vector<std::vector<HostArray>> parts(n), outs(n);
  for (unsigned r = 0; r < n; ++r) {
    for (auto [i, in] : llvm::enumerate(inputs))
      parts[r].push_back(plan->splitArgs[i] ? shards::part(in, r, n) : in);
    // `index` arguments that are the split size: the shard's own rows.
    for (auto [i, local] : llvm::enumerate(plan->localSizeArgs))
      if (local)
        shards::setSize(parts[r][i], parts[r][*plan->splitArg].shape.at(0));
  }
  shards::runAll(n, [&](unsigned r) {
    Invocation mine(argSlots, resultSlots, parts[r]);
    mine.call(name,
              [&](SmallVectorImpl<void *> &packed) { (*fn)(packed.data()); });
    outs[r] = mine.collect();
    mine.freeResults();
  });
  std::vector<HostArray> joined = shards::join(outs, plan->splitResults);
  std::string report = shards::compare(joined, whole, plan->splitResults, n);
  if (printResults)
    llvm::outs() << run::formatResults(joined);
  llvm::outs() << "shards: " << n << "\n" << report;
  llvm::outs().flush();
  if (!outDir.empty())
    run::saveResults(joined, outDir);
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(runCat);
  cl::ParseCommandLineOptions(
      argc, argv,
      "fuse-run: JIT-run an entry function of a fuse pipeline on the CPU "
      "(or, with --gpu, on the GPU)\n\n"
      "Lowers FILE with the fuse-to-cpu pipeline, compiles it at -O3 and "
      "calls the entry once\n(plus --repeat timed calls). Results are "
      "copied out of the generated code's buffers.\n"
      "--gpu compiles FILE as `fuse-compile --emit=shared` does and runs the "
      "entry through the\nfuse runtime like fuse-run-aot: inputs are copied "
      "to the device, results back.\nErrors print 'fuse-run: ...' (argument "
      "numbers count from 0) and exit 1.\n");

  // The pipeline is built from its textual form: its passes must be
  // registered.
  fuse::registerAllPasses();
  DialectRegistry registry;
  fuse::registerAllDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics name the source location; no dump of the failing operation.
  context.printOpOnDiagnostic(false);

  llvm::SourceMgr sourceMgr;
  readInput(sourceMgr);
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    fail("cannot parse '" + inputFile + "'");

  func::FuncOp entry = pickEntry(*module);
  std::string name = entry.getName().str();
  warnUncheckedSizes(entry);

  // The signature before lowering.
  FunctionType fnType = entry.getFunctionType();
  std::vector<Slot> argSlots, resultSlots;
  for (auto [i, t] : llvm::enumerate(fnType.getInputs()))
    argSlots.push_back(describe(t, "argument #" + llvm::Twine(i)));
  for (auto [i, t] : llvm::enumerate(fnType.getResults()))
    resultSlots.push_back(describe(t, "result #" + llvm::Twine(i)));

  std::vector<std::string> specs(argSpecs.begin(), argSpecs.end());
  if (gpu) {
    if (shardCount > 0)
      fail("--shards simulates the shards on the CPU; it does not go with "
           "--gpu");
    if (dumpLLVM)
      fail("--dump-llvm shows the CPU pipeline; it does not go with --gpu");
    // Bad arguments fail before compiling (and before the GPU).
    checkArgumentOptions(name, argSlots);
    (void)run::makeInputs(name, argSlots, specs, seed);
    return runOnGPU(*module, name, specs);
  }

  // Inputs first, so bad arguments fail fast.
  std::vector<HostArray> inputs;
  if (!dumpLLVM)
    inputs = loadInputs(entry, name, argSlots, specs);

  if (shardArg < -1)
    fail("--shard-arg=" + std::to_string(shardArg) +
         ": an argument's number, counting from 0");
  if (shardArg >= 0 && shardCount == 0)
    fail("--shard-arg goes with --shards");
  if (shardCount > 0) {
    if (dumpLLVM || repeat > 0)
      fail("--shards does not go with --dump-llvm or --repeat");
    // A thread a shard.
    if (shardCount > 1024)
      fail("--shards=" + std::to_string(shardCount) +
           ": at most 1024 shards (each runs on a thread of its own)");
    runSharded(context, *module, entry, name, argSlots, resultSlots, inputs);
    return 0;
  }

  lowerForCPU(context, *module, entry);
  if (dumpLLVM) {
    module->print(llvm::outs());
    llvm::outs() << "\n";
    return 0;
  }

  // Check the lowered signature against what the call will pass.
  Invocation inv(argSlots, resultSlots, inputs);
  checkLoweredSignature(*module, name, inv);
  std::unique_ptr<ExecutionEngine> engine = createEngine(*module);
  callAndReport(inv, *engine, name);
  return 0;
}
