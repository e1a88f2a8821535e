//===- RowRegisterPath.cpp - row_reduce rows held in registers ------------===//
//
// The register path of the row_reduce kernels (RowKernels.h): a row of at
// most rowCapacity columns is loaded once into registers, by the block
// (RowPath::Register) or by a group of R threads of it (the narrow paths,
// bt / R rows a block), every stage reduces it from there, and the rank-2
// results are stored once.
//
//===----------------------------------------------------------------------===//

#include "RowKernels.h"

#include "fuse/Dialect/Fuse/Utils/ElementEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/ScopeExit.h"

using namespace mlir;

namespace fuse {
namespace gpugen {

namespace {

constexpr auto kNoWrap =
    arith::IntegerOverflowFlags::nsw | arith::IntegerOverflowFlags::nuw;

/// `tp` plus `off` elements of type `et` (a constant offset).
Value offsetPtr(OpBuilder &pb, Location loc, Value tp, Type et, int64_t off) {
  if (!off)
    return tp;
  return LLVM::GEPOp::create(pb, loc, tp.getType(), et, tp,
                             ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(off)});
}

Value zeroOf(OpBuilder &zb, Location loc, Type ty) {
  return arith::ConstantOp::create(zb, loc,
                                   cast<TypedAttr>(zb.getZeroAttr(ty)));
}

} // namespace

/// The register layout of one row. Element slot j*vw+k of thread t holds
/// column t*vw + j*bt*vw + k. Per row, each operand/result gets one 64-bit
/// pointer to the thread's first column (row * cols + t*vw, the only
/// 64-bit index arithmetic); every access is that pointer plus a constant,
/// and slot validity is `constant < rem` with rem = cols - t*vw in 32 bits
/// (no per-slot column values stay live).
/// Narrow rows: the thread's place in its group (tid mod R), the chunk
/// stride R*vw (slot j*vw + k at column tcol + j*stride + k), and rem = 0
/// in a group past the last row (no slot valid). Narrow rows off the
/// vector path are striped instead: slot s at column t' + s*R (stride R,
/// tcol = t'), so a group's lanes load and store consecutive elements
/// (with the chunked layout each scalar store instruction writes 4 of
/// every 16 bytes, which measured slower; docs/performance.md).
struct RowKernelBuilder::RegisterRow {
  RowKernelBuilder &k;
  Location loc;
  Value rowIV, cols32;
  bool striped;
  /// Per phase (loads, each stage, stores): the thread's first column,
  /// rem = cols - tcol, the element offset of tcol in the row's operands
  /// and the narrow rows' chunk stride.
  Value tcol, rem, first, stride;
  /// Per slot: its constant column offset and its column (index).
  SmallVector<int64_t> slotOff;
  SmallVector<Value> colIdx;
  /// Whether the row is on the vector path: a constant on the paths that
  /// know it, else the kernel's vec flag.
  Value vec;

  RegisterRow(RowKernelBuilder &k, Value rowIV)
      : k(k), loc(k.loc), rowIV(rowIV),
        striped(k.narrowShift && k.scalarRowPath) {}

