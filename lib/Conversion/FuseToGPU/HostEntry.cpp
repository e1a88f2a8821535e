//===- HostEntry.cpp - the host function of one entry ---------------------===//
//
// HostEntry's steps in the order they build the host function: the kernel
// handles (loaded at the first group), the host values of the entry's
// arguments, the checks of the caller's buffers and sizes (HostChecks.cpp),
// then for each op of the entry its host value (scalar ops, tensor.dim)
// or, for a fused group, its result sizes, the checks of its outputs, its
// result buffers and its launch (HostLaunch.cpp), or for a sort the
// runtime's radix sort (HostSort.cpp); last the filter counts and the
// exits that free the temporaries.
//
//===----------------------------------------------------------------------===//

#include "HostEntry.h"

#include "fuse/Conversion/FuseToGPU/FuseToGPU.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/Fuse/Utils/SizeAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace fuse {
namespace gpugen {

namespace {

/// A size the entry computes from its arguments.
SizeAttr computedSize(MLIRContext *ctx) {
  return SizeAttr::get(ctx, SizeSource::Computed, 0, 0);
}

/// The size of a constant (a negative one is no extent: computed).
SizeAttr constantSize(MLIRContext *ctx, int64_t v) {
  return v < 0 ? computedSize(ctx)
               : SizeAttr::get(ctx, SizeSource::Static, v, 0);
}

} // namespace

HostEntry::HostEntry(ModuleOp module, func::FuncOp fn, func::FuncOp host,
                     MutableArrayRef<std::pair<GroupOp, GroupKernels>> groups,
                     const EntrySignature &sig)
    : fn(fn), oldBody(fn.getBody().front()),
      ret(cast<func::ReturnOp>(oldBody.getTerminator())),
      name(sig.symbol.empty() ? fn.getSymName().str() : sig.symbol),
      loc(fn.getLoc()), h(module, host, loc),
      groups(groups), sig(sig) {}

SmallVector<Attribute> HostEntry::outputs() const {
  func::ReturnOp retOp = ret;
  MLIRContext *ctx = retOp.getContext();
  SmallVector<Attribute> out;
  for (auto [i, r] : llvm::enumerate(retOp.getOperands())) {
    SmallVector<Attribute> sizes;
    for (SizeAttr s : resultSizes[i])
      sizes.push_back(s ? s : computedSize(ctx));
    out.push_back(EntryOutputAttr::get(ctx, r.getType(),
                                       ArrayAttr::get(ctx, sizes),
                                       resultCounts[i]));
  }
  return out;
}

Value viewedValue(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto e = dyn_cast<tensor::ExpandShapeOp>(def))
      v = e.getSrc();
    else if (isByteView(def))
      v = def->getOperand(0);
    else
      break;
  }
  return v;
}

LogicalResult HostEntry::build() {
  h.beginBody();
  h.stream = h.entry->getArgument(sig.streamArg);
  if (sig.workspaceForm()) {
    Value used = h.slot(h.i64());
    h.store(h.c64(0), used);
    h.workspace = HostBuilder::Workspace{
        h.entry->getArgument(sig.workspaceArg), used,
        h.entry->getArgument(sig.dryArg)};
  }

  declareKernels();
  mapArguments();
  checkArguments();
  unsigned groupIdx = 0;
  for (Operation &op : oldBody) {
    if (isa<func::ReturnOp>(op))
      break;
    if (auto g = dyn_cast<GroupOp>(op)) {
      unsigned gIdx = groupIdx++;
      if (failed(convertGroup(g, groups[gIdx].second, gIdx)))
        return failure();
    } else if (auto sort = dyn_cast<SortOp>(op)) {
      if (failed(convertSort(sort)))
        return failure();
    } else if (failed(mapScalarOp(op))) {
      return failure();
    }
  }
  if (failed(storeCounts()))
    return failure();
  buildExits();
  return success();
}

//===----------------------------------------------------------------------===//
// Kernel handles and host values
//===----------------------------------------------------------------------===//

