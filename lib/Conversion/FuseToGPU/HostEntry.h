//===- HostEntry.h - the host function of one entry -------------*- C++ -*-===//
//
// HostEntry builds the host function of one entry of convert-fuse-to-gpu:
// the kernel handles loaded on first use, the checks of the caller's
// arguments, the host values of the entry's scalars and tensors and, for
// each fused group, its result buffers and the launch of its kernel
// family (HostEntry.cpp; the launches of each family's GroupKernels plan
// in HostLaunch.cpp). FuseToGPU.cpp builds the kernels and the entry's
// C declaration and drives it. Not installed.
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_LIB_CONVERSION_FUSETOGPU_HOSTENTRY_H
#define FUSE_LIB_CONVERSION_FUSETOGPU_HOSTENTRY_H

#include "HostBuilder.h"
#include "KernelGen.h"
#include "MergeSort.h"

#include "fuse/Dialect/Fuse/Utils/EntrySizeChecks.h"

#include "mlir/IR/IRMapping.h"

#include <string>

namespace fuse {
namespace gpugen {

/// The C-ABI signature of an entry's host function: its argument types
/// and where its outputs, counts and stream are.
struct EntrySignature {
  /// The C symbol the host function implements ("sumsq", "sumsq_ws"):
  /// the name its messages give.
  std::string symbol;
  SmallVector<Type> argTypes;
  /// The C names of the entry's arguments ("in0", ...).
  SmallVector<std::string> argNames;
  /// The argument of the first output pointer.
  unsigned firstResultArg = 0;
  /// Per result, the argument of its count pointer (-1: none).
  SmallVector<int> countArg;
  unsigned streamArg = 0;
  /// The workspace form's implementation (-1 otherwise): the workspace
  /// pointer, the i1 dry-run flag and the `int64_t *` receiving the bytes
  /// used, after the stream. Its counts are device pointers.
  int workspaceArg = -1, dryArg = -1, usedArg = -1;
  bool workspaceForm() const { return workspaceArg >= 0; }
};

/// One group's launch under construction: what the launch of each kernel
/// family reads.
struct GroupLaunch {
  GroupLaunch(HostBuilder &h, GroupOp g, GroupKernels &gk)
      : g(g), gk(gk),
        body(g.getBody().front()), shapes{h, bodyArgs, bodyScalars} {}
  GroupLaunch(const GroupLaunch &) = delete;
  GroupLaunch &operator=(const GroupLaunch &) = delete;

  GroupOp g;
  GroupKernels &gk;
  Block &body;
  /// The common kernel arguments (commonParams in KernelGen.h).
  SmallVector<Value> common;
  /// The body's view of the operands.
  DenseMap<Value, HostTensor> bodyArgs;
  DenseMap<Value, HostScalar> bodyScalars;
  ShapeInfer shapes;
  /// The result buffers and their sizes.
  SmallVector<Value> outs;
  SmallVector<SmallVector<Value>> outDims;
  /// The grid of the grid-stride kernels (i64).
  Value maxGrid;
  /// GroupKernels::sizeOnDevice: the count's device address, the last
  /// argument of every launch of the group (HostEntry::launchKernel; null
  /// otherwise).
  Value deviceSize;
};

class HostEntry {
public:
  /// Builds into `host`, whose arguments are `sig`'s, the host code of
  /// `fn` with the kernels `groups` (one per fuse.group of `fn`, in
  /// order).
  HostEntry(ModuleOp module, func::FuncOp fn, func::FuncOp host,
            MutableArrayRef<std::pair<GroupOp, GroupKernels>> groups,
            const EntrySignature &sig);

  /// Builds the host function's body; fails with a diagnostic, or, for
  /// the workspace form, with none and `blocker()` saying why the entry
  /// cannot have that form.
  LogicalResult build();
  const std::string &blocker() const { return workspaceBlocker; }
  /// The globals the build created (for a blocked form to erase).
  ArrayRef<LLVM::GlobalOp> createdGlobals() const { return h.createdGlobals; }
  /// Per result of the entry, its type, the caller's extents and its
  /// count: the entry's description for the C header.
  SmallVector<Attribute> outputs() const;

private:
  /// Byte range of a caller's buffer, for the argument checks.
  struct Extent {
    Value ptr, bytes; // i64 bytes
    std::string what; // "in0", "out1"
  };

  // Kernel handles and host values (HostEntry.cpp).
  void declareKernels();
  void ensureLoaded();
  void mapArguments();
  LogicalResult mapScalarOp(Operation &op);
  LogicalResult mapReshape(Operation &op);
  LogicalResult mapPrefix(PrefixOp op);

  // Argument checks (HostEntry.cpp).
  Value extentBytes(RankedTensorType t, ArrayRef<Value> dims);
  Value addr(Value p);
  Value overlaps(const Extent &x, const Extent &y);
  Value sameBuffer(const Extent &x, const Extent &y);
  LLVM::GlobalOp messageGlobal(const std::string &message);
  void rejectIf(Value cond, const std::string &message);
  void rejectSizes(Value cond, const std::string &format, Value a, Value b);
  void rejectNull(const Extent &x);
  Value boundaryValue(const BoundarySize &bs);
  void checkArguments();
  std::string inPlaceProblem(GroupOp g, const GroupKernels &gk, unsigned gIdx,
                             unsigned resNo, BlockArgument arg,
                             StringRef argName);

