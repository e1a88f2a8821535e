//===- RowReduce.cpp - row_reduce kernels: plan, paths, shared steps ------===//
//
// row_reduce groups (reductions over the inner dimension of a rank-2
// tensor, maps over the same rows reading the row results through
// fuse.broadcast, per-row epilogues); see docs/gpu-codegen.md. One block
// per row (rows loop when rows exceed the grid). When cols <= block *
// items-per-thread the row is loaded once into registers (16-byte vector
// loads when every row start is 16-byte aligned, else predicated scalar
// loads), every stage (reduction) is computed from the registers with a
// block reduction (warp butterflies + one shared-memory exchange), and the
// results are written once (vector stores): RowRegisterPath.cpp, also for
// narrow rows, several a block. Longer rows walk the row once per stage
// and once more for the outputs, from global memory or from a copy in
// shared memory: RowLongPath.cpp. This file holds the group's plan, the
// kernel per path, and the steps the paths share.
//
//===----------------------------------------------------------------------===//

#include "RowKernels.h"

#include "fuse/Dialect/Fuse/Utils/ElementEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/bit.h"

using namespace mlir;

namespace fuse {
namespace gpugen {

namespace {

//===----------------------------------------------------------------------===//
// row_reduce
//===----------------------------------------------------------------------===//

/// `r` is a single-input float reduction of built-in kind `kind`, no init.
bool isPlainFloatReduce(ReduceOp r, CombinerKind kind) {
  return r.hasBuiltinKinds() && r.getInputs().size() == 1 &&
         r.getInits().empty() && r.getKind(0) == kind &&
         isa<FloatType>(tensorTy(r.getInputs()[0]).getElementType());
}

/// The online max/sum pair (fuse-tile's online-max-sum): `sum` adds
/// exp(X - broadcast(max)) over the rows of X, `max` is the row maximum
/// of the same X:
///   %m = fuse.reduce max %X dims [1]
///   %b = fuse.broadcast %m dims [1] (...)
///   %e = fuse.map %X, %b { %d = arith.subf %x, %mb; %ex = math.exp %d;
///                          fuse.yield %ex }
///   %s = fuse.reduce add %e dims [1]
/// (logsumexp, softmax). Both are then computed in one walk over the row,
/// whose exponentials take the flags of the map's exp. Returns that exp,
/// null when the two are not such a pair.
math::ExpOp onlineMaxSumExp(ReduceOp max, ReduceOp sum) {
  if (!isPlainFloatReduce(max, CombinerKind::Max) ||
      !isPlainFloatReduce(sum, CombinerKind::Add))
    return {};
  auto map = sum.getInputs()[0].getDefiningOp<MapOp>();
  if (!map || map.getInputs().size() != 2 || map->getNumResults() != 1 ||
      map.getInputs()[0] != max.getInputs()[0])
    return {};
  auto bc = map.getInputs()[1].getDefiningOp<BroadcastOp>();
  if (!bc || bc.getInput() != max.getResults()[0] ||
      bc.getDims() != ArrayRef<int64_t>{1})
    return {};
  Block &mb = map.getBody().front();
  if (mb.getOperations().size() != 3)
    return {};
  auto sub = dyn_cast<arith::SubFOp>(&mb.front());
  auto ex = dyn_cast<math::ExpOp>(sub ? sub->getNextNode() : nullptr);
  auto yield = dyn_cast<YieldOp>(mb.getTerminator());
  bool pair = sub && ex && yield && sub.getLhs() == mb.getArgument(0) &&
              sub.getRhs() == mb.getArgument(1) && ex.getOperand() == sub &&
              yield->getNumOperands() == 1 && yield->getOperand(0) == ex;
  return pair ? ex : math::ExpOp();
}

/// The one-walk variance pair (fuse-tile's one-walk-variance): `sq` adds
/// squared deviations of X from a centre f(S) over the rows, S = `sum`'s
/// row sums of the same X:
///   %s = fuse.reduce add %X dims [1]
///   %b = fuse.broadcast %s dims [1] (...)
///   %d = fuse.map %X, %b { (x - f(b))^2 }   (inputs either way round;
///                                           or (f(b) - x)^2)
///   %q = fuse.reduce add %d dims [1]
/// (layer norm, a row's variance), all of one float type. Returns the map
/// and its match, none when the two are not such a pair.
std::optional<std::pair<MapOp, SquaredDeviation>> centredPair(ReduceOp sum,
                                                              ReduceOp sq) {
  if (!isPlainFloatReduce(sum, CombinerKind::Add) ||
      !isPlainFloatReduce(sq, CombinerKind::Add))
    return std::nullopt;
  Value x = sum.getInputs()[0];
  auto map = sq.getInputs()[0].getDefiningOp<MapOp>();
  if (!map || tensorTy(x).getElementType() !=
                  tensorTy(sq.getInputs()[0]).getElementType())
    return std::nullopt;
  for (const SquaredDeviation &d : matchSquaredDeviation(map)) {
    auto bc = map.getInputs()[d.c].getDefiningOp<BroadcastOp>();
    if (map.getInputs()[d.x] == x && bc &&
        bc.getInput() == sum.getResults()[0] &&
        bc.getDims() == ArrayRef<int64_t>{1})
      return std::make_pair(map, d);
  }
  return std::nullopt;
}

} // namespace
//===----------------------------------------------------------------------===//
// The plan and the kernels of a group
//===----------------------------------------------------------------------===//

GroupKernels planRowKernels(GroupOp group, const Tiling &tiling,
                            bool narrow) {
  GroupKernels gk;
  gk.plan = GroupPlan::RowReduce;
  gk.tiling = tiling;
  // The width of the rank-2 tensors (the rows).
  const int64_t vw =
      vectorWidthOf(widthBoundary(group), tiling,
                    [](RankedTensorType t) { return t.getRank() == 2; });
  gk.vectorWidth = vw;
  const int64_t bt = tiling.blockThreads;
  const int64_t chunksPerThread = tiling.unroll; // vectors per thread
  gk.rowCapacity = bt * chunksPerThread * vw;
  // Narrow rows (fuse-tile's narrow-rows): a row that needs at most bt / 2
  // threads (need = ceil(cols / (chunksPerThread * vw))) goes to a group of
  // R = max(narrow-rows, bit_ceil(need)) threads, bt / R rows per block: a
  // block of one row of 1024 f32 holds a single 16-byte vector per thread
  // between two barriers per reduction (latency-bound); four rows of 64
  // threads hold four each, and rows of up to 32 threads' elements need no
  // barrier (a warp of 64-column rows holds eight rows of four threads).
  if (!narrow || !tiling.narrowRows || bt < 64)
    return gk;
  gk.narrowRowItems = chunksPerThread * vw;
  // With rank-2 results (softmax), groups of fewer than 4 threads (less
  // than 64 bytes of a row a vector instruction) only for rows of at most
  // two chunks a thread: at 16 columns groups of 2 measured faster than
  // groups of 1 (four 16-byte stores a thread, each instruction writing
  // half of every sector it touches) and of 4 (one chunk a thread); at 32
  // columns groups of 4 faster than of 2 (docs/performance.md). Rank-1
  // results keep the smallest groups, which measured fastest for them.
  const bool rank2Out = llvm::any_of(group.getResults(), [](Value v) {
    return tensorTy(v).getRank() == 2;
  });
  // Off the vector path (scalar, striped), rank-2 results take groups of
  // at least 32 bytes of elements, so that a store instruction writes whole
  // 32-byte sectors of a row rather than halves; the smallest such group
  // measured best, and rank-1 results (no rank-2 stores) measured faster
  // in smaller groups (docs/performance.md). Cost: with R >= 8 known, the
  // butterflies' keep tests of offsets 1-4 fold away and the kernel
  // schedules differently, measured slower at 129 columns (groups of 16
  // either way); a run-time max(R, 8) folds the same way in LLVM.
  // Hiding the bound (the shift through an opaque copy) measured faster
  // at 129 columns but slower at 33: not kept.
  // Off the vector path, rank-2 results take groups of up to the whole
  // block: every such row that fits the registers (need <= bt, cols <=
  // capacity) is narrow, so its stores are striped (a store instruction
  // writes consecutive elements) instead of the register path's chunked
  // scalar stores (4 bytes of every 16 an instruction), and the register
  // path serves the vector path only (a compare per chunk, no scalar
  // loads). This measured faster (docs/performance.md), also for rows
  // narrow either way (the scalar kernel differs only in its fold reaching
  // 8 warps, a different schedule; measured, not explained). Rank-1
  // results keep half the block: wide rows measured slower in groups of
  // 256 (32 runtime-strided slots a thread) than on the register path.
  gk.narrowScalarMaxThreads = rank2Out ? bt : bt / 2;
  if (rank2Out) {
    gk.narrowSmallCols = 2 * vw;
    int64_t minBytes = 8;
    for (Value v : group.getResults())
      if (tensorTy(v).getRank() == 2)
        minBytes = std::min<int64_t>(minBytes,
                                     byteWidth(tensorTy(v).getElementType()));
    gk.narrowScalarMinThreads = std::max<int64_t>(
        tiling.narrowRows, 32 / std::max<int64_t>(1, minBytes));
  }
  return gk;
}

namespace {

/// Checks that `group` is a row_reduce group the row kernels take: rank-2
/// rows reduced along dimension 1 with built-in kinds, values of rank <= 2.
LogicalResult checkRowGroup(GroupOp group, ArrayRef<ReduceOp> reds) {
  Block &body = group.getBody().front();
  for (ReduceOp r : reds) {
    auto in = tensorTy(r.getInputs()[0]);
    SmallVector<int64_t> rd = r.getReducedDims();
    if (in.getRank() != 2 || rd.size() != 1 || rd[0] != 1) {
      std::string dims;
      llvm::raw_string_ostream os(dims);
      llvm::interleaveComma(rd, os);
      return r.emitOpError("GPU code generation: a reduction over dims [")
             << dims << "] of a rank-" << in.getRank()
             << " tensor is not supported on the GPU yet (a row_reduce "
                "group takes dimension 1 of rank-2 tensors, which the last "
                "dimension of a rank > 2 tensor becomes; a reduction over "
                "one other dimension takes the line kernel, and "
                "fuse-split-reductions makes a chain of those of one with "
                "built-in kinds)";
    }
    if (!r.hasBuiltinKinds())
      return r.emitOpError("GPU code generation: custom combiner regions are "
                           "not supported in row_reduce groups yet; use "
                           "built-in kinds");
  }
  // Every tensor of the body: rank 2 (the rows), rank 1 (per row) or 0.
  auto badRank = [](Value v) {
    auto t = tensorTy(v);
    return t && t.getRank() > 2;
  };
  for (BlockArgument a : body.getArguments())
    if (badRank(a))
      return group.emitOpError("GPU code generation: row_reduce operands "
                               "must have rank <= 2");
  for (Operation &op : body) {
    if (isa<ScanOp, FilterOp, GroupOp>(op))
      return op.emitOpError("GPU code generation: not supported in a "
                            "row_reduce group");
    for (Value res : op.getResults())
      if (badRank(res))
        return op.emitOpError("GPU code generation: row_reduce values must "
                              "have rank <= 2");
  }
  for (Value y : group.getYield().getValues())
    if (tensorTy(y).getRank() == 0)
      return group.emitOpError("GPU code generation: a row_reduce group "
                               "yields rank-1 or rank-2 tensors only");
  return success();
}

/// Builds the kernel of `path` named `name` into `m`.
FailureOr<std::string> buildRowPath(gpu::GPUModuleOp m, GroupOp group,
                                    const Tiling &tiling,
                                    ArrayRef<ReduceOp> reds,
                                    const GroupKernels &plan, RowPath path,
                                    const Twine &name) {
  RowKernelBuilder builder(group, tiling, reds, plan, path);
  FailureOr<gpu::GPUFuncOp> f = builder.build(m, name.str());
  if (failed(f))
    return failure();
  return f->getName().str();
}

} // namespace

FailureOr<GroupKernels> buildRowReduceKernels(gpu::GPUModuleOp m,
                                              GroupOp group, StringRef prefix,
                                              const Tiling &tiling) {
  Block &body = group.getBody().front();
  SmallVector<ReduceOp> reds = reductionsOf(body);
  if (reds.empty())
    return group.emitOpError("GPU code generation: a row_reduce group needs "
                             "a fuse.reduce");
  // A lone reduction over another dimension, or with a combiner region:
  // the line kernel.
  bool handled = false;
  FailureOr<GroupKernels> line =
      buildLineReduce(m, group, prefix, tiling, handled);
  if (handled)
    return line;
  if (failed(checkRowGroup(group, reds)))
    return failure();

  // One kernel per path, all with the same parameters: each is a part of
  // the code, so LLVM and ptxas compile them on parallel threads
  // (fuse-gpu-module-to-binary, ptxas --split-compile), and the host picks
  // the kernel by the plan (the RowReduce launch in FuseToGPU.cpp).
  GroupKernels gk = planRowKernels(group, tiling, /*narrow=*/true);
  auto build = [&](const GroupKernels &plan, const Tiling &t, RowPath path,
                   StringRef suffix) {
    return buildRowPath(m, group, t, reds, plan, path, prefix + suffix);
  };
  FailureOr<std::string> k = build(gk, tiling, RowPath::Register, "_rows");
  if (failed(k))
    return failure();
  gk.kernel = *k;
  if (gk.narrowRowItems) {
    k = build(gk, tiling, RowPath::Narrow, "_rows_narrow");
    if (failed(k))
      return failure();
    gk.narrowKernel = *k;
    k = build(gk, tiling, RowPath::NarrowScalar, "_rows_narrow_scalar");
    if (failed(k))
      return failure();
    gk.narrowScalarKernel = *k;
  }
  // Rows past the block's registers that wide-row-threads threads hold:
  // the register path again with that many threads, each holding the
  // same items (the row read once, no walks). Built only where the
  // estimate of its registers fits that block (1024 threads: 64 a
  // thread); else those rows stay on the staged or long path. It takes
  // rows from half its capacity: measured at its whole capacity (16384
  // f32 with 1024 threads: 880 us against the staged kernel's 1305 on an
  // H100, docs/performance.md), while rows of one vector a thread are
  // latency-bound on the register path (planRowKernels), so narrower
  // rows keep the staged or long path until timed.
  if (tiling.wideRowThreads > tiling.blockThreads) {
    Tiling wt = tiling;
    wt.blockThreads = tiling.wideRowThreads;
    GroupKernels wide = planRowKernels(group, wt, /*narrow=*/false);
    RowKernelBuilder probe(group, wt, reds, wide, RowPath::Register);
    if (probe.estimatedRegisters() * wt.blockThreads <=
        TargetAttr::lookup(m).getRegistersPerSM()) {
      k = build(wide, wt, RowPath::Register, "_rows_wide");
      if (failed(k))
        return failure();
      gk.wideKernel = *k;
      gk.wideThreads = wt.blockThreads;
      gk.wideCapacity = wide.rowCapacity;
      gk.wideMinCols = std::max(gk.rowCapacity, wide.rowCapacity / 2);
    }
  }
  k = build(gk, tiling, RowPath::Long, "_rows_long");
  if (failed(k))
    return failure();
  gk.longKernel = *k;

  // Staged long rows (fuse-tile's staged-rows; groups with rank-2 results,
  // whose output walk reads the row again): a kernel of their own, and a
  // second with staged-threads threads for rows over half the chip's
  // shared memory (one block an SM: more threads copy and walk the row;
  // fewer blocks of more threads were slower for smaller rows).
  bool direct = llvm::any_of(body.getArguments(), [](BlockArgument arg) {
    auto tt = tensorTy(arg);
    return tt && tt.getRank() == 2 && readDirectly(arg);
  });
  bool rowWide = llvm::any_of(group.getYield().getValues(), [](Value y) {
    return tensorTy(y).getRank() == 2;
  });
  if (tiling.stagedRows <= 0 || !direct || !rowWide)
    return gk;
  GroupKernels staged = planRowKernels(group, tiling, /*narrow=*/false);
  k = build(staged, tiling, RowPath::Staged, "_rows_staged");
  if (failed(k))
    return failure();
  gk.stagedKernel = *k;
  for (BlockArgument arg : body.getArguments())
    if (auto tt = tensorTy(arg); tt && tt.getRank() == 2 && readDirectly(arg))
      gk.stagedElementBytes.push_back(byteWidth(tt.getElementType()));
  // (None when no staged row can be that long.)
  if (tiling.stagedThreads && tiling.stagedThreads != tiling.blockThreads &&
      tiling.stagedRows > tiling.stagedWideRows) {
    Tiling wt = tiling;
    wt.blockThreads = tiling.stagedThreads;
    GroupKernels wide = planRowKernels(group, wt, /*narrow=*/false);
    k = build(wide, wt, RowPath::StagedWide, "_rows_staged_wide");
    if (failed(k))
      return failure();
    gk.stagedWideKernel = *k;
    gk.stagedThreads = tiling.stagedThreads;
  }
  return gk;
}

//===----------------------------------------------------------------------===//
// RowKernelBuilder: set-up and the steps every path shares
//===----------------------------------------------------------------------===//

RowKernelBuilder::RowKernelBuilder(GroupOp group, const Tiling &tiling,
                                   ArrayRef<ReduceOp> reds,
                                   const GroupKernels &plan, RowPath path)
    : group(group), loc(group.getLoc()), ctx(group.getContext()),
      body(group.getBody().front()), tiling(tiling), reds(reds), plan(plan),
      path(path), vw(plan.vectorWidth), bt(tiling.blockThreads),
      chunksPerThread(tiling.unroll), capacity(bt * chunksPerThread * vw),
      g(group, group.getLoc(), tiling) {
  rank2Out = llvm::any_of(group.getResults(), [](Value v) {
    return tensorTy(v).getRank() == 2;
  });
  for (BlockArgument arg : body.getArguments())
    if (auto tt = tensorTy(arg); tt && tt.getRank() == 2 && readDirectly(arg))
      directArgs.push_back({arg.getArgNumber(), tt.getElementType()});
  for (auto [n, et] : directArgs)
    stagedBytes.push_back(byteWidth(et));
  assignSharedBuffers();
  if (tiling.onlineMaxSum)
    for (unsigned ri = 0; ri + 1 < reds.size(); ++ri)
      if (math::ExpOp ex = onlineMaxSumExp(reds[ri], reds[ri + 1])) {
        pairAt[ri] = ex.getFastmathAttr();
        ++ri;
      }
  if (tiling.oneWalkVariance)
    for (unsigned ri = 0; ri + 1 < reds.size(); ++ri) {
      if (pairAt.contains(ri)) {
        ++ri;
      } else if (!pairAt.contains(ri + 1)) {
        if (auto pair = centredPair(reds[ri], reds[ri + 1])) {
          centredAt[ri] = *pair;
          ++ri;
        }
      }
    }
}

/// Shared-memory exchange buffers. The stages run one after the other and
/// blockAllReduce's leading barrier protects a buffer from its previous
/// use, so input i of a reduction takes the first buffer of its element
/// type that no other input of the same reduction holds (one buffer for
/// softmax's max and sum: one shared address per thread, not two).
void RowKernelBuilder::assignSharedBuffers() {
  for (ReduceOp r : reds) {
    SmallVector<unsigned> taken;
    for (Value in : r.getInputs()) {
      Type st = smemType(ctx, tensorTy(in).getElementType());
      unsigned k = 0;
      while (k < smem.size() &&
             (smem[k] != st || llvm::is_contained(taken, k)))
        ++k;
      if (k == smem.size())
        smem.push_back(st);
      taken.push_back(k);
    }
    smemOf.push_back(taken);
  }
}

/// Occupancy hint (nvvm.minctasm -> .minnctapersm): the kernel is latency
/// bound (load, barrier, reduce, barrier), so resident blocks matter, and
/// without a target ptxas spends registers freely. Estimate per thread:
/// the register-held elements (32-bit words) plus about 16 for addresses,
/// accumulators, the row and math temporaries, plus 8 when rank-2 results
/// keep mapped values live through the last stage to the stores
/// (softmax: 40 -> 6 blocks of 256; logsumexp: 32 -> 8 blocks, both
/// without spills). Registers are granted per warp in units of 256.
/// The temporaries are values of the elements' width: with 8-byte
/// elements twice the words (f64 logsumexp spilled 16 bytes at 32).
/// The narrow vector-path kernel takes 8 words more when a thread holds
/// more than 16 words in more than 4 chunks: each chunk keeps a column
/// guard and an offset. logsumexp at 32 f32 a thread (8 chunks): 48
/// registers (5 blocks) spilled 4 bytes there; with 8 more (4 blocks, 62
/// registers, no spills) it measured faster at 512 and 1024 columns and
/// about as fast at 33 and 129, while the scalar narrow kernel at 4 blocks
/// measured slower (docs/performance.md), so the others keep the plain
/// estimate. (ptxas fits the narrow kernel without spills on the plain
/// estimate at 32 f16 a thread, 4 chunks: 47 registers; and at 16 f64,
/// whose words the estimate already doubles: 60.)
void RowKernelBuilder::registerWords(int64_t &held, int64_t &words) {
  held = 0;
  words = 1;
  for (auto [n, et] : directArgs) {
    int64_t w = std::max<int64_t>(1, (byteWidth(et) + 3) / 4);
    held += chunksPerThread * vw * w;
    words = std::max(words, w);
  }
  // Rows past the register path hold a walk's tile: long-row-items
  // elements of each rank-2 operand, of each vector along the row (layer
  // norm's scale and bias) and of each rank-2 result (stored after the
  // tile's loads). Where that is more than the register path's row, it
  // counts instead: layer norm's long and staged kernels spilled at the
  // register path's 40 registers.
  if (path == RowPath::Long || path == RowPath::Staged) {
    const int64_t items = std::max<int64_t>(1, tiling.longRowItems);
    auto wordsOf = [](RankedTensorType tt) {
      return std::max<int64_t>(1, (byteWidth(tt.getElementType()) + 3) / 4);
    };
    int64_t tile = 0;
    for (BlockArgument arg : body.getArguments())
      if (auto tt = tensorTy(arg);
          tt && (tt.getRank() == 1 || (tt.getRank() == 2 && readDirectly(arg))))
        tile += items * wordsOf(tt);
    for (Value y : group.getYield().getValues())
      if (tensorTy(y).getRank() == 2)
        tile += items * wordsOf(tensorTy(y));
    held = std::max(held, tile);
  }
}

int64_t RowKernelBuilder::registersFor(int64_t held, int64_t words) const {
  return held + 16 * words + (rank2Out ? 8 * words : 0);
}

int64_t RowKernelBuilder::estimatedRegisters() {
  int64_t held, words;
  registerWords(held, words);
  return registersFor(held, words);
}

void RowKernelBuilder::setOccupancyHint(gpu::GPUFuncOp f) {
  int64_t held, words;
  registerWords(held, words);
  int64_t regs = registersFor(held, words);
  TargetAttr target = TargetAttr::lookup(f);
  auto blocksFor = [&](int64_t r) -> int64_t {
    if (r > 255)
      return 0; // (no hint)
    // The wide staged kernel's rows leave one block an SM.
    if (path == RowPath::StagedWide)
      return 1;
    int64_t perWarp = llvm::alignTo(r * 32, 256);
    return std::min<int64_t>(
        target.getRegistersPerSM() / (perWarp * (bt / 32)),
        std::max<int64_t>(1, target.getMaxThreadsPerSM() / bt));
  };
  int64_t blocks = blocksFor(regs);
  if (path == RowPath::Narrow) {
    int64_t narrowRegs =
        regs + (chunksPerThread > 4 && held > 16 * words ? 8 * words : 0);
    if (int64_t narrowBlocks = blocksFor(narrowRegs); narrowBlocks >= 1)
      blocks = narrowBlocks;
  }
  if (blocks >= 1)
    f->setAttr("nvvm.minctasm",
               Builder(ctx).getI32IntegerAttr(static_cast<int32_t>(blocks)));
}

FailureOr<gpu::GPUFuncOp> RowKernelBuilder::build(gpu::GPUModuleOp m,
                                                  StringRef name) {
  auto i64 = IntegerType::get(ctx, 64);
  auto i32 = IntegerType::get(ctx, 32);
  SmallVector<Type> params = commonParams(group);
  params.push_back(i64);                        // rows
  params.push_back(i64);                        // cols
  params.push_back(i32);                        // vec: 16-byte rows
  params.append(group.getNumResults(), LLVM::LLVMPointerType::get(ctx, 1));
  gpu::GPUFuncOp f = createKernel(m, loc, name, params, smem, bt);
  setOccupancyHint(f);
  g.func = f;
  OpBuilder b = OpBuilder::atBlockBegin(&f.getBody().front());
  g.setUp(b);
  rows = g.extra[0];
  cols = g.extra[1];
  vecFlag =
      cmpI(b, loc, arith::CmpIPredicate::ne, g.extra[2], cI32(b, loc, 0));
  outs = ValueRange(g.extra).drop_front(3);
  t = g.threadId(b);
  auto registerRows = [&](OpBuilder &ob, Value row) { registerRow(ob, row); };
  auto longRows = [&](OpBuilder &ob, Value row) { longRow(ob, row); };
  switch (path) {
  case RowPath::Register:
    // Rows off the vector path reach it only where the narrow scalar
    // kernel stops at half the block.
    vectorRowPath = plan.narrowRowItems && plan.narrowScalarMaxThreads == bt;
    rowsLoop(b, registerRows, Value());
    break;
  case RowPath::Narrow:
  case RowPath::NarrowScalar: {
    // need = ceil(cols / C) threads; R = 2^shift the smallest power of two
    // >= need and >= tiling.narrowRows (and the scalar kernel's smallest
    // group), as the host sizes the grid.
    int64_t c = plan.narrowRowItems;
    need = arith::DivUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, cols, cI64(b, loc, c - 1)),
        cI64(b, loc, c));
    vectorRowPath = path == RowPath::Narrow;
    scalarRowPath = path == RowPath::NarrowScalar;
    int64_t minThreads = tiling.narrowRows;
    if (scalarRowPath && plan.narrowScalarMinThreads > minThreads)
      minThreads = plan.narrowScalarMinThreads;
    narrowRowsLoop(b, groupShift(b, minThreads));
    break;
  }
  case RowPath::Long:
  case RowPath::Staged:
  case RowPath::StagedWide:
    rowsLoop(b, longRows, Value());
    break;
  }
  gpu::ReturnOp::create(b, loc);
  if (g.failedLeaf)
    return group.emitOpError("GPU code generation: unsupported value in a "
                             "row_reduce group body");
  return f;
}