void HostEntry::declareKernels() {
  Type ptrTy = h.ptrTy();
  // Kernel handles, loaded once (the first handle is the "ready" flag).
  for (auto &[g, gk] : groups) {
    kernelNames.push_back(gk.kernel);
    for (const std::string &k :
         {gk.finishKernel, gk.narrowKernel, gk.narrowScalarKernel,
          gk.longKernel, gk.wideKernel, gk.stagedKernel, gk.stagedWideKernel,
          gk.globalCountKernel, gk.segmentBlockKernel, gk.segmentSmallKernel,
          gk.segmentPieceKernel, gk.segmentJoinKernel, gk.lineCombineKernel,
          gk.lineTileKernel, gk.linePartialKernel})
      if (!k.empty())
        kernelNames.push_back(k);
  }
  // The comparator sorts' kernels, named as EntryConverter built them.
  for (auto [i, sort] : llvm::enumerate(comparatorSorts(fn))) {
    FailureOr<MergeSortPlan> p = planMergeSort(sort, fn.getSymName(), i);
    if (failed(p))
      continue; // reported when the kernels were built
    kernelNames.push_back(p->tileKernel);
    kernelNames.push_back(p->partitionKernel);
    kernelNames.push_back(p->mergeKernel);
    mergeSorts.try_emplace(sort, *p);
  }
  for (StringRef k : kernelNames)
    handleGlobals.push_back(
        h.global(("__fuse_fn_" + k).str(), ptrTy, nullptr, false, 8));
  smGlobal = h.global("__fuse_sm_" + name, h.i64(), h.b.getI64IntegerAttr(0),
                      false, 8);
  std::string kmod = kKernelModuleName;
  image = h.global(kmod + kImageSuffix,
                   LLVM::LLVMArrayType::get(h.b.getI8Type(), 1),
                   h.b.getStringAttr(StringRef("\0", 1)), true, 16);
  imageSize = h.global(kmod + kImageSizeSuffix, h.i64(),
                       h.b.getI64IntegerAttr(0), true, 8);
  loaded = handleGlobals.empty();
}

// Loaded at the first group, after its argument checks: a call whose
// buffers overlap is rejected before anything touches the device.
void HostEntry::ensureLoaded() {
  if (loaded)
    return;
  loaded = true;
  Type ptrTy = h.ptrTy();
  Value first = LLVM::LoadOp::create(
      h.b, loc, ptrTy, h.addressOf(handleGlobals[0]), 8, false, false, false,
      false, LLVM::AtomicOrdering::acquire);
  Value isNull = LLVM::ICmpOp::create(h.b, loc, LLVM::ICmpPredicate::eq, first,
                                      LLVM::ZeroOp::create(h.b, loc, ptrTy));
  h.ifThen(isNull, [&] {
    h.check(h.call("fuse_init", {}));
    Value modSlot = h.slot(ptrTy);
    Value size = h.load(h.i64(), h.addressOf(imageSize));
    h.check(h.call("fuse_module_load", {h.addressOf(image), size, modSlot}));
    Value module = h.load(ptrTy, modSlot);
    Value i32Slot = h.slot(h.i32());
    Value maj = h.slot(h.i32()), min = h.slot(h.i32());
    h.check(h.call("fuse_device_info", {maj, min, i32Slot}));
    Value sm =
        arith::ExtSIOp::create(h.b, loc, h.i64(), h.load(h.i32(), i32Slot));
    LLVM::StoreOp::create(h.b, loc, sm, h.addressOf(smGlobal), 8, false, false,
                          false, LLVM::AtomicOrdering::monotonic);
    SmallVector<Value> handles;
    for (StringRef k : kernelNames) {
      auto ng = h.cString("__fuse_name_" + k.str(), k);
      Value fslot = h.slot(ptrTy);
      h.check(
          h.call("fuse_module_get_function", {module, h.addressOf(ng), fslot}));
      handles.push_back(h.load(ptrTy, fslot));
    }
    // Publish the first handle last.
    for (int i = handles.size() - 1; i >= 0; --i)
      LLVM::StoreOp::create(h.b, loc, handles[i], h.addressOf(handleGlobals[i]),
                            8, false, false, false,
                            i == 0 ? LLVM::AtomicOrdering::release
                                   : LLVM::AtomicOrdering::monotonic);
  });
  for (auto [k, g] : llvm::zip(kernelNames, handleGlobals))
    handle[k] =
        LLVM::LoadOp::create(h.b, loc, ptrTy, h.addressOf(g), 8, false, false,
                             false, false, LLVM::AtomicOrdering::monotonic);
  h.smCount = LLVM::LoadOp::create(h.b, loc, h.i64(), h.addressOf(smGlobal), 8,
                                   false, false, false, false,
                                   LLVM::AtomicOrdering::monotonic);
}

