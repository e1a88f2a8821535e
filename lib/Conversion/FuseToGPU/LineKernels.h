//===- LineKernels.h - the line family's shared kernel pieces --*- C++ -*-===//
//
// Internal to convert-fuse-to-gpu. The pieces the line kernels share: a
// kernel's common start (LineStart), walking lines and elements, folding
// ranges of a line, and split lines (a thread a (line, chunk), partials
// at c * lines + line). The line reductions (LineKernels.cpp) and the
// line scans (LineScan.cpp) build their kernels from them.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_LIB_CONVERSION_FUSETOGPU_LINEKERNELS_H
#define FUSE_LIB_CONVERSION_FUSETOGPU_LINEKERNELS_H

#include "KernelGen.h"

#include <memory>
#include <optional>

namespace fuse {
namespace gpugen {
namespace line {

/// Threads of a line kernel's block; the tile kernel (buildLineTile) takes
/// lines of up to this many elements (inner).
constexpr int64_t kLineThreads = 256;

/// A line kernel under construction: tensors of the group's one shape are
/// addressed at their flat index (flatLanes).
struct LineKernel : KernelBase {
  LineKernel(GroupOp group, mlir::Location loc, const Tiling &t)
      : KernelBase(group, loc, t, KernelOptions{/*flatLanes=*/true}) {}
  /// The rank of the line op's input and its line dimension.
  int64_t lineRank = 0, lineDim = 0;
  /// The element enterElement made current: element `elementK` (i64) of
  /// its line, at flat index `elementFlat` (the lane index then).
  mlir::Value elementK, elementFlat;
  /// The current line's place in the outer x inner view (i64; set by
  /// forLines and forChunks around their body, null elsewhere).
  mlir::Value lineOuter, lineInner;

protected:
  /// An element's coordinates without its flat index (flat = o * len *
  /// inner + k * inner + i, i < inner): along the line dimension its place
  /// k in the line; along a later dimension d the coordinate of i in the
  /// inner dimensions, along an earlier one that of o in the outer ones,
  /// (i / size[d+1..]) mod size[d] and the like: the same for the whole
  /// line, where the flat index took a 64-bit remainder an element.
  mlir::Value laneCoordHint(mlir::OpBuilder &b, mlir::Value tensor,
                            int64_t d) override;
};

/// The common start of a line kernel (GroupPlan::LineScan, LineReduce):
/// kernel `name` with params common, lines, len, inner, `more` and the out
/// pointers, in blocks of kLineThreads; the kernel set up, and the
/// starting accumulators of `op` (a fuse.scan or fuse.reduce).
struct LineStart {
  GroupKernels gk;
  std::unique_ptr<LineKernel> k;
  std::optional<mlir::OpBuilder> b;
  mlir::Value lines, len, inner;
  /// The parameters of `more` (after inner, before the out pointers).
  llvm::SmallVector<mlir::Value> more;
  llvm::SmallVector<mlir::Value> outs, init;
};

LineStart startLineKernel(mlir::gpu::GPUModuleOp m, GroupOp group,
                          mlir::Operation *op, std::string name, GroupPlan plan,
                          Tiling tiling, mlir::TypeRange more = {},
                          mlir::TypeRange workgroup = {});

/// Ends a line kernel: its return, and the error for a value in the body
/// that the element emitter could not produce.
mlir::LogicalResult finishLineKernel(LineStart &ls);

/// Calls `body(line, base)` for each line a thread takes, grid-stride;
/// `base` is the flat index of the line's first element.
void forLines(LineKernel &k, mlir::OpBuilder &b, mlir::Value lines,
              mlir::Value len, mlir::Value inner,
              llvm::function_ref<void(mlir::OpBuilder &, mlir::Value line,
                                      mlir::Value base)>
                  body);

/// Makes flat index `flat` (i64) the kernel's current element.
void enterFlat(LineKernel &k, mlir::OpBuilder &b, mlir::Value flat);

/// Makes element `kk` of the line at flat index `base` current; returns
/// its flat index and the elements of `inputs` there.
std::pair<mlir::Value, llvm::SmallVector<mlir::Value>>
enterElement(LineStart &ls, mlir::OpBuilder &b, mlir::ValueRange inputs,
             mlir::Value base, mlir::Value kk);

/// Stores the group's results (but those numbered in `skip`) at flat
/// index `at` of the current element, `vals` as the values of `opResults`.
void storeResults(LineStart &ls, mlir::OpBuilder &b, mlir::ValueRange opResults,
                  mlir::ValueRange vals, mlir::Value at,
                  llvm::ArrayRef<unsigned> skip = {});

/// storeResults' stores, added to `stores` with their values computed.
void resultStores(LineStart &ls, mlir::OpBuilder &b, mlir::ValueRange opResults,
                  mlir::ValueRange vals, mlir::Value at, DeferredStores &stores,
                  llvm::ArrayRef<unsigned> skip = {});

/// Makes element `idx` current and returns `op`'s inputs there, adding the
/// element's stores, if any, to `stores`.
using EnterFn = llvm::function_ref<llvm::SmallVector<mlir::Value>(
    mlir::OpBuilder &, mlir::Value idx, DeferredStores &stores)>;

/// `steps(b, idx, n, acc)`: n elements from idx, returning the next
/// accumulators.
using StepsFn = llvm::function_ref<llvm::SmallVector<mlir::Value>(
    mlir::OpBuilder &, mlir::Value idx, int64_t n, mlir::ValueRange acc)>;

/// Runs `steps` over [from, to): `unroll` elements an iteration, then the
/// rest one by one; returns the last accumulators.
llvm::SmallVector<mlir::Value> forUnrolled(mlir::OpBuilder &b,
                                           mlir::Location loc, mlir::Value from,
                                           mlir::Value to, int64_t unroll,
                                           mlir::ValueRange acc, StepsFn steps);

/// Folds elements [from, to) from `acc`, `unroll` loads in flight; each
/// step's stores follow its loads and combines.
llvm::SmallVector<mlir::Value> foldUnrolled(LineKernel &k, mlir::OpBuilder &b,
                                            mlir::Operation *op,
                                            mlir::Value from, mlir::Value to,
                                            mlir::ValueRange acc,
                                            int64_t unroll, EnterFn enter);

/// foldUnrolled over elements [from, to) of the line at `base`.
llvm::SmallVector<mlir::Value>
foldRange(LineStart &ls, mlir::OpBuilder &b, mlir::Operation *op,
          mlir::ValueRange inputs, mlir::Value base, mlir::Value from,
          mlir::Value to, mlir::ValueRange acc, int64_t unroll,
          llvm::function_ref<void(mlir::OpBuilder &, mlir::Value flat,
                                  DeferredStores &)>
              visit);

/// Elements of a line a thread reads before it combines them: 16 bytes of
/// the narrowest of `inputs`, 4 to 16.
int64_t lineUnroll(mlir::ValueRange inputs);

/// Whether accumulators of these result types can be stored as partials.
bool storableAccumulators(mlir::TypeRange results);

/// chunkLen, chunks and a partial pointer per result of `op` (none unless
/// `split`): the params a split line kernel takes after inner.
llvm::SmallVector<mlir::Type> splitParams(mlir::Operation *op, bool split);

/// A split line kernel's (line, chunk) pairs, grid-stride.
void forChunks(
    LineStart &ls, mlir::OpBuilder &b, bool lastChunk,
    llvm::function_ref<void(mlir::OpBuilder &, mlir::Value line, mlir::Value c,
                            mlir::Value base, mlir::Value k0, mlir::Value k1,
                            mlir::Value t)>
        body);

/// `acc` folded with the partials of chunks from, from + step, ... < to
/// of `line` (pointers from ls.more[first]), in order.
mlir::ValueRange foldPartials(LineStart &ls, mlir::OpBuilder &b,
                              mlir::Operation *op, mlir::Value line,
                              mlir::Value from, mlir::Value to,
                              mlir::Value step, mlir::ValueRange acc,
                              unsigned first);

} // namespace line
} // namespace gpugen
} // namespace fuse

#endif // FUSE_LIB_CONVERSION_FUSETOGPU_LINEKERNELS_H
