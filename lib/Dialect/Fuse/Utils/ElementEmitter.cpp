//===- ElementEmitter.cpp - scalar code for elements of a group body ------===//
//
// See ElementEmitter.h. The semantics of every op mirror
// convert-fuse-to-loops (the reference lowering) exactly.
//
//===----------------------------------------------------------------------===//

#include "fuse/Dialect/Fuse/Utils/ElementEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace fuse;

ElementEmitter::ElementEmitter(Block &body, LoadFn load, DimFn dim,
                               ScalarFn scalar)
    : body(body), load(std::move(load)), dim(std::move(dim)),
      scalarFn(std::move(scalar)) {}

bool ElementEmitter::isElementwise(Value v) {
  Operation *def = v.getDefiningOp();
  return def && isa<MapOp, BroadcastOp, IotaOp, GatherOp>(def);
}

void ElementEmitter::clearCache() {
  cache.clear();
  // Cloned scalar ops live at the old insertion point; forget them too,
  // but keep the scalars the caller mapped.
  IRMapping kept;
  for (auto [from, to] : scalars.getValueMap())
    if (!from.getDefiningOp() || from.getDefiningOp()->getBlock() != &body)
      kept.map(from, to);
  scalars = kept;
}

static Value castIndexTo(OpBuilder &b, Location loc, Value idx, Type type) {
  if (isa<IntegerType>(type))
    return arith::IndexCastOp::create(b, loc, type, idx);
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), idx);
  return arith::SIToFPOp::create(b, loc, type, i64);
}

FailureOr<Value> ElementEmitter::emitScalar(OpBuilder &b, Location loc,
                                            Value scalar) {
  if (Value v = scalars.lookupOrNull(scalar))
    return v;
  Operation *def = scalar.getDefiningOp();
  if (!def) {
    if (scalarFn) {
      Value v = scalarFn(b, loc, scalar);
      if (v) {
        scalars.map(scalar, v);
        return v;
      }
    }
    return emitError(loc) << "element emitter: no value for scalar block "
                             "argument #"
                          << cast<BlockArgument>(scalar).getArgNumber();
  }
  if (isa_and_nonnull<FuseDialect>(def->getDialect()))
    return def->emitError() << "element emitter: a fuse op result is used as "
                               "a scalar";
  if (auto dimOp = dyn_cast<tensor::DimOp>(def)) {
    std::optional<int64_t> d = dimOp.getConstantIndex();
    if (!d)
      return def->emitError() << "element emitter: tensor.dim needs a "
                                 "constant dimension";
    FailureOr<Value> v = emitDim(b, loc, dimOp.getSource(), *d);
    if (succeeded(v))
      scalars.map(scalar, *v);
    return v;
  }
  if (def->getNumRegions() != 0)
    return def->emitError() << "element emitter: cannot clone a scalar op "
                               "with regions";
  for (Value operand : def->getOperands()) {
    if (scalars.contains(operand))
      continue;
    if (failed(emitScalar(b, loc, operand)))
      return failure();
  }
  Operation *clone = b.clone(*def, scalars);
  for (auto [from, to] : llvm::zip_equal(def->getResults(),
                                         clone->getResults()))
    scalars.map(from, to);
  return scalars.lookup(scalar);
}

FailureOr<Value> ElementEmitter::emitDim(OpBuilder &b, Location loc,
                                         Value tensor, int64_t d) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (d < 0 || d >= type.getRank())
    return emitError(loc) << "element emitter: dimension " << d
                          << " out of range";
  if (!type.isDynamicDim(d))
    return arith::ConstantIndexOp::create(b, loc, type.getDimSize(d))
        .getResult();
  Operation *def = tensor.getDefiningOp();
  if (auto map = dyn_cast_or_null<MapOp>(def))
    return emitDim(b, loc, map.getInputs()[0], d);
  if (auto bc = dyn_cast_or_null<BroadcastOp>(def)) {
    ArrayRef<int64_t> added = bc.getDims();
    if (!llvm::is_contained(added, d)) {
      int64_t inDim = d - llvm::count_if(added, [&](int64_t a) {
                        return a < d;
                      });
      return emitDim(b, loc, bc.getInput(), inDim);
    }
    unsigned dynIdx = 0;
    for (int64_t a : added) {
      if (a == d)
        break;
      if (type.isDynamicDim(a))
        ++dynIdx;
    }
    return emitScalar(b, loc, bc.getSizes()[dynIdx]);
  }
  if (auto iota = dyn_cast_or_null<IotaOp>(def)) {
    unsigned dynIdx = 0;
    for (int64_t i = 0; i < d; ++i)
      if (type.isDynamicDim(i))
        ++dynIdx;
    return emitScalar(b, loc, iota.getSizes()[dynIdx]);
  }
  if (auto gather = dyn_cast_or_null<GatherOp>(def))
    return emitDim(b, loc, gather.getIndices(), d);
  // A reduce result keeps the non-reduced dims of its input.
  if (auto red = dyn_cast_or_null<ReduceOp>(def)) {
    SmallVector<int64_t> reduced = red.getReducedDims();
    int64_t seen = -1;
    auto inType = cast<RankedTensorType>(red.getInputs()[0].getType());
    for (int64_t i = 0; i < inType.getRank(); ++i) {
      if (llvm::is_contained(reduced, i))
        continue;
      if (++seen == d)
        return emitDim(b, loc, red.getInputs()[0], i);
    }
  }
  if (auto scan = dyn_cast_or_null<ScanOp>(def))
    return emitDim(b, loc, scan.getInputs()[0], d);
  if (!dim)
    return emitError(loc) << "element emitter: no size for a dynamic "
                             "dimension of a leaf tensor";
  Value v = dim(b, loc, tensor, d);
  if (!v)
    return emitError(loc) << "element emitter: no size for dimension " << d;
  return v;
}

