//===- CollapseRows.cpp - rank > 2 row computations as rank 2 ------------===//
//
// See FuseCollapseRowsPass in Passes.td. A reduction over the last
// dimension of a rank-R tensor (R > 2) is a row reduction of the
// [d0 * ... * d(R-2), C] matrix the same bytes hold, so the row groups of
// fusion and their one-pass kernels apply unchanged: each such op, the
// broadcasts back along the rows and the maps between them are rewritten
// over collapsed operands (tensor.collapse_shape) with their results
// expanded back (tensor.expand_shape). Neighbouring rewritten ops then
// meet as expand -> collapse pairs, which the canonicalizer folds away;
// what is left are reshapes of the function's arguments and results,
// which cost nothing (the same buffer with other sizes).
//
//===----------------------------------------------------------------------===//

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/Fuse/Transforms/Passes.h"
#include "fuse/Dialect/Fuse/Utils/EntrySizeChecks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <optional>
#include <tuple>

namespace fuse {
#define GEN_PASS_DEF_FUSECOLLAPSEROWSPASS
#include "fuse/Dialect/Fuse/Transforms/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

namespace {

RankedTensorType rankedOf(Value v) {
  return dyn_cast<RankedTensorType>(v.getType());
}

/// The product of the leading extents [0, n) of `t` (static when all are).
int64_t leadExtent(RankedTensorType t, int64_t n) {
  int64_t p = 1;
  for (int64_t d = 0; d < n; ++d) {
    if (t.isDynamicDim(d))
      return ShapedType::kDynamic;
    p *= t.getDimSize(d);
  }
  return p;
}

class Collapser {
public:
  explicit Collapser(OpBuilder &b) : b(b) {}

  /// `v` of rank R as [d0 * ... * d(R-2), C] (R >= 2).
  Value rows(Location loc, Value v) {
    return collapseLead(loc, v, rankedOf(v).getRank() - 1);
  }

  SmallVector<Value> rows(Location loc, ValueRange vs) {
    SmallVector<Value> out;
    for (Value v : vs)
      out.push_back(rows(loc, v));
    return out;
  }

  /// `v` of rank R - 1 (one value per row) as [d0 * ... * d(R-2)].
  Value perRow(Location loc, Value v) {
    return collapseLead(loc, v, rankedOf(v).getRank());
  }

  /// The collapsed `v` (rank 1 or 2) back in `like`'s shape, whose extents
  /// are `sizes`.
  Value expand(Location loc, Value v, Value like,
               ArrayRef<OpFoldResult> sizes) {
    auto t = rankedOf(like);
    auto ct = rankedOf(v);
    if (t.getRank() == ct.getRank())
      return v;
    SmallVector<ReassociationIndices> re;
    ReassociationIndices lead;
    int64_t leadDims = ct.getRank() == 2 ? t.getRank() - 1 : t.getRank();
    for (int64_t d = 0; d < leadDims; ++d)
      lead.push_back(d);
    re.push_back(lead);
    if (ct.getRank() == 2)
      re.push_back({t.getRank() - 1});
    return tensor::ExpandShapeOp::create(b, loc, t, v, re, sizes);
  }

  /// The product of the first `n` extents of `sizes` as an index value.
  Value product(Location loc, ArrayRef<OpFoldResult> sizes, int64_t n) {
    Value p = getValueOrCreateConstantIndexOp(b, loc, sizes[0]);
    for (int64_t d = 1; d < n; ++d)
      p = arith::MulIOp::create(
          b, loc, p, getValueOrCreateConstantIndexOp(b, loc, sizes[d]));
    return p;
  }

