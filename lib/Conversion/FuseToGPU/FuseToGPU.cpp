//===- FuseToGPU.cpp - convert-fuse-to-gpu: host code and the pass --------===//
//
// Host side of the GPU path: each entry function becomes a C-ABI function
// built from func/arith/cf/llvm ops that calls the fuse runtime. Kernels
// come from Kernels.cpp.
//
//===----------------------------------------------------------------------===//

#include "fuse/Conversion/FuseToGPU/FuseToGPU.h"
#include "HostBuilder.h"
#include "KernelGen.h"

#include "fuse/Conversion/Passes.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/Fuse/Utils/EntrySizeChecks.h"
#include "fuse/Dialect/Fuse/Utils/SizeAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

using namespace mlir;

namespace fuse {
#define GEN_PASS_DEF_CONVERTFUSETOGPUPASS
#include "fuse/Conversion/Passes.h.inc"
} // namespace fuse

using namespace fuse;
using namespace fuse::gpugen;

namespace {

std::string cTypeName(Type t) {
  if (t.isF32())
    return "float";
  if (t.isF64())
    return "double";
  if (t.isF16() || t.isBF16())
    return "uint16_t";
  if (t.isIndex())
    return "int64_t";
  if (auto it = dyn_cast<IntegerType>(t))
    return "int" + std::to_string(it.getWidth() < 8 ? 8 : it.getWidth()) +
           "_t";
  return "void";
}

/// Moves each `tensor.dim` (constant index) inside the regions of a
/// group's ops whose tensor is defined outside that op to just before the
/// op, in the group body: the kernel generators read body-level scalars
/// (the dimension then comes from the kernel's size parameters), where a
/// dimension computed inside a map body, filter predicate or combiner had
/// no scalar value for its tensor.
void hoistRegionDims(func::FuncOp fn) {
  for (auto g : fn.getBody().front().getOps<GroupOp>()) {
    SmallVector<std::pair<Operation *, tensor::DimOp>> moves;
    for (Operation &top : g.getBody().front()) {
      if (top.getNumRegions() == 0)
        continue;
      top.walk([&](tensor::DimOp d) {
        Operation *srcOwner = d.getSource().getParentRegion()->getParentOp();
        if (!top.isAncestor(srcOwner) && d.getConstantIndex())
          moves.push_back({&top, d});
      });
    }
    for (auto [top, d] : moves) {
      OpBuilder b(top);
      Value idx = arith::ConstantIndexOp::create(b, d.getLoc(),
                                                 *d.getConstantIndex());
      Value nd = tensor::DimOp::create(b, d.getLoc(), d.getSource(), idx);
      d.getResult().replaceAllUsesWith(nd);
      d.erase();
    }
  }
}

//===----------------------------------------------------------------------===//
// Wrapping loose fuse ops in groups
//===----------------------------------------------------------------------===//

GroupKind groupKindFor(Operation *op) {
  if (auto r = dyn_cast<ReduceOp>(op))
    return r.isFullReduction() ? GroupKind::Reduce : GroupKind::RowReduce;
  if (isa<ScanOp>(op))
    return GroupKind::Scan;
  if (isa<FilterOp>(op))
    return GroupKind::Filter;
  return GroupKind::Elementwise;
}

/// Tensor arguments returned as they are: every result of an entry is
/// written by a kernel into the caller's output, so each such result
/// becomes a fuse.map yielding its element (an elementwise copy, grouped by
/// wrapLooseOps). (fuse's Python GPU trace makes the same copy earlier,
/// fused with the other results of its shape.)
void copyReturnedArguments(func::FuncOp fn) {
  auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  for (OpOperand &use : ret->getOpOperands()) {
    auto arg = dyn_cast<BlockArgument>(use.get());
    auto t = arg ? dyn_cast<RankedTensorType>(arg.getType()) : nullptr;
    if (!t)
      continue;
    Location loc = ret.getLoc();
    OpBuilder b(ret);
    auto copy = MapOp::create(b, loc, TypeRange{t}, ValueRange{arg});
    Block *body =
        b.createBlock(&copy.getBody(), {}, {t.getElementType()}, {loc});
    b.setInsertionPointToStart(body);
    YieldOp::create(b, loc, body->getArgument(0));
    use.set(copy.getResult(0));
  }
}

void wrapLooseOps(func::FuncOp fn) {
  SmallVector<Operation *> loose;
  for (Operation &op : fn.getBody().front())
    if (isa_and_nonnull<FuseDialect>(op.getDialect()) && !isa<GroupOp>(op))
      loose.push_back(&op);
  for (Operation *op : loose) {
    llvm::SetVector<Value> operands(op->getOperands().begin(),
                                    op->getOperands().end());
    llvm::SetVector<Value> captured;
    for (Region &r : op->getRegions())
      getUsedValuesDefinedAbove(r, captured);
    operands.insert(captured.begin(), captured.end());
    OpBuilder b(op);
    auto g = GroupOp::create(b, op->getLoc(), op->getResultTypes(),
                             groupKindFor(op), operands.getArrayRef());
    Block *body = b.createBlock(&g.getBody());
    IRMapping map;
    for (Value v : operands)
      map.map(v, body->addArgument(v.getType(), v.getLoc()));
    Operation *clone = b.clone(*op, map);
    YieldOp::create(b, op->getLoc(), clone->getResults());
    op->replaceAllUsesWith(g.getResults());
    op->erase();
  }
}

//===----------------------------------------------------------------------===//
// Converting one entry function
//===----------------------------------------------------------------------===//

struct EntryConverter {
  ModuleOp module;
  gpu::GPUModuleOp gpuModule;
  Tiling defaults;
  /// The chip has cp.async (sm_80+): staged scan/filter tiles and staged
  /// rows are possible.
  bool asyncCopy = true;
  /// Dynamic shared memory a block may take on the chip for staged rows
  /// (its opt-in maximum, less 1 KiB for the kernels' static buffers).
  int64_t maxStagedBytes = 0;

  /// The group's tiling: its `fuse.tiling` (verified by TilingAttr), or
  /// the pass options for a group fuse-tile did not see; then what the
  /// chip allows.
  Tiling tilingOf(GroupOp g) {
    Tiling t = defaults;
    auto a = g->getAttrOfType<TilingAttr>(TilingAttr::getAttrName());
    if (!a) {
      t.stageTiles = t.stageTiles && asyncCopy;
      return t;
    }
    t.stagedWideRows = maxStagedBytes / 2;
    {
      t.blockThreads = a.getBlockThreads();
      t.items = a.getItemsPerThread();
      t.vectorWidth = a.getVectorWidth();
      t.grid = a.getGrid();
      t.stageTiles = a.getStageTiles();
      t.sharedScatter = a.getSharedScatter();
      t.finishPrefetch = a.getFinishPrefetch();
      t.longRowItems = a.getLongRowItems();
      t.onlineMaxSum = a.getOnlineMaxSum();
      t.narrowRows = a.getNarrowRows();
      t.stagedRows = std::min(a.getStagedRows(), maxStagedBytes);
      t.stagedThreads =
          a.getStagedThreads() ? a.getStagedThreads() : t.blockThreads;
      t.pollDelay = a.getPollDelay();
      t.lookbackDelay = a.getLookbackDelay();
      // The other kernels read items as vectors in flight a thread.
      t.unroll = std::clamp<int64_t>(t.items / t.vectorWidth, 1, 16);
    }
    if (!asyncCopy) {
      t.stageTiles = false;
      t.stagedRows = 0;
    }
    return t;
  }

