// A compiler of your own that embeds fuse: registers fuse's dialects and
// passes, parses a pipeline and lowers it with fuse's CPU pipeline, built
// through the options struct (the same pipeline as
// `fuse-opt --fuse-to-cpu`).
#include "fuse/InitAll.h"
#include "fuse/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: my-compiler FILE.mlir\n";
    return 2;
  }
  fuse::registerAllPasses();
  mlir::DialectRegistry registry;
  fuse::registerAllDialects(registry);
  mlir::MLIRContext ctx(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &ctx);
  if (!module)
    return 1;
  mlir::PassManager pm(&ctx);
  fuse::FuseToCPUOptions options;
  fuse::buildFuseToCPUPipeline(pm, options);
  if (mlir::failed(pm.run(*module)))
    return 1;
  llvm::outs() << "lowered " << argv[1] << " with: "
               << fuse::getFuseToCPUPipelineString(options) << "\n";
  module->print(llvm::outs());
  return 0;
}