  OpBuilder &b;

private:
  /// `v` with its first `lead` dimensions collapsed into one, the others
  /// kept (`v` itself where that is one dimension already).
  Value collapseLead(Location loc, Value v, int64_t lead) {
    auto t = rankedOf(v);
    if (lead <= 1)
      return v;
    SmallVector<ReassociationIndices> groups(1);
    SmallVector<int64_t> shape{leadExtent(t, lead)};
    for (int64_t d = 0; d < lead; ++d)
      groups[0].push_back(d);
    for (int64_t d = lead; d < t.getRank(); ++d) {
      groups.push_back({d});
      shape.push_back(t.getDimSize(d));
    }
    return tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get(shape, t.getElementType()), v, groups);
  }
};

/// The types of `results` collapsed: rows ([d0 * ... * d(R-2), C]) or one
/// value per row ([d0 * ... * d(R-1)] of a rank-(R-1) result).
SmallVector<Type> collapsedTypes(ValueRange results, bool rows) {
  SmallVector<Type> types;
  for (Value r : results) {
    auto t = rankedOf(r);
    int64_t lead = rows ? t.getRank() - 1 : t.getRank();
    SmallVector<int64_t> shape{leadExtent(t, lead)};
    if (rows)
      shape.push_back(t.getDimSize(lead));
    types.push_back(RankedTensorType::get(shape, t.getElementType()));
  }
  return types;
}

/// The extents of `op`'s result `i`, in terms of its operands.
SmallVector<OpFoldResult> resultSizes(OpBuilder &b, Operation *op, unsigned i) {
  ReifiedRankedShapedTypeDims dims;
  if (failed(reifyResultShapes(b, op, dims)))
    return {};
  return dims[i];
}

/// A reduction over exactly the last dimension of rank-3-or-more inputs.
bool isRowReduce(ReduceOp op) {
  auto t = rankedOf(op.getInputs()[0]);
  SmallVector<int64_t> dims = op.getReducedDims();
  return t.getRank() > 2 && dims.size() == 1 && dims[0] == t.getRank() - 1;
}

/// The product of the trailing extents [n, rank) of `t`.
int64_t trailExtent(RankedTensorType t, int64_t n) {
  int64_t p = 1;
  for (int64_t d = n; d < t.getRank(); ++d) {
    if (t.isDynamicDim(d))
      return ShapedType::kDynamic;
    p *= t.getDimSize(d);
  }
  return p;
}

/// A reduction of a rank R > 2 input over dims [0, at) (`reduced` 0: the
/// columns of the collapsed matrix) or [at, R) (`reduced` 1: its rows),
/// two or more dims and not all of them.
struct EdgeSplit {
  int64_t at;
  int64_t reduced;
};
std::optional<EdgeSplit> edgeSplit(ReduceOp op) {
  int64_t r = rankedOf(op.getInputs()[0]).getRank();
  SmallVector<int64_t> dims = op.getReducedDims();
  int64_t k = dims.size();
  if (r <= 2 || k < 2 || k >= r)
    return std::nullopt;
  bool contiguous = dims.back() - dims.front() == k - 1;
  if (!contiguous)
    return std::nullopt;
  if (dims.front() == 0)
    return EdgeSplit{k, 0};
  if (dims.back() == r - 1)
    return EdgeSplit{r - k, 1};
  return std::nullopt;
}

/// A broadcast to rank R > 2 of one value per row (dims) or of one
/// value per column (rank 1, dims [0, R-2]).
enum class Along { None, Rows, Columns };
Along broadcastKind(BroadcastOp op) {
  auto t = rankedOf(op.getResult());
  int64_t r = t.getRank();
  ArrayRef<int64_t> dims = op.getDims();
  if (r <= 2)
    return Along::None;
  if (dims.size() == 1 && dims[0] == r - 1)
    return Along::Rows;
  if (static_cast<int64_t>(dims.size()) == r - 1 &&
      llvm::all_of(llvm::enumerate(dims),
                   [](auto e) { return e.value() == (int64_t)e.index(); }))
    return Along::Columns;
  return Along::None;
}

class Rewriter {
public:
  explicit Rewriter(Operation *root) : root(root) {}

