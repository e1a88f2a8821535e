//===- FlatKernel.h - flat kernels of convert-fuse-to-gpu -------*- C++ -*-===//
//
// The kernels that walk a group's flat iteration domain with grid-stride
// loops (elementwise, reduce and histogram groups: Kernels.cpp and
// HistogramKernels.cpp): the kernel state, the loops and the per-lane
// element access. Not installed.
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_LIB_CONVERSION_FUSETOGPU_FLATKERNEL_H
#define FUSE_LIB_CONVERSION_FUSETOGPU_FLATKERNEL_H

#include "KernelGen.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace fuse {
namespace gpugen {

/// One flat (elementwise or reduce) kernel under construction. Lane mode
/// (enterLane) sets the current flat index and the element of each operand
/// at it. Tensors of rank > 1 are addressed as (0, ..., 0, laneIndex)
/// (KernelBase's flatLanes): every tensor of a flat group has the group's
/// shape, so the row-major offset of that index is the flat index itself.
struct FlatKernel : KernelBase {
  FlatKernel(GroupOp group, Location loc, const Tiling &t)
      : KernelBase(group, loc, t, KernelOptions{/*flatLanes=*/true}) {}

  /// Loads `vw` elements of type `t` at element index `chunk * vw`.
  Value loadVec(OpBuilder &b, Value base, Type t, Value chunk, int64_t vw) {
    return load(b, vw == 1 ? t : VectorType::get({vw}, t), base, chunk);
  }
  Value extract(OpBuilder &b, Value vec, int64_t lane) {
    if (!isa<VectorType>(vec.getType()))
      return vec;
    return LLVM::ExtractElementOp::create(b, loc, vec, cI32(b, loc, lane));
  }
};

using StepFn = function_ref<SmallVector<Value>(
    OpBuilder &, ArrayRef<Value> chunks, int64_t vw, ValueRange iters)>;

/// Grid-stride loops over `nchunks` chunks of `vw` elements (main loop
/// unrolled `unroll` times, then single chunks), then the scalar tail
/// [nchunks * vw, n).
SmallVector<Value> emitFlatLoops(FlatKernel &k, OpBuilder &b, Value n,
                                 Value nchunks, int64_t vw, ValueRange inits,
                                 StepFn step);

/// Loads the element(s) of every rank>=1 operand read elementwise at the
/// given chunks: result[u][arg].
SmallVector<DenseMap<unsigned, Value>>
preload(FlatKernel &k, OpBuilder &b, ArrayRef<Value> chunks, int64_t vw);

/// Enters lane `lane` of chunk `chunk` (vw elements per chunk).
void enterLane(FlatKernel &k, OpBuilder &b,
               const DenseMap<unsigned, Value> &vals, Value chunk, int64_t vw,
               int64_t lane);

/// Stores the `lanes` values of one chunk (one per lane, vw of them) to
/// `out` at chunk `chunk`: one vector store, or a scalar one when vw is 1.
void storeLanes(FlatKernel &k, OpBuilder &b, ArrayRef<Value> lanes, Value out,
                Value chunk);

} // namespace gpugen
} // namespace fuse

#endif // FUSE_LIB_CONVERSION_FUSETOGPU_FLATKERNEL_H
