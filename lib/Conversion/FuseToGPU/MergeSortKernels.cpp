//===- MergeSortKernels.cpp - kernels of comparator sorts -----------------===//
//
// The `tile`, `partition` and `merge` kernels of a comparator sort
// (MergeSort.h). Global positions are i64; the merges in shared memory run
// on i32 positions (below a tile), which halves their integer arithmetic
// (the kernels are bound by the integer pipe, not by memory). A sort that can
// carry positions (MergeSortPlan::carriesPositions) gets its output loops once
// a CarryMode, under a branch on the kernel's mode parameter (uniform).
//
//===----------------------------------------------------------------------===//

#include "MergeSort.h"

#include "KernelGen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;

namespace fuse {
namespace gpugen {

SmallVector<SortOp> comparatorSorts(func::FuncOp fn) {
  SmallVector<SortOp> sorts;
  for (Operation &op : fn.getBody().front())
    if (auto s = dyn_cast<SortOp>(op); s && s.hasComparator())
      sorts.push_back(s);
  return sorts;
}

FailureOr<MergeSortPlan> planMergeSort(SortOp op, StringRef entry,
                                       unsigned index) {
  MergeSortPlan p;
  p.op = op;
  p.keyType = op.getKeys().getType().getElementType();
  if (Value v = op.getCarried())
    p.valueType = cast<RankedTensorType>(v.getType()).getElementType();
  p.positions = op.hasPositions();
  for (Type t : {p.keyType, p.valueType})
    if (t && (t.isInteger(1) || !t.isIntOrFloat()))
      return op.emitOpError("GPU code generation: a comparator sort of ")
             << t << " elements is not supported (i1 tensors are not "
             << "stored on the GPU)";
  llvm::SetVector<Value> outside;
  getUsedValuesDefinedAbove(op.getComparator(), outside);
  for (Value v : outside)
    if (!v.getDefiningOp() ||
        !v.getDefiningOp()->hasTrait<OpTrait::ConstantLike>())
      return op.emitOpError("GPU code generation: the comparator region "
                            "reads a value computed outside it; only "
                            "constants can be used there on the GPU");
  // Merge blocks search their own bounds while a pass is one wave of them
  // (the resident blocks by threads and shared memory; registers are not
  // known here), the partition kernel's launch and latency then being
  // the pass's to pay; past it, other blocks hide a block's search
  // (docs/performance.md, "Comparator sorts").
  TargetAttr target = TargetAttr::lookup(op);
  int64_t resident =
      std::min(target.getMaxThreadsPerSM() / p.blockThreads,
               target.getSharedMemoryPerSM() / p.mergeSharedBytes());
  p.selfSearchBlocks = target.getSmCount() * std::max<int64_t>(resident, 1);
  p.searchThreads = target.getSmCount() * 128;
  std::string prefix = (entry + "_sort" + Twine(index)).str();
  p.tileKernel = prefix + "_tile";
  p.partitionKernel = prefix + "_partition";
  p.mergeKernel = prefix + "_merge";
  return p;
}

namespace {

using KeyAt = function_ref<Value(OpBuilder &, Value pos)>;
/// Writes output `k`: `key`, read from position `from` (both of the
/// merge's position type).
using EmitFn = function_ref<void(OpBuilder &, Value k, Value key, Value from)>;

Value c64(OpBuilder &b, Location loc, int64_t v) { return cI64(b, loc, v); }
/// Constant `v` of `like`'s integer type: the merges run in i32 where
/// their positions are in shared memory, in i64 over a global array.
Value cLike(OpBuilder &b, Location loc, Value like, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, like.getType(), v);
}
Value add(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y);
}
Value sub(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::SubIOp::create(b, loc, x, y);
}
Value minS(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MinSIOp::create(b, loc, x, y);
}
Value maxS(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MaxSIOp::create(b, loc, x, y);
}
Value lt(OpBuilder &b, Location loc, Value x, Value y) {
  return cmpI(b, loc, arith::CmpIPredicate::slt, x, y);
}

/// Builds a kernel's pieces: the comparator, global loads and stores.
struct SortKernelBuilder {
  const MergeSortPlan &plan;
  /// The plan's op (its accessors are not const).
  mutable SortOp op;
  Location loc;

  /// Whether key `x` goes strictly before key `y` in the sort's order: the
  /// comparator region inlined (arguments swapped for `descending`).
  Value before(OpBuilder &b, Value x, Value y) const {
    if (op.isDescending())
      std::swap(x, y);
    Region &comparator = op.getComparator();
    Block &block = comparator.front();
    IRMapping map;
    map.map(block.getArgument(0), x);
    map.map(block.getArgument(1), y);
    // Constants the region reads from the function (where canonicalization
    // hoists them) are cloned into the kernel; planMergeSort rejects any
    // other value from outside.
    llvm::SetVector<Value> outside;
    getUsedValuesDefinedAbove(comparator, outside);
    for (Value v : outside)
      map.map(v, b.clone(*v.getDefiningOp())->getResult(0));
    for (Operation &inner : block.without_terminator())
      b.clone(inner, map);
    return map.lookupOrDefault(
        cast<YieldOp>(block.getTerminator()).getValues()[0]);
  }

