//===- TileMachinery.cpp - layout, loads and loop of look-back tiles ------===//
//
// The tile side of the scan and filter kernels (TileKernels.h): the
// workgroup buffers and the work space, the warp-striped layout of a tile,
// tile claims, the loads of a tile's items (16-byte vectors or guarded
// scalars, staged in shared memory with cp.async or held in registers),
// the per-item loops, and runTiles, the loop of a block over the tiles it
// claims. The tile prefix is TileLookBack.cpp's.
//
//===----------------------------------------------------------------------===//

#include "TileKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <algorithm>

using namespace mlir;

namespace fuse {
namespace gpugen {
namespace {

MemRefType smemTy(MLIRContext *ctx, int64_t n, Type t) {
  return MemRefType::get(
      {n}, t, MemRefLayoutAttrInterface{},
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
}

} // namespace

bool isConstTrue(Value v) {
  if (auto c = v.getDefiningOp<arith::ConstantIntOp>())
    return c.value() != 0;
  return false;
}

int64_t itemsPerThread(const Tiling &t, int64_t vw) {
  int64_t items =
      t.items > 0 ? std::min<int64_t>(t.items, 32)
                  : std::clamp<int64_t>(t.unroll * std::max<int64_t>(vw, 4),
                                        1, 32);
  return std::max<int64_t>(vw, items / vw * vw);
}

//===----------------------------------------------------------------------===//
// TileMachinery: tile layout and claims
//===----------------------------------------------------------------------===//

Value TileMachinery::vectorIndex(OpBuilder &b, int64_t c) {
  Value first = arith::DivUIOp::create(b, k.loc, threadStart,
                                       cI64(b, k.loc, vw));
  return arith::AddIOp::create(b, k.loc, first, cI64(b, k.loc, c * 32));
}

Value TileMachinery::itemIndex(OpBuilder &b, int64_t j) {
  return arith::AddIOp::create(
      b, k.loc, threadStart,
      cI64(b, k.loc, (j / vw) * 32 * vw + j % vw));
}

void TileMachinery::claim(OpBuilder &b, Value slot) {
  Location loc = k.loc;
  Value t0 = cmpI(b, loc, arith::CmpIPredicate::eq, k.threadId(b),
                  cI64(b, loc, 0));
  scf::IfOp::create(b, loc, t0, [&](OpBuilder &tb, Location l) {
    Value id = LLVM::AtomicRMWOp::create(
        tb, l, LLVM::AtomicBinOp::add, ws, cI32(tb, l, 1),
        LLVM::AtomicOrdering::monotonic, "device");
    memref::StoreOp::create(
        tb, l, arith::ExtUIOp::create(tb, l, tb.getI64Type(), id), smTile,
        ValueRange{toIndex(tb, l, slot)});
    scf::YieldOp::create(tb, l);
  });
}
Value TileMachinery::claimed(OpBuilder &b, Value slot) {
  return memref::LoadOp::create(b, k.loc, smTile,
                                ValueRange{toIndex(b, k.loc, slot)});
}

void TileMachinery::setUpWorkspace(OpBuilder &b, Value ntiles) {
  Location loc = k.loc;
  // Layout: [0,16) counter, 8-byte status words at 16, then 8-byte slot
  // arrays, an aggregate and an inclusive one a piece (Packing::Pieces).
  Type i8 = b.getI8Type();
  flags = k.gep(b, ws, i8, cI64(b, loc, 16));
  Value flagBytes = arith::AndIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, ntiles, cI64(b, loc, 8)),
          cI64(b, loc, 15)),
      cI64(b, loc, ~int64_t(15)));
  Value off = arith::AddIOp::create(b, loc, cI64(b, loc, 16), flagBytes);
  Value arrBytes = arith::MulIOp::create(b, loc, ntiles, cI64(b, loc, 8));
  int64_t pieces = statusPieces(valTypes);
  for (int64_t i = 0; i < pieces; ++i) {
    aggArr.push_back(k.gep(b, ws, i8, off));
    off = arith::AddIOp::create(b, loc, off, arrBytes);
  }
  for (int64_t i = 0; i < pieces; ++i) {
    inclArr.push_back(k.gep(b, ws, i8, off));
    off = arith::AddIOp::create(b, loc, off, arrBytes);
  }
}

