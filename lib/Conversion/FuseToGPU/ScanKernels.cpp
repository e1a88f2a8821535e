//===- ScanKernels.cpp - single-pass scan kernels -------------------------===//
//
// A rank-1 `scan` group becomes one kernel: the single-pass decoupled
// look-back tiles of TileKernels.h on the scan's values. Every lane then
// rescans its items of each row from the row's prefix (tile prefix (+)
// earlier warps (+) earlier rows (+) lower lanes) and evaluates the
// group's results at each element (epilogue maps read the scan results as
// leaves). Scans over rank > 1 tensors take the line-scan kernel
// (LineKernels.cpp).
//
// A combiner region has no identity, and needs none: every element has a
// prefix (a region scan has inits, the prefix of tile 0), the warp and
// block scans select by position where nothing comes before, and items
// past the end (zeros) only ever follow the valid ones. Every combination
// keeps the order of its operands, so the region need not be
// commutative.
//
//===----------------------------------------------------------------------===//

#include "TileKernels.h"

#include "fuse/Dialect/Fuse/Utils/ElementEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace fuse {
namespace gpugen {
namespace {

/// One tile of a scan kernel (runTiles' body): the scan inputs of every
/// item (pass 1), the row scans and the look-back, then the rescan that
/// stores the group's results (pass 2).
struct ScanTile {
  TileKernel &k;
  TileMachinery &tm;
  ScanOp scan;
  ValueRange yields, outs;
  ArrayRef<Value> excl0;
  Location loc;

