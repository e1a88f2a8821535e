//===- HostChecks.cpp - the checks of an entry's buffers and sizes --------===//
//
// HostEntry's checks of the caller's buffers and sizes: byte extents of the
// arguments and outputs, overlaps and shared buffers, null pointers, the
// size equalities the pipeline needs, whether a result may be computed
// into an argument's buffer, and the messages the entry returns for each.
//
//===----------------------------------------------------------------------===//

#include "HostEntry.h"

#include "fuse/Conversion/FuseToGPU/FuseToGPU.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/Fuse/Utils/SizeAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace fuse {
namespace gpugen {

//===----------------------------------------------------------------------===//
// Argument checks: byte ranges of the caller's buffers
//===----------------------------------------------------------------------===//

Value HostEntry::extentBytes(RankedTensorType t, ArrayRef<Value> dims) {
  Value bytes = h.c64(byteWidth(t.getElementType()));
  for (Value v : dims)
    bytes = h.mul(bytes, v);
  return bytes;
}

Value HostEntry::addr(Value p) {
  return LLVM::PtrToIntOp::create(h.b, loc, h.i64(), p).getResult();
}

// [a, a + na) and [b, b + nb) share a byte (empty ranges share none).
Value HostEntry::overlaps(const Extent &x, const Extent &y) {
  Value a = addr(x.ptr), b = addr(y.ptr);
  auto ult = [&](Value l, Value r) {
    return arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::ult, l, r)
        .getResult();
  };
  Value zero = h.c64(0);
  return h.andI(h.andI(ult(a, h.add(b, y.bytes)), ult(b, h.add(a, x.bytes))),
                h.andI(ult(zero, x.bytes), ult(zero, y.bytes)));
}

Value HostEntry::sameBuffer(const Extent &x, const Extent &y) {
  auto eq = [&](Value l, Value r) {
    return arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::eq, l, r)
        .getResult();
  };
  return h.andI(eq(addr(x.ptr), addr(y.ptr)), eq(x.bytes, y.bytes));
}

LLVM::GlobalOp HostEntry::messageGlobal(const std::string &message) {
  return h.cString("__fuse_msg_" + name + "_" + std::to_string(numMessages++),
                   message);
}

// Returns FUSE_ERROR_INVALID_ARGUMENT with `message` when `cond` holds.
void HostEntry::rejectIf(Value cond, const std::string &message) {
  h.rejectIf(cond, messageGlobal(message));
}

// Returns FUSE_ERROR_INVALID_ARGUMENT when `cond` holds, the runtime
// formatting `format` (two %lld) with sizes `a` and `b`.
void HostEntry::rejectSizes(Value cond, const std::string &format, Value a,
                            Value b) {
  auto g = messageGlobal(format);
  h.ifThen(cond, [&] {
    h.check(
        h.call("fuse_set_size_error", {h.c32(1 /*FUSE_ERROR_INVALID_ARGUMENT*/),
                                       h.addressOf(g), a, b}));
  });
}

// A NULL buffer that is not empty.
void HostEntry::rejectNull(const Extent &x) {
  Value isNull = arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::eq,
                                       addr(x.ptr), h.c64(0));
  Value nonEmpty = arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::ugt,
                                         x.bytes, h.c64(0));
  rejectIf(h.andI(isNull, nonEmpty),
           name + ": " + x.what + " is NULL but not empty");
}

Value HostEntry::boundaryValue(const BoundarySize &bs) {
  switch (bs.kind) {
  case BoundarySize::Kind::ArgDim:
    return tensors[oldBody.getArgument(bs.arg)].dims[bs.dim];
  case BoundarySize::Kind::ScalarArg:
    return scalarMap.lookup(oldBody.getArgument(bs.arg));
  case BoundarySize::Kind::Constant:
    return h.c64(bs.value);
  }
  return Value();
}

void HostEntry::checkArguments() {
  for (auto [i, a] : llvm::enumerate(oldBody.getArguments()))
    if (auto tt = tensorTy(a)) {
      const HostTensor &ht = tensors[a];
      userInputs.push_back(
          {a, Extent{ht.ptr, extentBytes(tt, ht.dims), sig.argNames[i]}});
    }
  for (auto &[arg, in] : userInputs)
    rejectNull(in);
  // The sizes the pipeline needs equal (or non-negative), from one analysis
  // of the IR (EntrySizeChecks.h), before anything touches the device: a
  // mismatch would read or write past a buffer. The runtime formats the
  // message with both sizes.
  for (const SizeCheck &c : entrySizeChecks(fn)) {
    Value l = boundaryValue(c.lhs), r = boundaryValue(c.rhs);
    Value bad =
        c.kind == SizeCheck::Kind::NonNegative
            ? arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::slt, l,
                                    h.c64(0))
            : arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::ne, l, r);
    rejectSizes(bad, c.messageFormat(name), l, r);
  }
}

// Why result `resNo` of group `g` (step `gIdx`) cannot be computed into
// the buffer of argument `arg`, or "" when it can: the step's kernel
// reads every element of `arg` it uses at the element it writes, before
// writing it, in the same thread (elementwise and grid-stride kernels) or
// before any later tile writes it (scan and filter tiles: a tile writes
// only after every earlier tile has loaded its elements), and no later
// step reads `arg`.
std::string HostEntry::inPlaceProblem(GroupOp g, const GroupKernels &gk,
                                      unsigned gIdx, unsigned resNo,
                                      BlockArgument arg, StringRef argName) {
  auto rt = tensorTy(g.getResult(resNo));
  if (rt.getElementType() != tensorTy(arg).getElementType())
    return "the element types differ";
  bool planOk = gk.plan == GroupPlan::Elementwise ||
                gk.plan == GroupPlan::Scan || gk.plan == GroupPlan::Filter ||
                gk.plan == GroupPlan::LineScan ||
                (gk.plan == GroupPlan::Reduce && rt.getRank() > 0);
  if (!planOk)
    return "in-place use is not supported for reductions and row kernels";
  Block &body = g.getBody().front();
  for (auto [i, operand] : llvm::enumerate(g.getOperands())) {
    if (operand != arg)
      continue;
    for (OpOperand &use : body.getArgument(i).getUses()) {
      if (isReadAtComputedPositions(use))
        return (argName + " is read at computed positions (by " +
                use.getOwner()->getName().getStringRef() + ")")
            .str();
      if (isa<BroadcastOp>(use.getOwner()))
        return (argName + " is broadcast").str();
    }
  }
  for (unsigned m = gIdx + 1; m < groups.size(); ++m)
    if (llvm::is_contained(groups[m].first.getOperands(), Value(arg)))
      return ("a later step reads " + argName).str();
  return "";
}

} // namespace gpugen
} // namespace fuse
