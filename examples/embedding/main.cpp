// my-compiler: a compiler of your own that embeds fuse through its
// installed CMake package (docs/embedding.md). It registers fuse's dialects
// and passes, parses a module and lowers it with fuse's pipelines, built
// through their options structs:
//
//   my-compiler FILE.mlir
//       fuse's CPU pipeline (the same as `fuse-opt --fuse-to-cpu`); prints
//       the module in the LLVM dialect.
//   my-compiler --gpu[=ptx|cubin|obj] FILE.mlir [-o BASE]
//       fuse's GPU frontend (target description, fusion, tiling), then this
//       compiler's own pass (ReportGroupsPass), then fuse's GPU backend
//       (kernels, NVVM, PTX, ptxas). Prints the PTX; `cubin` also writes
//       BASE.cubin, `obj` BASE.cubin, BASE.o (the host code with the cubin
//       embedded) and BASE.h (its entries' C declarations). BASE: FILE's
//       name without .mlir.
#include "fuse/Conversion/FuseToGPU/FuseToGPU.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/InitAll.h"
#include "fuse/Pipelines/EntryHeader.h"
#include "fuse/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace {

/// This compiler's own pass, run between fuse's frontend and backend: it
/// lists each function's fused groups with the grid fuse-tile chose for
/// the target.
struct ReportGroupsPass
    : mlir::PassWrapper<ReportGroupsPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ReportGroupsPass)

  llvm::StringRef getArgument() const override { return "my-report-groups"; }
  llvm::StringRef getDescription() const override {
    return "List the fused groups and their grids";
  }

  void runOnOperation() override {
    for (auto fn : getOperation().getOps<mlir::func::FuncOp>()) {
      llvm::SmallVector<std::string> groups;
      fn.walk([&](fuse::GroupOp group) { groups.push_back(describe(group)); });
      llvm::outs() << getArgument() << ": @" << fn.getSymName() << ": "
                   << groups.size()
                   << " fused group(s): " << llvm::join(groups, ", ") << "\n";
    }
  }

  /// "reduce (grid 912)": the group's kind and its tiling's grid.
  static std::string describe(fuse::GroupOp group) {
    std::string text = fuse::stringifyGroupKind(group.getKind()).str();
    if (auto tiling = group->getAttrOfType<fuse::TilingAttr>(
            fuse::TilingAttr::getAttrName()))
      text += " (grid " + std::to_string(tiling.getGrid()) + ")";
    return text;
  }
};

/// What the GPU mode makes.
enum class GPUOutput { PTX, Cubin, Object };

struct Args {
  std::string input;
  std::optional<GPUOutput> gpu; // unset: the CPU pipeline
  std::string base;             // -o: the cubin's and object's path less .ext
};

std::optional<Args> parseArgs(int argc, char **argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "--gpu" || arg == "--gpu=ptx")
      args.gpu = GPUOutput::PTX;
    else if (arg == "--gpu=cubin")
      args.gpu = GPUOutput::Cubin;
    else if (arg == "--gpu=obj")
      args.gpu = GPUOutput::Object;
    else if (arg == "-o" && i + 1 < argc)
      args.base = argv[++i];
    else if (!arg.starts_with("-") && args.input.empty())
      args.input = arg.str();
    else
      return std::nullopt;
  }
  if (args.input.empty())
    return std::nullopt;
  if (args.base.empty())
    args.base = llvm::sys::path::stem(args.input).str();
  return args;
}

int runCPU(mlir::ModuleOp module, llvm::StringRef input) {
  mlir::PassManager pm(module.getContext());
  fuse::FuseToCPUOptions options;
  fuse::buildFuseToCPUPipeline(pm, options);
  if (mlir::failed(pm.run(module)))
    return 1;
  llvm::outs() << "lowered " << input
               << " with: " << fuse::getFuseToCPUPipelineString(options)
               << "\n";
  module.print(llvm::outs());
  return 0;
}

/// The target and code generation options, set in code: an H100 PCIe
/// (sm_90 with 114 SMs, where the chip table's sm_90 has 132).
void setGPUOptions(fuse::FuseToGPUOptions &options) {
  options.chip = "sm_90";
  options.smCount = 114;
  options.format = "bin"; // the image embedded in the object: a cubin
}