  void build(OpBuilder &b, const ItemVals &itemVals);
  SmallVector<Value> inputs(OpBuilder &b, Value full,
                            const ItemVals &itemVals);
  void storeResults(OpBuilder &b, Value full, const ItemVals &itemVals,
                    ArrayRef<SmallVector<Value>> xsOf,
                    const TileMachinery::RowScan &rs);
  void storeItem(OpBuilder &gb, Value idx,
                 const DenseMap<unsigned, Value> &vals, ArrayRef<Value> y,
                 bool always, SmallVector<SmallVector<Value>> &pending);
};

void ScanTile::build(OpBuilder &b, const ItemVals &itemVals) {
  Value full = tm.full;
  int64_t items = tm.items;
  unsigned ni = tm.valTypes.size();
  SmallVector<Value> r1 = inputs(b, full, itemVals);
  SmallVector<SmallVector<Value>> xsOf(items);
  SmallVector<Value> validOf;
  for (int64_t j = 0; j < items; ++j) {
    xsOf[j] = SmallVector<Value>(ArrayRef<Value>(r1).slice(j * ni, ni));
    validOf.push_back(
        cmpI(b, loc, arith::CmpIPredicate::slt, tm.itemIndex(b, j), tm.n));
  }
  TileMachinery::RowScan rs = tm.scanRows(b, xsOf, validOf, excl0);
  storeResults(b, full, itemVals, xsOf, rs);
}

/// Pass 1: the scan inputs of every item (the identity where not valid),
/// items x inputs.
SmallVector<Value> ScanTile::inputs(OpBuilder &b, Value full,
                                    const ItemVals &itemVals) {
  unsigned ni = tm.valTypes.size();
  // An item past the end holds tm.identity (zeros with a region). Such
  // items only ever follow the valid ones (rows, lanes and warps fold in
  // element order), so what they add reaches no stored result, only the
  // last tile's aggregate, which no tile reads.
  ArrayRef<Value> pad = tm.identity;
  SmallVector<Value> init1;
  for (int64_t j = 0; j < tm.items; ++j)
    init1.append(pad.begin(), pad.end());
  return forItems(
      k, tm, b, full, itemVals, init1,
      [&](OpBuilder &ib, int64_t j, Value idx, Value valid,
          const DenseMap<unsigned, Value> &vals, ValueRange carried) {
        SmallVector<Value> out(carried);
        SmallVector<Value> xs = guarded(ib, loc, valid, isConstTrue(valid), pad,
                                        [&](OpBuilder &gb) {
                                          k.enter(gb, idx, vals);
                                          SmallVector<Value> x;
                                          for (Value in : scan.getInputs())
                                            x.push_back(k.element(gb, in));
                                          return x;
                                        });
        for (unsigned i = 0; i < ni; ++i)
          out[j * ni + i] = xs[i];
        return out;
      });
}

/// Pass 2: rescan the items from the thread prefix and store the results.
void ScanTile::storeResults(OpBuilder &b, Value full, const ItemVals &itemVals,
                            ArrayRef<SmallVector<Value>> xsOf,
                            const TileMachinery::RowScan &rs) {
  bool exclusive = scan.getExclusive();
  SmallVector<SmallVector<Value>> pending(yields.size());
  forItems(
      k, tm, b, full, itemVals, rs.rowStart[0],
      [&](OpBuilder &ib, int64_t j, Value idx, Value valid,
          const DenseMap<unsigned, Value> &vals, ValueRange carried) {
        // Each row starts from its own prefix.
        SmallVector<Value> run(
            j % tm.vw == 0 ? ValueRange(rs.rowStart[j / tm.vw]) : carried);
        SmallVector<Value> next = tm.combine(ib, run, xsOf[j]);
        SmallVector<Value> y = exclusive ? run : next;
        bool always = isConstTrue(valid);
        guarded(ib, loc, valid, always, {}, [&](OpBuilder &gb) {
          storeItem(gb, idx, vals, y, always, pending);
          return SmallVector<Value>();
        });
        return always ? next : selAll(ib, loc, valid, next, run);
      });
}

/// The group's results at element `idx`, whose scan results are `y`,
/// stored: each on its own, or when every item is valid (`always`) and
/// vectors are wide, gathered in `pending` into one 16-byte store per vw
/// items.
void ScanTile::storeItem(OpBuilder &gb, Value idx,
                         const DenseMap<unsigned, Value> &vals,
                         ArrayRef<Value> y, bool always,
                         SmallVector<SmallVector<Value>> &pending) {
  k.enter(gb, idx, vals);
  for (auto [r, v] : llvm::zip(scan.getResults(), y))
    k.leaves[r] = v;
  for (auto [yi, yo] : llvm::enumerate(llvm::zip(yields, outs))) {
    auto [yv, out] = yo;
    Value v = k.element(gb, yv);
    if (!always || tm.vw == 1) {
      k.store(gb, v, out, idx);
      continue;
    }
    // Vector flavour: one 16-byte store per vw items.
    pending[yi].push_back(v);
    if ((int64_t)pending[yi].size() < tm.vw)
      continue;
    Value vec = LLVM::PoisonOp::create(
        gb, loc, VectorType::get({tm.vw}, v.getType()));
    for (auto [l, e] : llvm::enumerate(pending[yi]))
      vec = LLVM::InsertElementOp::create(gb, loc, vec, e,
                                          cI32(gb, loc, l));
    pending[yi].clear();
    Value chunk = arith::DivUIOp::create(
        gb, loc, arith::SubIOp::create(gb, loc, idx,
                                       cI64(gb, loc, tm.vw - 1)),
        cI64(gb, loc, tm.vw));
    k.store(gb, vec, out, chunk);
  }
  k.leaves.clear();
}

} // namespace

FailureOr<GroupKernels> buildScanGroup(gpu::GPUModuleOp m, GroupOp group,
                                       StringRef prefix,
                                       const Tiling &tiling) {
  Location loc = group.getLoc();
  MLIRContext *ctx = group.getContext();
  {
    // Rank > 1 scans take the line-scan kernel (one scan per group, as
    // theOneOp checks for the single-pass kernel).
    SmallVector<ScanOp> scans(group.getBody().front().getOps<ScanOp>());
    if (scans.size() == 1 && tensorTy(scans[0].getInputs()[0]).getRank() > 1)
      return buildLineScan(m, group, scans[0], prefix, tiling);
  }
  FailureOr<ScanOp> found = theOneOp<ScanOp>(group, "scan");
  if (failed(found))
    return failure();
  ScanOp scan = *found;
  const bool region = !scan.hasBuiltinKinds();

  GroupKernels gk;
  gk.plan = GroupPlan::Scan;
  gk.tiling = tiling;
  gk.vectorWidth = flatVectorWidth(group, tiling);
  int64_t items = itemsPerThread(tiling, gk.vectorWidth);
  gk.tileItems = tiling.blockThreads * items;
  gk.kernel = (prefix + "_scan").str();
  SmallVector<Type> valTypes;
  for (Value in : scan.getInputs())
    valTypes.push_back(tensorTy(in).getElementType());
  gk.statusTypes = valTypes;
  unsigned numOuts = group.getNumResults();
  int64_t warps = tiling.blockThreads / 32;

  auto f = createKernel(m, loc, gk.kernel, tileParams(group, numOuts),
                     workgroupTypes(ctx, warps, valTypes),
                     tiling.blockThreads);
  TileKernel k(group, loc, tiling);
  k.func = f;
  OpBuilder b = OpBuilder::atBlockBegin(&f.getBody().front());
  k.setUp(b);
  TileMachinery tm(k, items, gk.vectorWidth);
  gk.dynamicSharedBytes = stagedTileBytes(k, tm);
  setTileOccupancy(f, tiling, gk.dynamicSharedBytes > 0);
  tm.valTypes = valTypes;
  if (valTypes.size() == 1 && valTypes[0].getIntOrFloatBitWidth() <= 32)
    tm.packing = TileMachinery::Packing::Low32;
  tm.orderFree =
      !region && llvm::all_of(valTypes, [](Type t) { return t.isInteger(); });
  for (auto [i, in] : llvm::enumerate(scan.getInputs())) {
    Type et = tensorTy(in).getElementType();
    tm.identity.push_back(arith::ConstantOp::create(
        b, loc,
        region ? b.getZeroAttr(et) : getKindIdentity(scan.getKind(i), et)));
  }
  auto scalarFn = [&](OpBuilder &sb) {
    return [&k, &sb](Value v) { return k.scalar(sb, v); };
  };
  tm.combine = [&](OpBuilder &cb, ValueRange a, ValueRange x) {
    return emitCombine(cb, loc, scan, a, x, scalarFn(cb));
  };
  bindWorkgroup(tm, f);
  tm.n = k.extra[0];
  Value ntiles = k.extra[1];
  tm.aligned = k.extra[2];
  tm.ws = k.extra[3];
  ValueRange outs = ValueRange(k.extra).drop_front(4);
  tm.setUpWorkspace(b, ntiles);
  // A region scan always has inits (the verifier's X_c8).
  SmallVector<Value> excl0 =
      scan.getInits().empty()
          ? SmallVector<Value>(tm.identity)
          : emitInitialAccumulators(b, loc, scan, scalarFn(b));
  ScanTile st{k, tm, scan, group.getYield().getValues(), outs, excl0, loc};
  runTiles(k, tm, b, ntiles, [&](OpBuilder &b, const ItemVals &itemVals) {
    st.build(b, itemVals);
  });
  gpu::ReturnOp::create(b, loc);
  if (k.failedLeaf)
    return group.emitOpError("GPU code generation: unsupported value in a "
                             "scan group body");
  return gk;
}

} // namespace gpugen
} // namespace fuse