void TileMachinery::setTile(OpBuilder &b, Value t) {
  Location loc = k.loc;
  tile = t;
  Value tileItems = cI64(b, loc, k.tiling.blockThreads * items);
  tileStart = arith::MulIOp::create(b, loc, tile, tileItems);
  // Warp-striped rows: warp w owns elements [w*32*items, (w+1)*32*items)
  // of the tile, as items/vw rows of 32 lanes x vw consecutive elements;
  // lane l's row r starts at r*32*vw + l*vw. Every vector load and store
  // of a warp is one coalesced 512-byte row.
  Value tid = k.threadId(b);
  Value warpBase = arith::AddIOp::create(
      b, loc, tileStart,
      arith::MulIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, tid, cI64(b, loc, 5)),
          cI64(b, loc, 32 * items)));
  threadStart = arith::AddIOp::create(
      b, loc, warpBase,
      arith::MulIOp::create(
          b, loc, arith::AndIOp::create(b, loc, tid, cI64(b, loc, 31)),
          cI64(b, loc, vw)));
  Value tileEnd = arith::AddIOp::create(b, loc, tileStart, tileItems);
  full = cmpI(b, loc, arith::CmpIPredicate::sle, tileEnd, n);
  if (vw > 1)
    full = arith::AndIOp::create(
        b, loc, full,
        cmpI(b, loc, arith::CmpIPredicate::ne, aligned, cI32(b, loc, 0)));
}

//===----------------------------------------------------------------------===//
// Workgroup buffers, item loads and loops
//===----------------------------------------------------------------------===//

SmallVector<Type> workgroupTypes(MLIRContext *ctx, int64_t warps,
                                 ArrayRef<Type> valTypes) {
  SmallVector<Type> t{smemTy(ctx, 2, IntegerType::get(ctx, 64))};
  for (Type v : valTypes)
    t.push_back(smemTy(ctx, warps, v));
  for (Type v : valTypes)
    t.push_back(smemTy(ctx, 1, v));
  for (Type v : valTypes)
    t.push_back(smemTy(ctx, kMaxWindows * 32, v));
  return t;
}

void bindWorkgroup(TileMachinery &tm, gpu::GPUFuncOp f) {
  auto wg = f.getWorkgroupAttributions();
  size_t nv = tm.valTypes.size();
  tm.smTile = wg[0];
  for (size_t i = 0; i < nv; ++i) {
    tm.smWarp.push_back(wg[1 + i]);
    tm.smPrefix.push_back(wg[1 + nv + i]);
    tm.smStash.push_back(wg[1 + 2 * nv + i]);
  }
}

ItemVals loadItems(TileKernel &k, TileMachinery &tm, OpBuilder &b,
                   Value full) {
  Location loc = k.loc;
  SmallVector<unsigned> direct = k.directOperands();
  auto ifOp = scf::IfOp::create(
      b, loc, full,
      [&](OpBuilder &vb, Location l) {
        DenseMap<unsigned, SmallVector<Value>> vecs;
        for (unsigned a : direct) {
          Type et = tensorTy(k.body.getArgument(a)).getElementType();
          Type vt = tm.vw > 1 ? Type(VectorType::get({tm.vw}, et)) : et;
          for (int64_t c = 0; c < tm.items / tm.vw; ++c)
            vecs[a].push_back(k.load(vb, vt, k.ptr[a], tm.vectorIndex(vb, c)));
        }
        SmallVector<Value> out;
        for (int64_t j = 0; j < tm.items; ++j)
          for (unsigned a : direct) {
            Value v = vecs[a][j / tm.vw];
            if (tm.vw > 1)
              v = LLVM::ExtractElementOp::create(vb, l, v,
                                                 cI32(vb, l, j % tm.vw));
            out.push_back(v);
          }
        scf::YieldOp::create(vb, l, out);
      },
      [&](OpBuilder &sb, Location l) {
        SmallVector<Value> out;
        for (int64_t j = 0; j < tm.items; ++j) {
          Value idx = tm.itemIndex(sb, j);
          Value valid = cmpI(sb, l, arith::CmpIPredicate::slt, idx, tm.n);
          for (unsigned a : direct) {
            Type et = tensorTy(k.body.getArgument(a)).getElementType();
            auto ld = scf::IfOp::create(
                sb, l, valid,
                [&](OpBuilder &tb, Location tl) {
                  scf::YieldOp::create(
                      tb, tl, ValueRange{k.load(tb, et, k.ptr[a], idx)});
                },
                [&](OpBuilder &eb, Location el) {
                  Value zero = arith::ConstantOp::create(
                      eb, el, cast<TypedAttr>(eb.getZeroAttr(et)));
                  scf::YieldOp::create(eb, el, zero);
                });
            out.push_back(ld.getResult(0));
          }
        }
        scf::YieldOp::create(sb, l, out);
      });
  ItemVals vals(tm.items);
  unsigned r = 0;
  for (int64_t j = 0; j < tm.items; ++j)
    for (unsigned a : direct)
      vals[j][a] = ifOp.getResult(r++);
  return vals;
}

