//===- Accumulate.cpp - summation order of the CPU lowering ---------------===//
//
// See Accumulate.h.
//
//===----------------------------------------------------------------------===//

#include "Accumulate.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace fuse;

SmallVector<Value> fuse::inlineBody(OpBuilder &b, Region &region,
                                    ValueRange args) {
  Block &block = region.front();
  IRMapping map;
  map.map(block.getArguments(), args);
  for (Operation &op : block.without_terminator())
    b.clone(op, map);
  auto yield = cast<YieldOp>(block.getTerminator());
  return llvm::to_vector(llvm::map_range(
      yield.getValues(), [&](Value v) { return map.lookupOrDefault(v); }));
}

SmallVector<Value> fuse::dynamicSizes(RankedTensorType type, ValueRange sizes) {
  SmallVector<Value> dyn;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dyn.push_back(sizes[d]);
  return dyn;
}

SmallVector<Value> fuse::buildElementwise(OpBuilder &b, Location loc,
                                          TypeRange resultTypes,
                                          ValueRange sizes,
                                          ElementFn elements) {
  SmallVector<Value> empties;
  for (Type t : resultTypes) {
    auto rt = cast<RankedTensorType>(t);
    empties.push_back(
        tensor::EmptyOp::create(b, loc, rt, dynamicSizes(rt, sizes)));
  }
  return buildLoopNest(b, loc, sizes, empties,
                       [&](OpBuilder &nb, ValueRange ivs, ValueRange iters) {
                         SmallVector<Value> vals = elements(nb, loc, ivs);
                         SmallVector<Value> next;
                         for (auto [v, t] : llvm::zip_equal(vals, iters))
                           next.push_back(
                               tensor::InsertOp::create(nb, loc, v, t, ivs));
                         return next;
                       });
}

template <typename OpTy> static bool blockedFold(OpTy reduce) {
  bool anyFloat = llvm::any_of(reduce.getInputs(), [](Value in) {
    return isa<FloatType>(
        cast<RankedTensorType>(in.getType()).getElementType());
  });
  if (!anyFloat)
    return false;
  if (!reduce.hasBuiltinKinds())
    return true;
  for (unsigned i = 0, e = reduce.getInputs().size(); i < e; ++i) {
    CombinerKind k = reduce.getKind(i);
    if (k == CombinerKind::Add || k == CombinerKind::Mul)
      return true;
  }
  return false;
}

bool fuse::isBlockedReduction(ReduceOp reduce) { return blockedFold(reduce); }
bool fuse::isBlockedReduction(SegmentedReduceOp reduce) {
  return blockedFold(reduce);
}

FailureOr<SmallVector<Value>>
fuse::buildFailableLoopNest(OpBuilder &b, Location loc, ValueRange sizes,
                            ValueRange iters, FailableLoopNestFn body) {
  SmallVector<Value> ivs;
  bool ok = true;
  std::function<SmallVector<Value>(OpBuilder &, unsigned, ValueRange)> rec =
      [&](OpBuilder &nb, unsigned level, ValueRange cur) {
        if (level == sizes.size()) {
          FailureOr<SmallVector<Value>> next = body(nb, ivs, cur);
          if (failed(next)) {
            ok = false;
            return SmallVector<Value>(cur);
          }
          return *next;
        }
        Value zero = arith::ConstantIndexOp::create(nb, loc, 0);
        Value one = arith::ConstantIndexOp::create(nb, loc, 1);
        auto loop = scf::ForOp::create(
            nb, loc, zero, sizes[level], one, cur,
            [&](OpBuilder &lb, Location, Value iv, ValueRange inner) {
              ivs.push_back(iv);
              SmallVector<Value> next = rec(lb, level + 1, inner);
              ivs.pop_back();
              scf::YieldOp::create(lb, loc, next);
            });
        return SmallVector<Value>(loop.getResults());
      };
  SmallVector<Value> res = rec(b, 0, iters);
  if (!ok)
    return failure();
  return res;
}

