//===- FuseToGPU.cpp - convert-fuse-to-gpu: entries and the pass ----------===//
//
// Each entry function becomes a C-ABI function built from func/arith/cf/llvm
// ops that calls the fuse runtime. This file prepares an entry (loose ops
// wrapped in groups, returned arguments copied), checks it, builds the
// kernels of its groups (KernelGen.h) and its C declaration, and drives the
// host function (HostEntry.h); it also holds the pass.
//
//===----------------------------------------------------------------------===//

#include "fuse/Conversion/FuseToGPU/FuseToGPU.h"
#include "HostEntry.h"
#include "KernelGen.h"
#include "MergeSort.h"

#include "fuse/Conversion/Passes.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/Fuse/Utils/EntryGroups.h"
#include "fuse/Dialect/Fuse/Utils/EntrySizeChecks.h"
#include "fuse/Dialect/Fuse/Utils/SizeAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace fuse {
#define GEN_PASS_DEF_CONVERTFUSETOGPUPASS
#include "fuse/Conversion/Passes.h.inc"
} // namespace fuse

using namespace fuse;
using namespace fuse::gpugen;

namespace {

/// Moves each `tensor.dim` (constant index) inside the regions of a
/// group's ops whose tensor is defined outside that op to just before the
/// op, in the group body: the kernel generators read body-level scalars
/// (the dimension then comes from the kernel's size parameters), where a
/// dimension computed inside a map body, filter predicate or combiner had
/// no scalar value for its tensor.
void hoistRegionDims(func::FuncOp fn) {
  for (auto g : fn.getBody().front().getOps<GroupOp>()) {
    SmallVector<std::pair<Operation *, tensor::DimOp>> moves;
    for (Operation &top : g.getBody().front()) {
      if (top.getNumRegions() == 0)
        continue;
      top.walk([&](tensor::DimOp d) {
        Operation *srcOwner = d.getSource().getParentRegion()->getParentOp();
        if (!top.isAncestor(srcOwner) && d.getConstantIndex())
          moves.push_back({&top, d});
      });
    }
    for (auto [top, d] : moves) {
      OpBuilder b(top);
      Value idx = arith::ConstantIndexOp::create(b, d.getLoc(),
                                                 *d.getConstantIndex());
      Value nd = tensor::DimOp::create(b, d.getLoc(), d.getSource(), idx);
      d.getResult().replaceAllUsesWith(nd);
      d.erase();
    }
  }
}

//===----------------------------------------------------------------------===//
// Preparing an entry
//===----------------------------------------------------------------------===//

/// Erases the entry's dead scalar ops (a `tensor.dim` nothing reads, as
/// traced code leaves): the host would compute them, and one of a filter's
/// result would read its count back for nothing.
void eraseDeadOps(func::FuncOp fn) {
  Block &body = fn.getBody().front();
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (isOpTriviallyDead(&op))
      op.erase();
}

//===----------------------------------------------------------------------===//
// Converting one entry function
//===----------------------------------------------------------------------===//

struct EntryConverter {
  ModuleOp module;
  gpu::GPUModuleOp gpuModule;
  Tiling defaults;
  /// The chip has cp.async (sm_80+): staged scan/filter tiles and staged
  /// rows are possible.
  bool asyncCopy = true;
  /// Dynamic shared memory a block may take on the chip for staged rows
  /// (its opt-in maximum, less 1 KiB for the kernels' static buffers).
  int64_t maxStagedBytes = 0;