SmallVector<Value> forItems(TileKernel &k, TileMachinery &tm, OpBuilder &b,
                            Value full, const ItemVals &vals,
                            ValueRange init, ItemFn perItem) {
  Location loc = k.loc;
  auto ifOp = scf::IfOp::create(
      b, loc, full,
      [&](OpBuilder &vb, Location l) {
        SmallVector<Value> carried(init);
        Value yes = arith::ConstantIntOp::create(vb, l, vb.getI1Type(), 1);
        for (int64_t j = 0; j < tm.items; ++j)
          carried = perItem(vb, j, tm.itemIndex(vb, j), yes, vals[j], carried);
        scf::YieldOp::create(vb, l, carried);
      },
      [&](OpBuilder &sb, Location l) {
        SmallVector<Value> carried(init);
        for (int64_t j = 0; j < tm.items; ++j) {
          Value idx = tm.itemIndex(sb, j);
          Value valid = cmpI(sb, l, arith::CmpIPredicate::slt, idx, tm.n);
          carried = perItem(sb, j, idx, valid, vals[j], carried);
        }
        scf::YieldOp::create(sb, l, carried);
      });
  return SmallVector<Value>(ifOp.getResults());
}

int64_t stagedTileBytes(TileKernel &k, const TileMachinery &tm) {
  if (!k.tiling.stageTiles || tm.vw <= 1)
    return 0;
  int64_t bytes = 0;
  for (unsigned a : k.directOperands()) {
    int64_t eb = byteWidth(tensorTy(k.body.getArgument(a)).getElementType());
    // A vector is copied with one cp.async of its size, which takes 4, 8
    // or 16 bytes.
    if (tm.vw * eb < 4)
      return 0;
    bytes += tm.items * k.tiling.blockThreads * eb;
  }
  return bytes <= 32 * 1024 ? bytes : 0;
}

//===----------------------------------------------------------------------===//
// The tile loop
//===----------------------------------------------------------------------===//

namespace {

/// The items runTiles carries from one tile to the next: the direct
/// operands' elements of every item, flattened into the loop's values.
/// Staged mode (tiling.stageTiles): the next tile's 16-byte vectors go
/// to shared memory with cp.async (no registers held across the current
/// tile's stores), one slot per thread and vector, thread-major so the
/// read-back is conflict-free; each thread reads back only its own slots,
/// so cp.async.wait_group 0 is the only synchronization. Tiles that are
/// not full (the last one, unaligned inputs) are loaded directly.
struct TileLoop {
  TileLoop(TileKernel &k, TileMachinery &tm)
      : k(k), tm(tm), loc(k.loc), direct(k.directOperands()),
        stageBytes(stagedTileBytes(k, tm)), chunks(tm.items / tm.vw) {}
  TileKernel &k;
  TileMachinery &tm;
  Location loc;
  SmallVector<unsigned> direct;
  int64_t stageBytes; // 0: not staged
  int64_t chunks;     // vectors a thread and operand
  Value stageBase;    // staged mode: the dynamic shared memory

  SmallVector<Value> flatten(const ItemVals &iv) {
    SmallVector<Value> out;
    for (int64_t j = 0; j < tm.items; ++j)
      for (unsigned a : direct)
        out.push_back(iv[j].lookup(a));
    return out;
  }
  ItemVals unflatten(ValueRange flat) {
    ItemVals iv(tm.items);
    unsigned r = 0;
    for (int64_t j = 0; j < tm.items; ++j)
      for (unsigned a : direct)
        iv[j][a] = flat[r++];
    return iv;
  }
  /// The shared-memory slot of vector `c` of operand number `ai` (position
  /// in `direct`) of this thread.
  Value slot(OpBuilder &sb, unsigned ai, int64_t c) {
    Value i = arith::AddIOp::create(
        sb, loc, cI64(sb, loc, (ai * chunks + c) * k.tiling.blockThreads),
        k.threadId(sb));
    return LLVM::GEPOp::create(
        sb, loc, stageBase.getType(), sb.getI8Type(), stageBase,
        ArrayRef<LLVM::GEPArg>{
            arith::MulIOp::create(sb, loc, i, cI64(sb, loc, 16)).getResult()});
  }
  VectorType vecType(unsigned a) {
    return VectorType::get({tm.vw},
                           tensorTy(k.body.getArgument(a)).getElementType());
  }

