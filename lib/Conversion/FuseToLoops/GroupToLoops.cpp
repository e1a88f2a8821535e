//===- GroupToLoops.cpp - one fused loop nest per fuse.group --------------===//
//
// The CPU lowering of fused groups: each group becomes ONE loop nest (one
// per row for row_reduce) that computes its elements with the shared
// ElementEmitter, so no intermediate tensor of the group is built:
//   elementwise  a nest over the space, inserting every output;
//   reduce       a nest carrying the accumulators of every sibling
//                reduction (and inserting elementwise outputs), then the
//                finishing epilogue on the 0-d results;
//   row_reduce   per row: one loop over the row per reduction stage (each
//                stage may read the earlier stages' row results), then one
//                loop writing the row outputs, then the per-row epilogue;
//   scan         the prologue, the running combine and the epilogue in one
//                loop along the scanned dimension;
//   filter       the prologue and the compaction in one loop.
// A group this lowering does not recognise (for instance one written by
// hand with an unusual body) is inlined instead, op by op, which is always
// correct: convert-fuse-to-loops then lowers its ops one at a time.
//
//===----------------------------------------------------------------------===//

#include "Accumulate.h"

#include "fuse/Conversion/Passes.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/Fuse/Utils/ElementEmitter.h"
#include "fuse/Dialect/Fuse/Utils/SizeAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace fuse;

namespace {

RankedTensorType tt(Value v) { return cast<RankedTensorType>(v.getType()); }

Value emptyLike(OpBuilder &b, Location loc, RankedTensorType type,
                ValueRange sizes) {
  SmallVector<Value> dyn;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dyn.push_back(sizes[d]);
  return tensor::EmptyOp::create(b, loc, type, dyn);
}

class GroupLowering {
public:
  GroupLowering(GroupOp group, OpBuilder &b)
      : group(group), b(b), loc(group.getLoc()),
        body(group.getBody().front()), sizes(group),
        em(
            body,
            [this](OpBuilder &bb, Location l, Value t, ValueRange idx) {
              return loadLeaf(bb, l, t, idx);
            },
            [this](OpBuilder &bb, Location l, Value t, int64_t d) -> Value {
              auto arg = dyn_cast<BlockArgument>(t);
              if (!arg || arg.getOwner() != &body)
                return {};
              return tensor::DimOp::create(
                  bb, l, this->group.getOperand(arg.getArgNumber()), d);
            },
            [this](OpBuilder &, Location, Value s) -> Value {
              auto arg = dyn_cast<BlockArgument>(s);
              if (!arg || arg.getOwner() != &body)
                return {};
              return this->group.getOperand(arg.getArgNumber());
            }) {}

  /// The structure check: true when the body has the shape of its kind.
  bool recognise();
  /// Emits the fused nest and returns the group's results.
  FailureOr<SmallVector<Value>> lower();

private:
  Value loadLeaf(OpBuilder &bb, Location l, Value t, ValueRange idx) {
    if (auto arg = dyn_cast<BlockArgument>(t))
      if (arg.getOwner() == &body)
        return tensor::ExtractOp::create(
            bb, l, group.getOperand(arg.getArgNumber()), idx);
    auto it = scalarResults.find(t);
    if (it != scalarResults.end())
      return it->second;
    auto mt = materialised.find(t);
    if (mt != materialised.end())
      return tensor::ExtractOp::create(bb, l, mt->second, idx);
    return {};
  }
  SmallVector<Value> resolveScalar(ValueRange vs) {
    SmallVector<Value> out;
    for (Value v : vs) {
      FailureOr<Value> s = em.emitScalar(b, loc, v);
      out.push_back(succeeded(s) ? *s : Value());
    }
    return out;
  }
  FailureOr<SmallVector<Value>> lowerElementwise();
  FailureOr<SmallVector<Value>> lowerReduce();
  FailureOr<SmallVector<Value>> lowerRowReduce();
  FailureOr<SmallVector<Value>> lowerScan();
  FailureOr<SmallVector<Value>> lowerFilter();
  FailureOr<SmallVector<Value>> lowerHistogram();
  /// One nest over the shape of `outs[0]` inserting every value of `outs`
  /// (all of one shape).
  FailureOr<SmallVector<Value>> writeNest(ArrayRef<Value> outs);