  unsigned run() {
    SmallVector<Operation *> ops;
    root->walk([&](Operation *op) {
      if (isa<ReduceOp, BroadcastOp, MapOp>(op) &&
          !op->getParentOfType<GroupOp>())
        ops.push_back(op);
    });
    choose(ops);
    unsigned n = 0;
    for (Operation *op : ops)
      if (chosen.contains(op))
        n += rewrite(op);
    return n;
  }

private:
  /// An operand a rewritten map may read collapsed at no cost: a function
  /// argument (a reshape of the caller's buffer), a constant, an iota
  /// (CollapseIota makes it one of the collapsed shape) or a rewritten
  /// op's result (its expand folds against the collapse).
  bool cheap(Value v) {
    if (isa<BlockArgument>(v))
      return true;
    Operation *def = v.getDefiningOp();
    return def && (chosen.contains(def) || isa<arith::ConstantOp>(def) ||
                   (isa<IotaOp>(def) && rankedOf(v).getRank() > 2));
  }

  /// The ops to rewrite: the row reductions (and the reductions over an
  /// edge block), the broadcasts back along rows or columns, and the maps
  /// of rank > 2 whose inputs are all cheap that read a chosen op's result
  /// (an epilogue), feed a chosen row reduction or map (a prologue: left
  /// at rank 3, x*x of a sum of squares would be a pass of its own before
  /// the collapsed reduction) or read a tensor of their own shape that a
  /// chosen row reduction or map reads too (a sibling: left at rank 3 it
  /// is a group of its own over another shape, and reads the tensor again
  /// in a pass of its own). A rank-3 elementwise chain alone gains
  /// nothing and keeps its rank.
  void choose(ArrayRef<Operation *> ops) {
    for (Operation *op : ops) {
      if (auto r = dyn_cast<ReduceOp>(op)) {
        if (isRowReduce(r) || edgeSplit(r))
          chosen.insert(op);
      } else if (auto bc = dyn_cast<BroadcastOp>(op)) {
        if (broadcastKind(bc) != Along::None)
          chosen.insert(op);
      }
    }
    // Without a reduction to collapse, broadcasts and maps gain nothing
    // from rank 2 and would only meet the ops left at rank R through
    // reshapes that fusion does not cross.
    if (llvm::none_of(chosen,
                      [](Operation *op) { return isa<ReduceOp>(op); })) {
      chosen.clear();
      return;
    }
    auto feedsRows = [&](Operation *user) {
      auto r = dyn_cast<ReduceOp>(user);
      return chosen.contains(user) &&
             (isa<MapOp>(user) || (r && isRowReduce(r)));
    };
    // A value of one element per row: a chosen row reduction's result or
    // a chosen map of such values.
    auto perRowSource = [&](Value v) {
      Operation *def = v.getDefiningOp();
      if (!def || !chosen.contains(def))
        return false;
      auto r = dyn_cast<ReduceOp>(def);
      return (r && isRowReduce(r)) || perRowMaps.contains(def);
    };
    for (bool changed = true; changed;) {
      changed = false;
      for (Operation *op : ops) {
        auto m = dyn_cast<MapOp>(op);
        if (!m || chosen.contains(op) ||
            !llvm::all_of(m.getInputs(), [&](Value v) { return cheap(v); }))
          continue;
        // A map of the rows' results (the narrowing of a sum that
        // fuse-widen-accumulators made wider, a division of two row sums)
        // runs on one value a row: left at rank R - 1 between the row
        // reduction and the broadcast back, it is a group of its own that
        // splits the row group in two.
        if (llvm::any_of(m.getInputs(), perRowSource)) {
          chosen.insert(op);
          perRowMaps.insert(op);
          changed = true;
          continue;
        }
        if (rankedOf(m.getInputs()[0]).getRank() <= 2)
          continue;
        bool epilogue = llvm::any_of(m.getInputs(), [&](Value v) {
          return v.getDefiningOp() && chosen.contains(v.getDefiningOp());
        });
        bool prologue = llvm::any_of(m->getUsers(), feedsRows);
        // (A map's inputs all have its shape.)
        bool sibling = llvm::any_of(m.getInputs(), [&](Value v) {
          return llvm::any_of(v.getUsers(), [&](Operation *u) {
            return u != op && feedsRows(u);
          });
        });
        if (epilogue || prologue || sibling) {
          chosen.insert(op);
          changed = true;
        }
      }
    }
  }