  /// This tile's items in staged mode: from the staging slots when the
  /// previous iteration copied them there (`staged`), else from global
  /// memory.
  ItemVals stagedItems(OpBuilder &bb, Location l, Value staged) {
    auto ifOp = scf::IfOp::create(
        bb, l, staged,
        [&](OpBuilder &tb, Location tl) {
          NVVM::CpAsyncWaitGroupOp::create(tb, tl, 0);
          DenseMap<unsigned, SmallVector<Value>> vecs;
          for (auto [ai, a] : llvm::enumerate(direct))
            for (int64_t c = 0; c < chunks; ++c)
              vecs[a].push_back(LLVM::LoadOp::create(
                  tb, tl, vecType(a), slot(tb, ai, c), 16));
          SmallVector<Value> out;
          for (int64_t j = 0; j < tm.items; ++j)
            for (unsigned a : direct)
              out.push_back(LLVM::ExtractElementOp::create(
                  tb, tl, vecs[a][j / tm.vw], cI32(tb, tl, j % tm.vw)));
          scf::YieldOp::create(tb, tl, out);
        },
        [&](OpBuilder &eb, Location el) {
          scf::YieldOp::create(eb, el, flatten(loadItems(k, tm, eb, tm.full)));
        });
    return unflatten(ifOp.getResults());
  }

  /// scanBlock's hook once tile `t` is claimed: starts its loads (cp.async
  /// to the staging slots when it is full, in staged mode) with `t` as
  /// tm's current tile, then restores the current tile. Returns the loop's
  /// values for the next iteration (`iter1`: its count).
  SmallVector<Value> startNextTile(OpBuilder &nb, Value t, Value iter1) {
    Value saved[] = {tm.tile, tm.tileStart, tm.threadStart, tm.full};
    tm.setTile(nb, t);
    SmallVector<Value> next = {t, iter1};
    if (stageBytes) {
      Value nextFull = tm.full;
      scf::IfOp::create(nb, loc, nextFull, [&](OpBuilder &tb, Location tl) {
        for (auto [ai, a] : llvm::enumerate(direct))
          for (int64_t c = 0; c < chunks; ++c) {
            Value src =
                k.gep(tb, k.ptr[a], vecType(a), tm.vectorIndex(tb, c));
            // A vector of its own size (under 16 bytes where the tile's
            // vector width is capped: vector-width=2 over f32).
            emitCpAsync(tb, tl, slot(tb, ai, c), src,
                        byteWidth(vecType(a).getElementType()) * tm.vw);
          }
        NVVM::CpAsyncCommitGroupOp::create(tb, tl);
        scf::YieldOp::create(tb, tl);
      });
      next.push_back(nextFull);
    } else {
      next.append(flatten(loadItems(k, tm, nb, tm.full)));
    }
    std::tie(tm.tile, tm.tileStart, tm.threadStart, tm.full) =
        std::make_tuple(saved[0], saved[1], saved[2], saved[3]);
    return next;
  }
};

} // namespace