  GroupOp group;
  OpBuilder &b;
  Location loc;
  Block &body;
  SizeAnalysis sizes;
  ElementEmitter em;
  SmallVector<Operation *> reductions;
  Operation *scanOrFilter = nullptr; // or the histogram
  DenseMap<Value, Value> scalarResults; // reduce/scan results, current scope
  DenseMap<Value, Value> materialised;  // results held as tensors
};

bool GroupLowering::recognise() {
  GroupKind kind = group.getKind();
  for (Operation &op : body.without_terminator()) {
    if (!isa_and_nonnull<FuseDialect>(op.getDialect())) {
      // Scalar ops only (constants, tensor.dim); no tensors produced.
      if (op.getNumRegions() ||
          llvm::any_of(op.getResultTypes(),
                       [](Type t) { return isa<ShapedType>(t); }))
        return false;
      continue;
    }
    if (isElementwiseOp(&op))
      continue;
    if (auto r = dyn_cast<ReduceOp>(&op)) {
      bool rows = !r.isFullReduction() && tt(r.getInputs()[0]).getRank() == 2 &&
                  r.getReducedDims() == SmallVector<int64_t>{1};
      if ((kind == GroupKind::Reduce && r.isFullReduction()) ||
          (kind == GroupKind::RowReduce && rows)) {
        reductions.push_back(r);
        continue;
      }
      return false;
    }
    if (isa<ScanOp>(&op) && kind == GroupKind::Scan && !scanOrFilter) {
      scanOrFilter = &op;
      continue;
    }
    if (isa<HistogramOp>(&op) && kind == GroupKind::Histogram &&
        !scanOrFilter) {
      scanOrFilter = &op;
      continue;
    }
    if (isa<FilterOp>(&op) && kind == GroupKind::Filter && !scanOrFilter &&
        tt(op.getOperand(0)).getRank() == 1) {
      scanOrFilter = &op;
      continue;
    }
    return false;
  }
  if ((kind == GroupKind::Scan || kind == GroupKind::Filter ||
       kind == GroupKind::Histogram) &&
      !scanOrFilter)
    return false;
  if ((kind == GroupKind::Reduce || kind == GroupKind::RowReduce) && reductions.empty())
    return false;
  // Sibling reductions share one space.
  for (Operation *r : reductions)
    if (!sizes.sameShape(r->getOperand(0), reductions.front()->getOperand(0)))
      return false;
  return true;
}

FailureOr<SmallVector<Value>> GroupLowering::writeNest(ArrayRef<Value> outs) {
  FailureOr<SmallVector<Value>> sz = em.emitSizes(b, loc, outs.front());
  if (failed(sz))
    return failure();
  SmallVector<Value> empties;
  for (Value o : outs)
    empties.push_back(emptyLike(b, loc, tt(o), *sz));
  bool ok = true;
  SmallVector<Value> res = buildLoopNest(
      b, loc, *sz, empties,
      [&](OpBuilder &nb, ValueRange ivs, ValueRange cur) {
        em.clearCache();
        SmallVector<Value> next;
        for (auto [o, t] : llvm::zip_equal(outs, cur)) {
          FailureOr<Value> v = em.emit(nb, loc, o, ivs);
          if (failed(v)) {
            ok = false;
            next.push_back(t);
            continue;
          }
          next.push_back(tensor::InsertOp::create(nb, loc, *v, t, ivs));
        }
        return next;
      });
  em.clearCache();
  if (!ok)
    return failure();
  return res;
}

/// Emits the yielded values: those already computed as tensors are used as
/// they are, the rest through write nests grouped by shape.
static FailureOr<SmallVector<Value>>
emitOutputs(GroupLowering &, ValueRange yielded, SizeAnalysis &sizes,
            DenseMap<Value, Value> &done,
            function_ref<FailureOr<SmallVector<Value>>(ArrayRef<Value>)> write) {
  SmallVector<Value> pending;
  for (Value v : yielded)
    if (!done.count(v) && !llvm::is_contained(pending, v))
      pending.push_back(v);
  while (!pending.empty()) {
    SmallVector<Value> same{pending.front()}, rest;
    for (Value v : ArrayRef<Value>(pending).drop_front()) {
      if (v.getType() == same.front().getType() &&
          sizes.sameShape(v, same.front()))
        same.push_back(v);
      else
        rest.push_back(v);
    }
    FailureOr<SmallVector<Value>> r = write(same);
    if (failed(r))
      return failure();
    for (auto [v, t] : llvm::zip_equal(same, *r))
      done[v] = t;
    pending = rest;
  }
  SmallVector<Value> out;
  for (Value v : yielded)
    out.push_back(done.lookup(v));
  return out;
}

FailureOr<SmallVector<Value>> GroupLowering::lowerElementwise() {
  DenseMap<Value, Value> done;
  for (auto [i, v] : llvm::enumerate(group.getYield().getValues()))
    if (auto arg = dyn_cast<BlockArgument>(v))
      done[v] = group.getOperand(arg.getArgNumber());
  return emitOutputs(*this, group.getYield().getValues(), sizes, done,
                     [&](ArrayRef<Value> o) { return writeNest(o); });
}

FailureOr<SmallVector<Value>> GroupLowering::lowerReduce() {
  Value domain = reductions.front()->getOperand(0);
  FailureOr<SmallVector<Value>> sz = em.emitSizes(b, loc, domain);
  if (failed(sz))
    return failure();
  // Outputs over the domain are written by the same nest.
  SmallVector<Value> domainOuts;
  for (Value v : group.getYield().getValues())
    if (v.getDefiningOp() && isElementwiseOp(v.getDefiningOp()) &&
        tt(v).getRank() > 0 && sizes.sameShape(v, domain) &&
        !llvm::is_contained(domainOuts, v))
      domainOuts.push_back(v);
  SmallVector<Value> iters;
  SmallVector<unsigned> counts;
  for (Operation *r : reductions) {
    SmallVector<Value> init = emitInitialAccumulators(
        b, loc, r, [&](Value v) { return resolveScalar(v)[0]; });
    counts.push_back(init.size());
    iters.append(init);
  }
  SmallVector<Value> extras;
  for (Value o : domainOuts)
    extras.push_back(emptyLike(b, loc, tt(o), *sz));
  // Sibling reductions share the loops, so they are all blocked when one
  // needs it (see Accumulate.h).
  bool blocked = llvm::any_of(reductions, [](Operation *r) {
    return isBlockedReduction(cast<ReduceOp>(r));
  });
  FailureOr<SmallVector<Value>> loops = buildReductionLoops(
      b, loc, *sz, iters, extras, blocked,
      [&](OpBuilder &nb, ValueRange ivs, ValueRange cur,
          SmallVectorImpl<Value> &newCur) -> FailureOr<SmallVector<Value>> {
        em.clearCache();
        SmallVector<Value> xs;
        for (auto [r, k] : llvm::zip_equal(reductions, counts)) {
          for (Value in : r->getOperands().take_front(k)) {
            FailureOr<Value> v = em.emit(nb, loc, in, ivs);
            if (failed(v))
              return failure();
            xs.push_back(*v);
          }
        }
        for (auto [o, t] : llvm::zip_equal(domainOuts, cur)) {
          FailureOr<Value> v = em.emit(nb, loc, o, ivs);
          if (failed(v))
            return failure();
          newCur.push_back(tensor::InsertOp::create(nb, loc, *v, t, ivs));
        }
        return xs;
      },
      [&](OpBuilder &nb, ValueRange accs, ValueRange xs) {
        em.clearCache();
        SmallVector<Value> next;
        unsigned at = 0;
        for (auto [r, k] : llvm::zip_equal(reductions, counts)) {
          SmallVector<Value> n = emitCombine(
              nb, loc, r, accs.slice(at, k), xs.slice(at, k), [&](Value v) {
                FailureOr<Value> s = em.emitScalar(nb, loc, v);
                return succeeded(s) ? *s : Value();
              });
          next.append(n);
          at += k;
        }
        return next;
      });
  em.clearCache();
  if (failed(loops))
    return failure();
  SmallVector<Value> &fin = *loops;
  unsigned at = 0;
  DenseMap<Value, Value> done;
  for (auto [r, k] : llvm::zip_equal(reductions, counts)) {
    for (unsigned i = 0; i < k; ++i)
      scalarResults[r->getResult(i)] = fin[at + i];
    at += k;
  }
  for (auto [o, t] : llvm::zip_equal(domainOuts,
                                     ArrayRef<Value>(fin).drop_front(at)))
    done[o] = t;
  // The finishing epilogue: 0-d values read the reduced scalars.
  return emitOutputs(
      *this, group.getYield().getValues(), sizes, done,
      [&](ArrayRef<Value> outs) -> FailureOr<SmallVector<Value>> {
        if (tt(outs.front()).getRank() != 0)
          return writeNest(outs);
        SmallVector<Value> res;
        for (Value o : outs) {
          FailureOr<Value> v = em.emit(b, loc, o, {});
          if (failed(v))
            return failure();
          res.push_back(
              tensor::FromElementsOp::create(b, loc, tt(o), ValueRange{*v}));
        }
        return res;
      });
}

FailureOr<SmallVector<Value>> GroupLowering::lowerRowReduce() {
  Value domain = reductions.front()->getOperand(0);
  FailureOr<SmallVector<Value>> sz = em.emitSizes(b, loc, domain);
  if (failed(sz))
    return failure();
  Value rows = (*sz)[0], cols = (*sz)[1];
  // Outputs: [R, C] values and [R] values (row results, row epilogue).
  SmallVector<Value> outs;
  for (Value v : group.getYield().getValues())
    if (!llvm::is_contained(outs, v))
      outs.push_back(v);
  for (Value o : outs) {
    int64_t r = tt(o).getRank();
    if (isa<BlockArgument>(o))
      return failure();
    if (!(r == 2 && sizes.sameShape(o, domain)) &&
        !(r == 1 && sizes.sameDim(o, 0, domain, 0)))
      return failure();
  }
  SmallVector<Value> empties;
  for (Value o : outs)
    empties.push_back(emptyLike(b, loc, tt(o),
                                tt(o).getRank() == 2
                                    ? ValueRange(*sz)
                                    : ValueRange{rows}));
  bool ok = true;
  SmallVector<Value> res = buildLoopNest(
      b, loc, ValueRange{rows}, empties,
      [&](OpBuilder &rb, ValueRange rIv, ValueRange cur) -> SmallVector<Value> {
        Value r = rIv[0];
        scalarResults.clear();
        em.clearCache();
        // One loop over the row per reduction stage.
        for (Operation *red : reductions) {
          auto reduce = cast<ReduceOp>(red);
          unsigned k = reduce.getInputs().size();
          SmallVector<Value> init = emitInitialAccumulators(
              rb, loc, red, [&](Value v) {
                FailureOr<Value> s = em.emitScalar(rb, loc, v);
                return succeeded(s) ? *s : Value();
              });
          em.clearCache();
          FailureOr<SmallVector<Value>> accs = buildReductionLoops(
              rb, loc, ValueRange{cols}, init, ValueRange{},
              isBlockedReduction(reduce),
              [&](OpBuilder &cb, ValueRange cIv, ValueRange,
                  SmallVectorImpl<Value> &) -> FailureOr<SmallVector<Value>> {
                em.clearCache();
                SmallVector<Value> xs;
                for (Value in : reduce.getInputs()) {
                  FailureOr<Value> v = em.emit(cb, loc, in, {r, cIv[0]});
                  if (failed(v))
                    return failure();
                  xs.push_back(*v);
                }
                return xs;
              },
              [&](OpBuilder &cb, ValueRange a, ValueRange xs) {
                em.clearCache();
                return emitCombine(cb, loc, red, a, xs, [&](Value v) {
                  FailureOr<Value> s = em.emitScalar(cb, loc, v);
                  return succeeded(s) ? *s : Value();
                });
              });
          em.clearCache();
          if (failed(accs)) {
            ok = false;
            return SmallVector<Value>(cur);
          }
          for (unsigned i = 0; i < k; ++i)
            scalarResults[red->getResult(i)] = (*accs)[i];
        }
        // The row outputs.
        SmallVector<Value> rowOuts, rowTensors, next(cur);
        SmallVector<unsigned> rowIdx;
        for (auto [i, o] : llvm::enumerate(outs))
          if (tt(o).getRank() == 2) {
            rowOuts.push_back(o);
            rowTensors.push_back(cur[i]);
            rowIdx.push_back(i);
          }
        if (!rowOuts.empty()) {
          SmallVector<Value> written = buildLoopNest(
              rb, loc, ValueRange{cols}, rowTensors,
              [&](OpBuilder &cb, ValueRange cIv, ValueRange ts) {
                em.clearCache();
                SmallVector<Value> n;
                for (auto [o, t] : llvm::zip_equal(rowOuts, ts)) {
                  FailureOr<Value> v = em.emit(cb, loc, o, {r, cIv[0]});
                  if (failed(v)) {
                    ok = false;
                    n.push_back(t);
                    continue;
                  }
                  n.push_back(tensor::InsertOp::create(cb, loc, *v, t,
                                                       ValueRange{r, cIv[0]}));
                }
                return n;
              });
          em.clearCache();
          for (auto [i, w] : llvm::zip_equal(rowIdx, written))
            next[i] = w;
        }
        for (auto [i, o] : llvm::enumerate(outs)) {
          if (tt(o).getRank() != 1)
            continue;
          FailureOr<Value> v = em.emit(rb, loc, o, {r});
          if (failed(v)) {
            ok = false;
            continue;
          }
          next[i] = tensor::InsertOp::create(rb, loc, *v, cur[i], ValueRange{r});
        }
        em.clearCache();
        return next;
      });
  scalarResults.clear();
  if (!ok)
    return failure();
  SmallVector<Value> out;
  for (Value v : group.getYield().getValues())
    out.push_back(res[llvm::find(outs, v) - outs.begin()]);
  return out;
}

FailureOr<SmallVector<Value>> GroupLowering::lowerScan() {
  auto scan = cast<ScanOp>(scanOrFilter);
  Value domain = scan.getInputs()[0];
  FailureOr<SmallVector<Value>> sz = em.emitSizes(b, loc, domain);
  if (failed(sz))
    return failure();
  int64_t dim = scan.getScanDim();
  unsigned k = scan.getInputs().size();
  SmallVector<Value> outs;
  for (Value v : group.getYield().getValues()) {
    if (isa<BlockArgument>(v) || !sizes.sameShape(v, domain))
      return failure();
    if (!llvm::is_contained(outs, v))
      outs.push_back(v);
  }
  SmallVector<Value> outer;
  for (int64_t d = 0; d < (int64_t)sz->size(); ++d)
    if (d != dim)
      outer.push_back((*sz)[d]);
  SmallVector<Value> empties;
  for (Value o : outs)
    empties.push_back(emptyLike(b, loc, tt(o), *sz));
  bool ok = true;
  bool exclusive = scan.getExclusive();
  SmallVector<Value> res = buildLoopNest(
      b, loc, outer, empties,
      [&](OpBuilder &ob, ValueRange oIvs, ValueRange tensors) {
        em.clearCache();
        // The running prefix, carried in f64 for narrower float add scans
        // (see Accumulate.h).
        SmallVector<Value> iters = scanWiden(
            ob, loc, scan, emitInitialAccumulators(ob, loc, scan, [&](Value v) {
              FailureOr<Value> s = em.emitScalar(ob, loc, v);
              return succeeded(s) ? *s : Value();
            }));
        em.clearCache();
        iters.append(tensors.begin(), tensors.end());
        SmallVector<Value> fin = buildLoopNest(
            ob, loc, ValueRange{(*sz)[dim]}, iters,
            [&](OpBuilder &ib, ValueRange sIv, ValueRange cur) {
              em.clearCache();
              SmallVector<Value> idx(oIvs.begin(), oIvs.end());
              idx.insert(idx.begin() + dim, sIv[0]);
              ValueRange accs = cur.take_front(k);
              SmallVector<Value> xs;
              for (Value in : scan.getInputs()) {
                FailureOr<Value> v = em.emit(ib, loc, in, idx);
                if (failed(v)) {
                  ok = false;
                  return SmallVector<Value>(cur);
                }
                xs.push_back(*v);
              }
              SmallVector<Value> next = scanStep(
                  ib, loc, scan, accs, xs,
                  [&](OpBuilder &cb, ValueRange a, ValueRange x) {
                    return emitCombine(cb, loc, scan, a, x, [&](Value v) {
                      FailureOr<Value> s = em.emitScalar(cb, loc, v);
                      return succeeded(s) ? *s : Value();
                    });
                  });
              SmallVector<Value> stored = scanNarrow(
                  ib, loc, scan, exclusive ? accs : ValueRange(next));
              for (unsigned i = 0; i < k; ++i)
                scalarResults[scan.getResult(i)] = stored[i];
              SmallVector<Value> out(next);
              for (auto [o, t] : llvm::zip_equal(outs, cur.drop_front(k))) {
                FailureOr<Value> v = em.emit(ib, loc, o, idx);
                if (failed(v)) {
                  ok = false;
                  out.push_back(t);
                  continue;
                }
                out.push_back(tensor::InsertOp::create(ib, loc, *v, t, idx));
              }
              scalarResults.clear();
              return out;
            });
        em.clearCache();
        return SmallVector<Value>(ArrayRef<Value>(fin).drop_front(k));
      });
  if (!ok)
    return failure();
  SmallVector<Value> out;
  for (Value v : group.getYield().getValues())
    out.push_back(res[llvm::find(outs, v) - outs.begin()]);
  return out;
}

FailureOr<SmallVector<Value>> GroupLowering::lowerFilter() {
  auto filter = cast<FilterOp>(scanOrFilter);
  Value domain = filter.getInputs()[0];
  FailureOr<Value> n = em.emitDim(b, loc, domain, 0);
  if (failed(n))
    return failure();
  // Outputs: filter results, or prologue values over the domain.
  SmallVector<Value> outs;
  for (Value v : group.getYield().getValues()) {
    bool isResult = v.getDefiningOp() == filter.getOperation();
    if (!isResult && (isa<BlockArgument>(v) || !sizes.sameShape(v, domain)))
      return failure();
    if (!llvm::is_contained(outs, v))
      outs.push_back(v);
  }
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> iters{zero};
  // Filter results are compacted into `tensor<?xT>` buffers of the input's
  // length (sliced to the count below); prologue outputs keep their own
  // type, which may be static.
  for (Value o : outs) {
    RankedTensorType type = o.getDefiningOp() == filter.getOperation()
                                ? RankedTensorType::get({ShapedType::kDynamic},
                                                        tt(o).getElementType())
                                : tt(o);
    iters.push_back(emptyLike(b, loc, type, ValueRange{*n}));
  }
  bool ok = true;
  SmallVector<Value> fin = buildLoopNest(
      b, loc, ValueRange{*n}, iters,
      [&](OpBuilder &lb, ValueRange ivs, ValueRange cur) {
        em.clearCache();
        SmallVector<Value> xs;
        for (Value in : filter.getInputs()) {
          FailureOr<Value> v = em.emit(lb, loc, in, ivs);
          if (failed(v)) {
            ok = false;
            return SmallVector<Value>(cur);
          }
          xs.push_back(*v);
        }
        FailureOr<SmallVector<Value>> keep =
            em.emitRegion(lb, loc, filter.getPredicate(), xs);
        if (failed(keep)) {
          ok = false;
          return SmallVector<Value>(cur);
        }
        SmallVector<Value> next{cur[0]};
        // Prologue outputs are written at every index.
        SmallVector<Value> pro;
        for (auto [o, t] : llvm::zip_equal(outs, cur.drop_front())) {
          if (o.getDefiningOp() == filter.getOperation()) {
            pro.push_back(t);
            continue;
          }
          FailureOr<Value> v = em.emit(lb, loc, o, ivs);
          if (failed(v)) {
            ok = false;
            pro.push_back(t);
            continue;
          }
          pro.push_back(tensor::InsertOp::create(lb, loc, *v, t, ivs));
        }
        auto ifOp = scf::IfOp::create(
            lb, loc, (*keep)[0],
            [&](OpBuilder &tb, Location tl) {
              SmallVector<Value> y{arith::AddIOp::create(tb, tl, cur[0], one)};
              for (auto [o, t] : llvm::zip_equal(outs, pro)) {
                auto r = dyn_cast<OpResult>(o);
                if (r && r.getOwner() == filter.getOperation())
                  y.push_back(tensor::InsertOp::create(
                      tb, tl, xs[r.getResultNumber()], t, cur[0]));
                else
                  y.push_back(t);
              }
              scf::YieldOp::create(tb, tl, y);
            },
            [&](OpBuilder &eb, Location el) {
              SmallVector<Value> y{cur[0]};
              y.append(pro);
              scf::YieldOp::create(eb, el, y);
            });
        next.assign(ifOp.getResults().begin(), ifOp.getResults().end());
        return next;
      });
  em.clearCache();
  if (!ok)
    return failure();
  SmallVector<Value> res;
  for (auto [o, t] : llvm::zip_equal(outs, ArrayRef<Value>(fin).drop_front())) {
    if (o.getDefiningOp() == filter.getOperation())
      res.push_back(tensor::ExtractSliceOp::create(
          b, loc, cast<RankedTensorType>(o.getType()), t, ValueRange{},
          ValueRange{fin[0]}, ValueRange{}, b.getDenseI64ArrayAttr({0}),
          b.getDenseI64ArrayAttr({ShapedType::kDynamic}),
          b.getDenseI64ArrayAttr({1})));
    else
      res.push_back(t);
  }
  SmallVector<Value> out;
  for (Value v : group.getYield().getValues())
    out.push_back(res[llvm::find(outs, v) - outs.begin()]);
  return out;
}

/// One nest over the bin indices: each is counted, and the prologue values
/// the group also returns are written on the way.
FailureOr<SmallVector<Value>> GroupLowering::lowerHistogram() {
  auto hist = cast<HistogramOp>(scanOrFilter);
  Value domain = hist.getIndices();
  FailureOr<SmallVector<Value>> sz = em.emitSizes(b, loc, domain);
  if (failed(sz))
    return failure();
  Value bins;
  if (hist.getBins()) {
    bins = resolveScalar(hist.getBins())[0];
    if (!bins)
      return failure();
  }
  SmallVector<Value> outs;
  for (Value v : group.getYield().getValues()) {
    if (v != hist.getResult() &&
        (isa<BlockArgument>(v) || !sizes.sameShape(v, domain)))
      return failure();
    if (v != hist.getResult() && !llvm::is_contained(outs, v))
      outs.push_back(v);
  }
  SmallVector<Value> iters{
      emitZeroCounts(b, loc, hist.getResult().getType(), bins)};
  for (Value o : outs)
    iters.push_back(emptyLike(b, loc, tt(o), *sz));
  FailureOr<SmallVector<Value>> fin = buildFailableLoopNest(
      b, loc, *sz, iters,
      [&](OpBuilder &lb, ValueRange ivs,
          ValueRange cur) -> FailureOr<SmallVector<Value>> {
        em.clearCache();
        FailureOr<Value> bin = em.emit(lb, loc, domain, ivs);
        if (failed(bin))
          return failure();
        SmallVector<Value> next{emitCount(lb, loc, cur[0], *bin)};
        for (auto [o, t] : llvm::zip_equal(outs, cur.drop_front())) {
          FailureOr<Value> v = em.emit(lb, loc, o, ivs);
          if (failed(v))
            return failure();
          next.push_back(tensor::InsertOp::create(lb, loc, *v, t, ivs));
        }
        return next;
      });
  em.clearCache();
  if (failed(fin))
    return failure();
  SmallVector<Value> out;
  for (Value v : group.getYield().getValues())
    out.push_back(v == hist.getResult()
                      ? fin->front()
                      : (*fin)[1 + (llvm::find(outs, v) - outs.begin())]);
  return out;
}

FailureOr<SmallVector<Value>> GroupLowering::lower() {
  GroupKind kind = group.getKind();
  if (kind == GroupKind::Elementwise)
    return lowerElementwise();
  if (kind == GroupKind::Reduce)
    return lowerReduce();
  if (kind == GroupKind::RowReduce)
    return lowerRowReduce();
  if (kind == GroupKind::Scan)
    return lowerScan();
  if (kind == GroupKind::Histogram)
    return lowerHistogram();
  return lowerFilter();
}

/// Inlines the group's body before it: always correct, op by op.
void inlineGroup(GroupOp group, PatternRewriter &rewriter) {
  Block &body = group.getBody().front();
  IRMapping map;
  map.map(body.getArguments(), group.getOperands());
  rewriter.setInsertionPoint(group);
  for (Operation &op : body.without_terminator())
    rewriter.clone(op, map);
  SmallVector<Value> results;
  for (Value v : group.getYield().getValues())
    results.push_back(map.lookupOrDefault(v));
  rewriter.replaceOp(group, results);
}

struct GroupToLoops : OpRewritePattern<GroupOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GroupOp group,
                                PatternRewriter &rewriter) const override {
    rewriter.setInsertionPoint(group);
    GroupLowering lowering(group, rewriter);
    if (!lowering.recognise()) {
      inlineGroup(group, rewriter);
      return success();
    }
    // Emit into a scratch block first so a failure leaves nothing behind.
    Block *scratch = new Block();
    group->getBlock()->getParent()->push_back(scratch);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(scratch);
    auto term = UnrealizedConversionCastOp::create(rewriter, group.getLoc(),
                                                   TypeRange{}, ValueRange{});
    rewriter.setInsertionPoint(term);
    FailureOr<SmallVector<Value>> results = lowering.lower();
    if (failed(results)) {
      scratch->dropAllDefinedValueUses();
      scratch->erase();
      inlineGroup(group, rewriter);
      return success();
    }
    term.erase();
    rewriter.inlineBlockBefore(scratch, group);
    rewriter.replaceOp(group, *results);
    return success();
  }
};

} // namespace

void fuse::populateFuseGroupToLoopsPatterns(RewritePatternSet &patterns) {
  patterns.add<GroupToLoops>(patterns.getContext());
}