  /// The group's tiling: its `fuse.tiling` (verified by TilingAttr), or
  /// the pass options for a group fuse-tile did not see; then what the
  /// chip allows.
  Tiling tilingOf(GroupOp g) {
    Tiling t = defaults;
    auto a = g->getAttrOfType<TilingAttr>(TilingAttr::getAttrName());
    if (!a) {
      t.stageTiles = t.stageTiles && asyncCopy;
      return t;
    }
    t.stagedWideRows = maxStagedBytes / 2;
    {
      t.blockThreads = a.getBlockThreads();
      t.items = a.getItemsPerThread();
      t.vectorWidth = a.getVectorWidth();
      t.grid = a.getGrid();
      t.stageTiles = a.getStageTiles();
      t.sharedScatter = a.getSharedScatter();
      t.finishPrefetch = a.getFinishPrefetch();
      t.longRowItems = a.getLongRowItems();
      t.longRowStageItems = a.getLongRowStageItems();
      t.onlineMaxSum = a.getOnlineMaxSum();
      t.oneWalkVariance = a.getOneWalkVariance();
      t.narrowRows = a.getNarrowRows();
      t.stagedRows = std::min(a.getStagedRows(), maxStagedBytes);
      t.stagedThreads =
          a.getStagedThreads() ? a.getStagedThreads() : t.blockThreads;
      t.wideRowThreads = a.getWideRowThreads();
      t.segmentPiece = a.getSegmentPiece();
      t.pollDelay = a.getPollDelay();
      t.lookbackDelay = a.getLookbackDelay();
      // The other kernels read items as vectors in flight a thread.
      t.unroll = std::clamp<int64_t>(t.items / t.vectorWidth, 1, 16);
    }
    if (!asyncCopy) {
      t.stageTiles = false;
      t.stagedRows = 0;
    }
    return t;
  }

  LogicalResult convert(func::FuncOp fn, SmallVector<Attribute> &entries);
};

/// Checks before building anything: the ops, arguments and results of
/// entry `fn` that the GPU code generation can take.
LogicalResult checkEntry(func::FuncOp fn) {
  Block &oldBody = fn.getBody().front();
  for (Operation &op : oldBody) {
    if (isa<GroupOp, SortOp, func::ReturnOp>(op))
      continue;
    if (isa<tensor::DimOp>(op))
      continue;
    // Views of the same buffer (fuse-collapse-rows, fuse-bool-bytes, a
    // prefix sized by a count on the device).
    if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, PrefixOp>(op) ||
        isByteView(&op))
      continue;
    bool scalarOnly = op.getNumRegions() == 0 &&
                      llvm::none_of(op.getOperandTypes(), [](Type t) {
                        return isa<ShapedType>(t);
                      }) &&
                      llvm::none_of(op.getResultTypes(), [](Type t) {
                        return isa<ShapedType>(t);
                      });
    if (!scalarOnly)
      return op.emitOpError("GPU code generation: unsupported op in an entry "
                            "function (expected fuse.group, fuse.sort, "
                            "fuse.prefix, scalar ops, tensor.dim or tensor "
                            "reshapes)");
  }
  for (BlockArgument a : oldBody.getArguments()) {
    Type t = a.getType();
    if (auto tt = dyn_cast<RankedTensorType>(t)) {
      // i1 arguments are bytes (fuse-bool-bytes views them as i8; a group
      // that cannot read them so is rejected at its boundary).
      Type et = tt.getElementType();
      if (!et.isIntOrIndexOrFloat())
        return fn.emitOpError("GPU code generation: unsupported element type ")
               << et << " of tensor argument #" << a.getArgNumber();
      continue;
    }
    if (!t.isIntOrIndexOrFloat())
      return fn.emitOpError("GPU code generation: unsupported argument type ")
             << t;
  }
  auto ret = cast<func::ReturnOp>(oldBody.getTerminator());
  for (Value r : ret.getOperands()) {
    if (!isa<RankedTensorType>(r.getType()))
      return fn.emitOpError("GPU code generation: results must be tensors");
    r = viewedValue(r);
    if (!r.getDefiningOp<GroupOp>() && !r.getDefiningOp<SortOp>())
      return fn.emitOpError("GPU code generation: every result must be "
                            "produced by a fuse.group or a fuse.sort in the "
                            "function");
  }
  return success();
}

