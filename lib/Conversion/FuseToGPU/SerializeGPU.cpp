//===- SerializeGPU.cpp - gpu.module to gpu.binary, kernels in parallel ---===//
//
// fuse-gpu-module-to-binary: upstream gpu-module-to-binary compiles a GPU
// module as one LLVM module (translation, O3, NVPTX code generation on one
// thread) and then runs ptxas on its PTX. A module's kernels share no code
// (fuse's kernels call no device functions), so they can be compiled apart:
// the kernels are dealt to parts, each part is a clone of the module with
// the other parts' kernels removed, the parts go through LLVM to PTX on the
// context's threads, and their PTX is joined into one module for a single
// ptxas run (which compiles kernels on parallel threads itself). The image
// stays one cubin/fatbin/PTX text for the runtime's one fuse_module_load.
//
//===----------------------------------------------------------------------===//

#include "fuse/Conversion/FuseToGPU/FuseToGPU.h"
#include "fuse/Conversion/Passes.h"
#include "fuse/Dialect/Fuse/IR/Target.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/IR/Threading.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <functional>
#include <optional>

namespace fuse {
#define GEN_PASS_DEF_FUSEGPUMODULETOBINARYPASS
#include "fuse/Conversion/Passes.h.inc"
} // namespace fuse

using namespace mlir;

