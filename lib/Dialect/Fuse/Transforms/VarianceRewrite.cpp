//===- VarianceRewrite.cpp - fuse-fusion's Welford rewrite ----------------===//
//
// A variance written as the sum of squared deviations from a mean needs
// two passes over x (the mean, then the deviations). The rewrite turns it
// into one Welford tuple reduction of x (count, mean, M2, merged with
// Chan's formula) and a 0-d map: sum((x - c)^2) = M2 + n * (mean - c)^2.
//
//===----------------------------------------------------------------------===//

#include "VarianceRewrite.h"

#include "fuse/Dialect/Fuse/Utils/Welford.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <optional>

using namespace mlir;
using namespace fuse;

namespace {

/// The input of `v`'s defining map when that map only widens its one input
/// (arith.extf: what fuse-widen-accumulators puts before an f16/bf16 sum),
/// else null.
Value widenedFrom(Value v) {
  auto map = v.getDefiningOp<MapOp>();
  if (!map || map.getInputs().size() != 1 || map.getNumResults() != 1)
    return nullptr;
  Block &body = map.getBody().front();
  auto ext = map.getYield().getValues()[0].getDefiningOp<arith::ExtFOp>();
  if (!ext || ext.getIn() != body.getArgument(0) ||
      &body.front() != ext.getOperation())
    return nullptr;
  return map.getInputs()[0];
}

/// Is `c` (0-d) computed, through fuse ops on 0-d tensors, from a full
/// reduction whose inputs include `x` (or `x` widened)?
bool dependsOnFullReduceOf(Value c, Value x, int depth = 0) {
  if (depth > 16)
    return false;
  Operation *def = c.getDefiningOp();
  if (!def)
    return false;
  if (auto r = dyn_cast<ReduceOp>(def))
    if (r.isFullReduction() && llvm::any_of(r.getInputs(), [&](Value in) {
          return in == x || widenedFrom(in) == x;
        }))
      return true;
  if (!isa<MapOp, ReduceOp>(def))
    return false;
  for (Value in : def->getOperands())
    if (isa<RankedTensorType>(in.getType()) &&
        dependsOnFullReduceOf(in, x, depth + 1))
      return true;
  return false;
}

struct VarianceMatch {
  Value x;              // the data
  Value c0;             // the 0-d tensor broadcast into the map
  MapOp map;            // the squared deviations
  SquaredDeviation dev; // the map's data and centre
  FloatType sumType;    // the sum's type: wider than x's where it was widened
};

/// Matches `sum(map(x, broadcast(c0)) { (a - f(b))^2 })` where f(b) does not
/// read `a` and c0 depends on a full reduction of x (so the plain form needs
/// two passes). Both `(a - f)` and `(f - a)` are accepted, and the squares
/// widened before the sum (a half-precision variance after
/// fuse-widen-accumulators).
std::optional<VarianceMatch> matchVariance(ReduceOp r) {
  if (!r.hasBuiltinKinds() || r.getInputs().size() != 1 ||
      !r.getInits().empty() || r.getKind(0) != CombinerKind::Add ||
      !r.isFullReduction() ||
      !isa<FloatType>(
          cast<RankedTensorType>(r.getInputs()[0].getType()).getElementType()))
    return std::nullopt;
  Value squares = r.getInputs()[0];
  if (Value narrow = widenedFrom(squares))
    squares = narrow;
  auto map = squares.getDefiningOp<MapOp>();
  if (!map || map.getNumResults() != 1 || map.getInputs().size() != 2)
    return std::nullopt;
  for (const SquaredDeviation &d : matchSquaredDeviation(map)) {
    Value x = map.getInputs()[d.x];
    auto bc = map.getInputs()[d.c].getDefiningOp<BroadcastOp>();
    if (!bc || bc.getInput().getType().getRank() != 0)
      continue;
    if (!dependsOnFullReduceOf(bc.getInput(), x))
      continue;
    auto sumType = cast<FloatType>(
        cast<RankedTensorType>(r.getInputs()[0].getType()).getElementType());
    return VarianceMatch{x, bc.getInput(), map, d, sumType};
  }
  return std::nullopt;
}

void eraseDeadProducers(Operation *op);

/// `t` (f16/bf16 elements) widened to `ft` elementwise.
Value widen(OpBuilder &b, Location loc, Value t, FloatType ft) {
  return buildElementwiseMap(b, loc, t, ft,
                             [&](OpBuilder &mb, Location l, Value x) -> Value {
                               return arith::ExtFOp::create(mb, l, ft, x);
                             });
}

/// Rewrites the matched variance reduction `r` (see Passes.td):
///   (one, zero) = map x -> (1 : i64, 0.0)
///   (cnt, mean, m2) = reduce (one, x, zero) init(0, 0.0, 0.0) {Chan merge}
///   r' = map (cnt, mean, m2, c) -> m2 + float(cnt) * (mean - c)^2
void rewriteVariance(ReduceOp r, VarianceMatch m) {
  OpBuilder b(r);
  Location loc = r.getLoc();
  Value x = m.x;
  Value c = m.c0;
  Block &mapBody = m.map.getBody().front();
  if (m.dev.centre != mapBody.getArgument(m.dev.c)) {
    // c = f(c0) as a 0-d map: the centre's computation, moved out.
    Type ct = m.dev.centre.getType();
    auto cmap = MapOp::create(b, loc, TypeRange{RankedTensorType::get({}, ct)},
                              ValueRange{m.c0});
    Block *blk = b.createBlock(&cmap.getBody(), {},
                               {mapBody.getArgument(m.dev.c).getType()}, {loc});
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(blk);
    YieldOp::create(b, loc,
                    buildCentre(b, m.map, m.dev, blk->getArgument(0),
                                [](Value v) { return v; }));
    c = cmap.getResult(0);
  }
  b.setInsertionPoint(r);
  auto ft = m.sumType;
  if (cast<RankedTensorType>(x.getType()).getElementType() != ft) {
    x = widen(b, loc, x, ft);
    c = widen(b, loc, c, ft);
  }
  auto xt = cast<RankedTensorType>(x.getType());
  Type i64 = b.getI64Type();
  auto i64T = RankedTensorType::get(xt.getShape(), i64);
  auto i64S = RankedTensorType::get({}, i64);
  auto fS = RankedTensorType::get({}, ft);

  // Element tuples: (1, x, 0).
  auto prep = MapOp::create(b, loc, TypeRange{i64T, xt}, ValueRange{x});
  {
    Block *blk = b.createBlock(&prep.getBody(), {}, {ft}, {loc});
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(blk);
    Value one = arith::ConstantIntOp::create(b, loc, 1, 64);
    Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, 0.0));
    YieldOp::create(b, loc, ValueRange{one, zero});
  }
  b.setInsertionPoint(r);
  Value c0 = arith::ConstantIntOp::create(b, loc, 0, 64);
  Value f0 = arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, 0.0));
  auto wel = ReduceOp::create(
      b, loc, TypeRange{i64S, fS, fS},
      ValueRange{prep.getResult(0), x, prep.getResult(1)},
      ValueRange{c0, f0, f0}, /*kinds=*/nullptr, /*dims=*/nullptr);
  // The combiner is Chan's merge, built by the one builder that the GPU
  // code generator checks a combiner against before it accumulates the
  // reduction as shifted sums (Welford.h).
  buildChanMerge(b, loc, ft, wel.getCombiner());
  b.setInsertionPoint(r);
  auto fin = MapOp::create(
      b, loc, TypeRange{fS},
      ValueRange{wel.getResult(0), wel.getResult(1), wel.getResult(2), c});
  {
    Block *blk = b.createBlock(&fin.getBody(), {}, {i64, ft, ft, ft},
                               SmallVector<Location>(4, loc));
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(blk);
    // sum((x - c)^2) = M2 + n * (mean - c)^2, exact for any c.
    Value nf = arith::SIToFPOp::create(b, loc, ft, blk->getArgument(0));
    Value d =
        arith::SubFOp::create(b, loc, blk->getArgument(1), blk->getArgument(3));
    Value corr =
        arith::MulFOp::create(b, loc, nf, arith::MulFOp::create(b, loc, d, d));
    Value res = arith::AddFOp::create(b, loc, blk->getArgument(2), corr);
    YieldOp::create(b, loc, res);
  }
  r.getResult(0).replaceAllUsesWith(fin.getResult(0));
  Operation *sq = r.getInputs()[0].getDefiningOp();
  r.erase();
  // The squared differences (widened or not) and their broadcast are dead
  // now.
  eraseDeadProducers(sq);
}

/// Erases `op` if it has no uses, then the maps and broadcasts that fed it
/// only.
void eraseDeadProducers(Operation *op) {
  if (!op || !op->use_empty() || !isa<MapOp, BroadcastOp>(op))
    return;
  SmallVector<Value> ins(op->getOperands());
  op->erase();
  for (Value in : ins)
    eraseDeadProducers(in.getDefiningOp());
}

} // namespace

bool fuse::rewriteVarianceToWelford(ReduceOp r) {
  std::optional<VarianceMatch> m = matchVariance(r);
  if (!m)
    return false;
  rewriteVariance(r, *m);
  return true;
}
