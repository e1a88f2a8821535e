//===- DeviceSize.cpp - kernels that read a filter's count on the device --===//
//
// A step after a filter (a reduction, map, scan or filter of the kept
// elements) could only be launched once the host had read the filter's
// count: a copy to the host and a stream synchronization in the middle of
// the entry, which no CUDA graph can hold. Instead the group's kernels take
// the count's device address and read their length there; the host sizes
// the launch by the capacity (the filtered input's size), which bounds it.
// Every kernel of these plans loops over its work (grid-stride loops, or
// tiles taken from a counter), so the blocks past the real length find
// none: a reduction's idle blocks leave the identity (or an empty flag) in
// their partials. Both forms of the entry launch the same way, so NAME and
// NAME_ws give the same bits.
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/Fuse/Utils/SizeAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace fuse {
namespace gpugen {

namespace {

bool hasTensor(TypeRange types) {
  return llvm::any_of(types, [](Type t) { return isa<TensorType>(t); });
}

/// Rewrites kernel `f` of `group`: the count pointer appended last and
/// loaded first; the rank-1 operands' sizes and, unless `finish`, the
/// plan's length parameters (right after the common ones) derived from it.
void rewriteKernel(gpu::GPUFuncOp f, GroupOp group, const GroupKernels &gk,
                   bool finish) {
  Location loc = f.getLoc();
  MLIRContext *ctx = f.getContext();
  unsigned countArg = f.getNumArguments();
  if (failed(f.insertArgument(countArg, globalPtr(ctx), DictionaryAttr(), loc)))
    llvm_unreachable("a gpu.func takes one more argument");
  Block &entry = f.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  Type i64 = IntegerType::get(ctx, 64);
  // The rank-1 operands' sizes: the capacity the host launched for.
  SmallVector<BlockArgument> sizes;
  unsigned p = 0;
  for (Value operand : group.getOperands()) {
    auto t = tensorTy(operand);
    if (!t) {
      ++p;
      continue;
    }
    ++p; // the pointer
    if (t.getRank() == 1)
      sizes.push_back(entry.getArgument(p));
    p += t.getRank();
  }
  assert(!sizes.empty() && "canTakeSizeOnDevice found a sized operand");
  // A filter's count is within [0, capacity]; a prefix's count is the
  // caller's, so it is clamped there: no kernel reads past the buffers.
  Value loaded =
      LLVM::LoadOp::create(b, loc, i64, entry.getArgument(countArg), 8);
  auto atMost = arith::MinSIOp::create(
      b, loc, arith::MaxSIOp::create(b, loc, loaded, cI64(b, loc, 0)),
      sizes.front());
  Value n = atMost;
  for (BlockArgument s : sizes)
    s.replaceAllUsesExcept(n, atMost);
  if (finish)
    return;
  BlockArgument len = entry.getArgument(p), second = entry.getArgument(p + 1);
  len.replaceAllUsesWith(n);
  Value derived;
  Operation *readsSecond = nullptr; // the one new use of `second`
  switch (gk.plan) {
  case GroupPlan::Elementwise:
  case GroupPlan::Reduce:
  case GroupPlan::Histogram: {
    // nchunks: the vectors of the length, none where the host chose
    // scalar loads (it passes 0 then, or the length itself at width 1).
    if (gk.vectorWidth == 1) {
      derived = n;
      break;
    }
    Value vectors =
        arith::DivSIOp::create(b, loc, n, cI64(b, loc, gk.vectorWidth));
    Value vectorPath = cmpI(b, loc, arith::CmpIPredicate::ne, second,
                            cI64(b, loc, 0));
    readsSecond = vectorPath.getDefiningOp();
    derived = arith::SelectOp::create(b, loc, vectorPath, vectors,
                                      cI64(b, loc, 0));
    break;
  }
  case GroupPlan::Scan:
  case GroupPlan::Filter: {
    // ntiles = ceil(n / tileItems). The kernel lays out its look-back
    // state by it too: at most the host's layout for the capacity, inside
    // the host's zeroed flags and its allocation.
    Value t = cI64(b, loc, gk.tileItems);
    derived = arith::DivSIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, n,
                              arith::SubIOp::create(b, loc, t,
                                                    cI64(b, loc, 1))),
        t);
    break;
  }
  default:
    llvm_unreachable("canTakeSizeOnDevice admits no other plan");
  }
  second.replaceAllUsesExcept(derived, readsSecond);
}

} // namespace

bool canTakeSizeOnDevice(GroupOp group, const GroupKernels &gk) {
  switch (gk.plan) {
  case GroupPlan::Elementwise:
  case GroupPlan::Reduce:
  case GroupPlan::Histogram:
  case GroupPlan::Scan:
  case GroupPlan::Filter:
    break;
  default:
    return false;
  }
  Operation *filter = nullptr;
  for (Value operand : group.getOperands()) {
    auto t = tensorTy(operand);
    if (!t || t.getRank() == 0)
      continue;
    Operation *kept = t.getRank() == 1 ? countingFilter(operand) : nullptr;
    if (!kept || (filter && filter != kept))
      return false;
    filter = kept;
  }
  if (!filter)
    return false;
  // Every tensor in the body is sized by the operands: elementwise ops,
  // full reductions, scans and filters of them, and their dims.
  for (Operation &op : group.getBody().front()) {
    if (isa<MapOp, ReduceOp, ScanOp, FilterOp, YieldOp>(op))
      continue;
    if (auto dim = dyn_cast<tensor::DimOp>(op);
        dim && isa<BlockArgument>(dim.getSource()))
      continue;
    if (hasTensor(op.getOperandTypes()) || hasTensor(op.getResultTypes()))
      return false;
  }
  return true;
}

void readSizeOnDevice(gpu::GPUModuleOp gpuModule, GroupOp group,
                      GroupKernels &gk) {
  for (const std::string &name :
       {gk.kernel, gk.finishKernel, gk.globalCountKernel}) {
    if (name.empty())
      continue;
    auto f = gpuModule.lookupSymbol<gpu::GPUFuncOp>(name);
    assert(f && "the group's kernels are built");
    rewriteKernel(f, group, gk, /*finish=*/name == gk.finishKernel);
  }
  gk.sizeOnDevice = true;
}

} // namespace gpugen
} // namespace fuse