void HostEntry::mapArguments() {
  MLIRContext *ctx = fn.getContext();
  // Host values of the old function's values.
  unsigned p = 0;
  for (auto [i, a] : llvm::enumerate(oldBody.getArguments())) {
    if (auto tt = tensorTy(a)) {
      HostTensor ht;
      ht.ptr = h.entry->getArgument(p++);
      for (int64_t d = 0; d < tt.getRank(); ++d) {
        ht.dims.push_back(h.entry->getArgument(p++));
        ht.dimSizes.push_back(
            SizeAttr::get(ctx, SizeSource::ArgDim, static_cast<int64_t>(i), d));
      }
      tensors[a] = ht;
    } else {
      Value v = h.entry->getArgument(p++);
      scalarMap.map(a, v);
      scalarSizes[a] = {
          v, SizeAttr::get(ctx, SizeSource::Arg, static_cast<int64_t>(i), 0)};
    }
  }
  // Which group results are function results (also through an expand:
  // the group writes the caller's buffer, viewed with the result's rank).
  for (auto [i, r] : llvm::enumerate(ret.getOperands()))
    resultIndex.try_emplace(viewedValue(r), i);
  resultSizes.resize(ret.getNumOperands());
  resultCounts.assign(ret.getNumOperands(), OutputCount::None);
}

/// A reshape of the entry (fuse-collapse-rows: rank > 2 rows as a
/// matrix) is a view: the source's buffer with the sizes of its result,
/// products of the source's for a collapse, the output_shape of an
/// expand. A returned expand gives its output the expanded sizes.
LogicalResult HostEntry::mapReshape(Operation &op) {
  MLIRContext *ctx = fn.getContext();
  Value src = op.getOperand(0);
  auto it = tensors.find(src);
  if (it == tensors.end())
    return op.emitOpError("GPU code generation: reshapes a tensor the host "
                          "does not hold");
  HostTensor from = it->second;
  HostTensor to{from.ptr, {}, {}};
  if (auto c = dyn_cast<tensor::CollapseShapeOp>(op)) {
    for (const ReassociationIndices &group : c.getReassociationIndices()) {
      Value n = from.dims[group[0]];
      for (int64_t d : ArrayRef<int64_t>(group).drop_front())
        n = h.mul(n, from.dims[d]);
      to.dims.push_back(n);
      to.dimSizes.push_back(group.size() == 1 ? from.dimSizes[group[0]]
                                              : computedSize(ctx));
    }
  } else {
    auto e = cast<tensor::ExpandShapeOp>(op);
    for (OpFoldResult s : e.getMixedOutputShape()) {
      if (auto a = dyn_cast<Attribute>(s)) {
        int64_t v = cast<IntegerAttr>(a).getInt();
        to.dims.push_back(h.c64(v));
        to.dimSizes.push_back(constantSize(ctx, v));
        continue;
      }
      auto sz = scalarSizes.find(cast<Value>(s));
      if (sz == scalarSizes.end())
        return op.emitOpError("GPU code generation: an expanded size the "
                              "host does not know");
      to.dims.push_back(sz->second.first);
      to.dimSizes.push_back(sz->second.second);
    }
    // The group wrote the caller's output (resultIndex maps the source).
    for (auto [i, r] : llvm::enumerate(ret.getOperands()))
      if (r == e.getResult())
        resultSizes[i] = to.dimSizes;
  }
  tensors[op.getResult(0)] = to;
  return success();
}

