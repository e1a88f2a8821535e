//===- FlatKernel.cpp - flat kernels of convert-fuse-to-gpu ---------------===//
//
// The grid-stride loops and per-lane element access of FlatKernel.h.
//
//===----------------------------------------------------------------------===//

#include "FlatKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace fuse {
namespace gpugen {

/// Grid-stride loops over `nchunks` chunks of `vw` elements (main loop
/// unrolled `unroll` times, then single chunks), then the scalar tail
/// [nchunks * vw, n).
SmallVector<Value> emitFlatLoops(FlatKernel &k, OpBuilder &b, Value n,
                                 Value nchunks, int64_t vw, ValueRange inits,
                                 StepFn step) {
  Location loc = k.loc;
  Value gtid, stride; // captured below (bindings cannot be before C++20)
  std::tie(gtid, stride) = k.gridStride(b);
  SmallVector<Value> iters(inits);
  Value next = gtid;
  int64_t u = k.tiling.unroll;
  if (u > 1) {
    Value ub = arith::SubIOp::create(
        b, loc, nchunks,
        arith::MulIOp::create(b, loc, stride, cI64(b, loc, u - 1)));
    Value ustep = arith::MulIOp::create(b, loc, stride, cI64(b, loc, u));
    SmallVector<Value> loopInits{gtid};
    loopInits.append(iters);
    auto loop = scf::ForOp::create(
        b, loc, gtid, ub, ustep, loopInits,
        [&](OpBuilder &lb, Location l, Value c, ValueRange args) {
          SmallVector<Value> chunks;
          for (int64_t i = 0; i < u; ++i)
            chunks.push_back(i == 0 ? c
                                    : arith::AddIOp::create(
                                          lb, l, c,
                                          arith::MulIOp::create(
                                              lb, l, stride, cI64(lb, l, i))));
          SmallVector<Value> out{arith::AddIOp::create(lb, l, c, ustep)};
          out.append(step(lb, chunks, vw, args.drop_front()));
          scf::YieldOp::create(lb, l, out);
        });
    next = loop.getResult(0);
    iters = SmallVector<Value>(loop.getResults().drop_front());
  }
  auto rem = scf::ForOp::create(
      b, loc, next, nchunks, stride, iters,
      [&](OpBuilder &lb, Location l, Value c, ValueRange args) {
        scf::YieldOp::create(lb, l, step(lb, {c}, vw, args));
      });
  iters = SmallVector<Value>(rem.getResults());
  Value tailStart = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, nchunks, cI64(b, loc, vw)), gtid);
  auto tail = scf::ForOp::create(
      b, loc, tailStart, n, stride, iters,
      [&](OpBuilder &lb, Location l, Value i, ValueRange args) {
        scf::YieldOp::create(lb, l, step(lb, {i}, 1, args));
      });
  return SmallVector<Value>(tail.getResults());
}

/// Loads the element(s) of every rank>=1 operand read elementwise at the
/// given chunks: result[u][arg].
SmallVector<DenseMap<unsigned, Value>>
preload(FlatKernel &k, OpBuilder &b, ArrayRef<Value> chunks, int64_t vw) {
  SmallVector<DenseMap<unsigned, Value>> out(chunks.size());
  for (unsigned arg : k.directOperands()) {
    Type et = tensorTy(k.body.getArgument(arg)).getElementType();
    for (auto [u, c] : llvm::enumerate(chunks))
      out[u][arg] = k.loadVec(b, k.ptr[arg], et, c, vw);
  }
  return out;
}

/// Enters lane `lane` of chunk `chunk` (vw elements per chunk).
void enterLane(FlatKernel &k, OpBuilder &b,
               const DenseMap<unsigned, Value> &vals, Value chunk, int64_t vw,
               int64_t lane) {
  Location loc = k.loc;
  k.em->clearCache();
  Value flat = chunk;
  if (vw > 1)
    flat = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, chunk, cI64(b, loc, vw)),
        cI64(b, loc, lane));
  k.laneIndex = toIndex(b, loc, flat);
  k.laneChunk = chunk;
  k.laneEntered = k.laneIndex;
  k.laneNumber = lane;
  k.laneValue.clear();
  for (auto [arg, v] : vals)
    k.laneValue[arg] = k.extract(b, v, lane);
}

void storeLanes(FlatKernel &k, OpBuilder &b, ArrayRef<Value> lanes, Value out,
                Value chunk) {
  Value v = lanes.front();
  int64_t vw = lanes.size();
  if (vw > 1) {
    v = LLVM::PoisonOp::create(b, k.loc, VectorType::get({vw}, v.getType()));
    for (auto [l, x] : llvm::enumerate(lanes))
      v = LLVM::InsertElementOp::create(b, k.loc, v, x, cI32(b, k.loc, l));
  }
  k.store(b, v, out, chunk);
}

} // namespace gpugen
} // namespace fuse