  // One group (HostEntry.cpp).
  LogicalResult convertGroup(GroupOp g, GroupKernels &gk, unsigned gIdx);
  LogicalResult bindOperands(GroupLaunch &l);
  void checkOutputs(GroupLaunch &l, unsigned gIdx,
                    ArrayRef<SmallVector<Value>> dimsOf);
  void allocateResults(GroupLaunch &l, ArrayRef<SmallVector<Value>> dimsOf,
                       ArrayRef<SmallVector<SizeAttr>> dimSizesOf);

  // A sort between the groups: the runtime's radix sort, or the kernels of
  // a comparator sort (HostSort.cpp).
  LogicalResult convertSort(SortOp op);
  LogicalResult launchMergeSort(SortOp op, ArrayRef<HostTensor> ins,
                                ArrayRef<Value> outs, Value n);

  // The launch of each kernel family (HostLaunch.cpp).
  LogicalResult launch(GroupLaunch &l);
  void launchElementwise(GroupLaunch &l);
  LogicalResult launchReduce(GroupLaunch &l);
  LogicalResult launchHistogram(GroupLaunch &l);
  LogicalResult launchSegmentedReduce(GroupLaunch &l);
  Value flatCount(GroupLaunch &l, Value v);
  LogicalResult launchRowReduce(GroupLaunch &l);
  SmallVector<Value> vectorPointers(GroupLaunch &l,
                                    function_ref<bool(int64_t)> vectorized);
  Value rowVectorPath(GroupLaunch &l, Value cols);
  Value narrowRowsPerBlock(const GroupKernels &gk, Value cols, Value vec,
                           Value &narrow);
  Value rowPathKernel(const GroupKernels &gk, Value cols, Value vec,
                      Value narrow, Value &shared, Value &threads);
  LogicalResult launchScanOrFilter(GroupLaunch &l);
  LogicalResult launchLine(GroupLaunch &l);
  /// Launches one of `l`'s kernels; every family launches here, so that a
  /// group that reads its length on the device gets the count's address
  /// as its kernels' last argument.
  void launchKernel(GroupLaunch &l, Value kernel, Value grid, Value block,
                    ArrayRef<Value> args, Value sharedBytes);
  void launchKernel(GroupLaunch &l, Value kernel, Value grid, int64_t block,
                    ArrayRef<Value> args, int64_t sharedBytes = 0) {
    Value shared = h.c32(sharedBytes);
    launchKernel(l, kernel, grid, h.c32(block), args, shared);
  }

  // The counts and the exits (HostEntry.cpp).
  LogicalResult storeCounts();
  void buildExits();

  func::FuncOp fn;
  Block &oldBody;
  func::ReturnOp ret;
  std::string name;
  Location loc;
  HostBuilder h;
  MutableArrayRef<std::pair<GroupOp, GroupKernels>> groups;
  const EntrySignature &sig;

  // Kernel handles, loaded once (the first handle is the "ready" flag).
  SmallVector<std::string> kernelNames;
  SmallVector<LLVM::GlobalOp> handleGlobals;
  LLVM::GlobalOp smGlobal, image, imageSize;
  DenseMap<StringRef, Value> handle;
  bool loaded = false;
  /// The plans of the comparator sorts (their kernels' names).
  DenseMap<Operation *, MergeSortPlan> mergeSorts;

  // Host values of the old function's values.
  DenseMap<Value, HostTensor> tensors;
  IRMapping scalarMap;
  DenseMap<Value, HostScalar> scalarSizes;
  // Which group results are function results, the extents of their
  // buffers and their counts.
  DenseMap<Value, unsigned> resultIndex;
  SmallVector<SmallVector<SizeAttr>> resultSizes;
  SmallVector<OutputCount> resultCounts;

  // The filters' counts: each fuse.filter's count on the device (both
  // forms), and on the host once read there (the allocating form only,
  // where the host needs a size: needHostSize). Until then the host sizes
  // the tensors of a filter's count by its capacity. Why the workspace form
  // cannot be built (empty while it can).
  struct DeviceCount {
    Value device;   // the count's 8 bytes on the device
    Value capacity; // the filter's input size: 0 means no count to read
                    // (a prefix's count is clamped to [0, capacity])
  };
  DenseMap<Operation *, DeviceCount> filterCount;
  DenseMap<Operation *, Value> hostFilterCount;
  std::string workspaceBlocker;
  LogicalResult blockWorkspace(const Twine &why);
  LogicalResult needHostSize(Value v, const Twine &use);
  void checkAgainstCount(Operation *filter, Value count);
  Value readCount(const DeviceCount &count);

  // The caller's buffers checked so far, and the check messages.
  SmallVector<std::pair<BlockArgument, Extent>> userInputs;
  SmallVector<Extent> userOutputs;
  unsigned numMessages = 0;
};

/// The value whose buffer `v` is: `v` itself, or what a returned
/// expand_shape (fuse-collapse-rows) or a byte view (fuse-bool-bytes:
/// an i8 group result viewed as i1) shows, followed back.
Value viewedValue(Value v);

/// Builds NAME_ws, the workspace form of entry `fn` (HostWorkspace.cpp),
/// after its host function NAME; `sig` is NAME's signature. Where the form
/// cannot exist, builds nothing and sets `note` to the reason. Fails only
/// with a diagnostic.
LogicalResult
buildWorkspaceForm(ModuleOp module, func::FuncOp fn,
                   MutableArrayRef<std::pair<GroupOp, GroupKernels>> groups,
                   const EntrySignature &sig, std::string &note);

} // namespace gpugen
} // namespace fuse

#endif // FUSE_LIB_CONVERSION_FUSETOGPU_HOSTENTRY_H