  bool rewrite(Operation *op) {
    if (auto r = dyn_cast<ReduceOp>(op)) {
      if (isRowReduce(r))
        return rewriteReduce(r);
      std::optional<EdgeSplit> split = edgeSplit(r);
      return split && rewriteEdgeReduce(r, *split);
    }
    if (auto bc = dyn_cast<BroadcastOp>(op))
      return rewriteBroadcast(bc);
    return rewriteMap(cast<MapOp>(op));
  }

  bool rewriteReduce(ReduceOp op) {
    OpBuilder b(op);
    Collapser c(b);
    Location loc = op.getLoc();
    SmallVector<Value> ins = c.rows(loc, op.getInputs());
    SmallVector<Type> types = collapsedTypes(op->getResults(), false);
    auto n = ReduceOp::create(b, loc, types, ins, op.getInits(),
                              op.getKindsAttr(), b.getDenseI64ArrayAttr({1}));
    n.getCombiner().takeBody(op.getCombiner());
    n->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    finish(op, n, c);
    return true;
  }

  /// A reduction over a leading or trailing block of two or more (not
  /// all) dimensions as a column or row reduction of the matrix
  /// [d0 * ... * d(s-1), ds * ... * d(R-1)]; its result, one value per kept
  /// row or column, is expanded back.
  bool rewriteEdgeReduce(ReduceOp op, EdgeSplit split) {
    OpBuilder b(op);
    Collapser c(b);
    Location loc = op.getLoc();
    auto t = rankedOf(op.getInputs()[0]);
    SmallVector<ReassociationIndices> groups(2);
    for (int64_t d = 0; d < t.getRank(); ++d)
      groups[d < split.at ? 0 : 1].push_back(d);
    SmallVector<Value> ins;
    for (Value v : op.getInputs()) {
      auto vt = rankedOf(v);
      SmallVector<int64_t> shape{leadExtent(vt, split.at),
                                 trailExtent(vt, split.at)};
      ins.push_back(tensor::CollapseShapeOp::create(
          b, loc, RankedTensorType::get(shape, vt.getElementType()), v,
          groups));
    }
    SmallVector<Type> types;
    for (Value r : op->getResults()) {
      auto rt = rankedOf(r);
      types.push_back(RankedTensorType::get({leadExtent(rt, rt.getRank())},
                                            rt.getElementType()));
    }
    auto n =
        ReduceOp::create(b, loc, types, ins, op.getInits(), op.getKindsAttr(),
                         b.getDenseI64ArrayAttr({split.reduced}));
    n.getCombiner().takeBody(op.getCombiner());
    n->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    finish(op, n, c);
    return true;
  }

