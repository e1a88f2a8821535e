//===- ElementEmitter.cpp - scalar code for elements of a group body ------===//
//
// See ElementEmitter.h. The semantics of every op mirror
// convert-fuse-to-loops (the reference lowering) exactly.
//
//===----------------------------------------------------------------------===//

#include "fuse/Dialect/Fuse/Utils/ElementEmitter.h"
#include "fuse/Dialect/Fuse/IR/Shapes.h"
#include "fuse/Dialect/Fuse/Utils/Search.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <vector>

using namespace mlir;
using namespace fuse;

ElementEmitter::ElementEmitter(Block &body, LoadFn load, DimFn dim,
                               ScalarFn scalar)
    : body(body), load(std::move(load)), dim(std::move(dim)),
      scalarFn(std::move(scalar)) {}

Value ElementEmitter::coordAt(OpBuilder &b, Location loc, Value tensor,
                              ValueRange indices, int64_t d) {
  if (coordFn && indices.size() > 1)
    if (Value c = coordFn(b, loc, tensor, indices, d))
      return c;
  return indices[d];
}

bool ElementEmitter::isElementwise(Value v) {
  return isElementwiseOp(v.getDefiningOp());
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
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), idx);
  if (auto it = dyn_cast<IntegerType>(type)) {
    // Narrower integers through an explicit trunci: MLIR's canonicalizer
    // folds index_cast(index_cast(i : index -> i8) -> index) back to i,
    // dropping the wrap (a histogram of an i8 iota then counted index 256
    // in bin 256, past a 256-bin buffer).
    if (it.getWidth() < 64)
      return arith::TruncIOp::create(b, loc, type, i64);
    return i64;
  }
  return arith::SIToFPOp::create(b, loc, type, i64);
}