/// A prefix is its source's buffer, sized by the source (the capacity)
/// until the host needs its length; the count is a device buffer, which
/// the kernels that take it read (DeviceSize.cpp), as they read a
/// filter's count. The count is clamped to the source's length, so a
/// source whose own length is on the device (a filter's kept elements,
/// another prefix) is read on the host first: one count a step.
LogicalResult HostEntry::mapPrefix(PrefixOp op) {
  if (failed(needHostSize(op.getSource(), "a prefix of it is taken")))
    return failure();
  auto src = tensors.find(op.getSource());
  auto count = tensors.find(op.getCount());
  if (src == tensors.end() || count == tensors.end())
    return op.emitOpError("GPU code generation: a prefix of a tensor the "
                          "host does not hold");
  tensors[op.getResult()] = src->second;
  filterCount[op] = {count->second.ptr, src->second.dims[0]};
  return success();
}

/// The host value of `op`, a tensor.dim or a scalar op of the entry.
LogicalResult HostEntry::mapScalarOp(Operation &op) {
  MLIRContext *ctx = fn.getContext();
  if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op))
    return mapReshape(op);
  if (auto p = dyn_cast<PrefixOp>(op))
    return mapPrefix(p);
  if (isByteView(&op)) {
    // i1 tensors are bytes: the same buffer and sizes.
    auto it = tensors.find(op.getOperand(0));
    if (it == tensors.end())
      return op.emitOpError("GPU code generation: views a tensor the host "
                            "does not hold");
    HostTensor view = it->second;
    tensors[op.getResult(0)] = view;
    return success();
  }
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
    if (failed(needHostSize(dim.getSource(), "the entry's tensor.dim reads it")))
      return failure();
    Value v = it->second.dims[*c];
    scalarMap.map(dim.getResult(), v);
    scalarSizes[dim.getResult()] = {v, it->second.dimSizes[*c]};
    return success();
  }
  // Scalar op: clone on the host (index becomes i64).
  if (auto cst = dyn_cast<arith::ConstantOp>(op);
      cst && cst.getType().isIndex()) {
    int64_t v = cast<IntegerAttr>(cst.getValue()).getInt();
    Value n = h.c64(v);
    scalarMap.map(cst.getResult(), n);
    scalarSizes[cst.getResult()] = {n, constantSize(ctx, v)};
    return success();
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
    auto t = scalarSizes.find(op.getOperand(0));
    scalarSizes[op.getResult(0)] = {n, t != scalarSizes.end()
                                           ? t->second.second
                                           : computedSize(ctx)};
    return success();
  }
  Operation *c = h.b.clone(op, scalarMap);
  for (auto [o, n] : llvm::zip(op.getResults(), c->getResults())) {
    if (n.getType().isIndex())
      n.setType(h.i64());
    scalarSizes[o] = {n, computedSize(ctx)};
  }
  return success();
}

//===----------------------------------------------------------------------===//
// One group
//===----------------------------------------------------------------------===//

