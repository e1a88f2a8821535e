//===- fuse-compile.cpp - ahead-of-time compiler for fuse pipelines -------===//
//
// fuse-compile pipeline.mlir -o out --emit=all
//   out.o    host code (C ABI entry points calling the fuse runtime) with
//            the kernels' cubin (or fatbin/PTX, --format) embedded
//   out.h    a C header declaring every entry point, with documentation
//   out.ptx  the kernels' PTX; out.cubin the kernels' cubin
// fuse-compile pipeline.mlir -o out --emit=shared
//   out.so   a shared library of the entry points (plus a packed wrapper
//            per entry), linked by the system C compiler
//   out.json the signature manifest that fuse-run-aot reads
// (--emit=manifest writes only the manifest). fuse/AOT/AOTCompile.h has
// the steps, which `fuse-run --gpu` shares.
// Runs the same pass pipeline as `fuse-opt --fuse-to-cubin`, then
// translates the host module to LLVM IR and emits an object file for the
// host target through LLVM's TargetMachine.
//
//===----------------------------------------------------------------------===//

#include "fuse/AOT/AOTCompile.h"

#include "fuse/Conversion/FuseToGPU/FuseToGPU.h"
#include "fuse/Dialect/Fuse/Transforms/Passes.h"
#include "fuse/Dialect/Fuse/Utils/EntrySizeChecks.h"
#include "fuse/InitAll.h"
#include "fuse/Pipelines/EntryHeader.h"
#include "fuse/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

#include <chrono>

using namespace mlir;
namespace cl = llvm::cl;
namespace aot = fuse::aot;

static cl::OptionCategory cat("fuse-compile options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"),
                                      cl::init("-"), cl::cat(cat));
static cl::opt<std::string>
    outputBase("o",
               cl::desc("Output file (--emit=all and shared: base name; "
                        ".o/.h/.ptx/.cubin or .so/.json are appended). "
                        "Default: the input's name with the output's "
                        "extension, in the current directory (x.mlir -> "
                        "x.o, x.ptx, ...); '-' is standard output, refused "
                        "for binary output on a terminal"),
               cl::value_desc("path"), cl::init(""), cl::cat(cat));
static cl::opt<std::string>
    emit("emit",
         cl::desc("What to write: ptx, cubin, obj, header, all (.o .h .ptx "
                  ".cubin), shared (-o BASE: BASE.so, the entries as a "
                  "shared library, and BASE.json, their signature manifest "
                  "for fuse-run-aot) or manifest (the JSON only)"),
         cl::init("obj"), cl::cat(cat));
static cl::opt<std::string> chip("chip", cl::desc("GPU architecture"),
                                 cl::init("sm_90"), cl::cat(cat));
static cl::opt<std::string> features("features", cl::desc("PTX features"),
                                     cl::init("+ptx80"), cl::cat(cat));
static cl::opt<std::string>
    format("format",
           cl::desc("Image embedded in the object: bin (cubin), fatbin "
                    "(cubin + PTX) or isa (PTX)"),
           cl::init("bin"), cl::cat(cat));
static cl::opt<std::string> toolkit("toolkit-path",
                                    cl::desc("CUDA toolkit root (ptxas)"),
                                    cl::init(""), cl::cat(cat));
static cl::opt<unsigned> optLevel("opt-level", cl::desc("Optimization level"),
                                  cl::init(3), cl::cat(cat));
static cl::opt<int> ptxasOptLevel(
    "ptxas-opt-level",
    cl::desc("ptxas optimization level 0-3 (default: --opt-level); ptxas "
             "-O1 compiles the larger kernels faster and runs some slower "
             "(docs/performance.md)"),
    cl::init(-1), cl::cat(cat));
static cl::opt<unsigned> jobs(
    "jobs",
    cl::desc("Kernel parts of a GPU module compiled at once by LLVM, each "
             "on its own thread, joined for one ptxas run (default 0: one "
             "per core; 1: the module as one LLVM module)"),
    cl::init(0), cl::cat(cat));