FailureOr<SmallVector<Value>>
ElementEmitter::emitSizes(OpBuilder &b, Location loc, Value tensor) {
  SmallVector<Value> sizes;
  int64_t rank = cast<RankedTensorType>(tensor.getType()).getRank();
  for (int64_t d = 0; d < rank; ++d) {
    FailureOr<Value> s = emitDim(b, loc, tensor, d);
    if (failed(s))
      return failure();
    sizes.push_back(*s);
  }
  return sizes;
}

FailureOr<SmallVector<Value>>
ElementEmitter::emitRegion(OpBuilder &b, Location loc, Region &region,
                             ValueRange args) {
  Block &block = region.front();
  IRMapping map;
  map.map(block.getArguments(), args);
  // Values used inside the region (nested regions included) but defined
  // outside it come from the group body: resolve them as scalars first.
  LogicalResult ok = success();
  region.walk([&](Operation *op) {
    for (Value operand : op->getOperands()) {
      if (map.contains(operand))
        continue;
      Region *defRegion = operand.getParentRegion();
      if (defRegion == &region || region.isAncestor(defRegion))
        continue;
      FailureOr<Value> v = emitScalar(b, loc, operand);
      if (failed(v)) {
        ok = failure();
        return WalkResult::interrupt();
      }
      map.map(operand, *v);
    }
    return WalkResult::advance();
  });
  if (failed(ok))
    return failure();
  for (Operation &op : block.without_terminator())
    b.clone(op, map);
  auto yield = cast<YieldOp>(block.getTerminator());
  return llvm::to_vector(llvm::map_range(
      yield.getValues(), [&](Value v) { return map.lookupOrDefault(v); }));
}

FailureOr<Value> ElementEmitter::emitMapResult(OpBuilder &b, Location loc,
                                               MapOp map, unsigned resultIdx,
                                               ValueRange indices) {
  SmallVector<Value> args;
  for (Value in : map.getInputs()) {
    FailureOr<Value> v = emit(b, loc, in, indices);
    if (failed(v))
      return failure();
    args.push_back(*v);
  }
  FailureOr<SmallVector<Value>> outs =
      emitRegion(b, loc, map.getBody(), args);
  if (failed(outs))
    return failure();
  SmallVector<void *, 4> key;
  for (Value i : indices)
    key.push_back(i.getAsOpaquePointer());
  for (auto [r, v] : llvm::zip_equal(map.getResults(), *outs))
    cache[{r.getAsOpaquePointer(), key}] = v;
  return (*outs)[resultIdx];
}

FailureOr<Value> ElementEmitter::emitGather(OpBuilder &b, Location loc,
                                            GatherOp op, ValueRange indices) {
  FailureOr<Value> raw = emit(b, loc, op.getIndices(), indices);
  if (failed(raw))
    return failure();
  FailureOr<Value> n = emitDim(b, loc, op.getSource(), 0);
  if (failed(n))
    return failure();
  Type et = op.getResult().getType().getElementType();
  Value i64 = raw->getType().isInteger(64)
                  ? *raw
                  : arith::ExtSIOp::create(b, loc, b.getI64Type(), *raw)
                        .getResult();
  Value n64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), *n);
  Value zero64 = arith::ConstantIntOp::create(b, loc, 0, 64);
  Value geZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, i64, zero64);
  Value ltN = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i64,
                                    n64);
  Value inBounds = arith::AndIOp::create(b, loc, geZero, ltN);
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{et}, inBounds,
                                /*withElseRegion=*/true);
  LogicalResult ok = success();
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value idx = arith::IndexCastOp::create(b, loc, b.getIndexType(), i64);
    // The read happens inside the branch: nothing emitted there may be
    // reused outside it.
    auto savedCache = cache;
    IRMapping savedScalars = scalars;
    FailureOr<Value> v = emit(b, loc, op.getSource(), ValueRange{idx});
    cache = std::move(savedCache);
    scalars = savedScalars;
    if (failed(v))
      ok = failure();
    else
      scf::YieldOp::create(b, loc, *v);
    b.setInsertionPointToStart(ifOp.elseBlock());
    Value zero =
        arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(et)));
    scf::YieldOp::create(b, loc, zero);
  }
  if (failed(ok)) {
    ifOp.erase();
    return failure();
  }
  return ifOp.getResult(0);
}

