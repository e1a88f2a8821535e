//===- fuse-fuzz.cpp - libFuzzer target over parse, verify and pipelines --===//
//
// Each input is MLIR text. The harness parses it with the fuse input
// language registered (fuse, func, arith, math, tensor), verifies it, checks
// that the printed form parses back to the same IR, then runs the full
// `fuse-to-cpu` pipeline (and `fuse-to-ptx` once that pipeline is
// registered: it is looked up by name) on a clone. Diagnostics are captured,
// never printed, unless the input is a finding.
//
// Findings (the process aborts, so libFuzzer keeps the reproducer):
//   - any crash, assertion, sanitizer report (the build instruments fuse's
//     own libraries with ASan/UBSan);
//   - a pass that succeeds but leaves IR that does not verify (the check
//     `--verify-each` does in fuse-opt, RELIABILITY.md row 5);
//   - verified IR whose printed form does not parse back
//     (`--verify-roundtrip`).
// A pass that fails with a diagnostic is the right behaviour on IR it does
// not support (RELIABILITY.md row 4), so it is not a finding.
//
// Environment: FUSE_FUZZ_VERBOSE=1 prints each input's diagnostics (for
// replaying one reproducer by hand).
//
//===----------------------------------------------------------------------===//

#include "fuse/Dialect/Fuse/IR/FuseDialect.h"
#include "fuse/InitAll.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace mlir;

namespace {

/// The full registry (every dialect fuse's pipelines go through) and the
/// small one the input language needs. Built once.
struct Registries {
  DialectRegistry input;
  DialectRegistry full;
  bool verbose = false;
};

Registries &getRegistries() {
  static Registries *r = [] {
    auto *regs = new Registries();
    regs->input.insert<fuse::FuseDialect, func::FuncDialect,
                       arith::ArithDialect, math::MathDialect,
                       tensor::TensorDialect>();
    fuse::registerAllDialects(regs->full);
    fuse::registerAllPasses();
    const char *v = std::getenv("FUSE_FUZZ_VERBOSE");
    regs->verbose = v && *v && std::string(v) != "0";
    return regs;
  }();
  return *r;
}

/// Prints what is known about a finding and aborts, so libFuzzer records
/// the input as a crash.
[[noreturn]] void finding(StringRef what, StringRef diagnostics,
                          Operation *op) {
  llvm::errs() << "fuse-fuzz: FINDING: " << what << "\n";
  if (!diagnostics.empty())
    llvm::errs() << "-- diagnostics:\n" << diagnostics << "\n";
  if (op) {
    llvm::errs() << "-- IR:\n";
    op->print(llvm::errs(), OpPrintingFlags().printGenericOpForm());
    llvm::errs() << "\n";
  }
  llvm::errs().flush();
  std::abort();
}

/// Verifies the IR after every successful pass. On failure the pass is
/// named and the run aborts: a pass produced invalid IR.
struct VerifyAfterEachPass : public PassInstrumentation {
  explicit VerifyAfterEachPass(std::string &diags) : diags(diags) {}
  void runAfterPass(Pass *pass, Operation *op) override {
    if (succeeded(verify(op)))
      return;
    std::string what = "pass '";
    what += pass->getArgument().empty() ? pass->getName().str()
                                        : pass->getArgument().str();
    what += "' produced IR that does not verify";
    finding(what, diags, op);
  }
  std::string &diags;
};

/// Runs the named pipeline on a clone of `module`. Returns without a
/// finding whether the pipeline succeeds or fails with a diagnostic.
void runPipeline(StringRef name, ModuleOp module, std::string &diags) {
  const PassPipelineInfo *info = PassPipelineInfo::lookup(name);
  if (!info)
    return;
  OwningOpRef<ModuleOp> clone = module.clone();
  PassManager pm(module.getContext());
  // The instrumentation does what enableVerifier does, but tells a pass
  // that breaks the IR apart from one that fails cleanly.
  pm.enableVerifier(false);
  pm.addInstrumentation(std::make_unique<VerifyAfterEachPass>(diags));
  std::string errors;
  llvm::raw_string_ostream errStream(errors);
  if (failed(info->addToPipeline(pm, "", [&](const Twine &msg) {
        errStream << msg;
        return failure();
      })))
    finding(("cannot build pipeline '" + name + "': " + errors).str(), diags,
            nullptr);
  (void)pm.run(*clone);
}

/// The printed form (custom and generic) must parse back to the same IR.
void checkRoundTrip(MLIRContext &ctx, ModuleOp module, std::string &diags) {
  for (bool generic : {false, true}) {
    std::string text;
    llvm::raw_string_ostream os(text);
    OpPrintingFlags flags;
    if (generic)
      flags.printGenericOpForm();
    module->print(os, flags);
    OwningOpRef<ModuleOp> reparsed =
        parseSourceString<ModuleOp>(text, ParserConfig(&ctx));
    if (!reparsed)
      finding(generic ? "generic form does not parse back"
                      : "custom form does not parse back",
              diags + "\n-- printed:\n" + text, nullptr);
    std::string again;
    llvm::raw_string_ostream os2(again);
    (*reparsed)->print(os2, flags);
    if (again != text)
      finding(generic ? "generic form round trip changes the IR"
                      : "custom form round trip changes the IR",
              diags + "\n-- printed:\n" + text + "\n-- reprinted:\n" + again,
              nullptr);
  }
}

} // namespace

/// ASan's manual poisoning off by default: LLVM's BumpPtrAllocator poisons
/// the unused part of each slab in code compiled with ASan (fuse's, where
/// Allocator.h is inlined) but not in the uninstrumented libMLIR, and both
/// allocate from the MLIRContext's one uniquer. Memory that libMLIR handed
/// out of a slab fuse's code had started stays poisoned, and the next
/// instrumented read of it is a false use-after-poison (first seen parsing
/// a func.func whose attribute dictionary landed in such a slab). Real heap
/// errors are still reported: they do not depend on user poisoning.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  (void)getRegistries();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Registries &regs = getRegistries();
  // A fresh context per input: nothing one input interns can affect the
  // next. Threading off: the fuzzer runs one input at a time.
  MLIRContext ctx(regs.input, MLIRContext::Threading::DISABLED);
  std::string diags;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    llvm::raw_string_ostream os(diags);
    os << diag.getLocation() << ": " << diag << "\n";
    if (regs.verbose)
      llvm::errs() << diag.getLocation() << ": " << diag << "\n";
    return success();
  });

  // The lexer reads up to a terminating NUL: parse a NUL-terminated copy.
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          StringRef(reinterpret_cast<const char *>(data), size), "fuzz-input"),
      llvm::SMLoc());
  // Parsing verifies the module.
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&ctx));
  if (!module)
    return 0;
  // Belt and braces: the parser verified; a second verify must agree.
  if (failed(verify(*module)))
    finding("module verified after parsing but not on a second verify", diags,
            nullptr);

  checkRoundTrip(ctx, *module, diags);

  // The pipelines need the dialects they lower to.
  ctx.appendDialectRegistry(regs.full);
  runPipeline("fuse-to-cpu", *module, diags);
  runPipeline("fuse-to-ptx", *module, diags);
  return 0;
}