/// The host function's signature for entry `fn`: per input a pointer and
/// one i64 per dimension (tensors) or the value (scalars), per output a
/// pointer, per output sized by a fuse.filter's kept count a count
/// pointer, and the stream (the C interface #fuse.entry describes).
EntrySignature entrySignature(func::FuncOp fn) {
  MLIRContext *ctx = fn.getContext();
  Block &oldBody = fn.getBody().front();
  auto ret = cast<func::ReturnOp>(oldBody.getTerminator());
  EntrySignature sig;
  SmallVector<Type> &argTypes = sig.argTypes;
  Type ptrTy = LLVM::LLVMPointerType::get(ctx);
  for (auto [i, a] : llvm::enumerate(oldBody.getArguments())) {
    sig.argNames.push_back("in" + std::to_string(i));
    if (auto tt = tensorTy(a)) {
      argTypes.push_back(ptrTy);
      argTypes.append(tt.getRank(), IntegerType::get(ctx, 64));
    } else {
      argTypes.push_back(a.getType().isIndex() ? IntegerType::get(ctx, 64)
                                               : a.getType());
    }
  }
  sig.firstResultArg = argTypes.size();
  argTypes.append(ret.getNumOperands(), ptrTy);
  // Results sized by a fuse.filter's kept count (its own results, and
  // maps, scans and gathers of them): one `int64_t *outK_count` each (host
  // pointer, may be NULL), written before the call returns.
  sig.countArg.assign(ret.getNumOperands(), -1);
  for (auto [i, r] : llvm::enumerate(ret.getOperands())) {
    if (!filterCountSource(r))
      continue;
    sig.countArg[i] = argTypes.size();
    argTypes.push_back(ptrTy);
  }
  sig.streamArg = argTypes.size();
  argTypes.push_back(ptrTy);
  return sig;
}

LogicalResult EntryConverter::convert(func::FuncOp fn,
                                      SmallVector<Attribute> &entries) {
  MLIRContext *ctx = fn.getContext();
  if (fn.getBody().getBlocks().size() != 1)
    return fn.emitOpError("GPU code generation: entry functions must have "
                          "one block");
  // A sharded entry (fuse-shard) needs collectives between GPUs, which
  // the runtime does not have yet.
  Operation *collective = nullptr;
  fn.walk([&](Operation *op) {
    if (!collective && isa<ShardRankOp, AllGatherOp, AllConcatOp>(op))
      collective = op;
  });
  if (collective)
    return collective->emitOpError(
        "GPU code generation: a sharded entry's collectives do not run on "
        "the GPU yet (`fuse-run --shards=N` runs sharded entries on the "
        "CPU)");
  copyReturnedArguments(fn);
  eraseDeadOps(fn);
  wrapLooseOps(fn);
  hoistRegionDims(fn);
  if (failed(checkEntry(fn)))
    return failure();

  // Kernels.
  std::string name = fn.getSymName().str();
  SmallVector<std::pair<GroupOp, GroupKernels>, 2> groups;
  unsigned gi = 0;
  for (Operation &op : fn.getBody().front())
    if (auto g = dyn_cast<GroupOp>(op)) {
      FailureOr<GroupKernels> gk = buildGroupKernels(
          gpuModule, g, name + "_g" + std::to_string(gi++), tilingOf(g));
      if (failed(gk))
        return failure();
      // A step over a filter's kept elements reads their count on the
      // device, so that neither form of the entry waits for it.
      if (canTakeSizeOnDevice(g, *gk))
        readSizeOnDevice(gpuModule, g, *gk);
      groups.push_back({g, *gk});
    }
  for (auto [i, sort] : llvm::enumerate(comparatorSorts(fn))) {
    FailureOr<MergeSortPlan> plan = planMergeSort(sort, name, i);
    if (failed(plan))
      return failure();
    buildMergeSortKernels(gpuModule, *plan);
  }

  // The host function and the entry's description.
  EntrySignature sig = entrySignature(fn);
  sig.symbol = name;
  OpBuilder mb(fn);
  auto host =
      func::FuncOp::create(mb, fn.getLoc(), name + "__fuse_host",
                           mb.getFunctionType(sig.argTypes, {mb.getI32Type()}));
  HostEntry hostEntry(module, fn, host, groups, sig);
  if (failed(hostEntry.build()))
    return failure();
  std::string workspaceNote;
  if (failed(buildWorkspaceForm(module, fn, groups, sig, workspaceNote)))
    return failure();
  SmallVector<Attribute> inputs;
  for (Type t : fn.getArgumentTypes())
    inputs.push_back(TypeAttr::get(t));
  SmallVector<Attribute> checks;
  for (const SizeCheck &c : entrySizeChecks(fn))
    checks.push_back(sizeCheckAttr(ctx, c));
  entries.push_back(EntryAttr::get(
      ctx, name, groups.size(), ArrayAttr::get(ctx, inputs),
      ArrayAttr::get(ctx, hostEntry.outputs()),
      workspaceNote.empty() ? WorkspaceForm::Available : WorkspaceForm::None,
      workspaceNote,
      checks.empty() ? ArrayAttr() : ArrayAttr::get(ctx, checks)));

  fn.erase();
  host.setSymName(name);
  return success();
}