namespace {

/// Why `chip` with `features` cannot be compiled, or "" when it can.
std::string checkNVVMTarget(StringRef chip, StringRef features) {
  // fuse's table of chips (Target.h): LLVM 22's NVPTX back end stops with
  // a fatal error, not a diagnostic, on a chip it does not know or a PTX
  // ISA too old for it.
  const fuse::ChipInfo *found = fuse::lookupChip(chip);
  if (!found)
    return fuse::unknownChipMessage(chip);
  // The PTX version named in the features (+ptxNN); LLVM's default for
  // the chip when none is named.
  unsigned ptx = 0;
  SmallVector<StringRef> parts;
  features.split(parts, ',', -1, false);
  for (StringRef f : parts) {
    f = f.trim();
    if (f.consume_front("+ptx")) {
      if (f.getAsInteger(10, ptx))
        return ("invalid PTX feature '+ptx" + f +
                "' (--features): expected +ptxNN, e.g. +ptx80")
            .str();
    }
  }
  if (ptx && ptx < found->minPTX)
    return ("GPU architecture " + chip + " needs PTX ISA " +
            Twine(found->minPTX / 10) + "." + Twine(found->minPTX % 10) +
            " or newer, but the features ask for " + Twine(ptx / 10) + "." +
            Twine(ptx % 10) + ": use --features=+ptx" + Twine(found->minPTX))
        .str();
  return "";
}


bool isKernel(Operation &op) {
  return op.hasAttr(gpu::GPUDialect::getKernelFuncAttrName());
}

/// Operations in `op` (its own size as the compile-cost estimate).
int64_t opCount(Operation *op) {
  int64_t n = 0;
  op->walk([&](Operation *) { ++n; });
  return n;
}

/// A clone of `m` keeping only the kernels in `keep` and the symbols they
/// use (the other kernels' workgroup globals and declarations go).
gpu::GPUModuleOp clonePart(gpu::GPUModuleOp m,
                           const llvm::SmallPtrSetImpl<Operation *> &keep) {
  IRMapping map;
  auto clone = cast<gpu::GPUModuleOp>(m->clone(map));
  for (Operation &op : llvm::make_early_inc_range(m.getBody()->getOperations()))
    if (isKernel(op) && !keep.contains(&op))
      map.lookup(&op)->erase();
  // Unused symbols may use others: sweep until nothing changes.
  for (bool changed = true; changed;) {
    changed = false;
    for (Operation &op :
         llvm::make_early_inc_range(clone.getBody()->getOperations())) {
      if (isKernel(op) || !isa<SymbolOpInterface>(op))
        continue;
      if (SymbolTable::symbolKnownUseEmpty(&op, clone)) {
        op.erase();
        changed = true;
      }
    }
  }
  return clone;
}

/// The PTX of several parts joined into one module: the first part's
/// header (.version, .target, .address_size), the parts' `.extern .shared`
/// declarations, then every entry (with the comments before it) in the
/// order `names` gives (the GPU module's). Fails (nullopt) when the headers
/// differ, an entry is missing or repeated, or a part has any other
/// module-level item (a .func, a .global or .const definition, a debug
/// .file): such modules are compiled whole.
std::optional<std::string> joinPTX(ArrayRef<std::string> parts,
                                   ArrayRef<StringRef> names) {
  std::string header, externs;
  llvm::StringSet<> externSet;
  llvm::StringMap<std::string> entries;
  for (auto [i, ptx] : llvm::enumerate(parts)) {
    std::string thisHeader, chunk, name;
    bool seenEntry = false;
    int depth = 0;
    SmallVector<StringRef> lines;
    StringRef(ptx).split(lines, '\n');
    for (StringRef line : lines) {
      StringRef t = line.trim();
      if (depth == 0) {
        if (t.starts_with(".version") || t.starts_with(".target") ||
            t.starts_with(".address_size")) {
          if (!name.empty() || seenEntry)
            return std::nullopt;
          thisHeader += t.str() + "\n";
          continue;
        }
        if (t.empty() || t.starts_with("//")) {
          // The banner before .version is the joined module's own.
          if (!thisHeader.empty())
            chunk += line.str() + "\n";
          continue;
        }
        if (t.starts_with(".extern .shared")) {
          if (!name.empty())
            return std::nullopt;
          if (externSet.insert(t).second)
            externs += line.str() + "\n";
          continue;
        }
        if (t.starts_with(".visible .entry") || t.starts_with(".entry")) {
          if (!name.empty())
            return std::nullopt;
          StringRef rest = t.drop_front(t.find(".entry") + 6).ltrim();
          name = rest.take_until([](char c) { return c == '(' || c == ' '; })
                     .str();
        } else {
          // The rest of an entry's head: parameters and performance
          // directives up to the opening brace.
          bool head =
              t.starts_with(".param") || t.starts_with(")") ||
              t.starts_with(".maxntid") || t.starts_with(".reqntid") ||
              t.starts_with(".minnctapersm") || t.starts_with(".maxnreg") ||
              t.starts_with(".maxclusterrank") ||
              t.starts_with(".reqnctapercluster") ||
              t.starts_with(".explicitcluster") || t.starts_with(".pragma") ||
              t.starts_with("{");
          if (!head || name.empty())
            return std::nullopt;
        }
      }
      for (char c : t) {
        if (c == '{')
          ++depth;
        else if (c == '}')
          --depth;
      }
      if (depth < 0 || name.empty())
        return std::nullopt;
      chunk += line.str() + "\n";
      if (depth == 0 && t.ends_with("}")) {
        if (!entries.try_emplace(name, std::move(chunk)).second)
          return std::nullopt;
        chunk.clear();
        name.clear();
        seenEntry = true;
      }
    }
    if (depth != 0 || !name.empty())
      return std::nullopt;
    if (i == 0)
      header = thisHeader;
    else if (thisHeader != header)
      return std::nullopt;
  }
  if (header.empty() || entries.size() != names.size())
    return std::nullopt;
  std::string out = "//\n// Generated by LLVM NVPTX Back-End (fuse: " +
                    std::to_string(parts.size()) +
                    " parts joined)\n//\n\n" + header + "\n" + externs;
  for (StringRef n : names) {
    auto it = entries.find(n);
    if (it == entries.end())
      return std::nullopt;
    out += it->second;
  }
  return out;
}

/// A temporary file removed when the value dies.
struct TempFile {
  SmallString<128> path;
  std::optional<llvm::FileRemover> remover;
};

LogicalResult makeTemp(Location loc, StringRef base, StringRef suffix,
                       TempFile &out) {
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile(base, suffix, out.path))
    return emitError(loc) << "cannot create a temporary file: "
                          << ec.message();
  out.remover.emplace(out.path);
  return success();
}

/// `tool` from the toolkit's bin/, else from PATH.
FailureOr<std::string> findTool(Location loc, StringRef toolkit,
                                StringRef tool) {
  if (!toolkit.empty()) {
    SmallString<256> p(toolkit);
    llvm::sys::path::append(p, "bin", tool);
    if (llvm::sys::fs::can_execute(p))
      return std::string(p);
  }
  if (llvm::ErrorOr<std::string> p = llvm::sys::findProgramByName(tool))
    return *p;
  return emitError(loc) << "cannot find `" << tool << "`"
                        << (toolkit.empty() ? std::string()
                                            : " in '" + toolkit.str() + "/bin'")
                        << " or on PATH";
}