  Value gep(OpBuilder &b, Value base, Type t, Value idx) const {
    return LLVM::GEPOp::create(b, loc, base.getType(), t, base,
                               ArrayRef<LLVM::GEPArg>{idx});
  }
  Value load(OpBuilder &b, Type t, Value base, Value idx) const {
    return LLVM::LoadOp::create(b, loc, t, gep(b, base, t, idx), byteWidth(t));
  }
  void store(OpBuilder &b, Value v, Value base, Value idx) const {
    LLVM::StoreOp::create(b, loc, v, gep(b, base, v.getType(), idx),
                          byteWidth(v.getType()));
  }

  /// The candidates [max(0, d - lb), min(d, la)] for how many of the first
  /// `d` outputs of merging [lo, mid) and [mid, hi) come from the left run.
  std::pair<Value, Value> pathRange(OpBuilder &b, Value lo, Value mid, Value hi,
                                    Value d) const {
    Value la = sub(b, loc, mid, lo);
    Value lb = sub(b, loc, hi, mid);
    return {maxS(b, loc, cLike(b, loc, d, 0), sub(b, loc, d, lb)),
            minS(b, loc, d, la)};
  }

  /// How many of the first `d` outputs of merging [lo, mid) and [mid, hi)
  /// come from the left run: the first m in [max(0, d - lb), min(d, la))
  /// whose left key the right key at d - 1 - m goes strictly before (la
  /// where there is none). The positions are all of one integer type.
  Value mergePath(OpBuilder &b, KeyAt keyAt, Value lo, Value mid, Value hi,
                  Value d) const {
    auto [first, last] = pathRange(b, lo, mid, hi, d);
    Type t = d.getType();
    auto search = scf::WhileOp::create(
        b, loc, TypeRange{t, t}, ValueRange{first, last},
        [&](OpBuilder &wb, Location l, ValueRange a) {
          scf::ConditionOp::create(wb, l, lt(wb, l, a[0], a[1]), a);
        },
        [&](OpBuilder &wb, Location l, ValueRange a) {
          Value one = cLike(wb, l, d, 1);
          Value m = arith::ShRUIOp::create(wb, l, add(wb, l, a[0], a[1]), one);
          Value left = keyAt(wb, add(wb, l, lo, m));
          Value right =
              keyAt(wb, sub(wb, l, add(wb, l, mid, d), add(wb, l, m, one)));
          Value rightFirst = before(wb, right, left);
          scf::YieldOp::create(
              wb, l,
              ValueRange{sel(wb, l, rightFirst, a[0], add(wb, l, m, one)),
                         sel(wb, l, rightFirst, m, a[1])});
        });
    return search.getResult(0);
  }

  /// Outputs [k0, k0 + count) of merging [lo, mid) and [mid, hi) (those
  /// below hi; k0 < hi): a merge-path search for k0, then `count`
  /// sequential steps. The two runs' next keys stay in registers and a step
  /// reads one key, the successor of the one it took (as CUB's serial
  /// merge). Every read is clamped to hi - 1, so it stays in [lo, hi): a
  /// key read past its run's end is never taken (its run counts as done).
  void mergeChunk(OpBuilder &b, KeyAt keyAt, EmitFn emit, Value lo, Value mid,
                  Value hi, Value k0, int64_t count) const {
    Value one = cLike(b, loc, lo, 1);
    Value d0 = sub(b, loc, k0, lo);
    Value i = mergePath(b, keyAt, lo, mid, hi, d0);
    // The next unread positions of the left and the right run.
    Value li = add(b, loc, lo, i);
    Value rj = add(b, loc, mid, sub(b, loc, d0, i));
    Value lastAny = sub(b, loc, hi, one);
    Value left = keyAt(b, minS(b, loc, li, lastAny));
    Value right = keyAt(b, minS(b, loc, rj, lastAny));
    for (int64_t s = 0; s < count; ++s) {
      Value k = add(b, loc, k0, cLike(b, loc, k0, s));
      Value leftDone = cmpI(b, loc, arith::CmpIPredicate::sge, li, mid);
      Value rightLeft = lt(b, loc, rj, hi);
      Value takeRight = arith::OrIOp::create(
          b, loc, leftDone,
          arith::AndIOp::create(b, loc, rightLeft, before(b, right, left)));
      Value key = sel(b, loc, takeRight, right, left);
      Value from = sel(b, loc, takeRight, rj, li);
      scf::IfOp::create(b, loc, lt(b, loc, k, hi),
                        [&](OpBuilder &ib, Location l) {
                          emit(ib, k, key, from);
                          scf::YieldOp::create(ib, l);
                        });
      if (s + 1 == count)
        break;
      Value step = arith::ExtUIOp::create(b, loc, lo.getType(), takeRight);
      rj = add(b, loc, rj, step);
      li = add(b, loc, li, sub(b, loc, one, step));
      Value next =
          keyAt(b, minS(b, loc, sel(b, loc, takeRight, rj, li), lastAny));
      left = sel(b, loc, takeRight, left, next);
      right = sel(b, loc, takeRight, next, right);
    }
  }