LogicalResult HostEntry::convertGroup(GroupOp g, GroupKernels &gk,
                                      unsigned gIdx) {
  // A group without results computes nothing observable (fuse groups
  // have no side effects): nothing to launch.
  if (g.getNumResults() == 0)
    return success();
  GroupLaunch l(h, g, gk);
  if (failed(bindOperands(l)))
    return failure();
  // Result sizes.
  SmallVector<SmallVector<Value>> dimsOf(g.getNumResults());
  SmallVector<SmallVector<SizeAttr>> dimSizesOf(g.getNumResults());
  for (auto [j, res] : llvm::enumerate(g.getResults())) {
    Value y = g.getYield().getValues()[j];
    if (failed(l.shapes.dims(y, dimsOf[j], dimSizesOf[j])))
      return g.emitOpError("GPU code generation: cannot compute the size "
                           "of result #")
             << j << " on the host";
  }
  checkOutputs(l, gIdx, dimsOf);
  ensureLoaded();
  allocateResults(l, dimsOf, dimSizesOf);
  l.maxGrid = gk.tiling.grid > 0 ? h.c64(gk.tiling.grid)
                                 : h.mul(h.maxI(h.smCount, h.c64(1)),
                                         h.c64(gk.tiling.blocksPerSM));
  return launch(l);
}

/// Common kernel arguments and the body's view of the operands.
LogicalResult HostEntry::bindOperands(GroupLaunch &l) {
  GroupOp g = l.g;
  MLIRContext *ctx = fn.getContext();
  for (auto [operand, barg] :
       llvm::zip(g.getOperands(), l.body.getArguments())) {
    if (tensorTy(operand)) {
      auto it = tensors.find(operand);
      if (it == tensors.end())
        return g.emitOpError("GPU code generation: operand not available on "
                             "the host");
      if (l.gk.sizeOnDevice && tensorTy(operand).getRank() == 1) {
        l.deviceSize = filterCount.lookup(countingFilter(operand)).device;
        if (!l.deviceSize)
          return g.emitOpError("GPU code generation: no device count for "
                               "an operand sized by a filter");
      } else if (failed(needHostSize(operand, "a later step reads it"))) {
        return failure();
      }
      l.common.push_back(it->second.ptr);
      l.common.append(it->second.dims);
      l.bodyArgs[barg] = it->second;
    } else {
      Value v = scalarMap.lookupOrNull(operand);
      if (!v)
        return g.emitOpError("GPU code generation: scalar operand not "
                             "available on the host");
      l.common.push_back(v);
      auto t = scalarSizes.find(operand);
      l.bodyScalars[barg] = {v, t != scalarSizes.end() ? t->second.second
                                                       : computedSize(ctx)};
    }
  }
  // Body scalars defined by constants can size broadcasts/iotas.
  for (Operation &bop : l.body)
    if (auto c = dyn_cast<arith::ConstantOp>(bop))
      if (auto ia = dyn_cast<IntegerAttr>(c.getValue())) {
        Value v = h.c64(ia.getInt());
        l.bodyScalars[c.getResult()] = {v, constantSize(ctx, ia.getInt())};
      }
  return success();
}