  bool rewriteBroadcast(BroadcastOp op) {
    OpBuilder b(op);
    Collapser c(b);
    Location loc = op.getLoc();
    auto t = rankedOf(op.getResult());
    int64_t r = t.getRank();
    SmallVector<OpFoldResult> sizes = resultSizes(b, op, 0);
    if (sizes.empty())
      return false;
    auto ct = RankedTensorType::get({leadExtent(t, r - 1), t.getDimSize(r - 1)},
                                    t.getElementType());
    BroadcastOp n;
    if (broadcastKind(op) == Along::Rows) {
      SmallVector<Value> dyn;
      if (t.isDynamicDim(r - 1))
        dyn.push_back(getValueOrCreateConstantIndexOp(b, loc, sizes[r - 1]));
      n = BroadcastOp::create(b, loc, ct, c.perRow(loc, op.getInput()),
                              b.getDenseI64ArrayAttr({1}), dyn);
    } else {
      SmallVector<Value> dyn;
      if (ct.isDynamicDim(0))
        dyn.push_back(c.product(loc, sizes, r - 1));
      n = BroadcastOp::create(b, loc, ct, op.getInput(),
                              b.getDenseI64ArrayAttr({0}), dyn);
    }
    // The ops rewritten after it read the collapsed broadcast (their
    // collapse folds against this expand); the others keep the broadcast
    // of rank R, whose input is small: fusion then computes it in their
    // groups instead of reading a tensor of the full size back. It moves
    // to just before the first of them, so that no use of the row group's
    // results comes before the group's own ops (which keeps them apart).
    Value e = c.expand(loc, n.getResult(), op.getResult(), sizes);
    op.getResult().replaceUsesWithIf(
        e, [&](OpOperand &u) { return chosen.contains(u.getOwner()); });
    Operation *first = nullptr;
    for (Operation *u : op->getUsers())
      if (Operation *a = op->getBlock()->findAncestorOpInBlock(*u))
        if (!first || a->isBeforeInBlock(first))
          first = a;
    if (first)
      op->moveBefore(first);
    else if (op.getResult().use_empty())
      op.erase();
    return true;
  }

  bool rewriteMap(MapOp op) {
    OpBuilder b(op);
    Collapser c(b);
    Location loc = op.getLoc();
    bool perRow = perRowMaps.contains(op);
    SmallVector<Value> ins;
    for (Value v : op.getInputs())
      ins.push_back(perRow ? c.perRow(loc, v) : c.rows(loc, v));
    SmallVector<Type> types = collapsedTypes(op->getResults(), !perRow);
    auto n = MapOp::create(b, loc, types, ins);
    n.getBody().takeBody(op.getBody());
    n->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    finish(op, n, c);
    return true;
  }

  /// Replaces `old`'s results by `n`'s expanded back to their shapes
  /// (the extents computed, and the expands placed, where `old` was).
  void finish(Operation *old, Operation *n, Collapser &c) {
    OpBuilder &b = c.b;
    b.setInsertionPoint(old);
    for (auto [o, v] : llvm::zip(old->getResults(), n->getResults())) {
      SmallVector<OpFoldResult> sizes =
          resultSizes(b, old, o.getResultNumber());
      Value e = c.expand(old->getLoc(), v, o, sizes);
      o.replaceAllUsesWith(e);
    }
    old->erase();
  }