static cl::opt<bool> printTime("time",
                               cl::desc("Print the wall time in ms to stderr"),
                               cl::init(false), cl::cat(cat));
static cl::opt<bool> passTiming(
    "timing",
    cl::desc("Print a per-pass timing report of the compile pipeline to "
             "stderr (fuse-gpu-module-to-binary includes LLVM's NVPTX code "
             "generation and ptxas)"),
    cl::init(false), cl::cat(cat));
static cl::opt<std::string> symbolPrefix(
    "prefix",
    cl::desc("Prepend this to the C name of every entry function (e.g. "
             "`mylib_`), so that entries never collide with other C symbols "
             "such as libc's select"),
    cl::value_desc("prefix"), cl::init(""), cl::cat(cat));
static cl::opt<std::string>
    linker("linker",
           cl::desc("C compiler that links --emit=shared (default: cc, gcc "
                    "or clang from PATH)"),
           cl::value_desc("program"), cl::init(""), cl::cat(cat));
static cl::opt<bool> noFusion("no-fusion",
                              cl::desc("Do not run the fusion passes"),
                              cl::init(false), cl::cat(cat));
static cl::opt<std::string> fastMath(
    "fastmath",
    cl::desc("Fast-math flags added to every float op of the input that "
             "takes them (MLIR's, comma-separated: reassoc, nnan, ninf, nsz, "
             "arcp, contract, afn, or fast), as if written on each op: arcp "
             "lets a division by a row-wide value become one reciprocal a "
             "row, afn makes exp approximate (ex2.approx); default none"),
    cl::value_desc("flags"), cl::init(""), cl::cat(cat));
static cl::opt<std::string> tileOptions(
    "tile-options",
    cl::desc("Options of the fuse-tile pass, space-separated (e.g. "
             "'finish-prefetch=0 long-row-items=4'; `fuse-opt --help` lists "
             "them); not with --no-fusion"),
    cl::value_desc("options"), cl::init(""), cl::cat(cat));