// The caller's output buffers may not overlap an input or another
// output, except an output that is exactly an input's buffer where this
// step computes in place safely (see inPlaceProblem).
void HostEntry::checkOutputs(GroupLaunch &l, unsigned gIdx,
                             ArrayRef<SmallVector<Value>> dimsOf) {
  GroupOp g = l.g;
  for (auto [j, res] : llvm::enumerate(g.getResults())) {
    auto ri = resultIndex.find(res);
    if (ri == resultIndex.end())
      continue;
    unsigned k = ri->second;
    Extent o{h.entry->getArgument(sig.firstResultArg + k),
             extentBytes(tensorTy(res), dimsOf[j]), "out" + std::to_string(k)};
    for (auto &[arg, in] : userInputs) {
      std::string problem = inPlaceProblem(g, l.gk, gIdx, j, arg, in.what);
      std::string what = name + ": " + o.what + " and " + in.what;
      if (problem.empty()) {
        rejectIf(h.andI(overlaps(o, in), h.notI(sameBuffer(o, in))),
                 what + " overlap without being the same buffer (" + o.what +
                     " == " + in.what +
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
}

/// Result buffers: the caller's outputs, else device temporaries.
void HostEntry::allocateResults(GroupLaunch &l,
                                ArrayRef<SmallVector<Value>> dimsOf,
                                ArrayRef<SmallVector<SizeAttr>> dimSizesOf) {
  for (auto [j, res] : llvm::enumerate(l.g.getResults())) {
    const SmallVector<Value> &d = dimsOf[j];
    const SmallVector<SizeAttr> &dt = dimSizesOf[j];
    Value buf;
    auto ri = resultIndex.find(res);
    if (ri != resultIndex.end()) {
      buf = h.entry->getArgument(sig.firstResultArg + ri->second);
      resultSizes[ri->second] = dt;
    } else {
      buf = h.allocTemp(extentBytes(tensorTy(res), d));
    }
    l.outs.push_back(buf);
    l.outDims.push_back(d);
    tensors[res] = HostTensor{buf, d, dt};
  }
}

//===----------------------------------------------------------------------===//
// The counts and the exits
//===----------------------------------------------------------------------===//

// Every count: the size the host computed for the result (a filter's
// kept count, also for values computed from the kept elements).
LogicalResult HostEntry::storeCounts() {
  Type ptrTy = h.ptrTy();
  // Per returned count, its pointer, whether the caller asked (non-null)
  // and its filter.
  struct Wanted {
    Value dst, asked;
    Operation *filter;
  };
  SmallVector<Wanted> wanted;
  for (auto [i, r] : llvm::enumerate(ret.getOperands())) {
    if (sig.countArg[i] < 0)
      continue;
    Value dst = h.entry->getArgument(sig.countArg[i]);
    Value asked = LLVM::ICmpOp::create(h.b, loc, LLVM::ICmpPredicate::ne, dst,
                                       LLVM::ZeroOp::create(h.b, loc, ptrTy));
    Operation *filter = countingFilter(r);
    if (!filter || !filterCount.count(filter))
      return fn.emitOpError("GPU code generation: no count for result #")
             << i;
    wanted.push_back({dst, asked, filter});
    Value made = viewedValue(r);
    auto g = made.getDefiningOp<GroupOp>();
    bool own = g && g.getYield()
                        .getValues()[cast<OpResult>(made).getResultNumber()]
                        .getDefiningOp<FilterOp>();
    if (!own) // a filter's own result is counted as kept already
      resultCounts[i] = OutputCount::FromKept;
  }
  if (sig.workspaceForm()) {
    // Device pointers: each count is copied in stream order.
    // A prefix's count is clamped to its source on the way.
    for (const Wanted &w : wanted)
      h.ifThen(w.asked, [&] {
        h.onDevice([&] {
          const DeviceCount &c = filterCount[w.filter];
          h.check(isa<PrefixOp>(w.filter)
                      ? h.call("fuse_count_clamp",
                               {w.dst, c.device, c.capacity, h.stream})
                      : h.call("fuse_memcpy_dtod",
                               {w.dst, c.device, h.c64(8), h.stream}));
        });
      });
    return success();
  }
  // Host pointers: a count not read yet is read (the stream waited for)
  // once, and only when the caller asked for one of its copies.
  DenseMap<Operation *, Value> count(hostFilterCount.begin(),
                                     hostFilterCount.end());
  for (const Wanted &w : wanted) {
    if (count.count(w.filter))
      continue;
    Value any = h.c1(false);
    for (const Wanted &o : wanted)
      if (o.filter == w.filter)
        any = h.orI(any, o.asked);
    Value slot = h.slot(h.i64());
    h.ifThen(any, [&] { h.store(readCount(filterCount[w.filter]), slot); });
    count[w.filter] = h.load(h.i64(), slot);
  }
  for (const Wanted &w : wanted)
    h.ifThen(w.asked, [&] { h.store(count[w.filter], w.dst); });
  return success();
}

LogicalResult HostEntry::blockWorkspace(const Twine &why) {
  workspaceBlocker = why.str();
  return failure();
}

// Where the host needs the size of `v` (`use` says why) and that is a
// filter's count not read yet: the allocating form reads it (a copy to
// the host and a wait for the stream), once per filter, and sizes every
// tensor of that count by it from then on; the workspace form, which never
// waits, is blocked.
LogicalResult HostEntry::needHostSize(Value v, const Twine &use) {
  Operation *filter = countingFilter(v);
  if (!filter || hostFilterCount.count(filter))
    return success();
  if (sig.workspaceForm())
    return blockWorkspace(Twine(isa<PrefixOp>(filter)
                                    ? "the length of a prefix (its count) "
                                    : "the size of a filter's result ") +
                          "is known only on the device, and " + use);
  auto dev = filterCount.find(filter);
  if (dev == filterCount.end())
    return fn.emitOpError("GPU code generation: a filter's count is used "
                          "before the filter runs");
  // A prefix's count can be the first thing the entry reads on the device.
  ensureLoaded();
  Value count = readCount(dev->second);
  hostFilterCount[filter] = count;
  checkAgainstCount(filter, count);
  for (auto &[t, ht] : tensors)
    if (ht.dims.size() == 1 && countingFilter(t) == filter)
      ht.dims = {count};
  return success();
}

// The sizes the caller passed that must equal this count (a value of its
// length zipped with an argument), and the other counts it must equal (two
// filters' kept values zipped), which no check before the call could
// compare: checked once the host holds the count (and the other one),
// before any step uses them.
void HostEntry::checkAgainstCount(Operation *filter, Value count) {
  for (const UncheckedSize &u : entryUncheckedSizes(fn)) {
    if (u.filter != filter)
      continue;
    Value given = boundaryValue(u.size);
    Value bad =
        arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::ne, given, count);
    rejectSizes(bad, u.messageFormat(name), given, count);
  }
  // Two counts combined: checked once the host holds both.
  for (const CountPair &p : entryCountPairs(fn)) {
    if (p.first != filter && p.second != filter)
      continue;
    auto other = hostFilterCount.find(p.first == filter ? p.second : p.first);
    if (other == hostFilterCount.end())
      continue;
    Value second = p.second == filter ? count : other->second;
    Value first = p.first == filter ? count : other->second;
    Value bad = arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::ne,
                                      second, first);
    rejectSizes(bad, p.messageFormat(name), first, second);
  }
}

// A filter's count on the host: copied from the device once the stream is
// done, or 0 with nothing to wait for where the filter had no element.
Value HostEntry::readCount(const DeviceCount &count) {
  Value slot = h.slot(h.i64());
  h.store(h.c64(0), slot);
  Value some = arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::sgt,
                                     count.capacity, h.c64(0));
  h.ifThen(some, [&] {
    h.check(
        h.call("fuse_memcpy_dtoh", {slot, count.device, h.c64(8), h.stream}));
    h.check(h.call("fuse_stream_synchronize", {h.stream}));
  });
  // A filter's count is within [0, capacity]; a prefix's is clamped there.
  return h.minI(h.maxI(h.load(h.i64(), slot), h.c64(0)), count.capacity);
}

// Normal exit and the failure exit both free the temporaries.
void HostEntry::buildExits() {
  Type ptrTy = h.ptrTy();
  auto freeTemps = [&](OpBuilder &fb) {
    for (Value s : h.tempSlots) {
      Value p = LLVM::LoadOp::create(fb, loc, ptrTy, s);
      func::CallOp::create(fb, loc, h.declare("fuse_free", {ptrTy, ptrTy}),
                           ValueRange{p, h.stream});
    }
  };
  freeTemps(h.b);
  if (h.workspace)
    h.store(h.load(h.i64(), h.workspace->used),
            h.entry->getArgument(sig.usedArg));
  func::ReturnOp::create(h.b, loc, ValueRange{h.c32(0)});
  OpBuilder fb = OpBuilder::atBlockBegin(h.fail);
  freeTemps(fb);
  func::ReturnOp::create(fb, loc, ValueRange{h.fail->getArgument(0)});
}

} // namespace gpugen
} // namespace fuse