/// Runs `args` (args[0]: the program's name), its output to `log`.
LogicalResult runTool(Location loc, StringRef program,
                      ArrayRef<StringRef> args, StringRef log) {
  std::optional<StringRef> redirects[] = {std::nullopt, log, log};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(program, args, std::nullopt, redirects,
                                     0, 0, &message);
  if (rc == 0)
    return success();
  // Worded as the NVVM target's own tool errors.
  InFlightDiagnostic d = emitError(loc) << "`" << args[0]
                                        << "` invocation failed";
  if (!message.empty())
    d << ", error message: " << message;
  else if (auto buf = llvm::MemoryBuffer::getFile(log))
    d << ". Log:\n" << (*buf)->getBuffer();
  return failure();
}

struct FuseGPUModuleToBinaryPass
    : public fuse::impl::FuseGPUModuleToBinaryPassBase<
          FuseGPUModuleToBinaryPass> {
  using Base::Base;
  FuseGPUModuleToBinaryPass(std::string format, std::string cmdOptions,
                            std::string toolkitPath, unsigned jobs,
                            fuse::GPUSerializationSinks sinks)
      : sinks(sinks) {
    this->format = std::move(format);
    this->cmdOptions = std::move(cmdOptions);
    this->toolkitPath = std::move(toolkitPath);
    this->jobs = jobs;
  }

  void runOnOperation() override {
    std::optional<gpu::CompilationTarget> target =
        llvm::StringSwitch<std::optional<gpu::CompilationTarget>>(format)
            .Cases({"isa", "assembly"}, gpu::CompilationTarget::Assembly)
            .Cases({"bin", "binary"}, gpu::CompilationTarget::Binary)
            .Cases({"fatbin", "fatbinary"}, gpu::CompilationTarget::Fatbin)
            .Default(std::nullopt);
    if (!target) {
      getOperation().emitError() << "unknown GPU image format '" << format
                                 << "' (isa, bin or fatbin)";
      return signalPassFailure();
    }
    compilationTarget = *target;
    tableCallback = [this] { return lazyTable(); };
    for (auto m : llvm::make_early_inc_range(
             getOperation().getBody()->getOps<gpu::GPUModuleOp>()))
      if (failed(serializeModule(m)))
        return signalPassFailure();
  }

  /// The parent symbol table, built on first use (the NVVM target asks
  /// for it only in some modes); reset whenever a module is replaced.
  SymbolTable *lazyTable() {
    if (!table)
      table.emplace(getOperation());
    return &*table;
  }

  gpu::TargetOptions targetOptions(gpu::CompilationTarget t, StringRef opts,
                                   function_ref<void(StringRef)> isa = {}) {
    return gpu::TargetOptions(toolkitPath, /*librariesToLink=*/{}, opts,
                              /*elfSection=*/"", t, tableCallback, {}, {}, {},
                              isa);
  }

  /// Replaces `m` with a gpu.binary of the objects `objects`.
  void replace(gpu::GPUModuleOp m, ArrayRef<Attribute> objects) {
    OpBuilder b(m);
    b.setInsertionPointAfter(m);
    gpu::BinaryOp::create(b, m.getLoc(), m.getName(), Attribute(),
                          b.getArrayAttr(objects));
    table.reset();
    if (sinks.binary)
      for (Attribute a : objects)
        if (auto obj = dyn_cast<gpu::ObjectAttr>(a))
          sinks.binary->append(obj.getObject().getValue().str());
    m->erase();
  }

  /// The whole module at once, one object per target (upstream's way).
  LogicalResult serializeWhole(gpu::GPUModuleOp m) {
    auto isaCallback = [&](StringRef isa) {
      if (sinks.isa)
        sinks.isa->append(isa.begin(), isa.end());
    };
    gpu::TargetOptions options =
        targetOptions(compilationTarget, cmdOptions, isaCallback);
    SmallVector<Attribute> objects;
    for (Attribute a : m.getTargetsAttr()) {
      auto t = cast<gpu::TargetAttrInterface>(a);
      std::optional<SmallVector<char, 0>> bytes =
          t.serializeToObject(m, options);
      if (!bytes)
        return m.emitError("cannot serialize the GPU module");
      Attribute obj = t.createObject(m, *bytes, options);
      if (!obj)
        return m.emitError("cannot make the GPU module's object");
      objects.push_back(obj);
    }
    replace(m, objects);
    return success();
  }

  LogicalResult serializeModule(gpu::GPUModuleOp m) {
    ArrayAttr targets = m.getTargetsAttr();
    if (!targets || targets.empty())
      return m.emitError("the GPU module has no target attributes");
    for (Attribute t : targets)
      if (auto target = dyn_cast<NVVM::NVVMTargetAttr>(t)) {
        std::string why = checkNVVMTarget(target.getChip(),
                                          target.getFeatures());
        if (!why.empty())
          return m.emitError(why);
      }
    SmallVector<Operation *> kernels;
    for (Operation &op : m.getBody()->getOperations())
      if (isKernel(op))
        kernels.push_back(&op);
    auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(targets[0]);
    MLIRContext *ctx = &getContext();
    unsigned threads = ctx->isMultithreadingEnabled() ? ctx->getNumThreads()
                                                      : 1;
    unsigned parts =
        std::min<unsigned>(kernels.size(), jobs == 0 ? threads : jobs);
    // Device functions (defined, not kernels) would be compiled into every
    // part that calls them and their PTX could not be joined.
    bool deviceFunctions = llvm::any_of(m.getBody()->getOperations(),
                                        [](Operation &op) {
      auto fn = dyn_cast<FunctionOpInterface>(op);
      return fn && !isKernel(op) && !fn.isExternal();
    });
    if (targets.size() != 1 || !nvvm || parts < 2 || deviceFunctions)
      return serializeWhole(m);

    // Deal the kernels, largest first, each to the lightest part.
    SmallVector<std::pair<int64_t, unsigned>> bySize;
    for (auto [i, k] : llvm::enumerate(kernels))
      bySize.push_back({opCount(k), i});
    llvm::stable_sort(bySize, [](auto a, auto b) { return a.first > b.first; });
    SmallVector<int64_t> load(parts, 0);
    SmallVector<unsigned> partOf(kernels.size());
    for (auto [size, i] : bySize) {
      unsigned p = std::min_element(load.begin(), load.end()) - load.begin();
      partOf[i] = p;
      load[p] += size;
    }
    // Parts in the order of their first kernel (the module's order).
    SmallVector<gpu::GPUModuleOp> clones;
    {
      SmallVector<int> order(parts, -1);
      int next = 0;
      for (unsigned i = 0; i < kernels.size(); ++i)
        if (order[partOf[i]] < 0)
          order[partOf[i]] = next++;
      SmallVector<llvm::SmallPtrSet<Operation *, 4>> keep(parts);
      for (unsigned i = 0; i < kernels.size(); ++i)
        keep[order[partOf[i]]].insert(kernels[i]);
      for (auto &k : keep)
        clones.push_back(clonePart(m, k));
    }
    llvm::scope_exit destroy([&] {
      for (gpu::GPUModuleOp c : clones)
        c->erase();
    });

    // LLVM to PTX, one part per thread (the table built here, not raced
    // for).
    lazyTable();
    auto t = cast<gpu::TargetAttrInterface>(targets[0]);
    gpu::TargetOptions isaOptions =
        targetOptions(gpu::CompilationTarget::Assembly, "");
    SmallVector<std::string> ptx(clones.size());
    auto idx = llvm::to_vector(llvm::seq<unsigned>(0, clones.size()));
    if (failed(failableParallelForEach(ctx, idx, [&](unsigned i) {
          std::optional<SmallVector<char, 0>> bytes =
              t.serializeToObject(clones[i], isaOptions);
          if (!bytes)
            return failure();
          ptx[i].assign(bytes->begin(), bytes->end());
          while (!ptx[i].empty() && ptx[i].back() == '\0')
            ptx[i].pop_back();
          return success();
        })))
      return m.emitError("cannot serialize the GPU module");
    SmallVector<StringRef> names;
    for (Operation *k : kernels)
      names.push_back(SymbolTable::getSymbolName(k).getValue());
    std::optional<std::string> joined = joinPTX(ptx, names);
    if (!joined)
      return serializeWhole(m);
    if (sinks.isa)
      sinks.isa->append(*joined);

    SmallVector<char, 0> image;
    if (compilationTarget == gpu::CompilationTarget::Assembly) {
      image.assign(joined->begin(), joined->end());
    } else if (failed(assemble(m, nvvm, *joined, image))) {
      return failure();
    }
    gpu::TargetOptions finalOptions =
        targetOptions(compilationTarget, cmdOptions);
    Attribute obj = t.createObject(m, image, finalOptions);
    if (!obj)
      return m.emitError("cannot make the GPU module's object");
    replace(m, {obj});
    return success();
  }

  /// ptxas (and fatbinary for fatbin) on the joined PTX, with the options
  /// the NVVM target passes: -arch, --opt-level from the target's O, then
  /// the pass's opts and the target's own ptxas options.
  LogicalResult assemble(gpu::GPUModuleOp m, NVVM::NVVMTargetAttr nvvm,
                         StringRef ptx, SmallVector<char, 0> &image) {
    Location loc = m.getLoc();
    bool fat = compilationTarget == gpu::CompilationTarget::Fatbin;
    FailureOr<std::string> ptxas = findTool(loc, toolkitPath, "ptxas");
    if (failed(ptxas))
      return failure();
    FailureOr<std::string> fatbinary;
    if (fat && failed(fatbinary = findTool(loc, toolkitPath, "fatbinary")))
      return failure();
    std::string base = ("fuse-" + m.getName() + "-" + nvvm.getChip()).str();
    TempFile ptxFile, cubinFile, fatFile, logFile;
    if (failed(makeTemp(loc, base, "ptx", ptxFile)) ||
        failed(makeTemp(loc, base, "cubin", cubinFile)) ||
        failed(makeTemp(loc, base, "log", logFile)) ||
        (fat && failed(makeTemp(loc, base, "fatbin", fatFile))))
      return failure();
    {
      std::error_code ec;
      llvm::raw_fd_ostream os(ptxFile.path, ec);
      if (ec)
        return emitError(loc) << "cannot write '" << ptxFile.path
                              << "': " << ec.message();
      os << ptx;
      os.close();
      if (os.has_error())
        return emitError(loc) << "cannot write '" << ptxFile.path << "'";
    }
    std::string opt = std::to_string(nvvm.getO());
    SmallVector<StringRef> args = {"ptxas",       "-arch",
                                   nvvm.getChip(), ptxFile.path,
                                   "-o",          cubinFile.path,
                                   "--opt-level", opt};
    bool fat32 = false;
    SmallVector<StringRef> extra;
    StringRef(cmdOptions).split(extra, ' ', -1, /*KeepEmpty=*/false);
    for (StringRef a : extra) {
      if (a == "-32")
        fat32 = true;
      else
        args.push_back(a);
    }
    if (nvvm.hasCmdOptions())
      for (Attribute a : cast<ArrayAttr>(nvvm.getCmdOptions()->getValue()))
        if (auto s = dyn_cast<StringAttr>(a))
          args.push_back(s.getValue());
    if (failed(runTool(loc, *ptxas, args, logFile.path)))
      return failure();
    StringRef out = cubinFile.path;
    std::string cubinArg, ptxArg;
    if (fat) {
      StringRef sm = nvvm.getChip();
      sm.consume_front("sm_");
      cubinArg = ("--image3=kind=elf,sm=" + sm + ",file=" + cubinFile.path).str();
      ptxArg = ("--image3=kind=ptx,sm=" + sm + ",file=" + ptxFile.path).str();
      SmallVector<StringRef> fargs = {"fatbinary", fat32 ? "-32" : "-64",
                                      cubinArg,    ptxArg,
                                      "--create",  fatFile.path};
      if (failed(runTool(loc, *fatbinary, fargs, logFile.path)))
        return failure();
      out = fatFile.path;
    }
    auto buf = llvm::MemoryBuffer::getFile(out, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
    if (!buf)
      return emitError(loc) << "cannot read '" << out
                            << "': " << buf.getError().message();
    StringRef bytes = (*buf)->getBuffer();
    image.assign(bytes.begin(), bytes.end());
    return success();
  }

  fuse::GPUSerializationSinks sinks;
  gpu::CompilationTarget compilationTarget = gpu::CompilationTarget::Binary;
  std::optional<SymbolTable> table;
  std::function<SymbolTable *()> tableCallback;
};

} // namespace

std::unique_ptr<Pass>
fuse::createFuseGPUModuleToBinaryPass(std::string format,
                                      std::string cmdOptions,
                                      std::string toolkitPath, unsigned jobs,
                                      GPUSerializationSinks sinks) {
  return std::make_unique<FuseGPUModuleToBinaryPass>(
      std::move(format), std::move(cmdOptions), std::move(toolkitPath), jobs,
      sinks);
}
