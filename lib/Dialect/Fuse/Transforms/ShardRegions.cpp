//===- ShardRegions.cpp - sharded reductions and scans by combiner regions ===//
//
// A combiner region has no identity, so a shard other than the first has
// no value to start its part from, and an empty shard has no partial
// result at all. Each value is therefore carried with an i1 "present"
// flag, and the region is lifted to such pairs:
//
//   (a, va) (+) (x, vx) = (va ? (vx ? comb(a, x) : a) : x,  va | vx)
//
// which is associative whenever comb is, with (anything, false) as its
// identity. Elements are present; the init is present on shard 0 only
// (elsewhere a zero marked absent). A reduction over the split dimension
// is then: the lifted local reduction, its k values and flag gathered, and
// the lifted reduction of the gathered partials in shard order. A scan is
// the lifted local scan, the lifted fold of the totals of the shards
// before this one, and the lifted combine of that offset into every
// element.
//
//===----------------------------------------------------------------------===//

#include "ShardRewrite.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace fuse;

/// The lifted combine of (acc, accPresent) and (x, xPresent) through
/// `comb` (k accumulators, k elements), emitted at the builder's point:
/// k values, then the flag.
static SmallVector<Value> emitLifted(OpBuilder &b, Location loc, Region &comb,
                                     ValueRange acc, Value accPresent,
                                     ValueRange x, Value xPresent) {
  Block &src = comb.front();
  unsigned k = acc.size();
  IRMapping map;
  for (unsigned i = 0; i < k; ++i) {
    map.map(src.getArgument(i), acc[i]);
    map.map(src.getArgument(k + i), x[i]);
  }
  for (Operation &op : src.without_terminator())
    b.clone(op, map);
  SmallVector<Value> out;
  for (auto [i, y] : llvm::enumerate(src.getTerminator()->getOperands())) {
    Value both = map.lookupOrDefault(y);
    Value withX = arith::SelectOp::create(b, loc, xPresent, both, acc[i]);
    out.push_back(arith::SelectOp::create(b, loc, accPresent, withX, x[i]));
  }
  out.push_back(arith::OrIOp::create(b, loc, accPresent, xPresent));
  return out;
}

/// Fills empty `dst` with the lifted form of combiner region `comb`.
static void buildLifted(OpBuilder &b, Location loc, Region &dst, Region &comb) {
  Block &src = comb.front();
  unsigned k = src.getNumArguments() / 2;
  SmallVector<Type> types;
  for (unsigned i = 0; i < k; ++i)
    types.push_back(src.getArgument(i).getType());
  types.push_back(b.getI1Type());
  SmallVector<Type> argTypes(types);
  argTypes.append(types);
  OpBuilder::InsertionGuard g(b);
  Block *blk = b.createBlock(&dst, {}, argTypes,
                             SmallVector<Location>(argTypes.size(), loc));
  ValueRange args = blk->getArguments();
  SmallVector<Value> out = emitLifted(b, loc, comb, args.take_front(k), args[k],
                                      args.slice(k + 1, k), args[2 * k + 1]);
  YieldOp::create(b, loc, out);
}

/// `t` with element type `elem`.
static RankedTensorType withElem(Type t, Type elem) {
  return cast<RankedTensorType>(t).clone(elem);
}

/// A tensor of `like`'s shape, every element true (a map).
static Value presentFlags(OpBuilder &b, Location loc, Value like) {
  return buildElementwiseMap(
      b, loc, like, b.getI1Type(), [](OpBuilder &mb, Location l, Value) {
        return arith::ConstantIntOp::create(mb, l, mb.getI1Type(), 1)
            .getResult();
      });
}

/// The inits of a lifted op: `inits` on shard 0 (present), zeros marked
/// absent elsewhere; with no `inits`, zeros marked absent everywhere.
static SmallVector<Value> liftedInits(OpBuilder &b, Location loc,
                                      TypeRange elems, ValueRange inits,
                                      Value onFirst) {
  SmallVector<Value> out;
  for (auto [i, t] : llvm::enumerate(elems)) {
    Value zero =
        arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(t)));
    out.push_back(inits.empty()
                      ? zero
                      : arith::SelectOp::create(b, loc, onFirst, inits[i], zero)
                            .getResult());
  }
  out.push_back(
      inits.empty()
          ? arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0).getResult()
          : onFirst);
  return out;
}

SmallVector<Value> ShardRewriter::liftedReduce(Location loc, ValueRange inputs,
                                               ValueRange inits,
                                               DenseI64ArrayAttr dims,
                                               Region &comb, TypeRange types) {
  auto op = ReduceOp::create(b, loc, types, inputs, inits, ArrayAttr(), dims);
  buildLifted(b, loc, op.getCombiner(), comb);
  return SmallVector<Value>(op.getResults());
}