FailureOr<Value> ElementEmitter::emit(OpBuilder &b, Location loc, Value tensor,
                                      ValueRange indices) {
  auto type = dyn_cast<RankedTensorType>(tensor.getType());
  if (!type)
    return emitError(loc) << "element emitter: not a ranked tensor";
  if (static_cast<int64_t>(indices.size()) != type.getRank())
    return emitError(loc) << "element emitter: " << indices.size()
                          << " indices for a rank-" << type.getRank()
                          << " tensor";
  SmallVector<void *, 4> key;
  for (Value i : indices)
    key.push_back(i.getAsOpaquePointer());
  auto it = cache.find({tensor.getAsOpaquePointer(), key});
  if (it != cache.end())
    return it->second;

  FailureOr<Value> result = failure();
  Operation *def = tensor.getDefiningOp();
  if (auto map = dyn_cast_or_null<MapOp>(def)) {
    return emitMapResult(b, loc, map, cast<OpResult>(tensor).getResultNumber(),
                         indices);
  } else if (auto bc = dyn_cast_or_null<BroadcastOp>(def)) {
    SmallVector<Value> kept;
    for (auto [d, idx] : llvm::enumerate(indices))
      if (!llvm::is_contained(bc.getDims(), static_cast<int64_t>(d)))
        kept.push_back(idx);
    result = emit(b, loc, bc.getInput(), kept);
  } else if (auto iota = dyn_cast_or_null<IotaOp>(def)) {
    result = castIndexTo(b, loc, indices[iota.getIotaDim()],
                         type.getElementType());
  } else if (auto gather = dyn_cast_or_null<GatherOp>(def)) {
    result = emitGather(b, loc, gather, indices);
  } else {
    Value v = load(b, loc, tensor, indices);
    if (!v)
      return emitError(loc) << "element emitter: the load callback gave no "
                               "value";
    result = v;
  }
  if (succeeded(result))
    cache[{tensor.getAsOpaquePointer(), key}] = *result;
  return result;
}

//===----------------------------------------------------------------------===//
// Combiner helpers
//===----------------------------------------------------------------------===//

static CombinerKind kindOf(Operation *op, unsigned i) {
  if (auto r = dyn_cast<ReduceOp>(op))
    return r.getKind(i);
  return cast<ScanOp>(op).getKind(i);
}

static bool hasKinds(Operation *op) {
  if (auto r = dyn_cast<ReduceOp>(op))
    return r.hasBuiltinKinds();
  return cast<ScanOp>(op).hasBuiltinKinds();
}

SmallVector<Value> fuse::emitInitialAccumulators(
    OpBuilder &b, Location loc, Operation *op,
    function_ref<Value(Value)> scalar) {
  ValueRange inits, inputs;
  if (auto r = dyn_cast<ReduceOp>(op)) {
    inits = r.getInits();
    inputs = r.getInputs();
  } else {
    auto s = cast<ScanOp>(op);
    inits = s.getInits();
    inputs = s.getInputs();
  }
  SmallVector<Value> accs;
  if (!inits.empty()) {
    for (Value v : inits)
      accs.push_back(scalar(v));
    return accs;
  }
  for (auto [i, in] : llvm::enumerate(inputs)) {
    Type et = cast<RankedTensorType>(in.getType()).getElementType();
    accs.push_back(
        arith::ConstantOp::create(b, loc, getKindIdentity(kindOf(op, i), et)));
  }
  return accs;
}

SmallVector<Value> fuse::emitCombine(OpBuilder &b, Location loc,
                                     Operation *op, ValueRange accs,
                                     ValueRange xs,
                                     function_ref<Value(Value)> scalar) {
  if (hasKinds(op)) {
    SmallVector<Value> out;
    for (unsigned i = 0; i < accs.size(); ++i)
      out.push_back(buildCombine(b, loc, kindOf(op, i), accs[i], xs[i]));
    return out;
  }
  Region &region = op->getRegion(0);
  Block &block = region.front();
  IRMapping map;
  map.map(block.getArguments().take_front(accs.size()), accs);
  map.map(block.getArguments().drop_front(accs.size()), xs);
  region.walk([&](Operation *inner) {
    for (Value operand : inner->getOperands()) {
      if (map.contains(operand))
        continue;
      Region *defRegion = operand.getParentRegion();
      if (defRegion == &region || region.isAncestor(defRegion))
        continue;
      map.map(operand, scalar(operand));
    }
  });
  for (Operation &inner : block.without_terminator())
    b.clone(inner, map);
  auto yield = cast<YieldOp>(block.getTerminator());
  return llvm::to_vector(llvm::map_range(
      yield.getValues(), [&](Value v) { return map.lookupOrDefault(v); }));
}