/// fuse's frontend, this compiler's pass, fuse's backend down to `stage`.
void buildGPUPipeline(mlir::PassManager &pm,
                      const fuse::FuseToGPUOptions &options,
                      fuse::GPUPipelineStage stage,
                      const fuse::GPUSerializationSinks &sinks) {
  fuse::buildFuseGPUFrontend(pm, options);
  pm.addPass(std::make_unique<ReportGroupsPass>());
  fuse::buildFuseGPUBackend(pm, options, stage, sinks);
}

/// The PTX of the (single) gpu.binary the PTX stage leaves.
std::optional<std::string> binaryPTX(mlir::ModuleOp module) {
  for (auto binary : module.getOps<mlir::gpu::BinaryOp>()) {
    auto object = llvm::cast<mlir::gpu::ObjectAttr>(binary.getObjects()[0]);
    return object.getObject().getValue().str();
  }
  return std::nullopt;
}

bool writeFile(const std::string &path, llvm::StringRef bytes) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    llvm::errs() << "my-compiler: cannot write " << path << ": " << ec.message()
                 << "\n";
    return false;
  }
  os << bytes;
  os.close();
  if (os.has_error()) {
    llvm::errs() << "my-compiler: cannot write " << path << ": "
                 << os.error().message() << "\n";
    os.clear_error();
    return false;
  }
  llvm::outs() << "wrote " << path << " (" << bytes.size() << " bytes)\n";
  return true;
}

/// BASE.o, the host object of a module at stage LLVM, and BASE.h, the C
/// declarations of its entries: what a program that calls them compiles
/// and links with the fuse runtime.
bool writeObject(mlir::ModuleOp module, const std::string &base) {
  mlir::FailureOr<std::string> object = fuse::emitHostObject(module);
  if (mlir::failed(object) || !writeFile(base + ".o", *object))
    return false;
  std::string guard = "MY_COMPILER_";
  for (char c : llvm::sys::path::stem(base))
    guard.push_back(llvm::isAlnum(c) ? llvm::toUpper(c) : '_');
  return writeFile(base + ".h", fuse::emitEntryHeader(module, guard + "_H"));
}

int runGPU(mlir::ModuleOp module, const Args &args) {
  fuse::FuseToGPUOptions options;
  setGPUOptions(options);
  fuse::GPUPipelineStage stage =
      *args.gpu == GPUOutput::PTX     ? fuse::GPUPipelineStage::PTX
      : *args.gpu == GPUOutput::Cubin ? fuse::GPUPipelineStage::Binary
                                      : fuse::GPUPipelineStage::LLVM;
  std::string message;
  if (mlir::failed(fuse::checkCUDAToolkit(options, stage, message))) {
    llvm::errs() << "my-compiler: " << message << "\n";
    return 1;
  }
  // Stages Binary and LLVM copy the PTX and the cubin out on the way.
  std::string ptx, cubin;
  mlir::PassManager pm(module->getName());
  buildGPUPipeline(pm, options, stage, {&ptx, &cubin});
  llvm::outs() << "pipeline: " << fuse::pipelineText(pm) << "\n";
  if (mlir::failed(pm.run(module)))
    return 1;
  if (stage == fuse::GPUPipelineStage::PTX)
    ptx = binaryPTX(module).value_or("");
  if (ptx.empty()) {
    llvm::errs() << "my-compiler: " << args.input << " has no kernels\n";
    return 1;
  }
  llvm::outs() << ptx << "\n";
  if (stage == fuse::GPUPipelineStage::PTX)
    return 0;
  if (!writeFile(args.base + ".cubin", cubin))
    return 1;
  if (stage != fuse::GPUPipelineStage::LLVM)
    return 0;
  return writeObject(module, args.base) ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  std::optional<Args> args = parseArgs(argc, argv);
  if (!args) {
    llvm::errs() << "usage: my-compiler [--gpu[=ptx|cubin|obj]] FILE.mlir "
                    "[-o BASE]\n";
    return 2;
  }
  fuse::registerAllPasses();
  mlir::DialectRegistry registry;
  fuse::registerAllDialects(registry);
  mlir::MLIRContext ctx(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(args->input, &ctx);
  if (!module)
    return 1;
  return args->gpu ? runGPU(*module, *args) : runCPU(*module, args->input);
}
