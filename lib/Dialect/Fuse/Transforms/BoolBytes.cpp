//===- BoolBytes.cpp - i1 tensors cross group boundaries as bytes ---------===//
//
// fuse-bool-bytes (the GPU pipeline, after fusion): GPU kernels load and
// store whole bytes, and an i1 tensor in memory is one byte an element, 0
// or 1 (LLVM's layout of i1, the CPU backend's memrefs, NumPy's and
// torch's bool). So every i1 tensor a group reads or writes becomes i8 at
// the group's boundary:
//  * an operand: the body argument takes the bytes and a map truncates
//    them (arith.trunci) for the body's readers; a gather or broadcast of
//    it moves the bytes and the map truncates what they give (both need
//    their input to be the argument itself);
//  * a result: a map widens the yielded value (arith.extui) inside the
//    body; a filter's own result instead compacts bytes, its input widened
//    in the prologue (a map after the compaction would be an elementwise
//    result of the filter group).
// Outside the groups, a function argument (or a value no group makes)
// becomes bytes through `arith.extui`, and a converted result that leaves
// for something other than a group through `arith.trunci`: views of the
// same buffer (fuse::isByteView), which the entry's host code maps to it.
// An operand read at data-dependent positions other than a gather's source
// (a searchsorted's table, a segmented reduction's inputs), and results of
// other ops (segmented reductions, histograms), stay i1: code generation
// rejects them with the reason.
//
//===----------------------------------------------------------------------===//

