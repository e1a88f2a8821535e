//===- fuse-opt.cpp - the fuse optimizer driver ---------------------------===//
//
// mlir-opt with the fuse dialect, fuse's passes and its named pipelines.
//
//===----------------------------------------------------------------------===//

#include "fuse/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  fuse::registerAllPasses();
  mlir::DialectRegistry registry;
  fuse::registerAllDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "fuse optimizer driver: the fuse dialect, passes and "
                  "pipelines\n",
      registry));
}