FailureOr<Value> ElementEmitter::emitScalar(OpBuilder &b, Location loc,
                                            Value scalar) {
  // Post-order over the scalar's operands with an explicit stack: an op is
  // cloned once all its operands have values (no recursion per op).
  SmallVector<std::pair<Value, bool>> stack{{scalar, false}};
  while (!stack.empty()) {
    auto [v, expanded] = stack.back();
    if (scalars.contains(v)) {
      stack.pop_back();
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (!def) {
      stack.pop_back();
      if (scalarFn) {
        if (Value s = scalarFn(b, loc, v)) {
          scalars.map(v, s);
          continue;
        }
      }
      return emitError(loc) << "element emitter: no value for scalar block "
                               "argument #"
                            << cast<BlockArgument>(v).getArgNumber();
    }
    if (isa_and_nonnull<FuseDialect>(def->getDialect()))
      return def->emitError() << "element emitter: a fuse op result is used "
                                 "as a scalar";
    if (auto dimOp = dyn_cast<tensor::DimOp>(def)) {
      std::optional<int64_t> d = dimOp.getConstantIndex();
      if (!d)
        return def->emitError() << "element emitter: tensor.dim needs a "
                                   "constant dimension";
      auto st = dyn_cast<RankedTensorType>(dimOp.getSource().getType());
      if (!st || *d < 0 || *d >= st.getRank())
        return def->emitError() << "tensor.dim: index " << *d
                                << " is out of range for "
                                << dimOp.getSource().getType();
      FailureOr<Value> s = emitDim(b, loc, dimOp.getSource(), *d);
      if (failed(s))
        return failure();
      scalars.map(v, *s);
      stack.pop_back();
      continue;
    }
    if (def->getNumRegions() != 0)
      return def->emitError() << "element emitter: cannot clone a scalar op "
                                 "with regions";
    if (!expanded) {
      // Operands first; the op itself once they are all mapped.
      stack.back().second = true;
      for (Value operand : llvm::reverse(def->getOperands()))
        if (!scalars.contains(operand))
          stack.push_back({operand, false});
      continue;
    }
    stack.pop_back();
    Operation *clone = b.clone(*def, scalars);
    for (auto [from, to] :
         llvm::zip_equal(def->getResults(), clone->getResults()))
      scalars.map(from, to);
  }
  return scalars.lookup(scalar);
}

FailureOr<Value> ElementEmitter::emitDim(OpBuilder &b, Location loc,
                                         Value tensor, int64_t d) {
  // Follows the size through elementwise producers in a loop (a chain of
  // 10^4 maps must not recurse 10^4 times).
  while (true) {
    auto type = cast<RankedTensorType>(tensor.getType());
    if (d < 0 || d >= type.getRank())
      return emitError(loc)
             << "element emitter: dimension " << d << " out of range";
    if (!type.isDynamicDim(d))
      return arith::ConstantIndexOp::create(b, loc, type.getDimSize(d))
          .getResult();
    // Through the ops of the body by the dialect's shape rule; group
    // arguments, filters and function arguments are leaves for `dim`.
    Operation *def = tensor.getDefiningOp();
    if (isElementwiseOp(def) || isa_and_nonnull<ReduceOp, ScanOp>(def)) {
      DimOrigin o = dimOrigin(tensor, d);
      if (o.kind == DimOrigin::Kind::Dim) {
        tensor = o.value;
        d = o.dim;
        continue;
      }
      if (o.kind == DimOrigin::Kind::Scalar)
        return emitScalar(b, loc, o.value);
    }
    if (!dim)
      return emitError(loc) << "element emitter: no size for a dynamic "
                               "dimension of a leaf tensor";
    Value v = dim(b, loc, tensor, d);
    if (!v)
      return emitError(loc) << "element emitter: no size for dimension " << d;
    return v;
  }
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
  // tensor.extract of a 0-d tensor from outside the region (e.g. a
  // reduction's result read inside a map body) is the emitter's element of
  // it; the op itself is not cloned. (An outer tensor's tensor.dim inside
  // a region reaches the GPU generators moved to the group body by
  // convert-fuse-to-gpu.)
  SmallVector<Operation *> extracted;
  for (Operation &op : block.without_terminator()) {
    auto ex = dyn_cast<tensor::ExtractOp>(op);
    if (!ex || !ex.getIndices().empty())
      continue;
    Region *src = ex.getTensor().getParentRegion();
    if (src == &region || region.isAncestor(src))
      continue;
    FailureOr<Value> v = emit(b, loc, ex.getTensor(), {});
    if (failed(v))
      return failure();
    map.map(ex.getResult(), *v);
    extracted.push_back(ex);
  }
  region.walk([&](Operation *op) {
    if (llvm::is_contained(extracted, op))
      return WalkResult::advance();
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
    if (!llvm::is_contained(extracted, &op))
      b.clone(op, map);
  auto yield = cast<YieldOp>(block.getTerminator());
  return llvm::to_vector(llvm::map_range(
      yield.getValues(), [&](Value v) { return map.lookupOrDefault(v); }));
}

/// One pending element of ElementEmitter::emit: the value of `tensor` at
/// `indices`, computed once the elements it reads (`args`, gathered one at
/// a time in operand order) are known.
struct ElementEmitter::EmitFrame {
  Value tensor;
  SmallVector<Value, 4> indices;
  SmallVector<Value> args;
  // fuse.gather: the bounds-checked branch the source is read in;
  // fuse.searchsorted: the loop the sorted tensor is read in; and what to
  // restore once either is done.
  scf::IfOp ifOp;
  OpenSearch search;
  OpBuilder::InsertPoint savedIp;
  ElementCache savedCache;
  IRMapping savedScalars;
};

/// What one step of a frame decides: either the frame needs the element
/// `next` at `nextIdx` first, or (`next` null) its own value is `result`,
/// a failure once a diagnostic was emitted.
struct ElementEmitter::EmitStep {
  Value next;
  SmallVector<Value, 4> nextIdx;
  FailureOr<Value> result = Value();
  /// False when the step cached its value itself (a map caches every
  /// result at once).
  bool cacheResult = true;

  static EmitStep need(Value next, ValueRange idx) {
    EmitStep s;
    s.next = next;
    s.nextIdx.assign(idx.begin(), idx.end());
    return s;
  }
  static EmitStep value(FailureOr<Value> result) {
    EmitStep s;
    s.result = result;
    return s;
  }
};

namespace {
SmallVector<void *, 4> keyOf(ValueRange indices) {
  SmallVector<void *, 4> key;
  for (Value i : indices)
    key.push_back(i.getAsOpaquePointer());
  return key;
}
} // namespace

void ElementEmitter::forgetInside(Operation *op) {
  auto inside = [&](Value v) {
    Operation *parent = v.getParentBlock() ? v.getParentBlock()->getParentOp()
                                           : nullptr;
    return parent && op->isAncestor(parent);
  };
  for (auto it = cache.begin(); it != cache.end();)
    it = inside(it->second) ? cache.erase(it) : std::next(it);
  IRMapping kept;
  for (auto [from, to] : scalars.getValueMap())
    if (!inside(to))
      kept.map(from, to);
  scalars = kept;
}

void ElementEmitter::remember(Value tensor, ValueRange indices, Value value) {
  cache[{tensor.getAsOpaquePointer(), keyOf(indices)}] = value;
}

/// Looks `t` at `idx` up, or pushes a frame for it onto `stack`. Returns
/// the cached value, a null value when a frame was pushed, or failure (a
/// value that is no ranked tensor, or the wrong number of indices).
FailureOr<Value> ElementEmitter::request(Location loc, Value t, ValueRange idx,
                                         std::vector<EmitFrame> &stack) {
  auto type = dyn_cast<RankedTensorType>(t.getType());
  if (!type)
    return emitError(loc) << "element emitter: not a ranked tensor";
  if (static_cast<int64_t>(idx.size()) != type.getRank())
    return emitError(loc) << "element emitter: " << idx.size()
                          << " indices for a rank-" << type.getRank()
                          << " tensor";
  auto it = cache.find({t.getAsOpaquePointer(), keyOf(idx)});
  if (it != cache.end())
    return it->second;
  EmitFrame f;
  f.tensor = t;
  f.indices.assign(idx.begin(), idx.end());
  stack.push_back(std::move(f));
  return Value();
}

/// Undoes what a frame holds open (a gather's branch) when emission fails,
/// so the caller's insertion point, cache and scalars are as before.
void ElementEmitter::abandon(OpBuilder &b, EmitFrame &f) {
  Operation *open =
      f.ifOp ? f.ifOp.getOperation() : f.search.loop.getOperation();
  if (!open)
    return;
  cache = std::move(f.savedCache);
  scalars = f.savedScalars;
  b.restoreInsertionPoint(f.savedIp);
  open->erase();
}

/// The next step of frame `f`, by the op that defines its tensor (anything
/// not computed elementwise is a leaf).
ElementEmitter::EmitStep ElementEmitter::step(OpBuilder &b, Location loc,
                                              EmitFrame &f) {
  Operation *def = f.tensor.getDefiningOp();
  if (auto map = dyn_cast_or_null<MapOp>(def))
    return stepMap(b, loc, f, map);
  if (auto bc = dyn_cast_or_null<BroadcastOp>(def))
    return stepBroadcast(b, loc, f, bc);
  if (auto iota = dyn_cast_or_null<IotaOp>(def))
    return stepIota(b, loc, f, iota);
  if (auto gather = dyn_cast_or_null<GatherOp>(def)) {
    if (f.args.empty()) // the index element first
      return EmitStep::need(gather.getIndices(), f.indices);
    return f.ifOp ? closeGather(b, loc, f, gather)
                  : openGather(b, loc, f, gather);
  }
  if (auto search = dyn_cast_or_null<SearchSortedOp>(def)) {
    if (f.args.empty()) // the needle first
      return EmitStep::need(search.getValues(), f.indices);
    return f.search.loop ? closeSearchSorted(b, loc, f, search)
                         : openSearchSorted(b, loc, f, search);
  }
  return stepLeaf(b, loc, f);
}

/// fuse.map: every input at the same indices, then the body inlined on
/// them. All results of the map are cached at once, since its body is
/// emitted once for all of them.
ElementEmitter::EmitStep ElementEmitter::stepMap(OpBuilder &b, Location loc,
                                                 EmitFrame &f, MapOp map) {
  if (f.args.size() < map.getInputs().size())
    return EmitStep::need(map.getInputs()[f.args.size()], f.indices);
  FailureOr<SmallVector<Value>> outs =
      emitRegion(b, loc, map.getBody(), f.args);
  if (failed(outs))
    return EmitStep::value(failure());
  SmallVector<void *, 4> key = keyOf(f.indices);
  for (auto [r, v] : llvm::zip_equal(map.getResults(), *outs))
    cache[{r.getAsOpaquePointer(), key}] = v;
  EmitStep s =
      EmitStep::value((*outs)[cast<OpResult>(f.tensor).getResultNumber()]);
  s.cacheResult = false;
  return s;
}

/// fuse.broadcast: the input at the kept dimensions' indices (or their
/// coordinates, when a CoordFn recovers them from flat indices).
ElementEmitter::EmitStep ElementEmitter::stepBroadcast(OpBuilder &b,
                                                       Location loc,
                                                       EmitFrame &f,
                                                       BroadcastOp bc) {
  if (!f.args.empty())
    return EmitStep::value(f.args[0]);
  EmitStep s;
  s.next = bc.getInput();
  for (auto [d, idx] : llvm::enumerate(f.indices))
    if (!llvm::is_contained(bc.getDims(), static_cast<int64_t>(d)))
      s.nextIdx.push_back(
          bc.getDims().empty() ? idx : coordAt(b, loc, f.tensor, f.indices, d));
  return s;
}

/// fuse.iota: the coordinate along its dimension in the element type.
ElementEmitter::EmitStep ElementEmitter::stepIota(OpBuilder &b, Location loc,
                                                  EmitFrame &f, IotaOp iota) {
  return EmitStep::value(castIndexTo(
      b, loc, coordAt(b, loc, f.tensor, f.indices, iota.getIotaDim()),
      cast<RankedTensorType>(f.tensor.getType()).getElementType()));
}

/// fuse.gather, once the index element (f.args[0]) is known: opens the
/// `scf.if` that checks it against the source's size and asks for the
/// source element inside its then-branch. The cache and scalars are saved
/// so that nothing emitted in the branch is reused outside it.
ElementEmitter::EmitStep ElementEmitter::openGather(OpBuilder &b, Location loc,
                                                    EmitFrame &f,
                                                    GatherOp gather) {
  FailureOr<Value> n = emitDim(b, loc, gather.getSource(), 0);
  if (failed(n))
    return EmitStep::value(failure());
  Value raw = f.args[0];
  Value i64 =
      raw.getType().isInteger(64)
          ? raw
          : arith::ExtSIOp::create(b, loc, b.getI64Type(), raw).getResult();
  Value n64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), *n);
  Value zero64 = arith::ConstantIntOp::create(b, loc, 0, 64);
  Value geZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, i64, zero64);
  Value ltN =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i64, n64);
  Value inBounds = arith::AndIOp::create(b, loc, geZero, ltN);
  Type et = gather.getResult().getType().getElementType();
  f.ifOp = scf::IfOp::create(b, loc, TypeRange{et}, inBounds,
                             /*withElseRegion=*/true);
  f.savedIp = b.saveInsertionPoint();
  b.setInsertionPointToStart(f.ifOp.thenBlock());
  Value idx = arith::IndexCastOp::create(b, loc, b.getIndexType(), i64);
  f.savedCache = cache;
  f.savedScalars = scalars;
  return EmitStep::need(gather.getSource(), idx);
}

