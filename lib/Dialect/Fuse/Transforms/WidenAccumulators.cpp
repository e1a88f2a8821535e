//===- WidenAccumulators.cpp - f32 accumulation of f16/bf16 sums ----------===//
//
// See FuseWidenAccumulatorsPass in Passes.td. Half-precision sums lose
// every addend below half an ulp of the running total (an f16 total of
// 2048 no longer counts ones), so the semantics of add and mul over f16
// and bf16 is f32 accumulation, rounded once. The rewrite is explicit IR,
// run before fusion by every pipeline: the CPU oracle and every GPU kernel
// family (flat, row, line, scan, segmented) then see f32 reductions of a
// widening map and need no half-precision case of their own.
//
//===----------------------------------------------------------------------===//

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/Fuse/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace fuse {
#define GEN_PASS_DEF_FUSEWIDENACCUMULATORSPASS
#include "fuse/Dialect/Fuse/Transforms/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

namespace {

bool isHalf(Type t) { return t.isF16() || t.isBF16(); }

bool widens(CombinerKind k) {
  return k == CombinerKind::Add || k == CombinerKind::Mul;
}

/// `fuse.map %v { extf | truncf }` to element type `to`.
Value convertMap(OpBuilder &b, Location loc, Value v, Type to) {
  unsigned from = cast<RankedTensorType>(v.getType())
                      .getElementType()
                      .getIntOrFloatBitWidth();
  return buildElementwiseMap(b, loc, v, to,
                             [&](OpBuilder &mb, Location l, Value x) -> Value {
                               if (to.getIntOrFloatBitWidth() > from)
                                 return arith::ExtFOp::create(mb, l, to, x);
                               return arith::TruncFOp::create(mb, l, to, x);
                             });
}

/// Widens, in place, input `i` of `op` (a reduce, scan or segmented
/// reduce with built-in kinds), its init and its result.
void widenOperand(Operation *op, MutableOperandRange inputs,
                  MutableOperandRange inits, unsigned i) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  Type f32 = b.getF32Type();
  inputs[i].set(convertMap(b, loc, inputs[i].get(), f32));
  if (inits.size() > i)
    inits[i].set(arith::ExtFOp::create(b, loc, f32, inits[i].get()));
  Value r = op->getResult(i);
  auto rt = cast<RankedTensorType>(r.getType());
  Type half = rt.getElementType();
  r.setType(rt.clone(f32));
  b.setInsertionPointAfter(op);
  Value narrow = convertMap(b, loc, r, half);
  r.replaceAllUsesExcept(narrow, narrow.getDefiningOp());
}

template <typename OpT> unsigned widen(OpT op) {
  if (!op.hasBuiltinKinds())
    return 0;
  unsigned n = 0;
  for (unsigned i = 0, e = op.getInputs().size(); i < e; ++i) {
    auto t = cast<RankedTensorType>(op.getInputs()[i].getType());
    if (!isHalf(t.getElementType()) || !widens(op.getKind(i)))
      continue;
    widenOperand(op, op.getInputsMutable(), op.getInitsMutable(), i);
    ++n;
  }
  return n;
}

struct FuseWidenAccumulatorsPass
    : fuse::impl::FuseWidenAccumulatorsPassBase<FuseWidenAccumulatorsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<ReduceOp, ScanOp, SegmentedReduceOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      if (auto r = dyn_cast<ReduceOp>(op))
        numWidened += widen(r);
      else if (auto s = dyn_cast<ScanOp>(op))
        numWidened += widen(s);
      else
        numWidened += widen(cast<SegmentedReduceOp>(op));
    }
  }
};

} // namespace
