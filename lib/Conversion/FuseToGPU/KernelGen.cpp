//===- KernelGen.cpp - kernel set-up shared by the GPU generators ---------===//
//
// The common parameters of a group's kernels and the KernelBase every
// kernel generator (Kernels.cpp, the scan and filter tiles of
// TileKernels.h, RowReduce.cpp) builds on: parameter binding, rank-0
// preloads and the element emitter's callbacks.
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/bit.h"

using namespace mlir;

namespace fuse {
namespace gpugen {

Value opaqueCopy(OpBuilder &b, Location loc, Value v) {
  bool wide = v.getType().isInteger(64);
  return LLVM::InlineAsmOp::create(
             b, loc, v.getType(), ValueRange{v},
             b.getStringAttr(wide ? "mov.b64 $0, $1;" : "mov.b32 $0, $1;"),
             b.getStringAttr(wide ? "=l,l" : "=r,r"), b.getUnitAttr(),
             UnitAttr(), LLVM::TailCallKindAttr(), LLVM::AsmDialectAttr(),
             ArrayAttr())
      .getResult(0);
}

Value shuffleValue(OpBuilder &b, Location loc, Value v, Value arg,
                   gpu::ShuffleMode mode, Value *valid) {
  Type t = v.getType();
  unsigned bits = t.getIntOrFloatBitWidth();
  Value width = cI32(b, loc, 32);
  auto shfl = [&](Value x) {
    auto s = gpu::ShuffleOp::create(b, loc, x, arg, width, mode);
    if (valid)
      *valid = s.getValid();
    return s.getShuffleResult();
  };
  if (bits == 32 && (t.isF32() || t.isInteger(32)))
    return shfl(v);
  Type it = b.getIntegerType(bits);
  Value asInt = isa<FloatType>(t) ? arith::BitcastOp::create(b, loc, it, v)
                                  : v;
  Value r;
  if (bits <= 32) {
    Value w = bits == 32 ? asInt
                         : arith::ExtUIOp::create(b, loc, b.getI32Type(),
                                                  asInt);
    Value s = shfl(w);
    r = bits == 32 ? s : arith::TruncIOp::create(b, loc, it, s);
  } else {
    Value lo = arith::TruncIOp::create(b, loc, b.getI32Type(), asInt);
    Value hi = arith::TruncIOp::create(
        b, loc, b.getI32Type(),
        arith::ShRUIOp::create(b, loc, asInt, cI64(b, loc, 32)));
    Value lo2 = arith::ExtUIOp::create(b, loc, it, shfl(lo));
    Value hi2 = arith::ExtUIOp::create(b, loc, it, shfl(hi));
    r = arith::OrIOp::create(
        b, loc, lo2, arith::ShLIOp::create(b, loc, hi2, cI64(b, loc, 32)));
  }
  return isa<FloatType>(t) ? arith::BitcastOp::create(b, loc, t, r) : r;
}

SmallVector<Value> warpFold(
    OpBuilder &b, Location loc, SmallVector<Value> accs, CombineFn combine,
    function_ref<Value(OpBuilder &, int64_t offset)> keepStep) {
  for (int64_t off = 16; off >= 1; off /= 2) {
    SmallVector<Value> other;
    for (Value a : accs)
      other.push_back(
          shuffleValue(b, loc, a, cI32(b, loc, off), gpu::ShuffleMode::XOR));
    if (!keepStep) {
      accs = combine(b, accs, other);
      continue;
    }
    Value keep = keepStep(b, off);
    accs = selAll(b, loc, keep, combine(b, accs, other), accs);
  }
  return accs;
}

SmallVector<Value> warpInclusiveScan(
    OpBuilder &b, Location loc, Value lane, ValueRange vals,
    function_ref<SmallVector<Value>(OpBuilder &, ValueRange, ValueRange)>
        combine) {
  SmallVector<Value> incl(vals);
  for (int64_t off = 1; off < 32; off *= 2) {
    SmallVector<Value> up;
    for (Value v : incl)
      up.push_back(
          shuffleValue(b, loc, v, cI32(b, loc, off), gpu::ShuffleMode::UP));
    SmallVector<Value> c = combine(b, up, incl);
    Value ok = cmpI(b, loc, arith::CmpIPredicate::sge, lane, cI64(b, loc, off));
    incl = selAll(b, loc, ok, c, incl);
  }
  return incl;
}

SmallVector<Value> foldSmemColumn(OpBuilder &b, Location loc, ValueRange bufs,
                                  Value lo, Value hi, Value width, Value col,
                                  ValueRange init, CombineFn combine) {
  auto fold = scf::ForOp::create(
      b, loc, lo, hi, cI64(b, loc, 1), init,
      [&](OpBuilder &fb, Location l, Value r, ValueRange a) {
        Value at =
            toIndex(fb, l,
                    arith::AddIOp::create(
                        fb, l, arith::MulIOp::create(fb, l, r, width), col));
        SmallVector<Value> x;
        for (Value buf : bufs)
          x.push_back(memref::LoadOp::create(fb, l, buf, ValueRange{at}));
        scf::YieldOp::create(fb, l, combine(fb, a, x));
      });
  return SmallVector<Value>(fold.getResults());
}

Value warpBallot(OpBuilder &b, Location loc, Value pred) {
  return NVVM::VoteSyncOp::create(b, loc, b.getI32Type(), cI32(b, loc, -1),
                                  pred, NVVM::VoteSyncKind::ballot)
      .getResult();
}

Value selectNarrowGroup(OpBuilder &b, Location loc, arith::CmpIPredicate le,
                        Value cols, Value need, int64_t blockThreads,
                        int64_t minThreads, int64_t smallCols,
                        function_ref<Value(int64_t p)> valueOf,
                        Value otherwise) {
  Value chosen = otherwise;
  for (int64_t p = blockThreads / 2; p >= minThreads; p /= 2) {
    Value fits = cmpI(b, loc, le, need, cI64(b, loc, p));
    if (p < 4 && smallCols)
      fits = arith::AndIOp::create(b, loc, fits,
                                   cmpI(b, loc, le, cols,
                                        cI64(b, loc, smallCols * p)));
    chosen = arith::SelectOp::create(b, loc, fits, valueOf(p), chosen);
  }
  return chosen;
}

Value narrowRowsFit(OpBuilder &b, Location loc, arith::CmpIPredicate le,
                    Value need, Value vec, int64_t blockThreads,
                    int64_t scalarMaxThreads) {
  Value fits = cmpI(b, loc, le, need, cI64(b, loc, blockThreads / 2));
  if (scalarMaxThreads != blockThreads / 2)
    fits = arith::SelectOp::create(
        b, loc, vec, fits,
        cmpI(b, loc, le, need, cI64(b, loc, scalarMaxThreads)));
  return fits;
}

void publishWarpValues(OpBuilder &b, Location loc, ValueRange values,
                       ValueRange smem, Value lane, Value warp) {
  gpu::BarrierOp::create(b, loc);
  Value isLane0 =
      cmpI(b, loc, arith::CmpIPredicate::eq, lane,
           arith::ConstantIntOp::create(b, loc, lane.getType(), 0));
  scf::IfOp::create(b, loc, isLane0, [&](OpBuilder &ib, Location l) {
    Value wi = warp.getType().isIndex()
                   ? warp
                   : Value(arith::IndexCastUIOp::create(
                         ib, l, ib.getIndexType(), warp));
    for (auto [v, s] : llvm::zip(values, smem))
      memref::StoreOp::create(ib, l, v, s, ValueRange{wi});
    scf::YieldOp::create(ib, l);
  });
  gpu::BarrierOp::create(b, loc);
}

SmallVector<Value>
blockFold(OpBuilder &b, Location loc, SmallVector<Value> accs, ValueRange smem,
          int64_t warps,
          function_ref<std::pair<Value, Value>(OpBuilder &)> laneAndWarp,
          CombineFn combine) {
  accs = warpFold(b, loc, std::move(accs), combine);
  if (warps == 1)
    return accs;
  // (no structured bindings: lambdas capture these, a C++20 feature)
  Value lane, warp;
  std::tie(lane, warp) = laneAndWarp(b);
  publishWarpValues(b, loc, accs, smem, lane, warp);
  SmallVector<Value> r;
  for (Value s : smem)
    r.push_back(memref::LoadOp::create(
        b, loc, s, ValueRange{arith::ConstantIndexOp::create(b, loc, 0)}));
  for (int64_t w = 1; w < warps; ++w) {
    SmallVector<Value> x;
    Value wi = arith::ConstantIndexOp::create(b, loc, w);
    for (Value s : smem)
      x.push_back(memref::LoadOp::create(b, loc, s, ValueRange{wi}));
    r = combine(b, r, x);
  }
  return r;
}

SmallVector<Type> commonParams(GroupOp group) {
  MLIRContext *ctx = group.getContext();
  SmallVector<Type> types;
  for (Value v : group.getOperands()) {
    if (auto t = tensorTy(v)) {
      types.push_back(globalPtr(ctx));
      types.append(t.getRank(), IntegerType::get(ctx, 64));
    } else {
      types.push_back(v.getType());
    }
  }
  return types;
}

int64_t vectorWidthOf(ValueRange values, const Tiling &t,
                      function_ref<bool(RankedTensorType)> counts,
                      Widths widths) {
  int64_t bytes = 0;
  for (Value v : values) {
    auto tt = tensorTy(v);
    if (!tt || !counts(tt))
      continue;
    int64_t w = byteWidth(tt.getElementType());
    if (bytes && bytes != w && widths == Widths::Common)
      return 1;
    bytes = std::max(bytes, w);
  }
  if (!bytes)
    return 1;
  int64_t vw = 16 / bytes;
  if (t.vectorWidth > 0 && t.vectorWidth < vw)
    vw = llvm::bit_floor(static_cast<uint64_t>(t.vectorWidth));
  return std::max<int64_t>(vw, 1);
}

SmallVector<Value> widthBoundary(GroupOp group) {
  SmallVector<Value> boundary;
  Block &body = group.getBody().front();
  for (auto [operand, arg] :
       llvm::zip_equal(group.getOperands(), body.getArguments()))
    if (!onlySizesRead(arg))
      boundary.push_back(operand);
  llvm::append_range(boundary, group.getResults());
  return boundary;
}

int64_t flatVectorWidth(GroupOp group, const Tiling &t, Widths widths) {
  return vectorWidthOf(
      widthBoundary(group), t,
      [](RankedTensorType tt) { return tt.getRank() > 0; }, widths);
}

void emitCpAsync(OpBuilder &b, Location loc, Value dst, Value src,
                 int64_t bytes) {
  assert((bytes == 4 || bytes == 8 || bytes == 16) && "cp.async size");
  NVVM::CpAsyncOp::create(
      b, loc, dst, src, b.getI32IntegerAttr(bytes),
      NVVM::LoadCacheModifierKindAttr::get(
          b.getContext(), bytes == 16 ? NVVM::LoadCacheModifierKind::CG
                                      : NVVM::LoadCacheModifierKind::CA),
      Value());
}

Value dynamicSharedBase(gpu::GPUFuncOp f, OpBuilder &b, Location loc) {
  auto m = f->getParentOfType<gpu::GPUModuleOp>();
  std::string name = (f.getName() + "_stage").str();
  auto g = m.lookupSymbol<LLVM::GlobalOp>(name);
  if (!g) {
    OpBuilder mb = OpBuilder::atBlockBegin(m.getBody());
    g = LLVM::GlobalOp::create(
        mb, loc, LLVM::LLVMArrayType::get(mb.getI8Type(), 0),
        /*isConstant=*/false, LLVM::Linkage::External, name, Attribute(),
        /*alignment=*/16, /*addrSpace=*/3);
  }
  return LLVM::AddressOfOp::create(b, loc, g);
}

Value stagedRegionBytes(OpBuilder &b, Location loc, Value cols,
                        int64_t bytes) {
  Value raw = arith::MulIOp::create(b, loc, cols, cI64(b, loc, bytes));
  return arith::AndIOp::create(
      b, loc, arith::AddIOp::create(b, loc, raw, cI64(b, loc, 15)),
      cI64(b, loc, ~int64_t(15)));
}

Value stagedRowBytes(OpBuilder &b, Location loc, Value cols,
                     ArrayRef<int64_t> elementBytes) {
  Value total = cI64(b, loc, 0);
  for (int64_t e : elementBytes)
    total = arith::AddIOp::create(b, loc, total,
                                  stagedRegionBytes(b, loc, cols, e));
  return total;
}

gpu::GPUFuncOp createKernel(gpu::GPUModuleOp m, Location loc, StringRef name,
                            TypeRange params, TypeRange workgroup,
                            int64_t blockThreads) {
  OpBuilder b(m.getContext());
  b.setInsertionPointToEnd(m.getBody());
  auto f = gpu::GPUFuncOp::create(b, loc, name, b.getFunctionType(params, {}),
                                  workgroup);
  f->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  f.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(blockThreads), 1, 1}));
  for (unsigned i = 0, e = workgroup.size(); i < e; ++i)
    f.setWorkgroupAttributionAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                                  b.getI64IntegerAttr(16));
  return f;
}

