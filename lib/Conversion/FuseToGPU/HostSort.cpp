//===- HostSort.cpp - fuse.sort between the groups
//-------------------------===//
//
// A fuse.sort of the entry is a host step between its groups: the runtime's
// fuse_sort_ws (CUB's DeviceRadixSort) from the operands' buffers into the
// results' (the caller's outputs, or temporaries); a sort with a comparator
// region launches its merge-sort kernels instead (MergeSort.h). Its temporary
// storage is sized by fuse_sort_temp_bytes, pure host arithmetic, and taken
// like every other temporary (the caller's workspace in NAME_ws), so both forms
// of the entry can be captured into a CUDA graph. The key order of CUB's
// radix sort is the one fuse.sort documents, and the CPU lowering's.
//
//===----------------------------------------------------------------------===//

#include "HostEntry.h"
#include "MergeSort.h"

#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include "fuse_runtime.h"

#include <limits>

namespace fuse {
namespace gpugen {

namespace {

/// The runtime's fuse_dtype_t of elements of type `t` (integers as
/// unsigned where `asUnsigned`), or none where it has no such dtype.
std::optional<fuse_dtype_t> runtimeDtype(Type t, bool asUnsigned) {
  if (t.isF16())
    return FUSE_F16;
  if (t.isBF16())
    return FUSE_BF16;
  if (t.isF32())
    return FUSE_F32;
  if (t.isF64())
    return FUSE_F64;
  switch (t.isInteger() ? t.getIntOrFloatBitWidth() : 0) {
  case 1:
    return FUSE_BOOL;
  case 8:
    return asUnsigned ? FUSE_U8 : FUSE_I8;
  case 16:
    return asUnsigned ? FUSE_U16 : FUSE_I16;
  case 32:
    return asUnsigned ? FUSE_U32 : FUSE_I32;
  case 64:
    return asUnsigned ? FUSE_U64 : FUSE_I64;
  default:
    return std::nullopt;
  }
}

} // namespace

LogicalResult HostEntry::convertSort(SortOp op) {
  Type keyType = op.getKeys().getType().getElementType();
  std::optional<fuse_dtype_t> keyDtype =
      runtimeDtype(keyType, op.isUnsigned());
  if (!keyDtype && !op.hasComparator())
    return op.emitOpError("GPU code generation: the runtime's radix sort "
                          "has no ")
           << (op.isUnsigned() ? "unsigned " : "") << keyType << " keys";
  // Values are moved, never compared: any dtype of their width (the
  // signed ones exist for every width).
  std::optional<fuse_dtype_t> valueDtype = FUSE_U8;
  if (Value v = op.getValues())
    valueDtype = runtimeDtype(
        cast<RankedTensorType>(v.getType()).getElementType(), false);
  if (!valueDtype)
    return op.emitOpError("GPU code generation: unsupported value type ")
           << op.getValues().getType();
  SmallVector<HostTensor> ins;
  for (Value v : op.getOperands()) {
    auto it = tensors.find(v);
    if (it == tensors.end())
      return op.emitOpError("GPU code generation: operand not available on "
                            "the host");
    // CUB takes the length on the host.
    if (failed(needHostSize(v, "a sort reads it")))
      return failure();
    ins.push_back(it->second);
  }
  Value n = tensors[op.getKeys()].dims[0];
  // The runtime answers the size query and allocates once initialised; an
  // entry whose only step is a sort has no kernels to load that would.
  h.check(h.call("fuse_init", {}));

  // Result buffers: the caller's outputs (checked: a sort cannot run in
  // place, every byte of an input is read after some output is written),
  // else temporaries.
  SmallVector<Value> outs;
  for (auto [j, res] : llvm::enumerate(op.getResults())) {
    // The positions (no operand) have the keys' length.
    const HostTensor &in = ins[std::min<size_t>(j, ins.size() - 1)];
    Value buf;
    auto ri = resultIndex.find(res);
    if (ri != resultIndex.end()) {
      unsigned k = ri->second;
      Extent o{h.entry->getArgument(sig.firstResultArg + k),
               extentBytes(tensorTy(res), in.dims),
               "out" + std::to_string(k)};
      for (auto &[arg, user] : userInputs)
        rejectIf(overlaps(o, user), name + ": " + o.what + " and " +
                                        user.what +
                                        " overlap; a sort's result cannot be "
                                        "computed in place of its input");
      rejectNull(o);
      for (const Extent &p : userOutputs)
        rejectIf(overlaps(o, p),
                 name + ": " + o.what + " and " + p.what + " overlap");
      userOutputs.push_back(o);
      buf = o.ptr;
      resultSizes[k] = in.dimSizes;
    } else {
      buf = h.allocTemp(extentBytes(tensorTy(res), in.dims));
    }
    outs.push_back(buf);
    tensors[res] = HostTensor{buf, in.dims, in.dimSizes};
  }

  if (op.hasComparator())
    return launchMergeSort(op, ins, outs, n);
  Value order = h.c32(op.isDescending() ? FUSE_SORT_DESCENDING
                                        : FUSE_SORT_ASCENDING);
  if (op.hasPositions()) {
    // The runtime makes the positions and moves them as 4-byte words
    // below 2^31 elements.
    Value bytesSlot = h.slot(h.i64());
    h.check(h.call("fuse_argsort_temp_bytes",
                   {h.c32(*keyDtype), n, order, bytesSlot}));
    Value bytes = h.load(h.i64(), bytesSlot);
    Value temp = h.allocTemp(bytes);
    h.onDevice([&] {
      h.check(h.call("fuse_argsort_ws",
                     {h.c32(*keyDtype), order, ins[0].ptr, outs[0], outs[1], n,
                      temp, bytes, h.stream}));
    });
    return success();
  }
  bool hasValues = static_cast<bool>(op.getValues());
  Value bytesSlot = h.slot(h.i64());
  h.check(h.call("fuse_sort_temp_bytes",
                 {h.c32(*keyDtype), h.c32(*valueDtype), h.c32(hasValues), n,
                  order, bytesSlot}));
  Value bytes = h.load(h.i64(), bytesSlot);
  Value temp = h.allocTemp(bytes);
  Value null = LLVM::ZeroOp::create(h.b, loc, h.ptrTy());
  h.onDevice([&] {
    h.check(h.call("fuse_sort_ws",
                   {h.c32(*keyDtype), order, ins[0].ptr, outs[0],
                    h.c32(*valueDtype), hasValues ? ins[1].ptr : null,
                    hasValues ? outs[1] : null, n, temp, bytes, h.stream}));
  });
  return success();
}

LogicalResult HostEntry::launchMergeSort(SortOp op, ArrayRef<HostTensor> ins,
                                         ArrayRef<Value> outs, Value n) {
  auto it = mergeSorts.find(op);
  if (it == mergeSorts.end())
    return op.emitOpError("GPU code generation: no kernels were built for "
                          "this comparator sort");
  const MergeSortPlan &p = it->second;
  ensureLoaded();
  bool values = p.hasValues();
  auto bytes = [&](Type t) { return h.mul(n, h.c64(byteWidth(t))); };
  auto pick = [&](Value c, Value x, Value y) {
    return arith::SelectOp::create(h.b, loc, c, x, y).getResult();
  };
  auto cmp = [&](arith::CmpIPredicate pred, Value x, Value y) {
    return arith::CmpIOp::create(h.b, loc, pred, x, y).getResult();
  };
  Value tiles = h.ceilDiv(n, h.c64(p.tile()));
  // passes = ceil(log2(tiles)): 64 - clz(tiles - 1) for tiles > 1.
  Value clz = LLVM::CountLeadingZerosOp::create(
      h.b, loc, h.i64(), h.sub(tiles, h.c64(1)), /*is_zero_poison=*/false);
  Value passes = pick(cmp(arith::CmpIPredicate::sgt, tiles, h.c64(1)),
                      h.sub(h.c64(64), clz), h.c64(0));
  // Keys ping-pong between the results and a temporary: the tile sort
  // writes into `a`, merge pass i reads a (i even) or b and writes the
  // other; the passes' parity puts the last write into the results.
  Value even =
      cmp(arith::CmpIPredicate::eq, h.andI(passes, h.c64(1)), h.c64(0));
  Value tempKeys = h.allocTemp(bytes(p.keyType));
  Value aKeys = pick(even, outs[0], tempKeys);
  Value bKeys = pick(even, tempKeys, outs[0]);
  // Beside them the values, in the same way, or, carrying positions (wide
  // values, at least one pass, positions below 2^31), positions in two
  // temporaries, the last pass gathering the values into the results.
  Value positions = h.c1(false);
  if (p.carriesPositions())
    positions = h.andI(cmp(arith::CmpIPredicate::sgt, passes, h.c64(0)),
                       cmp(arith::CmpIPredicate::sle, n,
                           h.c64(std::numeric_limits<int32_t>::max())));
  Value aCarry, bCarry;
  if (values) {
    Value posBytes = h.mul(n, h.c64(4));
    Value temp1 = h.allocTemp(pick(positions, posBytes, bytes(p.valueType)));
    Value temp2 = h.allocTemp(pick(positions, posBytes, h.c64(0)));
    aCarry = pick(positions, temp1, pick(even, outs[1], temp1));
    bCarry = pick(positions, temp2, pick(even, temp1, outs[1]));
  }
  auto mode = [&](CarryMode m) { return h.c64(static_cast<int64_t>(m)); };
  auto arrays = [&](Value k, Value v, Value k2, Value v2) {
    SmallVector<Value> args{k};
    if (values)
      args.push_back(v);
    args.push_back(k2);
    if (values)
      args.push_back(v2);
    return args;
  };
  Value blocks = h.ceilDiv(n, h.c64(p.mergeTile()));
  // Few merge blocks search their own bounds in every pass (no partition
  // launch), and the partition's splits are not needed.
  Value selfSearch =
      cmp(arith::CmpIPredicate::sle, blocks, h.c64(p.selfSearchBlocks));
  Value splits =
      h.allocTemp(pick(selfSearch, h.c64(0), h.mul(blocks, h.c64(8))));
  // The values the kernels read: none for a positions sort, which makes
  // its own (WidePositions where the others read values).
  Value valuesIn;
  if (values)
    valuesIn =
        p.positions ? LLVM::ZeroOp::create(h.b, loc, h.ptrTy()) : ins[1].ptr;
  CarryMode direct = p.positions ? CarryMode::WidePositions : CarryMode::Values;
  CarryMode lastPass =
      p.positions ? CarryMode::WidePositions : CarryMode::GatherValues;
  h.ifThen(cmp(arith::CmpIPredicate::sgt, n, h.c64(0)), [&] {
    SmallVector<Value> args = arrays(ins[0].ptr, valuesIn, aKeys, aCarry);
    args.push_back(n);
    if (p.carriesPositions())
      args.push_back(pick(positions, mode(CarryMode::Positions), mode(direct)));
    h.launch(handle[p.tileKernel], tiles, p.blockThreads, args);
    // A pass: the partition kernel's searches (one a merge block, a
    // group of 2^shift lanes each) into `splits`, then the merge blocks;
    // or, few blocks, the merge blocks' own searches.
    Value shift = h.c64(2);
    for (int64_t s = 3; s <= 5; ++s)
      shift = pick(cmp(arith::CmpIPredicate::sle,
                       h.mul(blocks, h.c64(int64_t(1) << s)),
                       h.c64(p.searchThreads)),
                   h.c64(s), shift);
    Value searchGrid = h.ceilDiv(arith::ShLIOp::create(h.b, loc, blocks, shift),
                                 h.c64(p.blockThreads));
    h.forEach(h.c64(0), passes, [&](Value pass) {
      Value fromA =
          cmp(arith::CmpIPredicate::eq, h.andI(pass, h.c64(1)), h.c64(0));
      Value src = pick(fromA, aKeys, bKeys);
      Value w = arith::ShLIOp::create(h.b, loc, h.c64(p.tile()), pass);
      h.ifThen(h.notI(selfSearch), [&] {
        h.launch(handle[p.partitionKernel], searchGrid, p.blockThreads,
                 {src, n, w, splits, blocks, shift});
      });
      Value carryOut;
      Value gather;
      if (values) {
        carryOut = pick(fromA, bCarry, aCarry);
        gather = h.andI(positions, cmp(arith::CmpIPredicate::eq, pass,
                                       h.sub(passes, h.c64(1))));
        carryOut = pick(gather, outs[1], carryOut);
      }
      SmallVector<Value> margs =
          arrays(src, values ? pick(fromA, aCarry, bCarry) : Value(),
                 pick(fromA, bKeys, aKeys), carryOut);
      margs.append({n, w, splits,
                    arith::ExtUIOp::create(h.b, loc, h.i64(), selfSearch)});
      if (p.carriesPositions()) {
        margs.push_back(pick(gather, mode(lastPass),
                             pick(positions, mode(CarryMode::Positions),
                                  mode(CarryMode::Values))));
        margs.push_back(valuesIn);
      }
      h.launch(handle[p.mergeKernel], blocks, p.blockThreads, margs);
    });
  });
  return success();
}

} // namespace gpugen
} // namespace fuse