  LogicalResult convert(func::FuncOp fn, SmallVector<Attribute> &entries);
};

LogicalResult EntryConverter::convert(func::FuncOp fn,
                                      SmallVector<Attribute> &entries) {
  MLIRContext *ctx = fn.getContext();
  Location loc = fn.getLoc();
  if (fn.getBody().getBlocks().size() != 1)
    return fn.emitOpError("GPU code generation: entry functions must have "
                          "one block");
  copyReturnedArguments(fn);
  wrapLooseOps(fn);
  hoistRegionDims(fn);
  Block &oldBody = fn.getBody().front();
  // Checks before building anything.
  for (Operation &op : oldBody) {
    if (isa<GroupOp, func::ReturnOp>(op))
      continue;
    if (isa<tensor::DimOp>(op))
      continue;
    bool scalarOnly = op.getNumRegions() == 0 &&
                      llvm::none_of(op.getOperandTypes(), [](Type t) {
                        return isa<ShapedType>(t);
                      }) &&
                      llvm::none_of(op.getResultTypes(), [](Type t) {
                        return isa<ShapedType>(t);
                      });
    if (!scalarOnly)
      return op.emitOpError("GPU code generation: unsupported op in an entry "
                            "function (expected fuse.group, scalar ops or "
                            "tensor.dim)");
  }
  for (BlockArgument a : oldBody.getArguments()) {
    Type t = a.getType();
    if (auto tt = dyn_cast<RankedTensorType>(t)) {
      Type et = tt.getElementType();
      if (et.isInteger(1))
        return fn.emitOpError("GPU code generation: i1 tensor arguments are "
                              "not supported");
      if (!et.isIntOrIndexOrFloat())
        return fn.emitOpError("GPU code generation: unsupported element type ")
               << et << " of tensor argument #" << a.getArgNumber();
      continue;
    }
    if (!t.isIntOrIndexOrFloat())
      return fn.emitOpError("GPU code generation: unsupported argument type ")
             << t;
  }
  auto ret = cast<func::ReturnOp>(oldBody.getTerminator());
  for (Value r : ret.getOperands()) {
    if (!isa<RankedTensorType>(r.getType()))
      return fn.emitOpError("GPU code generation: results must be tensors");
    if (!r.getDefiningOp<GroupOp>())
      return fn.emitOpError("GPU code generation: every result must be "
                            "produced by a fuse.group in the function");
  }

  // Kernels.
  std::string name = fn.getSymName().str();
  SmallVector<std::pair<GroupOp, GroupKernels>, 2> groups;
  unsigned gi = 0;
  for (Operation &op : oldBody)
    if (auto g = dyn_cast<GroupOp>(op)) {
      FailureOr<GroupKernels> gk = buildGroupKernels(
          gpuModule, g, name + "_g" + std::to_string(gi++), tilingOf(g));
      if (failed(gk))
        return failure();
      groups.push_back({g, *gk});
    }

  // The host function.
  SmallVector<Type> argTypes;
  Type ptrTy = LLVM::LLVMPointerType::get(ctx);
  std::string decl, doc;
  llvm::raw_string_ostream declOs(decl), docOs(doc);
  declOs << "fuse_status_t " << name << "(";
  docOs << "/** " << name << ": compiled fuse pipeline (" << groups.size()
        << " fused group(s)).\n";
  bool firstParam = true;
  auto param = [&](StringRef text) {
    declOs << (firstParam ? "" : ", ") << text;
    firstParam = false;
  };
  SmallVector<std::string> argNames;
  for (auto [i, a] : llvm::enumerate(oldBody.getArguments())) {
    std::string an = "in" + std::to_string(i);
    argNames.push_back(an);
    if (auto tt = tensorTy(a)) {
      argTypes.push_back(ptrTy);
      param("const " + cTypeName(tt.getElementType()) + " *" + an);
      docOs << " *  " << an << ": device pointer to " << tt << ", row-major, "
            << "dims";
      for (int64_t d = 0; d < tt.getRank(); ++d) {
        argTypes.push_back(IntegerType::get(ctx, 64));
        std::string dn = an + "_d" + std::to_string(d);
        param("int64_t " + dn);
        docOs << " " << dn;
      }
      docOs << (tt.getRank() ? "" : " (none: one element)") << ".\n";
    } else {
      Type t = a.getType().isIndex() ? IntegerType::get(ctx, 64) : a.getType();
      argTypes.push_back(t);
      param(cTypeName(a.getType()) + " " + an);
      docOs << " *  " << an << ": scalar " << a.getType() << ".\n";
    }
  }
  unsigned firstResultArg = argTypes.size();
  for (auto [i, r] : llvm::enumerate(ret.getOperands())) {
    argTypes.push_back(ptrTy);
    param(cTypeName(tensorTy(r).getElementType()) + " *out" +
          std::to_string(i));
  }
  // Results sized by a fuse.filter's kept count (its own results, and
  // maps, scans and gathers of them): one `int64_t *outK_count` each (host
  // pointer, may be NULL), written before the call returns.
  SmallVector<int> countArg(ret.getNumOperands(), -1);
  for (auto [i, r] : llvm::enumerate(ret.getOperands())) {
    if (!filterCountSource(r))
      continue;
    countArg[i] = argTypes.size();
    argTypes.push_back(ptrTy);
    param("int64_t *out" + std::to_string(i) + "_count");
  }
  unsigned streamArg = argTypes.size();
  argTypes.push_back(ptrTy);
  param("fuse_stream_t stream");
  declOs << ");";

  OpBuilder mb(fn);
  auto host = func::FuncOp::create(
      mb, loc, name + "__fuse_host",
      mb.getFunctionType(argTypes, {mb.getI32Type()}));
  HostBuilder h(module, host, loc);
  h.entry = host.addEntryBlock();
  h.fail = new Block();
  host.getBody().push_back(h.fail);
  h.fail->addArgument(h.i32(), loc);
  h.b.setInsertionPointToStart(h.entry);
  h.stream = h.entry->getArgument(streamArg);

  // Kernel handles, loaded once (the first handle is the "ready" flag).
  SmallVector<std::string> kernelNames;
  for (auto &[g, gk] : groups) {
    kernelNames.push_back(gk.kernel);
    for (const std::string &k :
         {gk.finishKernel, gk.narrowKernel, gk.narrowScalarKernel,
          gk.longKernel, gk.stagedKernel, gk.stagedWideKernel})
      if (!k.empty())
        kernelNames.push_back(k);
  }
  SmallVector<LLVM::GlobalOp> handleGlobals;
  for (StringRef k : kernelNames)
    handleGlobals.push_back(
        h.global(("__fuse_fn_" + k).str(), ptrTy, nullptr, false, 8));
  auto smGlobal = h.global("__fuse_sm_" + name, h.i64(),
                           h.b.getI64IntegerAttr(0), false, 8);
  std::string kmod = kKernelModuleName;
  auto image = h.global(kmod + kImageSuffix,
                        LLVM::LLVMArrayType::get(h.b.getI8Type(), 1),
                        h.b.getStringAttr(StringRef("\0", 1)), true, 16);
  auto imageSize = h.global(kmod + kImageSizeSuffix, h.i64(),
                            h.b.getI64IntegerAttr(0), true, 8);
  // Loaded at the first group, after its argument checks: a call whose
  // buffers overlap is rejected before anything touches the device.
  DenseMap<StringRef, Value> handle;
  bool loaded = handleGlobals.empty();
  auto ensureLoaded = [&] {
    if (loaded)
      return;
    loaded = true;
    Value first = LLVM::LoadOp::create(
        h.b, loc, ptrTy, h.addressOf(handleGlobals[0]), 8, false, false,
        false, false, LLVM::AtomicOrdering::acquire);
    Value isNull = LLVM::ICmpOp::create(h.b, loc, LLVM::ICmpPredicate::eq,
                                        first,
                                        LLVM::ZeroOp::create(h.b, loc, ptrTy));
    h.ifThen(isNull, [&] {
      h.check(h.call("fuse_init", {}));
      Value modSlot = h.slot(ptrTy);
      Value size = h.load(h.i64(), h.addressOf(imageSize));
      h.check(h.call("fuse_module_load",
                     {h.addressOf(image), size, modSlot}));
      Value module = h.load(ptrTy, modSlot);
      Value i32Slot = h.slot(h.i32());
      Value maj = h.slot(h.i32()), min = h.slot(h.i32());
      h.check(h.call("fuse_device_info", {maj, min, i32Slot}));
      Value sm = arith::ExtSIOp::create(h.b, loc, h.i64(),
                                        h.load(h.i32(), i32Slot));
      LLVM::StoreOp::create(h.b, loc, sm, h.addressOf(smGlobal), 8, false,
                            false, false, LLVM::AtomicOrdering::monotonic);
      SmallVector<Value> handles;
      for (StringRef k : kernelNames) {
        std::string gname = "__fuse_name_" + k.str();
        std::string text = k.str();
        text.push_back('\0');
        auto ng = h.global(gname,
                           LLVM::LLVMArrayType::get(h.b.getI8Type(),
                                                    text.size()),
                           h.b.getStringAttr(text), true, 1);
        Value fslot = h.slot(ptrTy);
        h.check(h.call("fuse_module_get_function",
                       {module, h.addressOf(ng), fslot}));
        handles.push_back(h.load(ptrTy, fslot));
      }
      // Publish the first handle last.
      for (int i = handles.size() - 1; i >= 0; --i)
        LLVM::StoreOp::create(h.b, loc, handles[i],
                              h.addressOf(handleGlobals[i]), 8, false, false,
                              false,
                              i == 0 ? LLVM::AtomicOrdering::release
                                     : LLVM::AtomicOrdering::monotonic);
    });
    for (auto [k, g] : llvm::zip(kernelNames, handleGlobals))
      handle[k] = LLVM::LoadOp::create(h.b, loc, ptrTy, h.addressOf(g), 8, false,
                                       false, false, false,
                                       LLVM::AtomicOrdering::monotonic);
    h.smCount = LLVM::LoadOp::create(h.b, loc, h.i64(), h.addressOf(smGlobal), 8,
                                     false, false, false, false,
                                     LLVM::AtomicOrdering::monotonic);
  };

  // Host values of the old function's values.
  DenseMap<Value, HostTensor> tensors;
  IRMapping scalarMap;
  DenseMap<Value, std::pair<Value, std::string>> scalarText;
  {
    unsigned p = 0;
    for (auto [i, a] : llvm::enumerate(oldBody.getArguments())) {
      if (auto tt = tensorTy(a)) {
        HostTensor ht;
        ht.ptr = h.entry->getArgument(p++);
        for (int64_t d = 0; d < tt.getRank(); ++d) {
          ht.dims.push_back(h.entry->getArgument(p++));
          ht.dimText.push_back(argNames[i] + "_d" + std::to_string(d));
        }
        tensors[a] = ht;
      } else {
        Value v = h.entry->getArgument(p++);
        scalarMap.map(a, v);
        scalarText[a] = {v, argNames[i]};
      }
    }
  }
  // Which group results are function results.
  DenseMap<Value, unsigned> resultIndex;
  for (auto [i, r] : llvm::enumerate(ret.getOperands()))
    resultIndex.try_emplace(r, i);
  SmallVector<std::string> resultText(ret.getNumOperands());

  // Argument checks: byte ranges of the caller's buffers.
  struct Extent {
    Value ptr, bytes; // i64 bytes
    std::string what; // "in0", "out1"
  };
  auto extentBytes = [&](RankedTensorType t, ArrayRef<Value> dims) {
    Value bytes = h.c64(byteWidth(t.getElementType()));
    for (Value v : dims)
      bytes = h.mul(bytes, v);
    return bytes;
  };
  SmallVector<std::pair<BlockArgument, Extent>> userInputs;
  for (auto [i, a] : llvm::enumerate(oldBody.getArguments()))
    if (auto tt = tensorTy(a)) {
      const HostTensor &ht = tensors[a];
      userInputs.push_back(
          {a, Extent{ht.ptr, extentBytes(tt, ht.dims), argNames[i]}});
    }
  SmallVector<Extent> userOutputs;
  auto addr = [&](Value p) {
    return LLVM::PtrToIntOp::create(h.b, loc, h.i64(), p).getResult();
  };
  // [a, a + na) and [b, b + nb) share a byte (empty ranges share none).
  auto overlaps = [&](const Extent &x, const Extent &y) -> Value {
    Value a = addr(x.ptr), b = addr(y.ptr);
    auto ult = [&](Value l, Value r) {
      return arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::ult, l, r)
          .getResult();
    };
    Value zero = h.c64(0);
    return h.andI(h.andI(ult(a, h.add(b, y.bytes)), ult(b, h.add(a, x.bytes))),
                  h.andI(ult(zero, x.bytes), ult(zero, y.bytes)));
  };
  auto sameBuffer = [&](const Extent &x, const Extent &y) -> Value {
    auto eq = [&](Value l, Value r) {
      return arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::eq, l, r)
          .getResult();
    };
    return h.andI(eq(addr(x.ptr), addr(y.ptr)), eq(x.bytes, y.bytes));
  };
  unsigned numMessages = 0;
  auto messageGlobal = [&](const std::string &message) {
    std::string text = message;
    text.push_back('\0');
    return h.global("__fuse_msg_" + name + "_" + std::to_string(numMessages++),
                    LLVM::LLVMArrayType::get(h.b.getI8Type(), text.size()),
                    h.b.getStringAttr(text), true, 1);
  };
  // Returns FUSE_ERROR_INVALID_ARGUMENT with `message` when `cond` holds.
  auto rejectIf = [&](Value cond, const std::string &message) {
    auto g = messageGlobal(message);
    h.ifThen(cond, [&] {
      h.check(h.call("fuse_set_error",
                     {h.c32(1 /*FUSE_ERROR_INVALID_ARGUMENT*/),
                      h.addressOf(g)}));
    });
  };
  // A NULL buffer that is not empty.
  auto rejectNull = [&](const Extent &x) {
    Value isNull = arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::eq,
                                         addr(x.ptr), h.c64(0));
    Value nonEmpty = arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::ugt,
                                           x.bytes, h.c64(0));
    rejectIf(h.andI(isNull, nonEmpty),
             name + ": " + x.what + " is NULL but not empty");
  };
  for (auto &[arg, in] : userInputs)
    rejectNull(in);
  // The sizes the pipeline needs equal (or non-negative), from one analysis
  // of the IR (EntrySizeChecks.h), before anything touches the device: a
  // mismatch would read or write past a buffer. The runtime formats the
  // message with both sizes.
  auto boundaryValue = [&](const BoundarySize &bs) -> Value {
    switch (bs.kind) {
    case BoundarySize::Kind::ArgDim:
      return tensors[oldBody.getArgument(bs.arg)].dims[bs.dim];
    case BoundarySize::Kind::ScalarArg:
      return scalarMap.lookup(oldBody.getArgument(bs.arg));
    case BoundarySize::Kind::Constant:
      return h.c64(bs.value);
    }
    return Value();
  };
  for (const SizeCheck &c : entrySizeChecks(fn)) {
    Value l = boundaryValue(c.lhs), r = boundaryValue(c.rhs);
    Value bad =
        c.kind == SizeCheck::Kind::NonNegative
            ? arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::slt, l,
                                    h.c64(0))
            : arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::ne, l, r);
    auto g = messageGlobal(c.messageFormat(name));
    h.ifThen(bad, [&] {
      h.check(h.call("fuse_set_size_error",
                     {h.c32(1 /*FUSE_ERROR_INVALID_ARGUMENT*/),
                      h.addressOf(g), l, r}));
    });
  }
  // Why result `resNo` of group `g` (step `gIdx`) cannot be computed into
  // the buffer of argument `arg`, or "" when it can: the step's kernel
  // reads every element of `arg` it uses at the element it writes, before
  // writing it, in the same thread (elementwise and grid-stride kernels) or
  // before any later tile writes it (scan and filter tiles: a tile writes
  // only after every earlier tile has loaded its elements), and no later
  // step reads `arg`.
  auto inPlaceProblem = [&](GroupOp g, const GroupKernels &gk, unsigned gIdx,
                            unsigned resNo, BlockArgument arg,
                            StringRef argName) -> std::string {
    auto rt = tensorTy(g.getResult(resNo));
    if (rt.getElementType() != tensorTy(arg).getElementType())
      return "the element types differ";
    bool planOk = gk.plan == GroupPlan::Elementwise ||
                  gk.plan == GroupPlan::Scan || gk.plan == GroupPlan::Filter ||
                  gk.plan == GroupPlan::LineScan ||
                  (gk.plan == GroupPlan::Reduce && rt.getRank() > 0);
    if (!planOk)
      return "in-place use is not supported for reductions and row kernels";
    Block &body = g.getBody().front();
    for (auto [i, operand] : llvm::enumerate(g.getOperands())) {
      if (operand != arg)
        continue;
      for (Operation *user : body.getArgument(i).getUsers()) {
        if (auto ga = dyn_cast<GatherOp>(user);
            ga && ga.getSource() == body.getArgument(i))
          return (argName + " is gathered from").str();
        if (isa<BroadcastOp>(user))
          return (argName + " is broadcast").str();
      }
    }
    for (unsigned m = gIdx + 1; m < groups.size(); ++m)
      if (llvm::is_contained(groups[m].first.getOperands(), Value(arg)))
        return ("a later step reads " + argName).str();
    return "";
  };

  unsigned groupIdx = 0;
  for (Operation &op : oldBody) {
    if (isa<func::ReturnOp>(op))
      break;
    if (auto dim = dyn_cast<tensor::DimOp>(op)) {
      auto it = tensors.find(dim.getSource());
      std::optional<int64_t> c = dim.getConstantIndex();
      if (it == tensors.end() || !c)
        return dim.emitOpError("GPU code generation: tensor.dim needs a "
                               "constant index on a known tensor");
      if (*c < 0 || *c >= static_cast<int64_t>(it->second.dims.size()))
        return dim.emitOpError("index ")
               << *c << " is out of range for a tensor of rank "
               << it->second.dims.size();
      Value v = it->second.dims[*c];
      scalarMap.map(dim.getResult(), v);
      scalarText[dim.getResult()] = {v, it->second.dimText[*c]};
      continue;
    }
    if (!isa<GroupOp>(op)) {
      // Scalar op: clone on the host (index becomes i64).
      if (auto cst = dyn_cast<arith::ConstantOp>(op);
          cst && cst.getType().isIndex()) {
        int64_t v = cast<IntegerAttr>(cst.getValue()).getInt();
        Value n = h.c64(v);
        scalarMap.map(cst.getResult(), n);
        scalarText[cst.getResult()] = {n, std::to_string(v)};
        continue;
      }
      if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(op)) {
        // Host indices are i64 already.
        Value in = scalarMap.lookupOrNull(op.getOperand(0));
        Type rt = op.getResult(0).getType();
        if (!in)
          return op.emitOpError("GPU code generation: operand not available "
                                "on the host");
        Value n = in;
        if (!rt.isIndex() && rt != in.getType()) {
          unsigned w = rt.getIntOrFloatBitWidth(),
                   iw = in.getType().getIntOrFloatBitWidth();
          if (w < iw)
            n = arith::TruncIOp::create(h.b, loc, rt, in);
          else if (isa<arith::IndexCastOp>(op))
            n = arith::ExtSIOp::create(h.b, loc, rt, in);
          else
            n = arith::ExtUIOp::create(h.b, loc, rt, in);
        }
        scalarMap.map(op.getResult(0), n);
        auto t = scalarText.find(op.getOperand(0));
        scalarText[op.getResult(0)] = {
            n, t != scalarText.end() ? t->second.second : std::string("?")};
        continue;
      }
      Operation *c = h.b.clone(op, scalarMap);
      for (auto [o, n] : llvm::zip(op.getResults(), c->getResults())) {
        if (n.getType().isIndex())
          n.setType(h.i64());
        scalarText[o] = {n, "?"};
      }
      continue;
    }
    auto g = cast<GroupOp>(op);
    GroupKernels &gk = groups[groupIdx++].second;
    // A group without results computes nothing observable (fuse groups
    // have no side effects): nothing to launch.
    if (g.getNumResults() == 0)
      continue;
    Block &body = g.getBody().front();
    // Common kernel arguments and the body's view of the operands.
    SmallVector<Value> common;
    DenseMap<Value, HostTensor> bodyArgs;
    DenseMap<Value, std::pair<Value, std::string>> bodyScalars;
    SmallVector<Value> operandPtrs;
    for (auto [operand, barg] :
         llvm::zip(g.getOperands(), body.getArguments())) {
      if (tensorTy(operand)) {
        auto it = tensors.find(operand);
        if (it == tensors.end())
          return g.emitOpError("GPU code generation: operand not available on "
                               "the host");
        common.push_back(it->second.ptr);
        common.append(it->second.dims);
        operandPtrs.push_back(it->second.ptr);
        bodyArgs[barg] = it->second;
      } else {
        Value v = scalarMap.lookupOrNull(operand);
        if (!v)
          return g.emitOpError("GPU code generation: scalar operand not "
                               "available on the host");
        common.push_back(v);
        auto t = scalarText.find(operand);
        bodyScalars[barg] = {v, t != scalarText.end() ? t->second.second
                                                      : std::string("?")};
      }
    }
    // Body scalars defined by constants can size broadcasts/iotas.
    for (Operation &bop : body)
      if (auto c = dyn_cast<arith::ConstantOp>(bop))
        if (auto ia = dyn_cast<IntegerAttr>(c.getValue())) {
          Value v = h.c64(ia.getInt());
          bodyScalars[c.getResult()] = {v, std::to_string(ia.getInt())};
        }
    // Result sizes.
    ShapeInfer shapes{h, bodyArgs, bodyScalars};
    SmallVector<SmallVector<Value>> dimsOf(g.getNumResults());
    SmallVector<SmallVector<std::string>> dimTextOf(g.getNumResults());
    for (auto [j, res] : llvm::enumerate(g.getResults())) {
      Value y = g.getYield().getValues()[j];
      if (failed(shapes.dims(y, dimsOf[j], dimTextOf[j])))
        return g.emitOpError("GPU code generation: cannot compute the size "
                             "of result #")
               << j << " on the host";
    }
    // The caller's output buffers may not overlap an input or another
    // output, except an output that is exactly an input's buffer where this
    // step computes in place safely (see inPlaceProblem).
    for (auto [j, res] : llvm::enumerate(g.getResults())) {
      auto ri = resultIndex.find(res);
      if (ri == resultIndex.end())
        continue;
      unsigned k = ri->second;
      Extent o{h.entry->getArgument(firstResultArg + k),
               extentBytes(tensorTy(res), dimsOf[j]),
               "out" + std::to_string(k)};
      for (auto &[arg, in] : userInputs) {
        std::string problem =
            inPlaceProblem(g, gk, groupIdx - 1, j, arg, in.what);
        std::string what = name + ": " + o.what + " and " + in.what;
        if (problem.empty()) {
          rejectIf(h.andI(overlaps(o, in), h.notI(sameBuffer(o, in))),
                   what + " overlap without being the same buffer (" +
                       o.what + " == " + in.what +
                       ", in place, is supported here; other overlaps are "
                       "not)");
        } else {
          rejectIf(overlaps(o, in), what + " overlap; " + o.what +
                                        " cannot be computed in place of " +
                                        in.what + ": " + problem);
        }
      }
      rejectNull(o);
      for (const Extent &p : userOutputs)
        rejectIf(overlaps(o, p),
                 name + ": " + o.what + " and " + p.what + " overlap");
      userOutputs.push_back(o);
    }
    ensureLoaded();
    // Result buffers.
    SmallVector<Value> outs;
    SmallVector<SmallVector<Value>> outDims;
    for (auto [j, res] : llvm::enumerate(g.getResults())) {
      SmallVector<Value> &d = dimsOf[j];
      SmallVector<std::string> &dt = dimTextOf[j];
      Value buf;
      auto ri = resultIndex.find(res);
      if (ri != resultIndex.end()) {
        buf = h.entry->getArgument(firstResultArg + ri->second);
        std::string s;
        for (auto [k, t] : llvm::enumerate(dt))
          s += (k ? " x " : "") + t;
        resultText[ri->second] = dt.empty() ? "1 element" : s;
      } else {
        buf = h.allocTemp(extentBytes(tensorTy(res), d));
      }
      outs.push_back(buf);
      outDims.push_back(d);
      tensors[res] = HostTensor{buf, d, dt};
    }

    int64_t bt = gk.tiling.blockThreads;
    Value maxGrid =
        gk.tiling.grid > 0
            ? h.c64(gk.tiling.grid)
            : h.mul(h.maxI(h.smCount, h.c64(1)), h.c64(gk.tiling.blocksPerSM));
    auto alignedAll = [&](ValueRange ptrs) -> Value {
      Value acc = h.c64(0);
      for (Value p : ptrs)
        acc = arith::OrIOp::create(
            h.b, loc, acc, LLVM::PtrToIntOp::create(h.b, loc, h.i64(), p));
      Value low = arith::AndIOp::create(h.b, loc, acc, h.c64(15));
      return arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::eq, low,
                                   h.c64(0));
    };
    // Flat size and chunking.
    auto flatPlan = [&](Value n, ValueRange ptrs, Value &nchunks,
                        Value &work) {
      int64_t vw = gk.vectorWidth;
      if (vw > 1) {
        Value full = arith::DivSIOp::create(h.b, loc, n, h.c64(vw));
        nchunks = arith::SelectOp::create(h.b, loc, alignedAll(ptrs), full,
                                          h.c64(0));
      } else {
        nchunks = n;
      }
      work = h.add(nchunks, h.sub(n, h.mul(nchunks, h.c64(vw))));
    };

    if (gk.plan == GroupPlan::Elementwise) {
      Value n = h.c64(1);
      for (Value v : outDims[0])
        n = h.mul(n, v);
      Value nonEmpty =
          arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::sgt, n,
                                h.c64(0));
      h.ifThen(nonEmpty, [&] {
        SmallVector<Value> ptrs;
        for (Value operand : g.getOperands())
          if (auto t = tensorTy(operand); t && t.getRank() > 0)
            ptrs.push_back(tensors[operand].ptr);
        for (auto [res, o] : llvm::zip(g.getResults(), outs))
          if (tensorTy(res).getRank() > 0)
            ptrs.push_back(o);
        Value nchunks, work;
        flatPlan(n, ptrs, nchunks, work);
        // Without a grid in the tiling, one block per `bt` chunks: each
        // thread moves one 16-byte vector (fuse-tile's choice, measured
        // faster than a persistent grid-stride grid).
        Value cap = gk.tiling.grid > 0
                        ? maxGrid
                        : h.c64(std::numeric_limits<int32_t>::max());
        Value grid =
            h.maxI(h.minI(h.ceilDiv(work, h.c64(bt)), cap), h.c64(1));
        SmallVector<Value> args(common);
        args.push_back(n);
        args.push_back(nchunks);
        args.append(outs);
        h.launch(handle[gk.kernel], grid, bt, args);
      });
    } else if (gk.plan == GroupPlan::Reduce) {
      // The flat domain: the first reduction's input.
      ReduceOp first;
      for (Operation &bop : body)
        if ((first = dyn_cast<ReduceOp>(bop)))
          break;
      SmallVector<Value> d;
      SmallVector<std::string> dt;
      if (failed(shapes.dims(first.getInputs()[0], d, dt)))
        return g.emitOpError("GPU code generation: cannot size the reduction");
      Value n = h.c64(1);
      for (Value v : d)
        n = h.mul(n, v);
      SmallVector<Value> ptrs;
      for (Value operand : g.getOperands())
        if (auto t = tensorTy(operand); t && t.getRank() > 0)
          ptrs.push_back(tensors[operand].ptr);
      // Elementwise side outputs are stored as vectors too.
      for (auto [res, o] : llvm::zip(g.getResults(), outs))
        if (tensorTy(res).getRank() > 0)
          ptrs.push_back(o);
      Value nchunks, work;
      flatPlan(n, ptrs, nchunks, work);
      Value small = arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::sle,
                                          n, h.c64(gk.tiling.smallReduce));
      Value isLarge = arith::XOrIOp::create(
          h.b, loc, small,
          arith::ConstantIntOp::create(h.b, loc, h.b.getI1Type(), 1));
      // Small: one block computes the results directly (one launch).
      h.ifThen(small, [&] {
        SmallVector<Value> args(common);
        args.push_back(n);
        args.push_back(nchunks);
        Value null = LLVM::ZeroOp::create(h.b, loc, ptrTy);
        for (size_t i = 0; i < gk.partialTypes.size(); ++i)
          args.push_back(null);
        args.append(outs);
        args.push_back(h.c32(1));
        h.launch(handle[gk.kernel], h.c64(1), bt, args);
      });
      // Large: per-block partials, then the fixed-order finish.
      h.ifThen(isLarge, [&] {
        Value grid =
            h.maxI(h.minI(h.ceilDiv(work, h.c64(bt)), maxGrid), h.c64(1));
        SmallVector<Value> partials;
        for (Type t : gk.partialTypes)
          partials.push_back(h.allocTemp(h.mul(grid, h.c64(byteWidth(t)))));
        SmallVector<Value> args(common);
        args.push_back(n);
        args.push_back(nchunks);
        args.append(partials);
        args.append(outs);
        args.push_back(h.c32(0));
        h.launch(handle[gk.kernel], grid, bt, args);
        SmallVector<Value> fargs(common);
        fargs.push_back(grid);
        fargs.append(partials);
        fargs.append(outs);
        h.launch(handle[gk.finishKernel], h.c64(1), bt, fargs);
      });
    } else if (gk.plan == GroupPlan::RowReduce) {
      // rows x cols from the first row reduction's input; one block per
      // row (a rows loop in the kernel covers grids over 2^30 blocks).
      ReduceOp first;
      for (Operation &bop : body)
        if ((first = dyn_cast<ReduceOp>(bop)))
          break;
      SmallVector<Value> d;
      SmallVector<std::string> dt;
      if (!first || failed(shapes.dims(first.getInputs()[0], d, dt)) ||
          d.size() != 2)
        return g.emitOpError("GPU code generation: cannot size the rows");
      Value rows = d[0], cols = d[1];
      Value nonEmpty = arith::CmpIOp::create(
          h.b, loc, arith::CmpIPredicate::sgt, rows, h.c64(0));
      h.ifThen(nonEmpty, [&] {
        // Vector path: every rank-2 base 16-byte aligned and cols a
        // multiple of the vector width (so every row start is aligned).
        SmallVector<Value> ptrs;
        for (Value operand : g.getOperands())
          if (auto t = tensorTy(operand); t && t.getRank() == 2)
            ptrs.push_back(tensors[operand].ptr);
        for (auto [res, o] : llvm::zip(g.getResults(), outs))
          if (tensorTy(res).getRank() == 2)
            ptrs.push_back(o);
        Value vec = alignedAll(ptrs);
        if (gk.vectorWidth > 1) {
          Value rem = arith::RemSIOp::create(h.b, loc, cols,
                                             h.c64(gk.vectorWidth));
          vec = arith::AndIOp::create(
              h.b, loc, vec,
              arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::eq, rem,
                                    h.c64(0)));
        }
        Value vec32 = arith::ExtUIOp::create(h.b, loc, h.i32(), vec);
        // Narrow rows: blockThreads / R rows per block (the kernel takes
        // the same choice from cols; its rows loop covers any grid).
        Value perBlock = h.c64(1);
        Value narrow;
        if (int64_t c = gk.narrowRowItems) {
          int64_t bt = gk.tiling.blockThreads;
          Value need = h.ceilDiv(cols, h.c64(c));
          // The kernel's choice of R (selectNarrowGroup, as RowReduce.cpp
          // builds it), as rows per block bt / R.
          auto rowsPerBlock = [&](int64_t minThreads) {
            return selectNarrowGroup(
                h.b, loc, arith::CmpIPredicate::sle, cols, need, bt,
                minThreads, gk.narrowSmallCols,
                [&](int64_t p) { return h.c64(bt / p); }, perBlock);
          };
          perBlock = rowsPerBlock(gk.tiling.narrowRows);
          // The scalar kernel's own smallest group (rank-2 results).
          if (gk.narrowScalarMinThreads > gk.tiling.narrowRows)
            perBlock = arith::SelectOp::create(
                h.b, loc, vec, perBlock,
                rowsPerBlock(gk.narrowScalarMinThreads));
          // On the vector path groups of up to half the block; off it
          // (scalar loads) up to narrowScalarMaxThreads (the whole block
          // for rank-2 results: every such row that fits the registers).
          narrow = narrowRowsFit(h.b, loc, arith::CmpIPredicate::sle, need,
                                 vec, bt, gk.narrowScalarMaxThreads);
          perBlock = arith::SelectOp::create(h.b, loc, narrow, perBlock,
                                               h.c64(1));
        }
        // The kernel of the row's path (the conditions the one kernel of
        // an unsplit group tests in itself): narrow rows, else the register
        // path (cols <= capacity, on the vector path with vector-rows),
        // else the staged long rows (their operands' bytes within
        // staged-rows; that much dynamic shared memory), else the long
        // rows.
        Value kernel = handle[gk.kernel];
        Value shared = h.c32(0);
        Value threads = h.c32(bt);
        if (!gk.longKernel.empty()) {
          Value fits = arith::CmpIOp::create(h.b, loc,
                                             arith::CmpIPredicate::sle, cols,
                                             h.c64(gk.rowCapacity));
          Value past = handle[gk.longKernel];
          if (!gk.stagedKernel.empty()) {
            // Staged long rows: the operands' regions, each
            // alignTo(cols * bytes, 16), within tiling.stagedRows.
            Value bytes = stagedRowBytes(h.b, loc, cols, gk.stagedElementBytes);
            Value stagedFits = arith::CmpIOp::create(
                h.b, loc, arith::CmpIPredicate::sle, bytes,
                h.c64(gk.tiling.stagedRows));
            past = arith::SelectOp::create(h.b, loc, stagedFits,
                                           handle[gk.stagedKernel], past);
            Value useStaged = h.andI(stagedFits, h.notI(fits));
            if (narrow)
              useStaged = h.andI(useStaged, h.notI(narrow));
            shared = arith::SelectOp::create(
                h.b, loc, useStaged,
                arith::TruncIOp::create(h.b, loc, h.i32(), bytes), h.c32(0));
            // Rows that leave one block an SM (over half the shared
            // memory) take the wide staged kernel and its threads, the
            // others the group's block (one row a block either way).
            if (!gk.stagedWideKernel.empty()) {
              Value wide = arith::CmpIOp::create(
                  h.b, loc, arith::CmpIPredicate::sgt, bytes,
                  h.c64(gk.tiling.stagedWideRows));
              Value stagedWide = h.andI(useStaged, wide);
              threads = arith::SelectOp::create(
                  h.b, loc, stagedWide, h.c32(gk.stagedThreads), threads);
              past = arith::SelectOp::create(
                  h.b, loc, h.andI(stagedFits, wide),
                  handle[gk.stagedWideKernel], past);
            }
          }
          kernel = arith::SelectOp::create(h.b, loc, fits, kernel, past);
          if (!gk.narrowKernel.empty()) {
            Value narrowK = handle[gk.narrowKernel];
            if (!gk.narrowScalarKernel.empty())
              narrowK = arith::SelectOp::create(
                  h.b, loc, vec, narrowK, handle[gk.narrowScalarKernel]);
            kernel = arith::SelectOp::create(h.b, loc, narrow, narrowK, kernel);
          }
        }
        Value grid = h.minI(h.ceilDiv(rows, perBlock),
                            h.c64(int64_t(1) << 30));
        SmallVector<Value> args(common);
        args.push_back(rows);
        args.push_back(cols);
        args.push_back(vec32);
        args.append(outs);
        h.launch(kernel, grid, threads, args, shared);
      });
    } else if (gk.plan == GroupPlan::Scan || gk.plan == GroupPlan::Filter) {
      // One launch over a zeroed look-back work space;
      // a filter then copies its count to the host (stream synchronized).
      bool isFilter = gk.plan == GroupPlan::Filter;
      Operation *core = nullptr;
      for (Operation &bop : body)
        if (isa<ScanOp, FilterOp>(bop))
          core = &bop;
      SmallVector<Value> d;
      SmallVector<std::string> dt;
      if (!core || failed(shapes.dims(core->getOperand(0), d, dt)))
        return g.emitOpError("GPU code generation: cannot size the scan or "
                             "filter");
      Value n = h.c64(1);
      for (Value v : d)
        n = h.mul(n, v);
      Value countSlot = h.slot(h.i64());
      h.store(h.c64(0), countSlot);
      Value nonEmpty = arith::CmpIOp::create(
          h.b, loc, arith::CmpIPredicate::sgt, n, h.c64(0));
      h.ifThen(nonEmpty, [&] {
        Value ntiles = h.ceilDiv(n, h.c64(gk.tileItems));
        Value flagBytes = arith::AndIOp::create(
            h.b, loc, h.add(h.mul(ntiles, h.c64(8)), h.c64(15)),
            h.c64(~int64_t(15)));
        Value head = h.add(h.c64(16), flagBytes);
        Value slots = h.mul(ntiles, h.c64(16 * gk.statusTypes.size()));
        Value wsBytes = h.add(h.add(head, slots), h.c64(isFilter ? 8 : 0));
        Value ws = h.allocTemp(wsBytes);
        h.check(h.call("fuse_memset", {ws, h.c32(0), head, h.stream}));
        SmallVector<Value> ptrs;
        for (Value operand : g.getOperands())
          if (auto t = tensorTy(operand); t && t.getRank() > 0)
            ptrs.push_back(tensors[operand].ptr);
        for (Value o : outs)
          ptrs.push_back(o);
        Value aligned = arith::ExtUIOp::create(
            h.b, loc, h.i32(), gk.vectorWidth > 1 ? alignedAll(ptrs)
                                                  : arith::ConstantIntOp::create(
                                                        h.b, loc,
                                                        h.b.getI1Type(), 0));
        SmallVector<Value> args(common);
        args.append({n, ntiles, aligned, ws});
        Value countDev;
        if (isFilter) {
          countDev = LLVM::GEPOp::create(h.b, loc, ptrTy, h.b.getI8Type(), ws,
                                         ArrayRef<LLVM::GEPArg>{
                                             h.add(head, slots)});
          args.push_back(countDev);
        }
        args.append(outs);
        // Blocks loop over tiles (ScanKernels.cpp, runTiles): as many as
        // fit on the GPU at once (2048 threads per SM), or one per tile.
        Value resident = h.mul(h.maxI(h.smCount, h.c64(1)),
                               h.c64(std::max<int64_t>(2048 / bt, 1)));
        Value grid = gk.tiling.grid > 0 ? h.c64(gk.tiling.grid) : resident;
        h.launch(handle[gk.kernel], h.minI(ntiles, grid), bt, args,
                 gk.dynamicSharedBytes);
        if (isFilter) {
          h.check(h.call("fuse_memcpy_dtoh",
                         {countSlot, countDev, h.c64(8), h.stream}));
          h.check(h.call("fuse_stream_synchronize", {h.stream}));
        }
      });
      if (isFilter) {
        Value count = h.load(h.i64(), countSlot);
        for (auto [j, res] : llvm::enumerate(g.getResults())) {
          Value y = g.getYield().getValues()[j];
          if (!y.getDefiningOp<FilterOp>())
            continue;
          tensors[res].dims = {count};
          tensors[res].dimText = {"the filter's count"};
          // The count itself is stored with the other counts, at the end.
          auto ri = resultIndex.find(res);
          if (ri == resultIndex.end() || countArg[ri->second] < 0)
            continue;
          resultText[ri->second] =
              "capacity " + dt[0] + " elements; the first *out" +
              std::to_string(ri->second) + "_count hold the kept elements";
        }
      }
    } else if (gk.plan == GroupPlan::LineScan ||
               gk.plan == GroupPlan::LineReduce) {
      // outer x len x inner around the scanned or reduced dimension of the
      // op's input; a thread per line (outer * inner lines). A reduction
      // over an empty dimension still writes its init to every line.
      bool isScan = gk.plan == GroupPlan::LineScan;
      Operation *core = gk.lineOp;
      int64_t dim = gk.lineDim;
      SmallVector<Value> d;
      SmallVector<std::string> dt;
      if (!core || failed(shapes.dims(core->getOperand(0), d, dt)))
        return g.emitOpError("GPU code generation: cannot size the ")
               << (isScan ? "scan" : "reduction");
      Value outer = h.c64(1), inner = h.c64(1);
      for (auto [i, v] : llvm::enumerate(d)) {
        if (static_cast<int64_t>(i) < dim)
          outer = h.mul(outer, v);
        else if (static_cast<int64_t>(i) > dim)
          inner = h.mul(inner, v);
      }
      Value len = d[dim];
      Value lines = h.mul(outer, inner);
      Value nonEmpty = arith::CmpIOp::create(
          h.b, loc, arith::CmpIPredicate::sgt, lines, h.c64(0));
      if (isScan)
        nonEmpty = arith::AndIOp::create(
            h.b, loc, nonEmpty,
            arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::sgt, len,
                                  h.c64(0)));
      h.ifThen(nonEmpty, [&] {
        Value grid =
            h.maxI(h.minI(h.ceilDiv(lines, h.c64(bt)), maxGrid), h.c64(1));
        SmallVector<Value> args(common);
        args.append({lines, len, inner});
        args.append(outs);
        h.launch(handle[gk.kernel], grid, bt, args);
      });
    } else {
      return g.emitOpError("GPU code generation: unsupported plan");
    }
  }

  // Every count: the size the host computed for the result (a filter's
  // kept count, also for values computed from the kept elements).
  for (auto [i, r] : llvm::enumerate(ret.getOperands())) {
    if (countArg[i] < 0)
      continue;
    auto it = tensors.find(r);
    if (it == tensors.end() || it->second.dims.size() != 1)
      return fn.emitOpError("GPU code generation: no size for result #")
             << i << " on the host";
    Value dst = h.entry->getArgument(countArg[i]);
    Value notNull = LLVM::ICmpOp::create(h.b, loc, LLVM::ICmpPredicate::ne,
                                         dst, LLVM::ZeroOp::create(h.b, loc, ptrTy));
    h.ifThen(notNull, [&] { h.store(it->second.dims[0], dst); });
    auto g = r.getDefiningOp<GroupOp>();
    bool own = g && g.getYield()
                        .getValues()[cast<OpResult>(r).getResultNumber()]
                        .getDefiningOp<FilterOp>();
    if (!own) // a filter's own result has its capacity text already
      resultText[i] = "capacity: the size of the filtered input; the first "
                      "*out" +
                      std::to_string(i) + "_count elements are written";
  }

  // Normal exit and the failure exit both free the temporaries.
  auto freeTemps = [&](OpBuilder &fb) {
    for (Value s : h.tempSlots) {
      Value p = LLVM::LoadOp::create(fb, loc, ptrTy, s);
      func::CallOp::create(fb, loc, h.declare("fuse_free", {ptrTy, ptrTy}),
                           ValueRange{p, h.stream});
    }
  };
  freeTemps(h.b);
  func::ReturnOp::create(h.b, loc, ValueRange{h.c32(0)});
  {
    OpBuilder fb = OpBuilder::atBlockBegin(h.fail);
    freeTemps(fb);
    func::ReturnOp::create(fb, loc, ValueRange{h.fail->getArgument(0)});
  }

  // Documentation of the outputs.
  for (auto [i, r] : llvm::enumerate(ret.getOperands()))
    docOs << " *  out" << i << ": device pointer to " << r.getType()
          << ", caller-allocated, " << resultText[i] << ".\n";
  for (auto [i, c] : llvm::enumerate(countArg))
    if (c >= 0)
      docOs << " *  out" << i << "_count: host pointer (or NULL) receiving "
            << "the number of elements kept in out" << i
            << "; the call synchronizes `stream` to read it.\n";
  docOs << " *  stream: CUstream to run on (NULL: the runtime's per-thread "
           "default).\n"
        << " *  Asynchronous on `stream`. n = 0 launches nothing (a reduction "
           "still writes its init/identity).\n"
        << " *  Returns FUSE_SUCCESS or an error code; see "
           "fuse_last_error_message(). */";

  NamedAttribute fields[] = {
      NamedAttribute(StringAttr::get(ctx, "name"), StringAttr::get(ctx, name)),
      NamedAttribute(StringAttr::get(ctx, "decl"), StringAttr::get(ctx, decl)),
      NamedAttribute(StringAttr::get(ctx, "doc"), StringAttr::get(ctx, doc))};
  entries.push_back(DictionaryAttr::get(ctx, fields));

  fn.erase();
  host.setSymName(name);
  return success();
}