SmallVector<Value> fuse::buildLoopNest(OpBuilder &b, Location loc,
                                      ValueRange sizes, ValueRange iters,
                                      LoopNestFn body) {
  // A body that cannot fail makes the failable nest infallible.
  return *buildFailableLoopNest(
      b, loc, sizes, iters,
      [&](OpBuilder &nb, ValueRange ivs,
          ValueRange cur) -> FailureOr<SmallVector<Value>> {
        return body(nb, ivs, cur);
      });
}

namespace {

/// The row-major indices of linear position `j` in `sizes` (all > 0).
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value j,
                               ValueRange sizes) {
  SmallVector<Value> ivs(sizes.size());
  for (int64_t d = sizes.size() - 1; d > 0; --d) {
    ivs[d] = arith::RemUIOp::create(b, loc, j, sizes[d]);
    j = arith::DivUIOp::create(b, loc, j, sizes[d]);
  }
  ivs[0] = j;
  return ivs;
}

} // namespace

FailureOr<SmallVector<Value>>
fuse::buildReductionLoops(OpBuilder &b, Location loc, ValueRange sizes,
                          ValueRange inits, ValueRange extras, bool blocked,
                          ReduceElementFn element, ReduceCombineFn combine) {
  unsigned k = inits.size();
  SmallVector<Value> iters(inits);
  iters.append(extras.begin(), extras.end());
  // One element: combine it into `accs`, threading the extras.
  auto step = [&](OpBuilder &nb, ValueRange ivs, ValueRange accs,
                  ValueRange ex) -> FailureOr<SmallVector<Value>> {
    SmallVector<Value> newExtras;
    FailureOr<SmallVector<Value>> xs = element(nb, ivs, ex, newExtras);
    if (failed(xs))
      return failure();
    SmallVector<Value> next = combine(nb, accs, *xs);
    next.append(newExtras);
    return next;
  };
  if (!blocked || sizes.empty())
    return buildFailableLoopNest(b, loc, sizes, iters,
                     [&](OpBuilder &nb, ValueRange ivs, ValueRange cur) {
                       return step(nb, ivs, cur.take_front(k),
                                   cur.drop_front(k));
                     });

  // for c in [0, total) step B:
  //   chunk = x[c]; for j in [c+1, min(c+B, total)): chunk = chunk (+) x[j]
  //   acc = acc (+) chunk
  Value total = sizes[0];
  for (Value s : sizes.drop_front())
    total = arith::MulIOp::create(b, loc, total, s);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value block = arith::ConstantIndexOp::create(b, loc, kReduceBlock);
  bool ok = true;
  auto outer = scf::ForOp::create(
      b, loc, zero, total, block, iters,
      [&](OpBuilder &ob, Location, Value c, ValueRange cur) {
        auto bail = [&] {
          ok = false;
          scf::YieldOp::create(ob, loc, cur);
        };
        ValueRange accs = cur.take_front(k);
        SmallVector<Value> firstExtras;
        FailureOr<SmallVector<Value>> first = element(
            ob, delinearize(ob, loc, c, sizes), cur.drop_front(k), firstExtras);
        if (failed(first))
          return bail();
        Value end = arith::AddIOp::create(ob, loc, c, block);
        Value hi = arith::MinUIOp::create(ob, loc, end, total);
        Value lo = arith::AddIOp::create(ob, loc, c, one);
        SmallVector<Value> innerIters(*first);
        innerIters.append(firstExtras);
        auto inner = scf::ForOp::create(
            ob, loc, lo, hi, one, innerIters,
            [&](OpBuilder &ib, Location, Value j, ValueRange icur) {
              FailureOr<SmallVector<Value>> next =
                  step(ib, delinearize(ib, loc, j, sizes), icur.take_front(k),
                       icur.drop_front(k));
              if (failed(next)) {
                ok = false;
                scf::YieldOp::create(ib, loc, icur);
                return;
              }
              scf::YieldOp::create(ib, loc, *next);
            });
        ValueRange chunk = inner.getResults().take_front(k);
        SmallVector<Value> next = combine(ob, accs, chunk);
        next.append(inner.getResults().begin() + k, inner.getResults().end());
        scf::YieldOp::create(ob, loc, next);
      });
  if (!ok)
    return failure();
  return SmallVector<Value>(outer.getResults());
}

