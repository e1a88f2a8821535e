//===- HostWorkspace.cpp - the capture-safe workspace form of an entry ----===//
//
// Besides NAME, convert-fuse-to-gpu gives an entry the form NAME_ws where
// it can: the same host code built by HostEntry in its workspace mode (an
// implementation taking the workspace, a dry-run flag and the bytes used),
// behind a public function that sizes first and launches only when the
// caller's workspace is large enough:
//
//   NAME_ws(args..., outputs..., counts (device)..., void *workspace,
//           int64_t *workspace_bytes, fuse_stream_t stream)
//     1. the implementation's dry run: every argument check and the sizes,
//        nothing touches the device; it reports the bytes it needs;
//     2. workspace NULL: writes them (at least 1, so that a workspace is
//        never NULL) to *workspace_bytes and returns;
//     3. a workspace too small or not 256-byte aligned: an error, before
//        any launch;
//     4. the implementation again, with the workspace.
// Neither allocates nor waits for the device, so a call can be captured
// into a CUDA graph with its workspace; a filter's count stays on the
// device. The form is left out, with the reason recorded on #fuse.entry,
// where a size the host needs is a filter's count.
//
//===----------------------------------------------------------------------===//

#include "HostEntry.h"

#include "fuse/Conversion/FuseToGPU/FuseToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace fuse {
namespace gpugen {

namespace {

/// The implementation's signature: the entry's, with the workspace, the
/// dry-run flag and the bytes-used pointer after the stream.
EntrySignature implSignature(const EntrySignature &sig, StringRef symbol) {
  EntrySignature impl = sig;
  impl.symbol = symbol.str();
  MLIRContext *ctx = sig.argTypes.front().getContext();
  Type ptrTy = LLVM::LLVMPointerType::get(ctx);
  impl.workspaceArg = impl.argTypes.size();
  impl.argTypes.push_back(ptrTy);
  impl.dryArg = impl.argTypes.size();
  impl.argTypes.push_back(IntegerType::get(ctx, 1));
  impl.usedArg = impl.argTypes.size();
  impl.argTypes.push_back(ptrTy);
  return impl;
}

/// The public NAME_ws around `impl`.
void buildWrapper(ModuleOp module, func::FuncOp impl,
                  const EntrySignature &sig, StringRef symbol) {
  Location loc = impl.getLoc();
  unsigned fixed = sig.streamArg;
  SmallVector<Type> types(sig.argTypes.begin(), sig.argTypes.begin() + fixed);
  Type ptrTy = LLVM::LLVMPointerType::get(module.getContext());
  types.append({ptrTy, ptrTy, ptrTy}); // workspace, workspace_bytes, stream
  OpBuilder mb(impl);
  mb.setInsertionPointAfter(impl);
  auto fn = func::FuncOp::create(
      mb, loc, symbol, mb.getFunctionType(types, {mb.getI32Type()}));
  HostBuilder h(module, fn, loc);
  h.beginBody();
  Value ws = h.entry->getArgument(fixed);
  Value bytes = h.entry->getArgument(fixed + 1);
  h.stream = h.entry->getArgument(fixed + 2);
  auto isNull = [&](Value p) {
    return LLVM::ICmpOp::create(h.b, loc, LLVM::ICmpPredicate::eq, p,
                                LLVM::ZeroOp::create(h.b, loc, ptrTy));
  };
  // The wrapper's messages, named after it.
  auto message = [&](StringRef tag, const Twine &text) {
    return h.cString(("__fuse_msg_" + symbol + "_" + tag).str(), text.str());
  };
  h.rejectIf(isNull(bytes),
             message("bytes", symbol + ": workspace_bytes is NULL"));
  Value used = h.slot(h.i64());
  auto callImpl = [&](Value workspace, bool dry) {
    SmallVector<Value> args(h.entry->getArguments().take_front(fixed));
    args.append({h.stream, workspace,
                 arith::ConstantIntOp::create(h.b, loc, h.b.getI1Type(), dry),
                 used});
    h.check(func::CallOp::create(h.b, loc, impl, args).getResult(0));
  };
  callImpl(LLVM::ZeroOp::create(h.b, loc, ptrTy), /*dry=*/true);
  // At least one byte: a NULL workspace always means a query.
  Value need = h.maxI(h.load(h.i64(), used), h.c64(1));
  Value query = isNull(ws);
  h.ifThen(query, [&] { h.store(need, bytes); });
  h.ifThen(h.notI(query), [&] {
    Value have = h.load(h.i64(), bytes);
    Value small =
        arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::slt, have, need);
    Value format = h.addressOf(
        message("small", symbol + ": the workspace has %lld bytes but this "
                                  "call needs %lld (call with a NULL "
                                  "workspace to ask)"));
    h.ifThen(small, [&] {
      h.check(h.call("fuse_set_size_error",
                     {h.c32(1 /*FUSE_ERROR_INVALID_ARGUMENT*/), format, have,
                      need}));
    });
    Value low = arith::AndIOp::create(
        h.b, loc, LLVM::PtrToIntOp::create(h.b, loc, h.i64(), ws), h.c64(255));
    h.rejectIf(arith::CmpIOp::create(h.b, loc, arith::CmpIPredicate::ne, low,
                                     h.c64(0)),
               message("align",
                       symbol + ": the workspace is not 256-byte aligned"));
    callImpl(ws, /*dry=*/false);
  });
  func::ReturnOp::create(h.b, loc, ValueRange{h.c32(0)});
  OpBuilder fb = OpBuilder::atBlockBegin(h.fail);
  func::ReturnOp::create(fb, loc, ValueRange{h.fail->getArgument(0)});
}

} // namespace

LogicalResult
buildWorkspaceForm(ModuleOp module, func::FuncOp fn,
                   MutableArrayRef<std::pair<GroupOp, GroupKernels>> groups,
                   const EntrySignature &sig, std::string &note) {
  std::string symbol = fn.getSymName().str() + kWorkspaceSuffix;
  std::string implName = symbol + "__fuse_impl";
  for (StringRef s : {StringRef(symbol), StringRef(implName)})
    if (module.lookupSymbol(s)) {
      note = ("the module already has a symbol '" + s + "'").str();
      return success();
    }
  EntrySignature implSig = implSignature(sig, symbol);
  OpBuilder mb(fn);
  auto impl = func::FuncOp::create(
      mb, fn.getLoc(), implName,
      mb.getFunctionType(implSig.argTypes, {mb.getI32Type()}));
  impl.setPrivate();
  HostEntry entry(module, fn, impl, groups, implSig);
  if (failed(entry.build())) {
    if (entry.blocker().empty())
      return failure(); // a diagnostic was emitted
    // Erase what the blocked form made: its implementation and the
    // globals only it used (its messages and SM count).
    note = entry.blocker();
    impl.erase();
    for (LLVM::GlobalOp g : entry.createdGlobals())
      g.erase();
    return success();
  }
  buildWrapper(module, impl, sig, symbol);
  return success();
}

} // namespace gpugen
} // namespace fuse