/// The stages: each reduction over the current row, in body order.
/// `accumulate` folds the row's elements of this thread into the
/// accumulators it is given.
void RowKernelBuilder::runStage(OpBuilder &rb, unsigned ri,
                                Accumulate accumulate) {
  ReduceOp r = reds[ri];
  SmallVector<Value> acc = accumulate(rb, r, startValues(rb, loc, r));
  SmallVector<Value> sm;
  auto wg = g.func.getWorkgroupAttributions();
  for (unsigned k : smemOf[ri])
    sm.push_back(wg[k]);
  acc = narrowShift
            ? groupAllReduce(g, rb, r, acc, sm, narrowShift,
                             scalarRowPath ? plan.narrowScalarMaxThreads
                                           : bt / 2)
            : blockAllReduce(g, rb, r, acc, sm);
  acc = g.applyInit(rb, r, acc);
  for (auto [res, v] : llvm::zip(r.getResults(), acc))
    g.leaves[res] = v;
}

void RowKernelBuilder::runStages(OpBuilder &rb, Accumulate accumulate) {
  for (unsigned ri = 0; ri < reds.size(); ++ri)
    runStage(rb, ri, accumulate);
}

/// Rank-1 results: every thread computes them, thread 0 (of the row's
/// group, narrow rows) stores.
void RowKernelBuilder::storeRowResults(OpBuilder &rb, Value row) {
  Value rIdx = toIndex(rb, loc, row);
  SmallVector<std::pair<Value, Value>> st;
  for (auto [y, out] : llvm::zip(group.getYield().getValues(), outs))
    if (tensorTy(y).getRank() == 1)
      st.push_back({g.element(rb, y, {rIdx}), out});
  if (st.empty())
    return;
  Value tid = readSpecial(rb, loc, "%tid.x");
  Value storing;
  if (narrowShift) {
    Value mask = arith::SubIOp::create(
        rb, loc,
        arith::ShLIOp::create(rb, loc, cI32(rb, loc, 1), narrowShift),
        cI32(rb, loc, 1));
    storing = arith::AndIOp::create(
        rb, loc, narrowValid,
        cmpI(rb, loc, arith::CmpIPredicate::eq,
             arith::AndIOp::create(rb, loc, tid, mask), cI32(rb, loc, 0)));
  } else {
    storing = cmpI(rb, loc, arith::CmpIPredicate::eq, tid, cI32(rb, loc, 0));
  }
  scf::IfOp::create(rb, loc, storing, [&](OpBuilder &ib, Location l) {
    for (auto [v, out] : st)
      g.store(ib, v, out, row);
    scf::YieldOp::create(ib, l);
  });
}