  Operation *root;
  llvm::SmallPtrSet<Operation *, 16> chosen;
  /// The chosen maps of one value a row (collapsed to rank 1).
  llvm::SmallPtrSet<Operation *, 4> perRowMaps;
};

/// A rank-R fuse.iota collapsed into rows ([d0 * ... * d(R-2), C]) as an
/// op of the collapsed shape: along the last dimension, the iota of that
/// shape; along a leading dimension k, the row index r as
/// (r / (d(k+1) * ... * d(R-2))) mod d(k), converted as fuse.iota converts
/// an index (an i64 iota and a map, which fuse into their consumers).
struct CollapseIota : OpRewritePattern<tensor::CollapseShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::CollapseShapeOp op,
                                PatternRewriter &rw) const override {
    auto iota = op.getSrc().getDefiningOp<IotaOp>();
    if (!iota)
      return failure();
    int64_t r = rankedOf(iota.getResult()).getRank();
    SmallVector<ReassociationIndices> re = op.getReassociationIndices();
    if (r <= 2 || re.size() != 2 || re[1] != ReassociationIndices{r - 1})
      return failure();
    SmallVector<OpFoldResult> sizes = resultSizes(rw, iota, 0);
    if (sizes.empty())
      return failure();
    Location loc = op.getLoc();
    Collapser c(rw);
    RankedTensorType ct = op.getResultType();
    SmallVector<Value> dyn;
    if (ct.isDynamicDim(0))
      dyn.push_back(c.product(loc, sizes, r - 1));
    if (ct.isDynamicDim(1))
      dyn.push_back(getValueOrCreateConstantIndexOp(rw, loc, sizes[r - 1]));
    int64_t k = iota.getIotaDim();
    if (k == r - 1) {
      rw.replaceOpWithNewOp<IotaOp>(op, ct, dyn, rw.getI64IntegerAttr(1));
      return success();
    }
    Type i64 = rw.getI64Type();
    auto asI64 = [&](Value v) {
      return arith::IndexCastOp::create(rw, loc, i64, v).getResult();
    };
    Value extent = asI64(getValueOrCreateConstantIndexOp(rw, loc, sizes[k]));
    Value stride =
        k + 1 < r - 1
            ? asI64(c.product(loc, ArrayRef(sizes).slice(k + 1), r - 2 - k))
            : Value();
    Value rows = IotaOp::create(rw, loc, ct.clone(i64), dyn, IntegerAttr());
    auto map = MapOp::create(rw, loc, TypeRange{ct}, ValueRange{rows});
    Block *body = rw.createBlock(&map.getBody(), {}, {i64}, {loc});
    rw.setInsertionPointToStart(body);
    Value v = body->getArgument(0);
    if (stride)
      v = arith::DivUIOp::create(rw, loc, v, stride);
    v = arith::RemUIOp::create(rw, loc, v, extent);
    Type et = ct.getElementType();
    if (isa<FloatType>(et))
      v = arith::SIToFPOp::create(rw, loc, et, v);
    else if (et.getIntOrFloatBitWidth() < 64)
      v = arith::TruncIOp::create(rw, loc, et, v);
    YieldOp::create(rw, loc, v);
    rw.replaceOp(op, map.getResults());
    return success();
  }
};

