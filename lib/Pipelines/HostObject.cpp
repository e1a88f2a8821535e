//===- HostObject.cpp - the host object of a module at stage LLVM ---------===//
//
// The last step of ahead-of-time compilation, after the GPU pipeline's
// stage LLVM: fuse-compile, fuse-run --gpu and embedders turn the module
// into an object file here.
//
//===----------------------------------------------------------------------===//

#include "fuse/Pipelines/Pipelines.h"

#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;

namespace fuse {

FailureOr<std::string> emitHostObject(ModuleOp module) {
  llvm::LLVMContext llvmCtx;
  auto llvmModule = translateModuleToLLVMIR(module, llvmCtx, "fuse");
  if (!llvmModule)
    return module.emitError("translation to LLVM IR failed"), failure();
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string err;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, err);
  if (!target)
    return module.emitError(err), failure();
  llvm::TargetOptions opts;
  // Less, not Default: the host code (launchers, argument packing, the
  // embedded image) comes out byte-identical for every example, GPU test
  // program and 40 random programs, and the object is emitted in about
  // two thirds of the time.
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, "generic", "", opts, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Less));
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(tm->createDataLayout());
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr,
                              llvm::CodeGenFileType::ObjectFile))
    return module.emitError("the host target cannot emit object files"),
           failure();
  pm.run(*llvmModule);
  return std::string(buffer.str());
}

} // namespace fuse