  /// Thread and block ids as i64.
  Value threadId(OpBuilder &b) const {
    return toI64(b, loc, gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  }
  Value blockId(OpBuilder &b) const {
    return toI64(b, loc, gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  }

  /// The kernels' first parameters: keysIn, [valuesIn], keysOut,
  /// [valuesOut] (global pointers; the values' only with values).
  SmallVector<Type> arrayParams(MLIRContext *ctx) const {
    Type gptr = globalPtr(ctx);
    return SmallVector<Type>(plan.hasValues() ? 4 : 2, gptr);
  }
  /// Those parameters of `f` (null values without values), and the index
  /// of the next one.
  struct Arrays {
    Value keysIn, valuesIn, keysOut, valuesOut;
    unsigned next;
  };
  Arrays arrays(gpu::GPUFuncOp f) const {
    if (!plan.hasValues())
      return {f.getArgument(0), Value(), f.getArgument(1), Value(), 2};
    return {f.getArgument(0), f.getArgument(1), f.getArgument(2),
            f.getArgument(3), 4};
  }

  /// Where a merge pass's run pair around output `k` lies: [lo, mid) and
  /// [mid, hi) for runs of `w` of `n` keys.
  struct Pair {
    Value lo, mid, hi;
  };
  Pair pairAt(OpBuilder &b, Value k, Value w, Value n) const {
    Value two = arith::AddIOp::create(b, loc, w, w);
    Value lo = sub(b, loc, k, arith::RemUIOp::create(b, loc, k, two));
    return {lo, minS(b, loc, arith::AddIOp::create(b, loc, lo, w), n),
            minS(b, loc, arith::AddIOp::create(b, loc, lo, two), n)};
  }

  /// Emits `body` once for each of `modes` the kernel can run in: only
  /// for the first where the plan never carries positions, else under
  /// branches on `mode` (the kernel's CarryMode parameter).
  void forEachMode(OpBuilder &b, Value mode, ArrayRef<CarryMode> modes,
                   function_ref<void(OpBuilder &, CarryMode)> body) const {
    if (!plan.carriesPositions() || modes.size() == 1) {
      body(b, modes.front());
      return;
    }
    Value is = cmpI(b, loc, arith::CmpIPredicate::eq, mode,
                    c64(b, loc, static_cast<int64_t>(modes.front())));
    scf::IfOp::create(
        b, loc, is,
        [&](OpBuilder &ib, Location l) {
          body(ib, modes.front());
          scf::YieldOp::create(ib, l);
        },
        [&](OpBuilder &eb, Location l) {
          forEachMode(eb, mode, modes.drop_front(), body);
          scf::YieldOp::create(eb, l);
        });
  }

  Value groupSearch(OpBuilder &b, Value keysIn, Value n, Pair r, Value d,
                    Value live, Value lane, Value groupBit, Value shift) const;
  void buildTile(gpu::GPUModuleOp m) const;
  void buildPartition(gpu::GPUModuleOp m) const;
  void buildMerge(gpu::GPUModuleOp m) const;
  void sortInRegisters(OpBuilder &b, SmallVector<Value> &keys,
                       SmallVector<Value> &pos, ArrayRef<Value> valid) const;
};

/// Sorts `keys` (with their positions `pos`) stably: adjacent
/// compare-exchanges, bubble-sort order, a pair swapped only when the
/// second key is valid and strictly before the first (the invalid keys,
/// past the tile's end, are the last ones).
void SortKernelBuilder::sortInRegisters(OpBuilder &b, SmallVector<Value> &keys,
                                        SmallVector<Value> &pos,
                                        ArrayRef<Value> valid) const {
  int64_t n = keys.size();
  for (int64_t pass = n - 1; pass > 0; --pass)
    for (int64_t a = 0; a < pass; ++a) {
      Value swap = arith::AndIOp::create(b, loc, valid[a + 1],
                                         before(b, keys[a + 1], keys[a]));
      Value k0 = sel(b, loc, swap, keys[a + 1], keys[a]);
      Value k1 = sel(b, loc, swap, keys[a], keys[a + 1]);
      Value p0 = sel(b, loc, swap, pos[a + 1], pos[a]);
      Value p1 = sel(b, loc, swap, pos[a], pos[a + 1]);
      keys[a] = k0, keys[a + 1] = k1, pos[a] = p0, pos[a + 1] = p1;
    }
}

void SortKernelBuilder::buildTile(gpu::GPUModuleOp m) const {
  MLIRContext *ctx = m.getContext();
  OpBuilder tb(ctx);
  Type i64 = tb.getI64Type(), i32 = tb.getI32Type();
  int64_t tile = plan.tile(), items = plan.items, bt = plan.blockThreads;
  auto wg = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto keyBuf =
      MemRefType::get({tile}, plan.keyType, MemRefLayoutAttrInterface{}, wg);
  auto posBuf = MemRefType::get({tile}, i32, MemRefLayoutAttrInterface{}, wg);
  // keysIn, [valuesIn], keysOut, [valuesOut], n, [mode]: in mode
  // Positions, valuesOut receives i32 positions.
  SmallVector<Type> params = arrayParams(ctx);
  params.push_back(i64);
  if (plan.carriesPositions())
    params.push_back(i64);
  gpu::GPUFuncOp f =
      createKernel(m, loc, plan.tileKernel, params,
                   TypeRange{keyBuf, keyBuf, posBuf, posBuf}, bt);
  OpBuilder b = OpBuilder::atBlockEnd(&f.getBody().front());
  Arrays io = arrays(f);
  Value n = f.getArgument(io.next);
  Value mode = plan.carriesPositions() ? f.getArgument(io.next + 1) : Value();
  ArrayRef<BlockArgument> smem = f.getWorkgroupAttributions();
  Value keyS[2] = {smem[0], smem[1]}, posS[2] = {smem[2], smem[3]};

  Value tid = threadId(b);
  Value base = arith::MulIOp::create(b, loc, blockId(b), c64(b, loc, tile));
  Value cnt =
      minS(b, loc, c64(b, loc, tile), arith::SubIOp::create(b, loc, n, base));
  Value c0 = arith::MulIOp::create(b, loc, tid, c64(b, loc, items));
  auto idx = [&](OpBuilder &ib, Value v) { return toIndex(ib, loc, v); };

  // This thread's run of `items` keys, sorted in registers.
  SmallVector<Value> keys, pos, valid;
  Value lastInTile = arith::SubIOp::create(b, loc, cnt, c64(b, loc, 1));
  for (int64_t s = 0; s < items; ++s) {
    Value p = arith::AddIOp::create(b, loc, c0, c64(b, loc, s));
    valid.push_back(lt(b, loc, p, cnt));
    Value at = arith::AddIOp::create(b, loc, base, minS(b, loc, p, lastInTile));
    keys.push_back(load(b, plan.keyType, io.keysIn, at));
    pos.push_back(arith::TruncIOp::create(b, loc, i32, p));
  }
  sortInRegisters(b, keys, pos, valid);
  for (int64_t s = 0; s < items; ++s)
    scf::IfOp::create(b, loc, valid[s], [&](OpBuilder &ib, Location l) {
      Value p = idx(ib, arith::AddIOp::create(ib, l, c0, c64(ib, l, s)));
      memref::StoreOp::create(ib, l, keys[s], keyS[0], ValueRange{p});
      memref::StoreOp::create(ib, l, pos[s], posS[0], ValueRange{p});
      scf::YieldOp::create(ib, l);
    });
  gpu::BarrierOp::create(b, loc);

  // Runs of w keys merged into runs of 2w in shared memory, ping-pong,
  // with i32 positions (below the tile).
  Value c0w = arith::TruncIOp::create(b, loc, i32, c0);
  Value cntw = arith::TruncIOp::create(b, loc, i32, cnt);
  int cur = 0;
  for (int64_t w = items; w < tile; w *= 2, cur ^= 1) {
    Value src = keyS[cur], dst = keyS[cur ^ 1];
    Value srcPos = posS[cur], dstPos = posS[cur ^ 1];
    scf::IfOp::create(
        b, loc, lt(b, loc, c0w, cntw), [&](OpBuilder &ib, Location l) {
          Pair r = pairAt(ib, c0w, cI32(ib, l, w), cntw);
          auto keyAt = [&](OpBuilder &kb, Value p) -> Value {
            return memref::LoadOp::create(kb, l, src, ValueRange{idx(kb, p)});
          };
          auto emit = [&](OpBuilder &eb, Value k, Value key, Value from) {
            Value p = memref::LoadOp::create(eb, l, srcPos,
                                             ValueRange{idx(eb, from)});
            memref::StoreOp::create(eb, l, key, dst, ValueRange{idx(eb, k)});
            memref::StoreOp::create(eb, l, p, dstPos, ValueRange{idx(eb, k)});
          };
          mergeChunk(ib, keyAt, emit, r.lo, r.mid, r.hi, c0w, items);
          scf::YieldOp::create(ib, l);
        });
    gpu::BarrierOp::create(b, loc);
  }

  // The sorted tile out, coalesced; values gathered from the positions (or
  // the positions in the input written).
  auto storeTile = [&](OpBuilder &ob, CarryMode carry) {
    for (int64_t s = 0; s < items; ++s) {
      Value p = arith::AddIOp::create(ob, loc, tid, c64(ob, loc, s * bt));
      scf::IfOp::create(
          ob, loc, lt(ob, loc, p, cnt), [&](OpBuilder &ib, Location l) {
            Value at = arith::AddIOp::create(ib, l, base, p);
            Value key = memref::LoadOp::create(ib, l, keyS[cur],
                                               ValueRange{idx(ib, p)});
            store(ib, key, io.keysOut, at);
            if (plan.hasValues()) {
              Value from = memref::LoadOp::create(ib, l, posS[cur],
                                                  ValueRange{idx(ib, p)});
              Value src = arith::AddIOp::create(
                  ib, l, base, arith::ExtUIOp::create(ib, l, i64, from));
              Value v;
              if (carry == CarryMode::Positions)
                v = arith::TruncIOp::create(ib, l, i32, src);
              else if (carry == CarryMode::WidePositions)
                v = src;
              else
                v = load(ib, plan.valueType, io.valuesIn, src);
              store(ib, v, io.valuesOut, at);
            }
            scf::YieldOp::create(ib, l);
          });
    }
  };
  // A positions sort writes its i64 positions where another reads values.
  CarryMode direct =
      plan.positions ? CarryMode::WidePositions : CarryMode::Values;
  forEachMode(b, mode, {direct, CarryMode::Positions}, storeTile);
  gpu::ReturnOp::create(b, loc);
}

/// The merge path's answer for diagonal `d` of the pair [lo, mid), [mid,
/// hi) of `keysIn` (n keys), as mergePath would find it, searched by a
/// group of 2^shift lanes (`lane` this one's place in it, `groupBit` its
/// first lane's bit in a ballot; `live` false: an empty range): the
/// group's first L = 2^shift - 1 lanes test candidates c_1 .. c_L, with
/// c_j = f + j * len / (L + 1), of the range [f, e) left, and the first
/// whose test holds (a ballot) bounds the next range, about L + 1 times
/// smaller. The search's steps are dependent global loads, its whole
/// time; more lanes cut the steps (runs of 2^23 keys: 23 binary, 8 with 8
/// lanes) and add loads. The loop runs while any group of the warp has
/// candidates left (so the ballots see all 32 lanes); a finished group's
/// lanes read clamped positions and keep their range.
Value SortKernelBuilder::groupSearch(OpBuilder &b, Value keysIn, Value n,
                                     Pair r, Value d, Value live, Value lane,
                                     Value groupBit, Value shift) const {
  Type i64 = b.getI64Type();
  Value zero = c64(b, loc, 0), one = c64(b, loc, 1);
  Value lanes = arith::ShLIOp::create(b, loc, one, shift);
  auto [lowest, highest] = pathRange(b, r.lo, r.mid, r.hi, d);
  Value first = sel(b, loc, live, lowest, zero);
  Value last = sel(b, loc, live, highest, zero);
  Value lastKey = sub(b, loc, n, one);
  // The lanes that test (all but the group's last) and the bit past them.
  Value tests = sub(b, loc, lanes, one);
  Value none = arith::ShLIOp::create(b, loc, one, tests);
  Value testMask = sub(b, loc, none, one);
  auto ballot = [&](OpBuilder &wb, Location wl, Value pred) {
    return arith::ExtUIOp::create(wb, wl, i64, warpBallot(wb, wl, pred));
  };
  // The answer lies in [f, e] (e: no left key is taken after).
  auto search = scf::WhileOp::create(
      b, loc, TypeRange{i64, i64}, ValueRange{first, last},
      [&](OpBuilder &wb, Location wl, ValueRange a) {
        Value any = cmpI(wb, wl, arith::CmpIPredicate::ne,
                         ballot(wb, wl, lt(wb, wl, a[0], a[1])), zero);
        scf::ConditionOp::create(wb, wl, any, a);
      },
      [&](OpBuilder &wb, Location wl, ValueRange a) {
        Value fb = a[0], len = sub(wb, wl, a[1], a[0]);
        // c_j; c_lanes is e.
        auto at = [&](Value j) {
          return add(wb, wl, fb,
                     arith::ShRUIOp::create(
                         wb, wl, arith::MulIOp::create(wb, wl, j, len), shift));
        };
        // Lane l tests c_{l+1}; the last lane's test is ignored. A finished
        // group's reads are clamped to the array.
        Value mm = at(add(wb, wl, lane, one));
        Value li = minS(wb, wl, add(wb, wl, r.lo, mm), lastKey);
        Value rj =
            minS(wb, wl,
                 maxS(wb, wl,
                      sub(wb, wl, add(wb, wl, r.mid, d), add(wb, wl, mm, one)),
                      zero),
                 lastKey);
        Value left = load(wb, plan.keyType, keysIn, li);
        Value right = load(wb, plan.keyType, keysIn, rj);
        Value bits = arith::ShRUIOp::create(
            wb, wl, ballot(wb, wl, before(wb, right, left)), groupBit);
        // The first lane whose test holds, lanes - 1 where none does.
        Value j = LLVM::CountTrailingZerosOp::create(
            wb, wl, i64,
            arith::OrIOp::create(
                wb, wl, arith::AndIOp::create(wb, wl, bits, testMask), none),
            /*is_zero_poison=*/false);
        Value atFirst = cmpI(wb, wl, arith::CmpIPredicate::eq, j, zero);
        Value nf = sel(wb, wl, atFirst, fb, add(wb, wl, at(j), one));
        Value ne = at(add(wb, wl, j, one));
        Value active = lt(wb, wl, a[0], a[1]);
        scf::YieldOp::create(wb, wl,
                             ValueRange{sel(wb, wl, active, nf, a[0]),
                                        sel(wb, wl, active, ne, a[1])});
      });
  return search.getResult(0);
}

/// Finds where each merge block starts (how many of its pair's outputs
/// before the block's first come from the left run): a group of 2^shift
/// lanes a block (groupSearch), the shift a parameter the host picks from
/// the number of searches.
void SortKernelBuilder::buildPartition(gpu::GPUModuleOp m) const {
  MLIRContext *ctx = m.getContext();
  Type i64 = IntegerType::get(ctx, 64);
  // keysIn, n, w, splits, blocks, shift
  gpu::GPUFuncOp f =
      createKernel(m, loc, plan.partitionKernel,
                   {globalPtr(ctx), i64, i64, globalPtr(ctx), i64, i64},
                   TypeRange{}, plan.blockThreads);
  OpBuilder b = OpBuilder::atBlockEnd(&f.getBody().front());
  Value keysIn = f.getArgument(0), n = f.getArgument(1), w = f.getArgument(2),
        splits = f.getArgument(3), blocks = f.getArgument(4),
        shift = f.getArgument(5);
  Value tid = threadId(b), zero = c64(b, loc, 0), one = c64(b, loc, 1);
  Value lanes = arith::ShLIOp::create(b, loc, one, shift);
  Value lane = arith::AndIOp::create(b, loc, tid, sub(b, loc, lanes, one));
  // This group's bits in a ballot: its first lane's.
  Value groupBit = arith::AndIOp::create(
      b, loc, arith::SubIOp::create(b, loc, tid, lane), c64(b, loc, 31));
  Value g = add(
      b, loc,
      arith::MulIOp::create(b, loc, blockId(b),
                            arith::ShRUIOp::create(
                                b, loc, c64(b, loc, plan.blockThreads), shift)),
      arith::ShRUIOp::create(b, loc, tid, shift));
  // Groups past the last block search an empty range (f = e = 0).
  Value live = lt(b, loc, g, blocks);
  Value gl = minS(b, loc, g, sub(b, loc, blocks, one));
  Value k = arith::MulIOp::create(b, loc, gl, c64(b, loc, plan.mergeTile()));
  Pair r = pairAt(b, k, w, n);
  Value found = groupSearch(b, keysIn, n, r, sub(b, loc, k, r.lo), live, lane,
                            groupBit, shift);
  scf::IfOp::create(
      b, loc,
      arith::AndIOp::create(b, loc, live,
                            cmpI(b, loc, arith::CmpIPredicate::eq, lane, zero)),
      [&](OpBuilder &sb, Location sl) {
        store(sb, found, splits, g);
        scf::YieldOp::create(sb, sl);
      });
  gpu::ReturnOp::create(b, loc);
}

void SortKernelBuilder::buildMerge(gpu::GPUModuleOp m) const {
  MLIRContext *ctx = m.getContext();
  OpBuilder tb(ctx);
  Type i64 = tb.getI64Type(), i32 = tb.getI32Type();
  int64_t bt = plan.blockThreads, span = plan.mergeTile();
  auto wg = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto keyBuf =
      MemRefType::get({span}, plan.keyType, MemRefLayoutAttrInterface{}, wg);
  auto posBuf = MemRefType::get({span}, i32, MemRefLayoutAttrInterface{}, wg);
  auto boundsBuf = MemRefType::get({2}, i64, MemRefLayoutAttrInterface{}, wg);
  // keysIn, [valuesIn], keysOut, [valuesOut], n, w, splits, search,
  // [mode, values]: `search` 1, the block finds its own start and end
  // (splits unused); in mode Positions, valuesIn and valuesOut hold i32
  // positions; in GatherValues, valuesIn positions and valuesOut the values
  // at those positions of `values` (the sort's input).
  SmallVector<Type> params = arrayParams(ctx);
  params.append({i64, i64, globalPtr(ctx), i64});
  if (plan.carriesPositions())
    params.append({i64, globalPtr(ctx)});
  gpu::GPUFuncOp f =
      createKernel(m, loc, plan.mergeKernel, params,
                   TypeRange{keyBuf, keyBuf, posBuf, boundsBuf}, bt);
  OpBuilder b = OpBuilder::atBlockEnd(&f.getBody().front());
  Arrays io = arrays(f);
  unsigned a = io.next;
  Value n = f.getArgument(a), w = f.getArgument(a + 1),
        splits = f.getArgument(a + 2), selfSearch = f.getArgument(a + 3);
  Value mode = plan.carriesPositions() ? f.getArgument(a + 4) : Value();
  Value values = plan.carriesPositions() ? f.getArgument(a + 5) : Value();
  ArrayRef<BlockArgument> smem = f.getWorkgroupAttributions();
  Value inS = smem[0], outS = smem[1], fromS = smem[2], boundsS = smem[3];
  auto idx = [&](OpBuilder &ib, Value v) { return toIndex(ib, loc, v); };

  // This block's outputs [k0, k1) take left keys [a0, a1) and right keys
  // [b0, b1) of their run pair.
  Value blk = blockId(b), tid = threadId(b);
  Value k0 = arith::MulIOp::create(b, loc, blk, c64(b, loc, span));
  Pair r = pairAt(b, k0, w, n);
  Value k1 =
      minS(b, loc, arith::AddIOp::create(b, loc, k0, c64(b, loc, span)), r.hi);
  // How many of the pair's outputs before k0 (i0) and before k1 (i1) come
  // from the left run: searched by the block's first two warps, or read
  // from the partition kernel's splits.
  auto ends = scf::IfOp::create(
      b, loc, TypeRange{i64, i64},
      cmpI(b, loc, arith::CmpIPredicate::ne, selfSearch, c64(b, loc, 0)),
      /*addThenBlock=*/true, /*addElseBlock=*/true);
  {
    OpBuilder ib = ends.getThenBodyBuilder();
    scf::IfOp::create(
        ib, loc, lt(ib, loc, tid, c64(ib, loc, 64)),
        [&](OpBuilder &sb, Location l) {
          Value warp = arith::ShRUIOp::create(sb, l, tid, c64(sb, l, 5));
          Value lane = arith::AndIOp::create(sb, l, tid, c64(sb, l, 31));
          Value at = sel(
              sb, l, cmpI(sb, l, arith::CmpIPredicate::eq, warp, c64(sb, l, 0)),
              k0, k1);
          Value zero = c64(sb, l, 0);
          Value found =
              groupSearch(sb, io.keysIn, n, r, sub(sb, l, at, r.lo),
                          cBool(sb, l, true), lane, zero, c64(sb, l, 5));
          scf::IfOp::create(
              sb, l, cmpI(sb, l, arith::CmpIPredicate::eq, lane, zero),
              [&](OpBuilder &wb, Location wl) {
                memref::StoreOp::create(wb, wl, found, boundsS,
                                        ValueRange{idx(wb, warp)});
                scf::YieldOp::create(wb, wl);
              });
          scf::YieldOp::create(sb, l);
        });
    gpu::BarrierOp::create(ib, loc);
    Value first = memref::LoadOp::create(ib, loc, boundsS,
                                         ValueRange{idx(ib, c64(ib, loc, 0))});
    Value second = memref::LoadOp::create(ib, loc, boundsS,
                                          ValueRange{idx(ib, c64(ib, loc, 1))});
    scf::YieldOp::create(ib, loc, ValueRange{first, second});
  }
  {
    OpBuilder ib = ends.getElseBodyBuilder();
    Value first = load(ib, i64, splits, blk);
    // The block that ends its pair takes the rest of the left run.
    // splits[blk + 1] exists where this block does not end its pair (the
    // array's last block does), and is read only then.
    Value last = cmpI(ib, loc, arith::CmpIPredicate::eq, k1, r.hi);
    Value la = arith::SubIOp::create(ib, loc, r.mid, r.lo);
    auto readNext = scf::IfOp::create(
        ib, loc, last,
        [&](OpBuilder &nb, Location l) { scf::YieldOp::create(nb, l, la); },
        [&](OpBuilder &nb, Location l) {
          Value nx = arith::AddIOp::create(nb, l, blk, c64(nb, l, 1));
          scf::YieldOp::create(nb, l, load(nb, i64, splits, nx));
        });
    scf::YieldOp::create(ib, loc, ValueRange{first, readNext.getResult(0)});
  }
  Value i0 = ends.getResult(0), i1 = ends.getResult(1);
  Value a0 = arith::AddIOp::create(b, loc, r.lo, i0);
  // Right keys before output k0: (k0 - lo) - i0.
  Value b0 = arith::AddIOp::create(
      b, loc, r.mid,
      arith::SubIOp::create(b, loc, arith::SubIOp::create(b, loc, k0, r.lo),
                            i0));
  Value cnt = arith::SubIOp::create(b, loc, k1, k0);
  // The block's left keys, i1 - i0, within what the runs hold from a0 and
  // b0: the same count for a strict weak order, and for a comparator that
  // is none (whose searches need not agree between blocks) every read
  // stays in the pair of runs.
  Value fewest =
      maxS(b, loc, c64(b, loc, 0), sub(b, loc, cnt, sub(b, loc, r.hi, b0)));
  Value most = minS(b, loc, cnt, sub(b, loc, r.mid, a0));
  Value na = minS(b, loc, maxS(b, loc, sub(b, loc, i1, i0), fewest), most);
  // Input p of the block (p < cnt): left key p, or right key p - na.
  auto source = [&](OpBuilder &sb, Value p) {
    return sel(sb, loc, lt(sb, loc, p, na),
               arith::AddIOp::create(sb, loc, a0, p),
               arith::AddIOp::create(sb, loc, b0,
                                     arith::SubIOp::create(sb, loc, p, na)));
  };
  for (int64_t s = 0; s < plan.mergeItems; ++s) {
    Value p = arith::AddIOp::create(b, loc, tid, c64(b, loc, s * bt));
    scf::IfOp::create(
        b, loc, lt(b, loc, p, cnt), [&](OpBuilder &ib, Location l) {
          Value key = load(ib, plan.keyType, io.keysIn, source(ib, p));
          memref::StoreOp::create(ib, l, key, inS, ValueRange{idx(ib, p)});
          scf::YieldOp::create(ib, l);
        });
  }
  gpu::BarrierOp::create(b, loc);

  // Each thread merges mergeItems outputs of the two runs in shared memory,
  // with i32 positions (below mergeTile).
  Value t0 = arith::TruncIOp::create(
      b, loc, i32,
      arith::MulIOp::create(b, loc, tid, c64(b, loc, plan.mergeItems)));
  Value naw = arith::TruncIOp::create(b, loc, i32, na);
  Value cntw = arith::TruncIOp::create(b, loc, i32, cnt);
  scf::IfOp::create(
      b, loc, lt(b, loc, t0, cntw), [&](OpBuilder &ib, Location l) {
        auto keyAt = [&](OpBuilder &kb, Value p) -> Value {
          return memref::LoadOp::create(kb, l, inS, ValueRange{idx(kb, p)});
        };
        auto emit = [&](OpBuilder &eb, Value k, Value key, Value from) {
          memref::StoreOp::create(eb, l, key, outS, ValueRange{idx(eb, k)});
          memref::StoreOp::create(eb, l, from, fromS, ValueRange{idx(eb, k)});
        };
        mergeChunk(ib, keyAt, emit, cI32(ib, l, 0), naw, cntw, t0,
                   plan.mergeItems);
        scf::YieldOp::create(ib, l);
      });
  gpu::BarrierOp::create(b, loc);

  // The outputs out, coalesced; values (or positions) gathered from the
  // inputs' places.
  auto storeOutputs = [&](OpBuilder &ob, CarryMode carry) {
    for (int64_t s = 0; s < plan.mergeItems; ++s) {
      Value p = arith::AddIOp::create(ob, loc, tid, c64(ob, loc, s * bt));
      scf::IfOp::create(
          ob, loc, lt(ob, loc, p, cnt), [&](OpBuilder &ib, Location l) {
            Value at = arith::AddIOp::create(ib, l, k0, p);
            store(ib,
                  memref::LoadOp::create(ib, l, outS, ValueRange{idx(ib, p)}),
                  io.keysOut, at);
            if (plan.hasValues()) {
              Value from =
                  source(ib, arith::ExtUIOp::create(
                                 ib, l, i64,
                                 memref::LoadOp::create(
                                     ib, l, fromS, ValueRange{idx(ib, p)})));
              Value v;
              if (carry == CarryMode::Values)
                v = load(ib, plan.valueType, io.valuesIn, from);
              else if (carry == CarryMode::Positions)
                v = load(ib, i32, io.valuesIn, from);
              else if (carry == CarryMode::WidePositions)
                v = arith::ExtUIOp::create(ib, l, i64,
                                           load(ib, i32, io.valuesIn, from));
              else
                v = load(ib, plan.valueType, values,
                         arith::ExtUIOp::create(
                             ib, l, i64, load(ib, i32, io.valuesIn, from)));
              store(ib, v, io.valuesOut, at);
            }
            scf::YieldOp::create(ib, l);
          });
    }
  };
  CarryMode lastPass =
      plan.positions ? CarryMode::WidePositions : CarryMode::GatherValues;
  forEachMode(b, mode, {CarryMode::Values, CarryMode::Positions, lastPass},
              storeOutputs);
  gpu::ReturnOp::create(b, loc);
}

} // namespace

void buildMergeSortKernels(gpu::GPUModuleOp m, const MergeSortPlan &plan) {
  SortOp op = plan.op;
  SortKernelBuilder k{plan, op, op.getLoc()};
  k.buildTile(m);
  k.buildPartition(m);
  k.buildMerge(m);
}

} // namespace gpugen
} // namespace fuse