namespace {

aot::CompileOptions compileOptions() {
  aot::CompileOptions o;
  o.chip = chip;
  o.features = features;
  o.format = format;
  o.toolkitPath = toolkit;
  o.optLevel = optLevel;
  o.ptxasOptLevel = ptxasOptLevel;
  o.jobs = jobs;
  o.fusion = !noFusion;
  o.prefix = symbolPrefix;
  o.linker = linker;
  o.timing = passTiming;
  o.tileOptions = tileOptions;
  return o;
}

LogicalResult writeFile(StringRef path, StringRef data) {
  std::string err;
  auto out = openOutputFile(path, &err);
  if (!out) {
    llvm::errs() << "fuse-compile: " << err << "\n";
    return failure();
  }
  out->os() << data;
  out->keep();
  return success();
}

/// Functions of the C library headers a host program commonly includes
/// (stdlib.h pulls in sys/select.h on glibc): an entry of that name cannot
/// be declared next to them (examples/select.mlir's `select`).
bool isCLibraryName(StringRef name) {
  static const llvm::StringSet<> names = {
      // stdlib.h
      "abort", "abs", "atexit", "atof", "atoi", "atol", "bsearch", "calloc",
      "div", "exit", "free", "getenv", "labs", "ldiv", "malloc", "qsort",
      "rand", "realloc", "srand", "strtod", "strtol", "strtoul", "system",
      "random", "srandom",
      // sys/select.h, unistd.h, sys/types.h (through stdlib.h on glibc)
      "select", "pselect", "read", "write", "close", "open", "pipe", "sleep",
      "dup", "fork", "link", "unlink", "sync", "pause", "alarm", "access",
      // stdio.h
      "printf", "fprintf", "sprintf", "snprintf", "scanf", "puts", "putc",
      "getc", "fopen", "fclose", "fread", "fwrite", "remove", "rename",
      "perror",
      // string.h
      "memcpy", "memmove", "memset", "memcmp", "strlen", "strcpy", "strcmp",
      "strcat", "strchr", "strstr", "index",
      // math.h
      "exp", "expf", "log", "logf", "sqrt", "sqrtf", "pow", "powf", "sin",
      "cos", "tan", "tanh", "fabs", "floor", "ceil", "round", "trunc",
      "fmin", "fmax", "fma", "erf", "lgamma", "gamma", "log2", "log10",
      "exp2", "hypot", "cbrt", "remainder", "copysign", "nan",
      // time.h
      "time", "clock", "difftime", "mktime"};
  return names.contains(name);
}

std::string guardFor(StringRef path) {
  std::string g = "FUSE_GENERATED_";
  StringRef stem = path == "-" ? "pipeline" : llvm::sys::path::stem(path);
  for (char c : stem)
    g.push_back(isalnum(static_cast<unsigned char>(c)) ? toupper(c) : '_');
  return g + "_H";
}

/// Reads the input file into `sm` (which run() keeps, with its diagnostic
/// handler, as long as the module, so that every diagnostic names its
/// source location); fails with a message when it cannot be opened.
LogicalResult readInput(llvm::SourceMgr &sm) {
  std::string err;
  auto file = openInputFile(inputFile, &err);
  if (!file) {
    llvm::errs() << "fuse-compile: " << err << "\n";
    return failure();
  }
  sm.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  return success();
}

/// Applies --fastmath and warns about entries a C program cannot use as
/// they are (unchecked sizes, C library names). Fails on bad --fastmath.
LogicalResult prepareEntries(ModuleOp module) {
  std::string fastMathError;
  if (failed(fuse::addFastMathFlags(module, fastMath, fastMathError))) {
    llvm::errs() << "fuse-compile: --fastmath: " << fastMathError << "\n";
    return failure();
  }
  for (auto fn : module.getOps<func::FuncOp>()) {
    std::string cName = symbolPrefix + fn.getSymName().str();
    if (fn.isPublic())
      fuse::warnUncheckedSizes(fn);
    if (fn.isPublic() && !fn.isDeclaration() && isCLibraryName(cName))
      fn.emitWarning() << "entry '" << cName
                       << "' has the name of a C library function: a C or "
                          "C++ program that includes its header (e.g. "
                          "<stdlib.h> or <math.h>) cannot declare it; "
                          "rename the function or give --prefix";
  }
  return success();
}

/// The checks of the options that need no output name: optimization
/// levels, --tile-options against --no-fusion, and --emit's value.
LogicalResult checkOptions() {
  if (ptxasOptLevel < -1 || ptxasOptLevel > 3 || optLevel > 3) {
    llvm::errs() << "fuse-compile: --opt-level must be 0-3 and "
                    "--ptxas-opt-level 0-3\n";
    return failure();
  }
  if (noFusion && !tileOptions.empty()) {
    llvm::errs() << "fuse-compile: --tile-options needs fusion (tiling runs "
                    "with it; drop --no-fusion or tile with fuse-opt)\n";
    return failure();
  }
  if (emit != "all" && emit != "shared" && emit != "ptx" && emit != "cubin" &&
      emit != "obj" && emit != "header" && emit != "manifest") {
    llvm::errs() << "fuse-compile: --emit must be ptx, cubin, obj, header, "
                    "all, shared or manifest\n";
    return failure();
  }
  return success();
}

/// The output path (--emit=all and shared: the base name the extensions
/// are appended to): -o, or the input's stem with the output's extension,
/// as a C compiler names its object, so that an object file never lands
/// on the terminal. Fails where the output would go to standard output
/// and cannot (several files, or binary data on a terminal).
FailureOr<std::string> outputBaseName() {
  bool multiple = emit == "all" || emit == "shared";
  bool binary = emit == "obj" || emit == "cubin";
  std::string base = outputBase;
  if (base.empty()) {
    if (inputFile == "-") {
      if (binary || multiple) {
        llvm::errs() << "fuse-compile: --emit=" << emit
                     << " reading standard input needs -o <path>\n";
        return failure();
      }
      base = "-";
    } else {
      std::string ext = llvm::StringSwitch<std::string>(emit)
                            .Case("ptx", ".ptx")
                            .Case("cubin", ".cubin")
                            .Case("obj", ".o")
                            .Case("header", ".h")
                            .Case("manifest", ".json")
                            .Default("");
      base = llvm::sys::path::stem(inputFile).str() + ext;
    }
  }
  if (base == "-" && binary && llvm::sys::Process::StandardOutIsDisplayed()) {
    llvm::errs() << "fuse-compile: --emit=" << emit
                 << " writes binary data: refusing to write it to a "
                    "terminal (give -o <path>)\n";
    return failure();
  }
  if (multiple && base == "-") {
    llvm::errs() << "fuse-compile: --emit=" << emit
                 << " needs -o <base name>\n";
    return failure();
  }
  return base;
}

/// The path of the output with extension `ext`: `base` itself, except for
/// --emit=all, which writes several files named after it.
std::string pathFor(StringRef base, StringRef ext) {
  return emit == "all" ? (base + ext).str() : base.str();
}

/// The kernels of `m` (consumed) as a cubin.
FailureOr<std::string> cubinOf(ModuleOp m, const aot::CompileOptions &options) {
  if (failed(
          aot::runPipeline(m, options, fuse::GPUPipelineStage::Binary, "bin")))
    return failure();
  return aot::binaryBytes(m);
}

/// The entries' C header (its guard made of the file's name); `module` has
/// been through convert-fuse-to-gpu, which records their declarations.
LogicalResult writeHeader(ModuleOp module, StringRef base) {
  std::string hpath = pathFor(base, ".h");
  return writeFile(hpath, fuse::emitEntryHeader(module, guardFor(hpath)));
}

/// --emit=manifest. The manifest needs the entries convert-fuse-to-gpu
/// records (as the header does): no LLVM code generation or ptxas.
int emitManifest(ModuleOp module, const aot::CompileOptions &options,
                 StringRef base) {
  OwningOpRef<ModuleOp> source = module.clone();
  if ((!symbolPrefix.empty() &&
       failed(aot::prefixEntries(module, symbolPrefix))) ||
      failed(aot::runPipeline(module, options, fuse::GPUPipelineStage::NVVM,
                              format)))
    return 1;
  // -o out/sumsq.json names the library sumsq.so (the --emit=shared name).
  std::string libName =
      (base == "-" ? StringRef("pipeline") : llvm::sys::path::stem(base))
          .str() +
      ".so";
  FailureOr<std::string> manifest =
      aot::buildManifest(*source, module, options, libName);
  return failed(manifest) || failed(writeFile(base, *manifest));
}

/// --emit=obj and --emit=all: the full pipeline, then the host object.
/// For all, one run makes the PTX, the cubin (when the object embeds one,
/// the default format) and the object; the PTX and the image are copied
/// out as the kernels are serialized.
int emitObject(ModuleOp module, const aot::CompileOptions &options,
               StringRef base) {
  bool all = emit == "all";
  std::string ptx, image;
  fuse::GPUSerializationSinks sinks;
  if (all) {
    sinks.isa = &ptx;
    if (format == "bin")
      sinks.binary = &image;
    else {
      OwningOpRef<ModuleOp> copy = module.clone();
      FailureOr<std::string> cubin = cubinOf(*copy, options);
      if (failed(cubin))
        return 1;
      image = std::move(*cubin);
    }
  }
  if (failed(aot::runPipeline(module, options, fuse::GPUPipelineStage::LLVM,
                              format, sinks)))
    return 1;
  if (all) {
    if (ptx.empty() || image.empty()) {
      module.emitError("fuse-compile: no kernels were generated");
      return 1;
    }
    if (failed(writeFile(pathFor(base, ".ptx"), ptx)) ||
        failed(writeFile(pathFor(base, ".cubin"), image)) ||
        failed(writeHeader(module, base)))
      return 1;
  }
  FailureOr<std::string> obj = fuse::emitHostObject(module);
  if (failed(obj) || failed(writeFile(pathFor(base, ".o"), *obj)))
    return 1;
  return 0;
}

/// Compiles `module` to what --emit asks for, at `base`; the exit status.
int emitOutputs(ModuleOp module, StringRef base) {
  aot::CompileOptions options = compileOptions();
  if (emit == "shared")
    return failed(aot::compileShared(module, options, (base + ".so").str(),
                                     (base + ".json").str()));
  if (emit == "manifest")
    return emitManifest(module, options, base);

  if (!symbolPrefix.empty() && failed(aot::prefixEntries(module, symbolPrefix)))
    return 1;

  if (emit == "ptx") {
    if (failed(aot::runPipeline(module, options, fuse::GPUPipelineStage::PTX,
                                "isa")))
      return 1;
    FailureOr<std::string> ptx = aot::binaryBytes(module);
    return failed(ptx) || failed(writeFile(pathFor(base, ".ptx"), *ptx)) ? 1
                                                                         : 0;
  }
  // A header needs the entries' C declarations, which convert-fuse-to-gpu
  // records: the pipeline up to the kernels in NVVM, no LLVM code
  // generation or ptxas (logsumexp_rows in a fifth of the time; no CUDA
  // toolkit needed).
  if (emit == "header")
    return failed(aot::runPipeline(module, options,
                                   fuse::GPUPipelineStage::NVVM, format)) ||
                   failed(writeHeader(module, base))
               ? 1
               : 0;
  if (emit == "cubin") {
    FailureOr<std::string> cubin = cubinOf(module, options);
    return failed(cubin) || failed(writeFile(pathFor(base, ".cubin"), *cubin))
               ? 1
               : 0;
  }
  return emitObject(module, options, base);
}

/// The whole compile: input, checks, outputs. Returns the exit status.
int run(MLIRContext &ctx) {
  llvm::SourceMgr sm;
  if (failed(readInput(sm)))
    return 1;
  SourceMgrDiagnosticHandler handler(sm, &ctx);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sm, &ctx);
  if (!module)
    return 1;
  if (failed(prepareEntries(*module)) || failed(checkOptions()))
    return 1;
  FailureOr<std::string> base = outputBaseName();
  if (failed(base))
    return 1;
  return emitOutputs(*module, *base);
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  auto start = std::chrono::steady_clock::now();
  fuse::registerCompilerPasses();
  cl::HideUnrelatedOptions(cat);
  cl::ParseCommandLineOptions(
      argc, argv,
      "fuse-compile: compile a fuse pipeline ahead of time to an object file "
      "(host code + embedded GPU image) and a C header, or to a shared "
      "library and\nsignature manifest that fuse-run-aot runs on a GPU "
      "machine (--emit=shared)\n");
  DialectRegistry registry;
  fuse::registerCompilerDialects(registry);
  MLIRContext ctx(registry);
  // Diagnostics name the source location; a dump of the failing operation
  // (often the whole GPU module) helps no user of a compiler driver.
  ctx.printOpOnDiagnostic(false);
  int rc = run(ctx);
  if (printTime) {
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    llvm::errs() << "fuse-compile: wall time " << llvm::format("%.1f", ms)
                 << " ms\n";
  }
  // Every output file is written and closed by now (writeFile). Exiting
  // without tearing down the context (dialects, uniqued attributes, the
  // embedded image) and LLVM's static state saves milliseconds of every
  // compile, as compilers commonly do.
  llvm::outs().flush();
  llvm::errs().flush();
  llvm::sys::Process::Exit(rc, /*NoCleanup=*/true);
}
