//===- ShardToCalls.cpp - the shard ops on the CPU: runtime hooks ---------===//
//
// A sharded entry (fuse-shard) runs once a shard; on the CPU the program
// that links it provides the collectives as C functions:
//
//   int64_t fuse_shard_rank(void);   // this shard, 0 .. count - 1
//   int64_t fuse_shard_count(void);  // the number of shards
//   void fuse_shard_all_gather(const void *send, int64_t bytes, void *recv);
//
//   int64_t fuse_shard_all_concat_size(int64_t rows);
//   void fuse_shard_all_concat(const void *send, int64_t bytes, void *recv);
//
// all_gather copies every shard's `bytes` bytes into `recv`, shard 0 first,
// and returns once every shard's have been copied. all_concat_size returns
// the sum of every shard's `rows`, and all_concat copies every shard's
// bytes (each its own count) into `recv` one after the other, shard 0
// first. fuse-run defines them: one thread a shard with --shards=N, and a
// single shard otherwise.
//
//===----------------------------------------------------------------------===//

#include "fuse/Conversion/Passes.h"

#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace fuse;

namespace {

/// The declaration of hook `name` in `op`'s module, made if missing.
func::FuncOp hook(PatternRewriter &rewriter, Operation *op, StringRef name,
                  FunctionType type) {
  auto module = op->getParentOfType<ModuleOp>();
  if (auto f = module.lookupSymbol<func::FuncOp>(name))
    return f;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(module.getBody());
  auto f = func::FuncOp::create(rewriter, op->getLoc(), name, type);
  f.setPrivate();
  return f;
}

Value callI64(PatternRewriter &rewriter, Operation *op, StringRef name) {
  Location loc = op->getLoc();
  auto type = rewriter.getFunctionType({}, {rewriter.getI64Type()});
  Value v = func::CallOp::create(rewriter, loc, hook(rewriter, op, name, type),
                                 ValueRange{})
                .getResult(0);
  return arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), v);
}

struct ShardRankToCalls : OpRewritePattern<ShardRankOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ShardRankOp op,
                                PatternRewriter &rewriter) const override {
    Value rank = callI64(rewriter, op, "fuse_shard_rank");
    Value count = callI64(rewriter, op, "fuse_shard_count");
    rewriter.replaceOp(op, {rank, count});
    return success();
  }
};

/// The address of `buffer`'s first element as an LLVM pointer.
Value addressOf(PatternRewriter &rewriter, Location loc, Value buffer) {
  Value idx =
      memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, buffer);
  Value i64 =
      arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), idx);
  return LLVM::IntToPtrOp::create(
      rewriter, loc, LLVM::LLVMPointerType::get(rewriter.getContext()), i64);
}

/// The bytes of dimensions [from, rank) of `t` (its element width times
/// their sizes); the dynamic ones among those sizes go to `dynamic`.
Value bytesFrom(PatternRewriter &rewriter, Location loc, Value t, int64_t from,
                SmallVectorImpl<Value> &dynamic) {
  auto type = cast<RankedTensorType>(t.getType());
  // Buffers hold i1 as a byte an element (LLVM's layout), halves as 2.
  int64_t width =
      std::max<int64_t>(1, type.getElementType().getIntOrFloatBitWidth() / 8);
  Value bytes = arith::ConstantIndexOp::create(rewriter, loc, width);
  for (int64_t d = from; d < type.getRank(); ++d) {
    Value n = tensor::DimOp::create(rewriter, loc, t, d);
    bytes = arith::MulIOp::create(rewriter, loc, bytes, n);
    if (type.isDynamicDim(d))
      dynamic.push_back(n);
  }
  return bytes;
}

/// Replaces `op` by a buffer of `op`'s result type (sizes `outSizes`) that
/// hook `name`(send, bytes, recv) fills from `input`'s buffer.
void replaceByExchange(PatternRewriter &rewriter, Operation *op, StringRef name,
                       Value input, ValueRange outSizes, Value bytes) {
  Location loc = op->getLoc();
  auto in = cast<RankedTensorType>(input.getType());
  auto out = cast<RankedTensorType>(op->getResult(0).getType());
  Value send = bufferization::ToBufferOp::create(
      rewriter, loc, MemRefType::get(in.getShape(), in.getElementType()), input,
      /*readOnly=*/true);
  Value recv = memref::AllocOp::create(
      rewriter, loc, MemRefType::get(out.getShape(), out.getElementType()),
      outSizes);
  auto ptr = LLVM::LLVMPointerType::get(rewriter.getContext());
  Type i64 = rewriter.getI64Type();
  func::CallOp::create(
      rewriter, loc,
      hook(rewriter, op, name, rewriter.getFunctionType({ptr, i64, ptr}, {})),
      ValueRange{addressOf(rewriter, loc, send),
                 arith::IndexCastOp::create(rewriter, loc, i64, bytes),
                 addressOf(rewriter, loc, recv)});
  rewriter.replaceOpWithNewOp<bufferization::ToTensorOp>(
      op, out, recv, /*restrict=*/true, /*writable=*/true);
}

struct AllGatherToCall : OpRewritePattern<AllGatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AllGatherOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<Value> outSizes{callI64(rewriter, op, "fuse_shard_count")};
    Value bytes = bytesFrom(rewriter, op.getLoc(), op.getInput(), 0, outSizes);
    replaceByExchange(rewriter, op, "fuse_shard_all_gather", op.getInput(),
                      outSizes, bytes);
    return success();
  }
};

/// fuse_shard_all_concat_size (every shard's leading size, summed: the
/// whole array's) sizes the result; fuse_shard_all_concat fills it.
struct AllConcatToCalls : OpRewritePattern<AllConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AllConcatOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type();
    SmallVector<Value> rest;
    Value rowBytes = bytesFrom(rewriter, loc, op.getInput(), 1, rest);
    Value rows = tensor::DimOp::create(rewriter, loc, op.getInput(), 0);
    Value total =
        func::CallOp::create(
            rewriter, loc,
            hook(rewriter, op, "fuse_shard_all_concat_size",
                 rewriter.getFunctionType({i64}, {i64})),
            ValueRange{arith::IndexCastOp::create(rewriter, loc, i64, rows)})
            .getResult(0);
    SmallVector<Value> outSizes{arith::IndexCastOp::create(
        rewriter, loc, rewriter.getIndexType(), total)};
    outSizes.append(rest);
    replaceByExchange(rewriter, op, "fuse_shard_all_concat", op.getInput(),
                      outSizes,
                      arith::MulIOp::create(rewriter, loc, rows, rowBytes));
    return success();
  }
};

} // namespace

void fuse::populateShardToCallsPatterns(RewritePatternSet &patterns) {
  patterns.add<ShardRankToCalls, AllGatherToCall, AllConcatToCalls>(
      patterns.getContext());
}