/// fuse.gather, once the source element (f.args[1]) is known: yields it,
/// yields 0 out of range, restores what openGather saved and gives the
/// `scf.if`'s result.
ElementEmitter::EmitStep ElementEmitter::closeGather(OpBuilder &b, Location loc,
                                                     EmitFrame &f,
                                                     GatherOp gather) {
  cache = std::move(f.savedCache);
  scalars = f.savedScalars;
  scf::YieldOp::create(b, loc, f.args[1]);
  b.setInsertionPointToStart(f.ifOp.elseBlock());
  Type et = gather.getResult().getType().getElementType();
  Value zero =
      arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(et)));
  scf::YieldOp::create(b, loc, zero);
  b.restoreInsertionPoint(f.savedIp);
  Value result = f.ifOp.getResult(0);
  f.ifOp = scf::IfOp();
  return EmitStep::value(result);
}

/// fuse.searchsorted, once the needle (f.args[0]) is known: opens the
/// binary search over the sorted tensor and asks for its element at the
/// probe `mid` inside the loop (what is emitted there is forgotten after).
ElementEmitter::EmitStep
ElementEmitter::openSearchSorted(OpBuilder &b, Location loc, EmitFrame &f,
                                 SearchSortedOp search) {
  FailureOr<Value> n = emitDim(b, loc, search.getSorted(), 0);
  if (failed(n))
    return EmitStep::value(failure());
  f.savedIp = b.saveInsertionPoint();
  f.search = openSearch(b, loc, search, *n, f.args[0]);
  f.savedCache = cache;
  f.savedScalars = scalars;
  return EmitStep::need(search.getSorted(), f.search.mid);
}