//===----------------------------------------------------------------------===//
// The passes
//===----------------------------------------------------------------------===//

struct ConvertFuseToGPUPass
    : public fuse::impl::ConvertFuseToGPUPassBase<ConvertFuseToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Declarations with tensor types have no host (LLVM) form: an unused
    // private one is dropped, any other is reported here rather than by
    // the LLVM translation.
    for (auto fn : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
      if (!fn.isExternal())
        continue;
      auto isTensor = [](Type t) { return isa<TensorType>(t); };
      if (llvm::none_of(fn.getArgumentTypes(), isTensor) &&
          llvm::none_of(fn.getResultTypes(), isTensor))
        continue;
      if (fn.isPrivate() && SymbolTable::symbolKnownUseEmpty(fn, module)) {
        fn.erase();
        continue;
      }
      fn.emitError("GPU code generation: a function declaration with tensor "
                   "arguments or results cannot be compiled (fuse entries "
                   "cannot call it); remove it or make it private and "
                   "unused");
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> entries;
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      bool hasFuse = false;
      fn.walk([&](Operation *op) {
        if (isa_and_nonnull<FuseDialect>(op->getDialect()))
          hasFuse = true;
      });
      if (hasFuse)
        entries.push_back(fn);
    }
    if (entries.empty())
      return;
    if (blockThreads < 32 || blockThreads > 1024 || blockThreads % 32) {
      module.emitError("convert-fuse-to-gpu: block-threads must be a "
                       "multiple of 32 in [32, 1024]");
      return signalPassFailure();
    }
    if (module.lookupSymbol(kKernelModuleName)) {
      module.emitError("convert-fuse-to-gpu: symbol '")
          << kKernelModuleName << "' already exists";
      return signalPassFailure();
    }
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto gpuModule =
        gpu::GPUModuleOp::create(b, module.getLoc(), kKernelModuleName);
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    b.getUnitAttr());
    EntryConverter conv{module, gpuModule, Tiling{}};
    conv.defaults.blockThreads = blockThreads;
    conv.defaults.unroll = std::clamp<int64_t>(unroll, 1, 16);
    conv.defaults.blocksPerSM = std::max<int64_t>(1, blocksPerSM);
    conv.defaults.smallReduce = smallReduce;
    // The module's target (fuse-attach-target): cp.async from sm_80 on
    // (ptxas and NVPTX reject it before); staged rows take what a block
    // may opt in to, less 1 KiB for the kernels' static buffers.
    TargetAttr target = TargetAttr::lookup(module);
    conv.asyncCopy = target.hasAsyncCopy();
    conv.maxStagedBytes = target.getSharedMemoryPerBlock() - 1024;
    SmallVector<Attribute> entryAttrs;
    for (func::FuncOp fn : entries)
      if (failed(conv.convert(fn, entryAttrs)))
        return signalPassFailure();
    module->setAttr(kEntriesAttrName, b.getArrayAttr(entryAttrs));
    // Correctly rounded square roots, as IEEE-754 and docs/dialect.md ask:
    // convert-gpu-to-nvvm would call libdevice's __nv_sqrtf, which is
    // sqrt.approx.f32 (up to 1 ulp off) unless __CUDA_PREC_SQRT is set;
    // the NVVM intrinsics are sqrt.rn.f32 / sqrt.rn.f64 (llvm.sqrt is
    // illegal in convert-gpu-to-nvvm, which wants libdevice).
    gpuModule.walk([](Operation *op) {
      if (op->getName().getStringRef() != "math.sqrt" ||
          op->getNumOperands() != 1 ||
          !isa<Float32Type, Float64Type>(op->getResult(0).getType()))
        return;
      OpBuilder ob(op);
      Type t = op->getResult(0).getType();
      Value r = LLVM::CallIntrinsicOp::create(
                    ob, op->getLoc(), t,
                    ob.getStringAttr(t.isF32() ? "llvm.nvvm.sqrt.rn.f"
                                               : "llvm.nvvm.sqrt.rn.d"),
                    ValueRange{op->getOperand(0)})
                    .getResult(0);
      op->getResult(0).replaceAllUsesWith(r);
      op->erase();
    });
  }
};

} // namespace