/// `fn(i)` for i = block id, block id + grid, ... while i * perStep <
/// rows (perStep: rows a block takes per step, Value() for one: then i is
/// the row). The step re-reads %nctaid.x at the latch: no stride register
/// stays live and LLVM sees no affine induction to strength-reduce into
/// extra pointers.
void RowKernelBuilder::rowsLoop(OpBuilder &ob,
                                function_ref<void(OpBuilder &, Value)> fn,
                                Value perStep) {
  auto i64 = ob.getI64Type();
  auto loop = scf::WhileOp::create(ob, loc, TypeRange{i64},
                                   ValueRange{g.blockId(ob)});
  Block *before = ob.createBlock(&loop.getBefore(), {}, {i64}, {loc});
  OpBuilder bb = OpBuilder::atBlockEnd(before);
  Value first = before->getArgument(0);
  if (perStep)
    first = arith::MulIOp::create(bb, loc, first, perStep);
  scf::ConditionOp::create(
      bb, loc, cmpI(bb, loc, arith::CmpIPredicate::slt, first, rows),
      ValueRange{before->getArgument(0)});
  Block *after = ob.createBlock(&loop.getAfter(), {}, {i64}, {loc});
  OpBuilder ab = OpBuilder::atBlockEnd(after);
  Value i = after->getArgument(0);
  fn(ab, i);
  Value step =
      arith::ExtUIOp::create(ab, loc, i64, readSpecial(ab, loc, "%nctaid.x"));
  scf::YieldOp::create(ab, loc,
                       ValueRange{arith::AddIOp::create(ab, loc, i, step)});
  ob.setInsertionPointAfter(loop);
}