/// fuse.searchsorted, once the probed element (f.args[1]) is known: steps
/// the search, closes the loop and gives the insertion point.
ElementEmitter::EmitStep
ElementEmitter::closeSearchSorted(OpBuilder &b, Location loc, EmitFrame &f,
                                  SearchSortedOp search) {
  cache = std::move(f.savedCache);
  scalars = f.savedScalars;
  Value result = closeSearch(b, loc, f.search, f.args[1]);
  f.search = OpenSearch();
  return EmitStep::value(result);
}

/// A leaf: the caller's LoadFn produces the element.
ElementEmitter::EmitStep ElementEmitter::stepLeaf(OpBuilder &b, Location loc,
                                                  EmitFrame &f) {
  Value v = load(b, loc, f.tensor, f.indices);
  if (!v)
    return EmitStep::value(emitError(loc)
                           << "element emitter: the load callback gave "
                              "no value");
  return EmitStep::value(v);
}

// emit() walks the DAG of elementwise values in post-order with an explicit
// stack (one frame per pending element), so a chain of 10^4 fused maps
// needs no native stack. It emits exactly what a depth-first recursion
// would, in the same order: operands are requested one at a time, in order,
// and each is looked up in the cache when it is requested.
FailureOr<Value> ElementEmitter::emit(OpBuilder &b, Location loc, Value tensor,
                                      ValueRange indices) {
  std::vector<EmitFrame> stack;
  FailureOr<Value> root = request(loc, tensor, indices, stack);
  if (failed(root) || *root)
    return root;

  Value done; // the value of the frame that just completed
  while (true) {
    EmitFrame &f = stack.back();
    if (done) {
      f.args.push_back(done);
      done = Value();
    }
    EmitStep s = step(b, loc, f);
    if (s.next) {
      // `f` may move when a frame is pushed: it is not used past this.
      FailureOr<Value> v = request(loc, s.next, s.nextIdx, stack);
      if (succeeded(v)) {
        if (*v)
          done = *v; // cached: hand it to this frame on the next step
        continue;
      }
      s.result = failure();
    }
    if (failed(s.result)) {
      while (!stack.empty()) {
        abandon(b, stack.back());
        stack.pop_back();
      }
      return failure();
    }
    // The frame's value is known.
    if (s.cacheResult)
      cache[{f.tensor.getAsOpaquePointer(), keyOf(f.indices)}] = *s.result;
    done = *s.result;
    stack.pop_back();
    if (stack.empty())
      return done;
  }
}

//===----------------------------------------------------------------------===//
// Combiner helpers
//===----------------------------------------------------------------------===//

static CombinerKind kindOf(Operation *op, unsigned i) {
  if (auto r = dyn_cast<ReduceOp>(op))
    return r.getKind(i);
  if (auto r = dyn_cast<SegmentedReduceOp>(op))
    return r.getKind(i);
  return cast<ScanOp>(op).getKind(i);
}

static bool hasKinds(Operation *op) {
  if (auto r = dyn_cast<ReduceOp>(op))
    return r.hasBuiltinKinds();
  if (auto r = dyn_cast<SegmentedReduceOp>(op))
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
  } else if (auto r = dyn_cast<SegmentedReduceOp>(op)) {
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