#include "fuse/Dialect/Fuse/Transforms/Passes.h"

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/Fuse/Utils/EntryGroups.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace fuse {
#define GEN_PASS_DEF_FUSEBOOLBYTESPASS
#include "fuse/Dialect/Fuse/Transforms/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

namespace {

RankedTensorType boolTensor(Type t) {
  auto tt = dyn_cast<RankedTensorType>(t);
  return tt && tt.getElementType().isInteger(1) ? tt : RankedTensorType();
}

RankedTensorType withElement(Type t, Type et) {
  return cast<RankedTensorType>(t).clone(et);
}

/// `fuse.map %v { arith.trunci | arith.extui }`: i8 <-> i1, elementwise.
Value castMap(OpBuilder &b, Location loc, Value v, bool toBool) {
  Type to = toBool ? b.getI1Type() : b.getI8Type();
  return buildElementwiseMap(b, loc, v, to,
                             [&](OpBuilder &mb, Location l, Value x) -> Value {
                               if (toBool)
                                 return arith::TruncIOp::create(mb, l, to, x);
                               return arith::ExtUIOp::create(mb, l, to, x);
                             });
}

/// The group's yield of `v` takes `bytes` (the i8 value `v` became, which
/// may be `v` itself, retyped); every other reader reads a truncating map
/// of it, made right after it.
void truncateForReaders(OpBuilder &b, Location loc, Value v, Value bytes) {
  SmallVector<OpOperand *> readers, yields;
  for (OpOperand &use : v.getUses()) {
    Operation *u = use.getOwner();
    bool groupYield = isa<YieldOp>(u) && isa<GroupOp>(u->getParentOp());
    (groupYield ? yields : readers).push_back(&use);
  }
  for (OpOperand *use : yields)
    use->set(bytes);
  if (readers.empty())
    return;
  b.setInsertionPointAfterValue(bytes);
  Value truncated = castMap(b, loc, bytes, /*toBool=*/true);
  for (OpOperand *use : readers)
    use->set(truncated);
}

/// Whether body argument `a` can take bytes: each use reads it at the
/// element's own position, is a gather's source or a broadcast's input
/// (element movers, converted after the move), or a tensor.dim.
bool takesBytes(BlockArgument a) {
  return llvm::all_of(a.getUses(), [](OpOperand &use) {
    Operation *u = use.getOwner();
    if (isa<GatherOp, BroadcastOp, tensor::DimOp>(u))
      return true;
    return !isReadAtComputedPositions(use);
  });
}

/// Body argument `a` (now i8) as bytes: movers move bytes, then a map
/// truncates; every other reader reads one shared truncating map.
void readArgumentAsBytes(OpBuilder &b, BlockArgument a) {
  Location loc = a.getLoc();
  Type i8 = b.getI8Type();
  SmallVector<Operation *> movers;
  for (Operation *u : a.getUsers())
    if (isa<GatherOp, BroadcastOp>(u) && !llvm::is_contained(movers, u))
      movers.push_back(u);
  for (Operation *m : movers) {
    b.setInsertionPoint(m);
    Operation *moved = b.clone(*m);
    moved->getResult(0).setType(withElement(m->getResult(0).getType(), i8));
    Value back = castMap(b, loc, moved->getResult(0), /*toBool=*/true);
    m->getResult(0).replaceAllUsesWith(back);
    m->erase();
  }
  SmallVector<OpOperand *> readers;
  for (OpOperand &use : a.getUses())
    if (!isa<tensor::DimOp, GatherOp, BroadcastOp>(use.getOwner()))
      readers.push_back(&use);
  if (readers.empty())
    return;
  b.setInsertionPointToStart(a.getOwner());
  Value truncated = castMap(b, loc, a, /*toBool=*/true);
  for (OpOperand *use : readers)
    use->set(truncated);
}

/// The filter whose own result `y` is, when `y` is used only by the yield.
FilterOp ownFilterResult(Value y) {
  auto filter = y.getDefiningOp<FilterOp>();
  if (!filter ||
      !llvm::all_of(y.getUsers(), [](Operation *u) { return isa<YieldOp>(u); }))
    return FilterOp();
  return filter;
}

/// Makes result `r` of `filter` (an i1 tensor) bytes: its input is widened
/// before the compaction and the predicate truncates its element.
void filterBytes(OpBuilder &b, FilterOp filter, unsigned r) {
  Location loc = filter.getLoc();
  b.setInsertionPoint(filter);
  Value in = filter.getInputs()[r];
  filter->setOperand(r, castMap(b, loc, in, /*toBool=*/false));
  Value res = filter.getResults()[r];
  res.setType(withElement(res.getType(), b.getI8Type()));
  Block &pred = filter.getPredicate().front();
  BlockArgument e = pred.getArgument(r);
  e.setType(b.getI8Type());
  b.setInsertionPointToStart(&pred);
  Value t = arith::TruncIOp::create(b, loc, b.getI1Type(), e);
  e.replaceAllUsesExcept(t, t.getDefiningOp());
}

/// The kind over bytes 0 and 1 that gives i1 kind `k`'s result (signed,
/// true is -1: the smaller; add and mul wrap to xor and and).
CombinerKind byteKind(CombinerKind k) {
  switch (k) {
  case CombinerKind::Add:
  case CombinerKind::Xor:
    return CombinerKind::Xor;
  case CombinerKind::Mul:
  case CombinerKind::And:
  case CombinerKind::Max:
  case CombinerKind::UMin:
    return CombinerKind::And;
  case CombinerKind::Or:
  case CombinerKind::Min:
  case CombinerKind::UMax:
    return CombinerKind::Or;
  }
  llvm_unreachable("unknown combiner kind");
}

/// Makes reduction `red` (built-in kinds) reduce bytes for its i1 inputs,
/// with the kinds that give the same bits on 0 and 1, so that its i1
/// results leave as the reduction's own results (the line kernels take no
/// map after a reduction). Over no elements the result is the init (1 for
/// `and` without one, so that every stored byte is 0 or 1). Readers in the
/// body other than the yield read a truncating map.
void reduceBytes(OpBuilder &b, ReduceOp red) {
  Location loc = red.getLoc();
  b.setInsertionPoint(red);
  Type i8 = b.getI8Type();
  unsigned n = red.getInputs().size();
  bool needInits = !red.getInits().empty();
  SmallVector<CombinerKind> kinds;
  for (unsigned i = 0; i < n; ++i) {
    kinds.push_back(red.getKind(i));
    if (boolTensor(red.getInputs()[i].getType())) {
      kinds[i] = byteKind(kinds[i]);
      needInits |= kinds[i] == CombinerKind::And;
    }
  }
  SmallVector<Value> inputs, inits;
  SmallVector<Type> types;
  SmallVector<Attribute> kindAttrs;
  for (unsigned i = 0; i < n; ++i) {
    Value in = red.getInputs()[i];
    Type rt = red.getResult(i).getType();
    bool isBool = static_cast<bool>(boolTensor(in.getType()));
    Type et =
        isBool ? i8 : cast<RankedTensorType>(in.getType()).getElementType();
    if (isBool) {
      in = castMap(b, loc, in, /*toBool=*/false);
      rt = withElement(rt, i8);
    }
    inputs.push_back(in);
    types.push_back(rt);
    kindAttrs.push_back(CombinerKindAttr::get(b.getContext(), kinds[i]));
    if (!needInits)
      continue;
    if (!red.getInits().empty()) {
      Value init = red.getInits()[i];
      inits.push_back(
          isBool ? arith::ExtUIOp::create(b, loc, i8, init).getResult() : init);
    } else if (isBool && kinds[i] == CombinerKind::And) {
      inits.push_back(arith::ConstantIntOp::create(b, loc, i8, 1));
    } else {
      inits.push_back(
          arith::ConstantOp::create(b, loc, getKindIdentity(kinds[i], et)));
    }
  }
  auto nr = ReduceOp::create(b, loc, types, inputs, inits,
                             b.getArrayAttr(kindAttrs), red.getDimsAttr());
  nr->setDiscardableAttrs(red->getDiscardableAttrDictionary());
  for (unsigned i = 0; i < n; ++i) {
    Value old = red.getResult(i), now = nr.getResult(i);
    if (old.getType() == now.getType())
      old.replaceAllUsesWith(now);
    else
      truncateForReaders(b, loc, old, now);
  }
  red.erase();
}

/// A reduction with a combiner region over i1 inputs, as bytes in place:
/// those inputs and inits widened, the region's accumulator and element
/// arguments bytes that it truncates first, its new accumulators widened
/// (so every byte it makes is 0 or 1).
void regionReduceBytes(OpBuilder &b, ReduceOp red) {
  Location loc = red.getLoc();
  Type i8 = b.getI8Type();
  unsigned n = red.getInputs().size();
  Block &comb = red.getCombiner().front();
  auto yield = cast<YieldOp>(comb.getTerminator());
  for (unsigned i = 0; i < n; ++i) {
    if (!boolTensor(red.getInputs()[i].getType()))
      continue;
    b.setInsertionPoint(red);
    red->setOperand(i, castMap(b, loc, red.getInputs()[i], /*toBool=*/false));
    OpOperand &init = red.getInitsMutable()[i];
    init.set(arith::ExtUIOp::create(b, loc, i8, init.get()));
    for (unsigned k : {i, n + i}) {
      BlockArgument a = comb.getArgument(k);
      a.setType(i8);
      b.setInsertionPointToStart(&comb);
      Value t = arith::TruncIOp::create(b, loc, b.getI1Type(), a);
      a.replaceAllUsesExcept(t, t.getDefiningOp());
    }
    b.setInsertionPoint(yield);
    yield->setOperand(i,
                      arith::ExtUIOp::create(b, loc, i8, yield.getValues()[i]));
    Value res = red.getResult(i);
    res.setType(withElement(res.getType(), i8));
    truncateForReaders(b, loc, res, res);
  }
}

/// Whether the yielded i1 value `y` can leave as bytes: a filter's own
/// result, a reduction's (reduceBytes, regionReduceBytes), or anything
/// computed elementwise or scanned (a map widens it, which the elementwise,
/// reduce, row and scan kernels take as part of their epilogue).
bool yieldsAsBytes(Value y) {
  if (ownFilterResult(y) || isa<BlockArgument>(y))
    return true;
  Operation *def = y.getDefiningOp();
  return isElementwiseOp(def) || isa_and_nonnull<ReduceOp, ScanOp>(def);
}

struct FuseBoolBytesPass
    : fuse::impl::FuseBoolBytesPassBase<FuseBoolBytesPass> {
  void runOnOperation() override {
    getOperation()->walk([&](func::FuncOp fn) { convert(fn); });
  }

  void convert(func::FuncOp fn) {
    if (fn.isExternal() || fn.getBody().getBlocks().size() != 1)
      return;
    // Every tensor a kernel reads or writes at a group boundary first, as
    // convert-fuse-to-gpu would make them.
    copyReturnedArguments(fn);
    wrapLooseOps(fn);
    OpBuilder b(fn.getContext());
    // Each i1 tensor outside the groups and its bytes.
    DenseMap<Value, Value> bytes;
    auto bytesOf = [&](Value v) -> Value {
      if (Value known = bytes.lookup(v))
        return known;
      OpBuilder::InsertionGuard g(b);
      if (auto a = dyn_cast<BlockArgument>(v))
        b.setInsertionPointToStart(a.getOwner());
      else
        b.setInsertionPointAfter(v.getDefiningOp());
      Value view = arith::ExtUIOp::create(
          b, v.getLoc(), withElement(v.getType(), b.getI8Type()), v);
      bytes[v] = view;
      return view;
    };
    SmallVector<GroupOp> groups(fn.getBody().getOps<GroupOp>());
    SmallVector<Operation *> views;
    for (GroupOp g : groups) {
      Block &body = g.getBody().front();
      for (unsigned j = 0, e = g.getNumOperands(); j < e; ++j) {
        Value v = g.getOperand(j);
        BlockArgument a = body.getArgument(j);
        if (!boolTensor(v.getType()) || !takesBytes(a))
          continue;
        g->setOperand(j, bytesOf(v));
        a.setType(withElement(a.getType(), b.getI8Type()));
        readArgumentAsBytes(b, a);
      }
      convertResults(b, g, bytes, views);
    }
    // Views nothing reads (every reader was a group that took the bytes).
    for (Operation *v : views)
      if (v->use_empty())
        v->erase();
    for (auto &[v, view] : bytes)
      if (auto ext = view.getDefiningOp<arith::ExtUIOp>();
          ext && ext->use_empty())
        ext->erase();
  }

  /// Rebuilds `g` with bytes for its i1 results that can leave as bytes;
  /// their readers outside read a truncating view (`bytes` maps it back).
  void convertResults(OpBuilder &b, GroupOp &g, DenseMap<Value, Value> &bytes,
                      SmallVector<Operation *> &views) {
    YieldOp yield = g.getYield();
    SmallVector<unsigned> converted;
    for (unsigned r = 0, e = g.getNumResults(); r < e; ++r)
      if (boolTensor(g.getResult(r).getType()) &&
          yieldsAsBytes(yield.getValues()[r]))
        converted.push_back(r);
    if (converted.empty())
      return;
    SmallVector<Type> types(g.getResultTypes());
    for (unsigned r : converted) {
      Value y = yield.getValues()[r];
      types[r] = withElement(types[r], b.getI8Type());
      // Already bytes: a filter's or reduction's result yielded twice, or
      // another result of a reduction converted before.
      if (!boolTensor(y.getType()))
        continue;
      if (FilterOp f = ownFilterResult(y)) {
        filterBytes(b, f, cast<OpResult>(y).getResultNumber());
        continue;
      }
      if (auto red = y.getDefiningOp<ReduceOp>()) {
        if (red.hasBuiltinKinds())
          reduceBytes(b, red);
        else
          regionReduceBytes(b, red);
        continue;
      }
      b.setInsertionPoint(yield);
      yield->setOperand(r, castMap(b, g.getLoc(), y, /*toBool=*/false));
    }
    b.setInsertionPoint(g);
    auto ng =
        GroupOp::create(b, g.getLoc(), types, g.getKindAttr(), g.getOperands());
    ng->setDiscardableAttrs(g->getDiscardableAttrDictionary());
    ng.getBody().takeBody(g.getBody());
    b.setInsertionPointAfter(ng);
    for (unsigned r = 0, e = g.getNumResults(); r < e; ++r) {
      if (!llvm::is_contained(converted, r)) {
        g.getResult(r).replaceAllUsesWith(ng.getResult(r));
        continue;
      }
      auto view = arith::TruncIOp::create(
          b, g.getLoc(), g.getResult(r).getType(), ng.getResult(r));
      g.getResult(r).replaceAllUsesWith(view.getResult());
      bytes[view.getResult()] = ng.getResult(r);
      views.push_back(view);
    }
    g.erase();
    g = ng;
  }
};

} // namespace