//===----------------------------------------------------------------------===//
// The passes
//===----------------------------------------------------------------------===//

struct ConvertFuseToGPUPass
    : public fuse::impl::ConvertFuseToGPUPassBase<ConvertFuseToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Declarations with tensor types have no host (LLVM) form: an unused
    // private one is dropped, any other is reported here rather than by
    // the LLVM translation.
    for (auto fn : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
      if (!fn.isExternal())
        continue;
      auto isTensor = [](Type t) { return isa<TensorType>(t); };
      if (llvm::none_of(fn.getArgumentTypes(), isTensor) &&
          llvm::none_of(fn.getResultTypes(), isTensor))
        continue;
      if (fn.isPrivate() && SymbolTable::symbolKnownUseEmpty(fn, module)) {
        fn.erase();
        continue;
      }
      fn.emitError("GPU code generation: a function declaration with tensor "
                   "arguments or results cannot be compiled (fuse entries "
                   "cannot call it); remove it or make it private and "
                   "unused");
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> entries;
    for (auto fn : module.getOps<func::FuncOp>())
      if (isEntryFunction(fn))
        entries.push_back(fn);
    if (entries.empty())
      return;
    if (blockThreads < 32 || blockThreads > 1024 || blockThreads % 32) {
      module.emitError("convert-fuse-to-gpu: block-threads must be a "
                       "multiple of 32 in [32, 1024]");
      return signalPassFailure();
    }
    if (module.lookupSymbol(kKernelModuleName)) {
      module.emitError("convert-fuse-to-gpu: symbol '")
          << kKernelModuleName << "' already exists";
      return signalPassFailure();
    }
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto gpuModule =
        gpu::GPUModuleOp::create(b, module.getLoc(), kKernelModuleName);
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    b.getUnitAttr());
    EntryConverter conv{module, gpuModule, Tiling{}};
    conv.defaults.blockThreads = blockThreads;
    conv.defaults.unroll = std::clamp<int64_t>(unroll, 1, 16);
    conv.defaults.blocksPerSM = std::max<int64_t>(1, blocksPerSM);
    conv.defaults.smallReduce = smallReduce;
    // The module's target (fuse-attach-target): cp.async from sm_80 on
    // (ptxas and NVPTX reject it before); staged rows take what a block
    // may opt in to, less 1 KiB for the kernels' static buffers.
    TargetAttr target = TargetAttr::lookup(module);
    conv.asyncCopy = target.hasAsyncCopy();
    conv.maxStagedBytes = target.getSharedMemoryPerBlock() - 1024;
    SmallVector<Attribute> entryAttrs;
    for (func::FuncOp fn : entries)
      if (failed(conv.convert(fn, entryAttrs)))
        return signalPassFailure();
    module->setAttr(EntryAttr::getAttrName(), b.getArrayAttr(entryAttrs));
    // Correctly rounded square roots, as IEEE-754 and docs/dialect.md ask:
    // convert-gpu-to-nvvm would call libdevice's __nv_sqrtf, which is
    // sqrt.approx.f32 (up to 1 ulp off) unless __CUDA_PREC_SQRT is set;
    // the NVVM intrinsics are sqrt.rn.f32 / sqrt.rn.f64 (llvm.sqrt is
    // illegal in convert-gpu-to-nvvm, which wants libdevice).
    gpuModule.walk([](Operation *op) {
      if (op->getName().getStringRef() != "math.sqrt" ||
          op->getNumOperands() != 1 ||
          !isa<Float32Type, Float64Type>(op->getResult(0).getType()))
        return;
      OpBuilder ob(op);
      Type t = op->getResult(0).getType();
      Value r = LLVM::CallIntrinsicOp::create(
                    ob, op->getLoc(), t,
                    ob.getStringAttr(t.isF32() ? "llvm.nvvm.sqrt.rn.f"
                                               : "llvm.nvvm.sqrt.rn.d"),
                    ValueRange{op->getOperand(0)})
                    .getResult(0);
      op->getResult(0).replaceAllUsesWith(r);
      op->erase();
    });
  }
};

} // namespace