/// log2 R for groups of at least minThreads (the same choice as the host's
/// grid: selectNarrowGroup).
Value RowKernelBuilder::groupShift(OpBuilder &ob, int64_t minThreads) {
  return selectNarrowGroup(
      ob, loc, arith::CmpIPredicate::ule, cols, need, bt, minThreads,
      plan.narrowSmallCols,
      [&](int64_t p) { return cI32(ob, loc, llvm::Log2_64(p)); },
      cI32(ob, loc, llvm::Log2_64(bt)));
}

/// The narrow rows' loop: block steps of bt / R rows (uniform over the
/// block, so the barriers are reached by every thread), the group's row
/// = step * (bt / R) + tid / R; a group past the last row takes part with
/// the last row's reads and no valid slot or store.
void RowKernelBuilder::narrowRowsLoop(OpBuilder &ob, Value shift) {
  auto i64 = ob.getI64Type();
  Value perBlock = arith::ShRUIOp::create(
      ob, loc, cI64(ob, loc, bt), arith::ExtUIOp::create(ob, loc, i64, shift));
  rowsLoop(
      ob,
      [&](OpBuilder &ab, Value stepIdx) {
        Value row = arith::AddIOp::create(
            ab, loc, arith::MulIOp::create(ab, loc, stepIdx, perBlock),
            arith::ExtUIOp::create(
                ab, loc, i64,
                arith::ShRUIOp::create(ab, loc, readSpecial(ab, loc, "%tid.x"),
                                       shift)));
        narrowValid = cmpI(ab, loc, arith::CmpIPredicate::slt, row, rows);
        narrowShift = shift;
        registerRow(ab, arith::MinSIOp::create(
                            ab, loc, row,
                            arith::SubIOp::create(ab, loc, rows,
                                                  cI64(ab, loc, 1))));
        narrowShift = narrowValid = nullptr;
      },
      perBlock);
}

} // namespace gpugen
} // namespace fuse