//===----------------------------------------------------------------------===//
// KernelBase
//===----------------------------------------------------------------------===//

KernelBase::KernelBase(GroupOp group, Location loc, const Tiling &tiling,
                       KernelOptions options)
    : group(group), body(group.getBody().front()), loc(loc), tiling(tiling),
      options(options) {}

KernelBase::~KernelBase() = default;

Value KernelBase::threadId(OpBuilder &b) {
  return toI64(b, loc, gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
}
Value KernelBase::blockId(OpBuilder &b) {
  return toI64(b, loc, gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
}
Value KernelBase::gridDim(OpBuilder &b) {
  return toI64(b, loc, gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
}

Value KernelBase::gep(OpBuilder &b, Value base, Type t, Value idx) {
  return LLVM::GEPOp::create(b, loc, base.getType(), t, base,
                             ArrayRef<LLVM::GEPArg>{idx});
}

/// Alignment of a `t` (a scalar or a vector of elements): its size.
static int64_t alignOf(Type t) {
  int64_t align = byteWidth(getElementTypeOrSelf(t));
  if (auto vt = dyn_cast<VectorType>(t))
    align *= vt.getNumElements();
  return align;
}

Value KernelBase::load(OpBuilder &b, Type t, Value base, Value idx) {
  return LLVM::LoadOp::create(b, loc, t, gep(b, base, t, idx), alignOf(t));
}

void KernelBase::store(OpBuilder &b, Value v, Value base, Value idx) {
  Type t = v.getType();
  LLVM::StoreOp::create(b, loc, v, gep(b, base, t, idx), alignOf(t));
}

void KernelBase::store(OpBuilder &b, ArrayRef<DeferredStore> stores) {
  for (const DeferredStore &s : stores)
    store(b, s.value, s.base, s.idx);
}

std::pair<Value, Value> KernelBase::gridStride(OpBuilder &b) {
  Value bdim = cI64(b, loc, tiling.blockThreads);
  Value gtid = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, blockId(b), bdim), threadId(b));
  Value stride = arith::MulIOp::create(b, loc, gridDim(b), bdim);
  return {gtid, stride};
}

Value KernelBase::linearize(OpBuilder &b, unsigned arg, ValueRange idx) {
  Value off = cI64(b, loc, 0);
  for (auto [d, i] : llvm::enumerate(idx)) {
    if (d > 0)
      off = arith::MulIOp::create(b, loc, off, dims[arg][d]);
    off = arith::AddIOp::create(b, loc, off, toI64(b, loc, i));
  }
  return off;
}

bool KernelBase::atLane(ValueRange idx) const {
  if (!laneIndex || idx.empty() || idx.back() != laneIndex)
    return false;
  if (!options.flatLanes)
    return idx.size() == 1;
  return llvm::all_of(idx.drop_back(),
                      [&](Value i) { return i == zeroIndex; });
}

SmallVector<unsigned> KernelBase::directOperands() {
  return directOperandsOf(body);
}

SmallVector<ReduceOp> reductionsOf(Block &body) {
  SmallVector<ReduceOp> ops;
  for (Operation &op : body)
    if (auto r = dyn_cast<ReduceOp>(op))
      ops.push_back(r);
  return ops;
}

SmallVector<unsigned> directOperandsOf(Block &body) {
  SmallVector<unsigned> out;
  for (BlockArgument arg : body.getArguments()) {
    auto t = tensorTy(arg);
    if (!t || t.getRank() == 0)
      continue;
    // Not read at the kernel's own index: a tensor read at computed
    // positions (a gather's source, a searchsorted's sorted tensor), the
    // input of a broadcast that adds dimensions (read at coordinates of
    // the broadcast's result), and a tensor whose sizes alone are read (a
    // tensor.dim: the kernel's size parameters; a map's unread input).
    bool direct = llvm::any_of(arg.getUses(), [&](OpOperand &use) {
      if (isReadAtComputedPositions(use) || readsNoElements(use))
        return false;
      if (auto bc = dyn_cast<BroadcastOp>(use.getOwner()))
        return bc.getDims().empty();
      return true;
    });
    if (direct)
      out.push_back(arg.getArgNumber());
  }
  return out;
}

void KernelBase::setUp(OpBuilder &b) {
  Block &entry = func.getBody().front();
  if (options.flatLanes)
    zeroIndex = arith::ConstantIndexOp::create(b, loc, 0);
  unsigned p = 0;
  SmallVector<Value> scalarParam; // per group operand, null for tensors
  for (Value operand : group.getOperands()) {
    if (auto t = tensorTy(operand)) {
      ptr.push_back(entry.getArgument(p++));
      SmallVector<Value> ds;
      for (int64_t d = 0; d < t.getRank(); ++d)
        ds.push_back(entry.getArgument(p++));
      dims.push_back(ds);
      scalarParam.push_back(nullptr);
    } else {
      ptr.push_back(nullptr);
      dims.push_back({});
      scalarParam.push_back(entry.getArgument(p++));
    }
  }
  for (unsigned e = func.getNumArguments(); p < e; ++p)
    extra.push_back(entry.getArgument(p));
  // Rank-0 tensor operands (e.g. a mean computed by an earlier group) are
  // loaded once.
  for (auto [i, operand] : llvm::enumerate(group.getOperands())) {
    auto t = tensorTy(operand);
    if (!t || t.getRank() != 0) {
      rank0.push_back(Value());
      continue;
    }
    Type et = t.getElementType();
    rank0.push_back(options.rank0ViaGep
                        ? load(b, et, ptr[i], cI64(b, loc, 0))
                        : LLVM::LoadOp::create(b, loc, et, ptr[i],
                                               byteWidth(et))
                              .getResult());
  }
  em = std::make_unique<ElementEmitter>(
      body,
      [this](OpBuilder &lb, Location l, Value tensor, ValueRange idx) {
        return loadOperand(lb, l, tensor, idx);
      },
      [this](OpBuilder &db, Location l, Value tensor, int64_t d) {
        return operandDim(db, l, tensor, d);
      });
  if (options.flatLanes)
    em->setCoordHook(
        [this](OpBuilder &ib, Location l, Value tensor, ValueRange idx,
               int64_t d) { return laneCoord(ib, l, tensor, idx, d); });
  for (auto [i, param] : llvm::enumerate(scalarParam))
    if (param)
      em->mapScalar(body.getArgument(i), param);
  for (auto dim : body.getOps<tensor::DimOp>()) {
    auto arg = dyn_cast<BlockArgument>(dim.getSource());
    std::optional<int64_t> d = dim.getConstantIndex();
    if (!arg || arg.getOwner() != &body || !d || !ptr[arg.getArgNumber()] ||
        *d < 0 || *d >= static_cast<int64_t>(dims[arg.getArgNumber()].size()))
      continue;
    pinnedDims[dim.getResult()] =
        toIndex(b, loc, dims[arg.getArgNumber()][*d]);
  }
}

/// Whether values defined in `outer` (before the builder's point) are
/// usable at a point in `inner`: `outer` is `inner` or encloses it.
static bool encloses(Block *outer, Block *inner) {
  for (Block *b = inner; b;
       b = b->getParentOp() ? b->getParentOp()->getBlock() : nullptr)
    if (b == outer)
      return true;
  return false;
}

// Flat groups address every tensor at (0, ..., 0, flat index): the
// coordinate of a rank-r iota's or broadcast's element along `d` is
// (flat / stride) mod size[d], stride = size[d+1] * ... * size[r-1] (no
// lane runs when a size is 0). The lanes of a chunk are consecutive flat
// indices, so lane l+1's coordinate follows from lane l's: the remainder
// modulo the stride steps by one and, where it wraps, the coordinate does
// (wrapping at size[d]). A 64-bit division and remainder an element were
// what bounded an iota's kernels.
Value KernelBase::laneCoord(OpBuilder &ib, Location l, Value tensor,
                            ValueRange idx, int64_t d) {
  if (!atLane(idx))
    return Value();
  if (Value hint = laneCoordHint(ib, tensor, d))
    return hint;
  int64_t rank = tensorTy(tensor).getRank();
  bool inChunk = laneChunk && laneIndex == laneEntered;
  Block *here = ib.getInsertionBlock();
  auto key = std::make_pair(tensor, d);
  auto it = coordChains.find(key);
  if (inChunk && it != coordChains.end() && it->second.chunk == laneChunk &&
      it->second.lane + 1 == laneNumber && encloses(it->second.block, here)) {
    CoordChain c = it->second;
    Value one = cIdx(ib, l, 1), zero = cIdx(ib, l, 0);
    auto wrapAt = [&](Value v, Value bound) {
      Value eq =
          arith::CmpIOp::create(ib, l, arith::CmpIPredicate::eq, v, bound);
      return std::make_pair(
          eq, arith::SelectOp::create(ib, l, eq, zero, v).getResult());
    };
    Value next = arith::AddIOp::create(ib, l, c.coord, one);
    Value carry;
    if (c.stride) {
      std::tie(carry, c.rem) =
          wrapAt(arith::AddIOp::create(ib, l, c.rem, one), c.stride);
    }
    if (d > 0)
      next = wrapAt(next, c.size).second;
    c.coord =
        carry ? arith::SelectOp::create(ib, l, carry, next, c.coord).getResult()
              : next;
    c.lane = laneNumber;
    c.block = here;
    coordChains[key] = c;
    return c.coord;
  }
  CoordChain c{laneChunk, laneNumber, here, Value(), Value(), Value(), Value()};
  for (int64_t i = d + 1; i < rank; ++i) {
    FailureOr<Value> s = em->emitDim(ib, l, tensor, i);
    if (failed(s)) {
      failedLeaf = true;
      return Value();
    }
    c.stride =
        c.stride ? arith::MulIOp::create(ib, l, c.stride, *s).getResult() : *s;
  }
  c.coord = laneIndex;
  if (c.stride) {
    c.coord = arith::DivUIOp::create(ib, l, laneIndex, c.stride);
    c.rem = arith::SubIOp::create(
        ib, l, laneIndex, arith::MulIOp::create(ib, l, c.coord, c.stride));
  }
  if (d > 0) {
    FailureOr<Value> size = em->emitDim(ib, l, tensor, d);
    if (failed(size)) {
      failedLeaf = true;
      return Value();
    }
    c.size = *size;
    c.coord = arith::RemUIOp::create(ib, l, c.coord, c.size);
  }
  if (inChunk)
    coordChains[key] = c;
  return c.coord;
}

Value KernelBase::loadOperand(OpBuilder &b, Location l, Value tensor,
                              ValueRange idx) {
  if (auto it = leaves.find(tensor); it != leaves.end())
    return it->second;
  auto arg = dyn_cast<BlockArgument>(tensor);
  if (!arg || arg.getOwner() != &body) {
    failedLeaf = true;
    return LLVM::PoisonOp::create(b, l, tensorTy(tensor).getElementType());
  }
  unsigned n = arg.getArgNumber();
  if (rank0[n])
    return rank0[n];
  if (Value held = heldElement(n, idx))
    return held;
  bool lane = atLane(idx);
  if (lane)
    if (auto lv = laneValue.find(n); lv != laneValue.end())
      return lv->second;
  Type et = tensorTy(tensor).getElementType();
  // flatLanes: the lane's row-major offset is the flat index itself.
  Value off = lane && options.flatLanes ? toI64(b, l, laneIndex)
                                        : linearize(b, n, idx);
  return LLVM::LoadOp::create(b, l, et, gep(b, ptr[n], et, off),
                              byteWidth(et));
}

Value KernelBase::operandDim(OpBuilder &b, Location l, Value tensor,
                             int64_t d) {
  auto arg = dyn_cast<BlockArgument>(tensor);
  if (arg && arg.getOwner() == &body && ptr[arg.getArgNumber()])
    return toIndex(b, l, dims[arg.getArgNumber()][d]);
  failedLeaf = true;
  return cIdx(b, l, 0);
}

Value KernelBase::element(OpBuilder &b, Value tensor, ValueRange idx) {
  SmallVector<Value> full(idx);
  auto t = tensorTy(tensor);
  if (zeroIndex && laneIndex && idx.size() == 1 && idx[0] == laneIndex && t &&
      t.getRank() != 1) {
    // Rank > 1: (0, ..., 0, lane). Rank 0 (a group of 0-d tensors, one
    // element, lane 0): no index.
    full.clear();
    if (t.getRank() > 1) {
      full.assign(t.getRank() - 1, zeroIndex);
      full.push_back(laneIndex);
    }
  }
  FailureOr<Value> r = em->emit(b, loc, tensor, full);
  if (failed(r)) {
    failedLeaf = true;
    return LLVM::PoisonOp::create(b, loc, tensorTy(tensor).getElementType());
  }
  return *r;
}

Value KernelBase::scalar(OpBuilder &b, Value v) {
  if (Value p = pinnedDims.lookup(v))
    return p;
  // A constant is made where it is used: a combiner is emitted in several
  // nested regions, and the emitter's cached one may sit in a region that
  // does not dominate this use (a constant captured from above, e.g. one
  // canonicalization hoisted out of the combiner).
  if (Operation *def = v.getDefiningOp();
      def && def->hasTrait<OpTrait::ConstantLike>() &&
      def->getNumResults() == 1)
    return b.clone(*def)->getResult(0);
  FailureOr<Value> r = em->emitScalar(b, loc, v);
  if (failed(r)) {
    failedLeaf = true;
    return LLVM::PoisonOp::create(b, loc, v.getType());
  }
  return *r;
}

} // namespace gpugen
} // namespace fuse