// No deadlock: a block claims its next tile only while it holds a
// smaller, unfinished one, so the smallest unfinished tile is always some
// block's current tile, and its look-back waits only on finished tiles.
// Claims alternate between the two smTile slots: the slot a claim writes
// was last read before the previous tile's second barrier. With
// tiling.stageTiles the next tile waits in shared memory instead.
void runTiles(TileKernel &k, TileMachinery &tm, OpBuilder &b, Value ntiles,
              function_ref<void(OpBuilder &, const ItemVals &)> body) {
  Location loc = k.loc;
  TileLoop loop(k, tm);
  if (loop.stageBytes)
    loop.stageBase = dynamicSharedBase(k.func, b, k.loc);
  Value falseV = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);

  Value slot0 = cI64(b, loc, 0);
  tm.claim(b, slot0);
  gpu::BarrierOp::create(b, loc);
  Value first = tm.claimed(b, slot0);
  tm.setTile(b, first);
  SmallVector<Value> init{first, slot0};
  if (loop.stageBytes)
    init.push_back(falseV);
  else
    init.append(loop.flatten(loadItems(k, tm, b, tm.full)));
  SmallVector<Type> types(ValueRange(init).getTypes());
  scf::WhileOp::create(
      b, loc, types, init,
      [&](OpBuilder &cb, Location l, ValueRange args) {
        Value more = cmpI(cb, l, arith::CmpIPredicate::slt, args[0], ntiles);
        scf::ConditionOp::create(cb, l, more, args);
      },
      [&](OpBuilder &bb, Location l, ValueRange args) {
        tm.setTile(bb, args[0]);
        Value iter1 = arith::AddIOp::create(bb, l, args[1], cI64(bb, l, 1));
        tm.nextSlot = arith::AndIOp::create(bb, l, iter1, cI64(bb, l, 1));
        ItemVals cur;
        if (loop.stageBytes)
          cur = loop.stagedItems(bb, l, args[2]);
        else
          cur = loop.unflatten(args.drop_front(2));
        SmallVector<Value> next;
        tm.onNextTile = [&](OpBuilder &nb, Value t) {
          next = loop.startNextTile(nb, t, iter1);
        };
        body(bb, cur);
        tm.nextSlot = Value();
        tm.onNextTile = nullptr;
        assert(next.size() == args.size() && "the tile body scans once");
        scf::YieldOp::create(bb, l, next);
      });
}

//===----------------------------------------------------------------------===//
// Group checks and kernel set-up
//===----------------------------------------------------------------------===//

SmallVector<Value> guarded(OpBuilder &b, Location loc, Value valid,
                           bool alwaysValid, ValueRange dflt,
                           function_ref<SmallVector<Value>(OpBuilder &)> fn) {
  if (alwaysValid)
    return fn(b);
  auto ifOp = scf::IfOp::create(
      b, loc, valid,
      [&](OpBuilder &tb, Location l) { scf::YieldOp::create(tb, l, fn(tb)); },
      [&](OpBuilder &eb, Location l) { scf::YieldOp::create(eb, l, dflt); });
  return SmallVector<Value>(ifOp.getResults());
}

LogicalResult checkRank1(GroupOp group, StringRef what) {
  auto bad = [&](Value v) {
    auto t = tensorTy(v);
    return t && t.getRank() > 1;
  };
  Block &body = group.getBody().front();
  for (BlockArgument a : body.getArguments())
    if (bad(a))
      return group.emitOpError("GPU code generation: a ")
             << what << " group over rank > 1 tensors is not supported yet";
  for (Operation &op : body) {
    for (Value r : op.getResults())
      if (bad(r))
        return group.emitOpError("GPU code generation: a ")
               << what << " group over rank > 1 tensors is not supported yet";
    if (isa<ReduceOp>(op))
      return op.emitOpError("GPU code generation: a reduction cannot be part "
                            "of a ")
             << what << " group";
    if (auto bc = dyn_cast<BroadcastOp>(op))
      if (tensorTy(bc.getInput()).getRank() != 0)
        return op.emitOpError("GPU code generation: only rank-0 broadcasts "
                              "are supported in a ")
               << what << " group";
  }
  for (Value y : group.getYield().getValues())
    if (tensorTy(y).getRank() != 1)
      return group.emitOpError("GPU code generation: every result of a ")
             << what << " group must be rank 1";
  return success();
}

int64_t tileBlocksPerSM(const Tiling &tiling, bool staged) {
  return (staged ? 1024 : 768) / tiling.blockThreads;
}

void setTileOccupancy(gpu::GPUFuncOp f, const Tiling &tiling, bool staged) {
  int64_t blocks = tileBlocksPerSM(tiling, staged);
  if (blocks >= 1)
    f->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
               OpBuilder(f.getContext()).getI32IntegerAttr(blocks));
}

SmallVector<Type> tileParams(GroupOp group, unsigned numOuts) {
  MLIRContext *ctx = group.getContext();
  SmallVector<Type> types = commonParams(group);
  auto i64 = IntegerType::get(ctx, 64);
  types.append({i64, i64, IntegerType::get(ctx, 32), globalPtr(ctx)});
  types.append(numOuts, globalPtr(ctx));
  return types;
}

} // namespace gpugen
} // namespace fuse