SmallVector<Value> ShardRewriter::gatherAll(Location loc, ValueRange vals) {
  SmallVector<Value> out;
  for (Value v : vals) {
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape{ShapedType::kDynamic};
    llvm::append_range(shape, t.getShape());
    out.push_back(AllGatherOp::create(
        b, loc, RankedTensorType::get(shape, t.getElementType()), v));
    ++collectives;
  }
  return out;
}

LogicalResult ShardRewriter::regionReduce(ReduceOp op) {
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  SmallVector<Type> elems;
  for (Value in : op.getInputs())
    elems.push_back(cast<RankedTensorType>(in.getType()).getElementType());
  SmallVector<Value> inputs(op.getInputs());
  inputs.push_back(presentFlags(b, loc, inputs.front()));
  SmallVector<Type> types(op.getResultTypes());
  types.push_back(withElem(types.front(), b.getI1Type()));
  SmallVector<Value> local = liftedReduce(
      loc, inputs, liftedInits(b, loc, elems, op.getInits(), onFirstShard(loc)),
      op.getDimsAttr(), op.getCombiner(), types);
  SmallVector<Value> total =
      liftedReduce(loc, gatherAll(loc, local),
                   liftedInits(b, loc, elems, ValueRange{}, Value()),
                   b.getDenseI64ArrayAttr({0}), op.getCombiner(), types);
  op->replaceAllUsesWith(ValueRange(total).drop_back());
  replaced.push_back(op);
  return success();
}

LogicalResult ShardRewriter::regionScan(ScanOp op) {
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  // Totals per shard: rank 0, or a row for rank 2 and more.
  SmallVector<Type> elems, totalTypes;
  for (Value in : op.getInputs()) {
    elems.push_back(cast<RankedTensorType>(in.getType()).getElementType());
    totalTypes.push_back(withoutLeading(in.getType(), elems.back()));
  }
  totalTypes.push_back(
      withoutLeading(op.getInputs().front().getType(), b.getI1Type()));
  SmallVector<Value> inputs(op.getInputs());
  inputs.push_back(presentFlags(b, loc, inputs.front()));
  SmallVector<Type> types(op.getResultTypes());
  types.push_back(withElem(types.front(), b.getI1Type()));
  SmallVector<Value> inits =
      liftedInits(b, loc, elems, op.getInits(), onFirstShard(loc));
  auto scan = ScanOp::create(b, loc, types, inputs, inits, ArrayAttr(),
                             op.getDimAttr(), op.getExclusiveAttr());
  buildLifted(b, loc, scan.getCombiner(), op.getCombiner());
  // The shard's total (what an inclusive scan ends with), then the fold
  // of the totals of the shards before this one.
  DenseI64ArrayAttr leading = b.getDenseI64ArrayAttr({0});
  SmallVector<Value> total =
      liftedReduce(loc, inputs, inits, leading, op.getCombiner(), totalTypes);
  // The totals of the shards from this one on are marked absent.
  SmallVector<Value> gathered = gatherAll(loc, total);
  Value flag = gathered.back();
  gathered.back() = buildElementwiseMap(
      b, loc, ValueRange{flag, beforeThisShard(loc, flag)}, b.getI1Type(),
      [](OpBuilder &mb, Location l, ValueRange f) {
        return arith::AndIOp::create(mb, l, f[0], f[1]).getResult();
      });
  SmallVector<Value> offset = liftedReduce(
      loc, gathered, liftedInits(b, loc, elems, ValueRange{}, Value()), leading,
      op.getCombiner(), totalTypes);
  // offset (+) y, element by element (the offset broadcast).
  Value n = tensor::DimOp::create(b, loc, scan.getResult(0), 0);
  SmallVector<Value> mapIns;
  for (auto [o, t] : llvm::zip(offset, types))
    mapIns.push_back(BroadcastOp::create(b, loc, cast<RankedTensorType>(t), o,
                                         b.getDenseI64ArrayAttr({0}),
                                         ValueRange{n}));
  llvm::append_range(mapIns, scan.getResults());
  auto map = MapOp::create(b, loc, op.getResultTypes(), mapIns);
  SmallVector<Type> argTypes(elems);
  argTypes.push_back(b.getI1Type());
  argTypes.append(SmallVector<Type>(argTypes));
  {
    OpBuilder::InsertionGuard g(b);
    Block *blk = b.createBlock(&map.getBody(), {}, argTypes,
                               SmallVector<Location>(argTypes.size(), loc));
    unsigned k = elems.size();
    ValueRange a = blk->getArguments();
    SmallVector<Value> out =
        emitLifted(b, loc, op.getCombiner(), a.take_front(k), a[k],
                   a.slice(k + 1, k), a[2 * k + 1]);
    out.pop_back();
    YieldOp::create(b, loc, out);
  }
  plan.sizes->unite({map.getResult(0), 0}, {op.getResult(0), 0});
  op->replaceAllUsesWith(map.getResults());
  replaced.push_back(op);
  return success();
}
