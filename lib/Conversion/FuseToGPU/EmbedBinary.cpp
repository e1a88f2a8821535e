//===- EmbedBinary.cpp - the kernels' image into the host module ----------===//
//
// fuse-embed-gpu-binary: the serialized gpu.binary becomes the globals the
// host code of convert-fuse-to-gpu loads.
//
//===----------------------------------------------------------------------===//

#include "fuse/Conversion/FuseToGPU/FuseToGPU.h"
#include "fuse/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace fuse {
#define GEN_PASS_DEF_FUSEEMBEDGPUBINARYPASS
#include "fuse/Conversion/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

namespace {

struct FuseEmbedGPUBinaryPass
    : public fuse::impl::FuseEmbedGPUBinaryPassBase<FuseEmbedGPUBinaryPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::BinaryOp> binaries(module.getOps<gpu::BinaryOp>());
    for (gpu::BinaryOp bin : binaries) {
      auto objects = bin.getObjects();
      if (objects.empty()) {
        bin.emitError("fuse-embed-gpu-binary: the binary has no object");
        return signalPassFailure();
      }
      auto obj = cast<gpu::ObjectAttr>(objects[0]);
      if (obj.getFormat() == gpu::CompilationTarget::Offload) {
        bin.emitError("fuse-embed-gpu-binary: offloading (LLVM IR) objects "
                      "cannot be loaded by the runtime; use format=bin, "
                      "fatbin or isa");
        return signalPassFailure();
      }
      StringRef bytes = obj.getObject().getValue();
      std::string name = bin.getSymName().str();
      auto image = module.lookupSymbol<LLVM::GlobalOp>(name + kImageSuffix);
      auto size = module.lookupSymbol<LLVM::GlobalOp>(name + kImageSizeSuffix);
      if (!image || !size) {
        bin.emitError("fuse-embed-gpu-binary: no image placeholder for '")
            << name << "' (run convert-fuse-to-gpu first)";
        return signalPassFailure();
      }
      OpBuilder b(module.getContext());
      std::string data = bytes.str();
      // PTX is loaded as a NUL-terminated string.
      if (obj.getFormat() == gpu::CompilationTarget::Assembly)
        data.push_back('\0');
      image.setGlobalTypeAttr(TypeAttr::get(
          LLVM::LLVMArrayType::get(b.getI8Type(), data.size())));
      image.setValueAttr(b.getStringAttr(data));
      size.setValueAttr(b.getI64IntegerAttr(data.size()));
      bin.erase();
    }
    module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  }
};

} // namespace