Type fuse::scanCarryType(ScanOp scan, unsigned i) {
  Type et =
      cast<RankedTensorType>(scan.getInputs()[i].getType()).getElementType();
  auto ft = dyn_cast<FloatType>(et);
  if (ft && scan.hasBuiltinKinds() && scan.getKind(i) == CombinerKind::Add &&
      ft.getWidth() < 64)
    return Float64Type::get(et.getContext());
  return et;
}

SmallVector<Value> fuse::scanWiden(OpBuilder &b, Location loc, ScanOp scan,
                                   ValueRange values) {
  SmallVector<Value> out;
  for (auto [i, v] : llvm::enumerate(values)) {
    Type ct = scanCarryType(scan, i);
    out.push_back(ct == v.getType()
                      ? v
                      : arith::ExtFOp::create(b, loc, ct, v).getResult());
  }
  return out;
}

SmallVector<Value> fuse::scanNarrow(OpBuilder &b, Location loc, ScanOp scan,
                                    ValueRange carry) {
  SmallVector<Value> out;
  for (auto [i, v] : llvm::enumerate(carry)) {
    Type et =
        cast<RankedTensorType>(scan.getInputs()[i].getType()).getElementType();
    out.push_back(et == v.getType()
                      ? v
                      : arith::TruncFOp::create(b, loc, et, v).getResult());
  }
  return out;
}

SmallVector<Value> fuse::scanStep(OpBuilder &b, Location loc, ScanOp scan,
                                  ValueRange carry, ValueRange xs,
                                  ReduceCombineFn combine) {
  if (!scan.hasBuiltinKinds())
    return combine(b, carry, xs);
  // Built-in kinds combine input by input, in the carried types.
  SmallVector<Value> wideXs = scanWiden(b, loc, scan, xs);
  SmallVector<Value> out;
  for (unsigned i = 0; i < carry.size(); ++i)
    out.push_back(buildCombine(b, loc, scan.getKind(i), carry[i], wideXs[i]));
  return out;
}

Value fuse::emitZeroCounts(OpBuilder &b, Location loc, RankedTensorType type,
                           Value bins) {
  SmallVector<Value> dyn;
  if (type.isDynamicDim(0))
    dyn.push_back(bins);
  Value empty = tensor::EmptyOp::create(b, loc, type, dyn);
  Value zero = arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type.getElementType(), 0));
  Value n = tensor::DimOp::create(b, loc, empty, 0);
  return buildLoopNest(b, loc, ValueRange{n}, ValueRange{empty},
                       [&](OpBuilder &nb, ValueRange ivs, ValueRange cur) {
                         return SmallVector<Value>{tensor::InsertOp::create(
                             nb, loc, zero, cur[0], ivs)};
                       })
      .front();
}

Value fuse::emitCount(OpBuilder &b, Location loc, Value counts, Value bin) {
  Value n = tensor::DimOp::create(b, loc, counts, 0);
  // Widened to i64 first: an i8 bin compares correctly with any count.
  Value wide = bin;
  if (bin.getType().getIntOrFloatBitWidth() < 64)
    wide = arith::ExtSIOp::create(b, loc, b.getI64Type(), bin);
  Value n64 = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), n);
  // One unsigned compare: a negative bin is a huge unsigned value.
  Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, wide,
                                   n64);
  auto ifOp = scf::IfOp::create(
      b, loc, in,
      [&](OpBuilder &tb, Location tl) {
        Value i = arith::IndexCastOp::create(tb, tl, tb.getIndexType(), wide);
        Value c = tensor::ExtractOp::create(tb, tl, counts, i);
        Value one = arith::ConstantOp::create(
            tb, tl, tb.getIntegerAttr(c.getType(), 1));
        Value next = tensor::InsertOp::create(
            tb, tl, arith::AddIOp::create(tb, tl, c, one), counts, i);
        scf::YieldOp::create(tb, tl, next);
      },
      [&](OpBuilder &eb, Location el) { scf::YieldOp::create(eb, el, counts); });
  return ifOp.getResult(0);
}
