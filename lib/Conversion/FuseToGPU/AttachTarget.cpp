//===- AttachTarget.cpp - put the target GPU on the module ----------------===//

#include "fuse/Conversion/Passes.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/Fuse/IR/Target.h"

#include "mlir/IR/BuiltinOps.h"

namespace fuse {
#define GEN_PASS_DEF_FUSEATTACHTARGETPASS
#include "fuse/Conversion/Passes.h.inc"
} // namespace fuse

using namespace mlir;

namespace {

struct FuseAttachTargetPass
    : fuse::impl::FuseAttachTargetPassBase<FuseAttachTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    fuse::TargetAttr t = fuse::TargetAttr::getForChip(&getContext(), chip);
    if (!t) {
      module.emitError() << fuse::unknownChipMessage(chip);
      return signalPassFailure();
    }
    if (smCount < 0) {
      module.emitError() << "fuse-attach-target: sm-count must not be "
                            "negative, not "
                         << static_cast<int64_t>(smCount);
      return signalPassFailure();
    }
    if (smCount > 0)
      t = fuse::TargetAttr::get(
          &getContext(), t.getChip(), smCount, t.getMaxThreadsPerBlock(),
          t.getMaxThreadsPerSM(), t.getSharedMemoryPerBlock(),
          t.getSharedMemoryPerSM(), t.getRegistersPerSM(), t.getL2Bytes(),
          t.getVectorBytes());
    module->setAttr(fuse::TargetAttr::getAttrName(), t);
  }
};

} // namespace