  /// The phase's tcol, rem and stride, from a fresh thread id read.
  void newPhase(OpBuilder &pb) {
    Value tid = readSpecial(pb, loc, "%tid.x");
    if (k.narrowShift) {
      Value r = arith::ShLIOp::create(pb, loc, cI32(pb, loc, 1), k.narrowShift);
      tid = arith::AndIOp::create(
          pb, loc, tid, arith::SubIOp::create(pb, loc, r, cI32(pb, loc, 1)));
      stride = striped ? r
                       : arith::ShLIOp::create(pb, loc, cI32(pb, loc, k.vw),
                                               k.narrowShift);
    }
    tcol = striped ? tid
                   : arith::MulIOp::create(pb, loc, tid, cI32(pb, loc, k.vw),
                                           kNoWrap);
    rem = arith::SubIOp::create(pb, loc, cols32, tcol);
    if (k.narrowShift)
      rem = arith::SelectOp::create(pb, loc, k.narrowValid, rem,
                                    cI32(pb, loc, 0));
  }
  void newFirst(OpBuilder &pb) {
    first = arith::AddIOp::create(
        pb, loc,
        arith::MulIOp::create(pb, loc, opaqueCopy(pb, loc, rowIV), k.cols),
        arith::ExtUIOp::create(pb, loc, pb.getI64Type(), tcol));
  }
  /// A slot's column offset from tcol (i32): a constant, or for narrow
  /// rows j*stride + k of the current phase.
  Value slotOffset(OpBuilder &ob, unsigned slot) {
    if (!k.narrowShift)
      return cI32(ob, loc, slotOff[slot]);
    if (striped)
      return slot ? Value(arith::MulIOp::create(ob, loc, stride,
                                                cI32(ob, loc, slot), kNoWrap))
                  : cI32(ob, loc, 0);
    int64_t j = slot / k.vw, kk = slot % k.vw;
    if (!j)
      return cI32(ob, loc, kk);
    Value base =
        arith::MulIOp::create(ob, loc, stride, cI32(ob, loc, j), kNoWrap);
    return kk ? Value(arith::AddIOp::create(ob, loc, base, cI32(ob, loc, kk),
                                            kNoWrap))
              : base;
  }
  /// Slot validity, built where it is used (a compare with a constant)
  /// from the current phase's rem.
  Value validAt(OpBuilder &vb, unsigned slot) {
    if (k.vectorRowPath)
      slot -= slot % k.vw;
    return cmpI(vb, loc, arith::CmpIPredicate::slt, slotOffset(vb, slot), rem);
  }
  /// Narrow rows: whether any thread of a group holds a column of chunk
  /// `s0 / vw` (slots s0 .. s0 + vw - 1), i.e. the chunk's first column
  /// for the group's thread 0 is inside the row. Uniform (cols and R), so
  /// chunks past the row (a row needs ceil(cols / R) of the thread's
  /// slots: more than half, but often not all) are skipped by a branch
  /// instead of computed and discarded slot by slot: the narrow kernels
  /// issue every instruction of every slot otherwise (logsumexp_rows at
  /// 129 columns computed 16 slots for 9 columns a thread).
  Value chunkNeeded(OpBuilder &cb, unsigned s0) {
    return cmpI(cb, loc, arith::CmpIPredicate::slt, slotOffset(cb, s0),
                cols32);
  }
  bool skippable(int64_t j) const { return k.narrowShift && j > 0; }
  /// Plain GEPs: a thread past the end of the last row forms addresses it
  /// never dereferences.
  Value threadPtr(OpBuilder &pb, Value base, Type et) {
    return k.g.gep(pb, base, et, first);
  }
  /// `tp` plus the slot's offset (a constant GEP unless narrow).
  Value slotPtr(OpBuilder &pb, Value tp, Type et, unsigned slot) {
    if (!k.narrowShift || (!striped && slot < static_cast<unsigned>(k.vw)))
      return offsetPtr(pb, loc, tp, et, slotOff[slot]);
    if (striped && !slot)
      return tp;
    return k.g.gep(pb, tp, et,
                   arith::ExtUIOp::create(pb, loc, pb.getI64Type(),
                                          slotOffset(pb, slot)));
  }
};

void RowKernelBuilder::registerRow(OpBuilder &rb, Value row) {
  g.em->clearCache();
  g.leaves.clear();
  g.regs.clear();
  g.colSlot.clear();
  RegisterRow rr(*this, row);
  row = opaqueCopy(rb, loc, row);
  g.rowIdx = toIndex(rb, loc, row);
  rr.cols32 = arith::TruncIOp::create(rb, loc, rb.getI32Type(), cols);
  rr.newPhase(rb);
  rr.newFirst(rb);
  for (int64_t j = 0; j < chunksPerThread; ++j)
    for (int64_t kk = 0; kk < vw; ++kk)
      rr.slotOff.push_back(j * bt * vw + kk);
  for (unsigned slot = 0; slot < rr.slotOff.size(); ++slot) {
    Value c = rr.slotOff[slot]
                  ? arith::AddIOp::create(rb, loc, rr.tcol,
                                          rr.slotOffset(rb, slot), kNoWrap)
                  : rr.tcol;
    Value ci = arith::IndexCastUIOp::create(rb, loc, rb.getIndexType(), c);
    g.colSlot[ci] = rr.colIdx.size();
    rr.colIdx.push_back(ci);
  }
  // On the vector-row paths the vector path is known to be taken.
  rr.vec = vectorRowPath ? Value(arith::ConstantIntOp::create(rb, loc, 1, 1))
           : scalarRowPath
               ? Value(arith::ConstantIntOp::create(rb, loc, 0, 1))
               : vecFlag;
  loadHeldOperands(rb, rr);
  runStages(rb, [&](OpBuilder &sb, ReduceOp r, SmallVector<Value> acc) {
    return foldHeldStage(sb, rr, r, std::move(acc));
  });
  storeHeldResults(rb, rr);
  storeRowResults(rb, row);
  g.em->clearCache();
  g.rowIdx = nullptr;
}

/// Loads every directly read rank-2 operand once into g.regs.
void RowKernelBuilder::loadHeldOperands(OpBuilder &rb, RegisterRow &rr) {
  for (const auto &direct : directArgs) {
    // (no structured bindings: lambdas capture these, a C++20 feature)
    unsigned n = direct.first;
    Type et = direct.second;
    auto vt = VectorType::get({vw}, et);
    Value tp = rr.threadPtr(rb, g.ptr[n], et);
    SmallVector<Value> &slots = g.regs[n];
    auto scalarLoad = [&](OpBuilder &sb, unsigned slot) {
      return ifValue(
          sb, loc, rr.validAt(sb, slot), et,
          [&](OpBuilder &ib) -> Value {
            return LLVM::LoadOp::create(ib, loc, et,
                                        rr.slotPtr(ib, tp, et, slot),
                                        byteWidth(et));
          },
          [&](OpBuilder &ib) { return zeroOf(ib, loc, et); });
    };
    for (int64_t j = 0; j < chunksPerThread; ++j) {
      unsigned s0 = j * vw;
      auto loadChunk = [&](OpBuilder &cb) -> Value {
        if (vw == 1)
          return scalarLoad(cb, s0);
        return ifValue(
            cb, loc, rr.vec, vt,
            [&](OpBuilder &ib) {
              // cols % vw == 0: the chunk is whole or outside.
              return ifValue(
                  ib, loc, rr.validAt(ib, s0), vt,
                  [&](OpBuilder &jb) -> Value {
                    return LLVM::LoadOp::create(
                        jb, loc, vt, rr.slotPtr(jb, tp, et, s0),
                        byteWidth(et) * vw);
                  },
                  [&](OpBuilder &jb) { return zeroOf(jb, loc, vt); });
            },
            [&](OpBuilder &ib) {
              Value acc = LLVM::PoisonOp::create(ib, loc, vt);
              for (int64_t kk = 0; kk < vw; ++kk)
                acc = LLVM::InsertElementOp::create(
                    ib, loc, acc, scalarLoad(ib, s0 + kk), cI32(ib, loc, kk));
              return acc;
            });
      };
      Type ct = vw == 1 ? et : Type(vt);
      Value v = rr.skippable(j)
                    ? ifValue(rb, loc, rr.chunkNeeded(rb, s0), ct, loadChunk,
                              [&](OpBuilder &zb) { return zeroOf(zb, loc, ct); })
                    : loadChunk(rb);
      if (vw == 1) {
        slots.push_back(v);
        continue;
      }
      for (int64_t kk = 0; kk < vw; ++kk)
        slots.push_back(
            LLVM::ExtractElementOp::create(rb, loc, v, cI32(rb, loc, kk)));
    }
  }
}

/// One stage over the held row: folds this thread's slots of reduction
/// `r` into `acc`, chunk by chunk.
SmallVector<Value> RowKernelBuilder::foldHeldStage(OpBuilder &sb,
                                                   RegisterRow &rr, ReduceOp r,
                                                   SmallVector<Value> acc) {
  rr.newPhase(sb);
  // Folds chunk j (slots j*vw ..) into `a`; returns the chunk's inputs,
  // slot by slot.
  auto foldChunk = [&](OpBuilder &fb, int64_t j, SmallVector<Value> &a) {
    unsigned s0 = j * vw;
    SmallVector<Value> inputs;
    if (vectorRowPath && vw > 1) {
      // A chunk's slots are all valid or all not: its elements are
      // computed as always, its combines (same order) sit under one
      // branch instead of a select per slot.
      SmallVector<SmallVector<Value>> xs(vw);
      for (int64_t kk = 0; kk < vw; ++kk)
        for (Value in : r.getInputs()) {
          xs[kk].push_back(
              g.element(fb, in, {g.rowIdx, rr.colIdx[s0 + kk]}));
          inputs.push_back(xs[kk].back());
        }
      auto ifOp = scf::IfOp::create(fb, loc, ValueRange(a).getTypes(),
                                    rr.validAt(fb, s0), /*withElse=*/true);
      OpBuilder tb = ifOp.getThenBodyBuilder();
      SmallVector<Value> c = a;
      for (int64_t kk = 0; kk < vw; ++kk)
        c = g.combine(tb, r, c, xs[kk]);
      scf::YieldOp::create(tb, loc, c);
      OpBuilder eb = ifOp.getElseBodyBuilder();
      scf::YieldOp::create(eb, loc, a);
      a = SmallVector<Value>(ifOp.getResults());
      return inputs;
    }
    for (int64_t kk = 0; kk < vw; ++kk) {
      SmallVector<Value> xs;
      for (Value in : r.getInputs())
        xs.push_back(g.element(fb, in, {g.rowIdx, rr.colIdx[s0 + kk]}));
      SmallVector<Value> nw = g.combine(fb, r, a, xs);
      a = selAll(fb, loc, rr.validAt(fb, s0 + kk), nw, a);
      inputs.append(xs);
    }
    return inputs;
  };
  for (int64_t j = 0; j < chunksPerThread; ++j) {
    if (!rr.skippable(j)) {
      foldChunk(sb, j, acc);
      continue;
    }
    // The chunk under its branch; the inputs computed there (e.g.
    // softmax's exp(x - max), which the stores use again) leave it as
    // results.
    unsigned s0 = j * vw;
    SmallVector<Type> types(ValueRange(acc).getTypes());
    for (int64_t kk = 0; kk < vw; ++kk)
      for (Value in : r.getInputs())
        types.push_back(tensorTy(in).getElementType());
    auto ifOp = scf::IfOp::create(sb, loc, types, rr.chunkNeeded(sb, s0),
                                  /*withElse=*/true);
    OpBuilder tb = ifOp.getThenBodyBuilder();
    SmallVector<Value> a = acc;
    SmallVector<Value> inner = foldChunk(tb, j, a);
    SmallVector<Value> yielded = a;
    yielded.append(inner);
    scf::YieldOp::create(tb, loc, yielded);
    OpBuilder eb = ifOp.getElseBodyBuilder();
    SmallVector<Value> none = acc;
    for (Type ty : ArrayRef<Type>(types).drop_front(acc.size()))
      none.push_back(zeroOf(eb, loc, ty));
    scf::YieldOp::create(eb, loc, none);
    g.em->forgetInside(ifOp);
    acc.assign(ifOp.getResults().begin(),
               ifOp.getResults().begin() + acc.size());
    unsigned ri = acc.size(), ii = 0;
    for (int64_t kk = 0; kk < vw; ++kk)
      for (Value in : r.getInputs()) {
        Value x = inner[ii++], res = ifOp.getResult(ri++);
        if (ifOp->isAncestor(x.getParentBlock()->getParentOp()))
          g.em->remember(in, {g.rowIdx, rr.colIdx[s0 + kk]}, res);
      }
  }
  return acc;
}

/// Rank-2 results: one vector store per chunk.
void RowKernelBuilder::storeHeldResults(OpBuilder &rb, RegisterRow &rr) {
  for (auto yo : llvm::zip(group.getYield().getValues(), outs)) {
    Value y = std::get<0>(yo), out = std::get<1>(yo);
    if (tensorTy(y).getRank() != 2)
      continue;
    Type et = tensorTy(y).getElementType();
    auto vt = VectorType::get({vw}, et);
    rr.newPhase(rb);
    rr.newFirst(rb);
    Value tp = rr.threadPtr(rb, out, et);
    for (int64_t j = 0; j < chunksPerThread; ++j) {
      unsigned s0 = j * vw;
      scf::IfOp chunkIf;
      if (rr.skippable(j)) {
        chunkIf = scf::IfOp::create(rb, loc, TypeRange{},
                                    rr.chunkNeeded(rb, s0),
                                    /*withElse=*/false);
        rb.setInsertionPoint(chunkIf.thenBlock()->getTerminator());
      }
      llvm::scope_exit closeChunk([&] {
        if (chunkIf) {
          rb.setInsertionPointAfter(chunkIf);
          g.em->forgetInside(chunkIf);
        }
      });
      SmallVector<Value> lanes;
      for (int64_t kk = 0; kk < vw; ++kk)
        lanes.push_back(g.element(rb, y, {g.rowIdx, rr.colIdx[s0 + kk]}));
      auto storeLane = [&](OpBuilder &ib, int64_t kk) {
        scf::IfOp::create(ib, loc, rr.validAt(ib, s0 + kk),
                          [&](OpBuilder &kb, Location kl) {
                            LLVM::StoreOp::create(
                                kb, kl, lanes[kk],
                                rr.slotPtr(kb, tp, et, s0 + kk),
                                byteWidth(et));
                            scf::YieldOp::create(kb, kl);
                          });
      };
      if (vw == 1) {
        storeLane(rb, 0);
        continue;
      }
      Value v = LLVM::PoisonOp::create(rb, loc, vt);
      for (int64_t kk = 0; kk < vw; ++kk)
        v = LLVM::InsertElementOp::create(rb, loc, v, lanes[kk],
                                          cI32(rb, loc, kk));
      scf::IfOp::create(
          rb, loc, rr.vec,
          [&](OpBuilder &ib, Location il) {
            scf::IfOp::create(ib, il, rr.validAt(ib, s0),
                              [&](OpBuilder &jb, Location jl) {
                                LLVM::StoreOp::create(
                                    jb, jl, v, rr.slotPtr(jb, tp, et, s0),
                                    byteWidth(et) * vw);
                                scf::YieldOp::create(jb, jl);
                              });
            scf::YieldOp::create(ib, il);
          },
          [&](OpBuilder &ib, Location il) {
            for (int64_t kk = 0; kk < vw; ++kk)
              storeLane(ib, kk);
            scf::YieldOp::create(ib, il);
          });
    }
  }
}

} // namespace gpugen
} // namespace fuse