struct FuseCollapseRowsPass
    : fuse::impl::FuseCollapseRowsPassBase<FuseCollapseRowsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<func::FuncOp> fns;
    getOperation()->walk([&](func::FuncOp fn) {
      if (!fn.isDeclaration())
        fns.push_back(fn);
    });
    for (func::FuncOp fn : fns)
      collapseKeepingChecks(fn);
  }

  /// Collapses the rows of `fn`. A product of collapsed dimensions is not
  /// a size the entry's checks (EntrySizeChecks.h) relate to the
  /// arguments: two rank-3 arguments zipped over their rows would no
  /// longer have their leading dimensions checked against each other. So
  /// the rewrite runs on a copy, and the checks of the function as written
  /// that the copy's do not imply are recorded on it (fuse.size_checks)
  /// before it replaces the body.
  void collapseKeepingChecks(func::FuncOp fn) {
    SmallVector<SizeCheck> checks = entrySizeChecks(fn);
    auto copy = cast<func::FuncOp>(fn->clone());
    unsigned n = Rewriter(copy).run();
    // Where the reshapes do not fold, the function stays as written.
    if (n && succeeded(foldReshapes(copy))) {
      mergeCollapses(copy);
      sinkExpands(copy);
      reduceSources(copy);
      fn.getBody().takeBody(copy.getBody());
      numRecorded += recordSizeChecks(fn, checks);
      numCollapsed += n;
    }
    copy->erase();
  }

  /// Replaces each tensor.collapse_shape by an equal one before it in its
  /// block: each rewritten op collapses its operands, and two views of one
  /// argument would be two inputs to a group (read twice).
  static void mergeCollapses(func::FuncOp fn) {
    using Key = std::tuple<Value, Type, Attribute, Block *>;
    DenseMap<Key, tensor::CollapseShapeOp> first;
    SmallVector<tensor::CollapseShapeOp> collapses;
    fn.walk([&](tensor::CollapseShapeOp c) { collapses.push_back(c); });
    for (tensor::CollapseShapeOp c : collapses) {
      Key key{c.getSrc(), c.getType(), c.getReassociationAttr(), c->getBlock()};
      auto [it, isNew] = first.try_emplace(key, c);
      if (isNew)
        continue;
      c.getResult().replaceAllUsesWith(it->second.getResult());
      c->erase();
    }
  }

  /// Moves each tensor.expand_shape to just before its first user: it was
  /// made where the rewritten op was, and fusion places a group where its
  /// last op is, so an expand of a row reduction left there (a use of the
  /// reduction's result) would keep the reduction out of the group of a
  /// later map that reads the same rows.
  static void sinkExpands(func::FuncOp fn) {
    SmallVector<tensor::ExpandShapeOp> expands;
    fn.walk([&](tensor::ExpandShapeOp e) { expands.push_back(e); });
    for (tensor::ExpandShapeOp e : llvm::reverse(expands)) {
      Block *block = e->getBlock();
      Operation *first = nullptr;
      for (Operation *user : e->getUsers()) {
        Operation *at = block->findAncestorOpInBlock(*user);
        if (at && (!first || at->isBeforeInBlock(first)))
          first = at;
      }
      if (first && first != e->getNextNode() && first != e.getOperation())
        e->moveBefore(first);
    }
  }

  /// A full reduction of expanded values reduces the collapsed values
  /// instead: the same elements in the same (row-major) order, and fusion
  /// then sees the map that made them (a rank-3 max of a row epilogue's
  /// map joins the map's group instead of reading its result again).
  /// Several inputs: expands of one type to the same sizes.
  static void reduceSources(func::FuncOp fn) {
    SmallVector<ReduceOp> reductions;
    fn.walk([&](ReduceOp r) { reductions.push_back(r); });
    for (ReduceOp r : reductions) {
      if (!r.isFullReduction())
        continue;
      SmallVector<tensor::ExpandShapeOp> expands;
      for (Value in : r.getInputs()) {
        auto e = in.getDefiningOp<tensor::ExpandShapeOp>();
        if (!e ||
            (!expands.empty() &&
             (e.getSrc().getType() != expands[0].getSrc().getType() ||
              e.getMixedOutputShape() != expands[0].getMixedOutputShape() ||
              e.getReassociationIndices() !=
                  expands[0].getReassociationIndices())))
          break;
        expands.push_back(e);
      }
      if (expands.size() != r.getInputs().size())
        continue;
      SmallVector<Value> srcs;
      for (tensor::ExpandShapeOp e : expands)
        srcs.push_back(e.getSrc());
      int64_t rank = cast<RankedTensorType>(srcs[0].getType()).getRank();
      OpBuilder b(r);
      r.getInputsMutable().assign(srcs);
      r.setDimsAttr(
          b.getDenseI64ArrayAttr(llvm::to_vector(llvm::seq<int64_t>(0, rank))));
      for (tensor::ExpandShapeOp e : llvm::SetVector<tensor::ExpandShapeOp>(
               expands.begin(), expands.end()))
        if (e->use_empty())
          e->erase();
    }
  }

  LogicalResult foldReshapes(Operation *root) {
    // Fold expand -> collapse pairs between rewritten ops, and the dims of
    // expanded values (the extents of a later rewritten op read them) into
    // the expand's own sizes.
    RewritePatternSet patterns(&getContext());
    memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns,
                                                         &getContext());
    patterns.add<CollapseIota>(&getContext());
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, &getContext());
    tensor::DimOp::getCanonicalizationPatterns(patterns, &getContext());
    // Only the reshapes and dims: folding every op would also fold the
    // program's own maps (an identity map into its input), which is the
    // canonicalizer's business, not this pass's.
    SmallVector<Operation *> ops;
    root->walk([&](Operation *op) {
      if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, tensor::DimOp>(
              op))
        ops.push_back(op);
    });
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    return applyOpPatternsGreedily(ops, std::move(patterns), config);
  }
};

} // namespace
