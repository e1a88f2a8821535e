//===- HostBuilder.h - host code of convert-fuse-to-gpu ---------*- C++ -*-===//
//
// The host function of an entry is built from func/arith/cf/llvm ops that
// call the fuse runtime: HostBuilder holds the builder, the entry and
// failure blocks and the helpers (runtime calls with status checks,
// stack slots, globals, device temporaries, kernel launches), and
// ShapeInfer computes the sizes of a group's results on the host. Used
// by HostEntry.cpp and HostLaunch.cpp, which build the host function of
// each entry. Not installed.
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_LIB_CONVERSION_FUSETOGPU_HOSTBUILDER_H
#define FUSE_LIB_CONVERSION_FUSETOGPU_HOSTBUILDER_H

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Support/LLVM.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>

namespace fuse {
namespace gpugen {

/// A tensor on the host: its device pointer and its sizes, as values and
/// as the caller knows them (for the entry's description).
struct HostTensor {
  Value ptr;
  SmallVector<Value> dims; // i64
  SmallVector<SizeAttr> dimSizes;
};

class HostBuilder {
public:
  HostBuilder(ModuleOp module, func::FuncOp fn, Location loc)
      : module(module), fn(fn), loc(loc), b(fn.getContext()) {}

  ModuleOp module;
  func::FuncOp fn;
  Location loc;
  OpBuilder b;
  Block *entry = nullptr;
  Block *fail = nullptr;
  Value stream;
  SmallVector<Value> tempSlots;
  Value smCount; // i64
  /// The globals this builder created (not found by name).
  SmallVector<LLVM::GlobalOp> createdGlobals;

  /// The workspace form of an entry (NAME_ws): temporaries are carved, in
  /// order and 256-byte aligned, from the caller's `base`, the bytes used
  /// so far are in the i64 slot `used`, and while `dry` (i1) holds the
  /// function only sizes: nothing touches the device.
  struct Workspace {
    Value base, used, dry;
  };
  std::optional<Workspace> workspace;

  Type ptrTy() { return LLVM::LLVMPointerType::get(b.getContext()); }
  Type i32() { return b.getI32Type(); }
  Type i64() { return b.getI64Type(); }
  Value c64(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
  }
  Value c32(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  }
  Value c1(bool v) {
    return arith::ConstantIntOp::create(b, loc, b.getI1Type(), v);
  }

  func::FuncOp declare(StringRef name, TypeRange args);
  Value call(StringRef name, ValueRange args);
  /// Branches to the failure block unless `status` is 0.
  void check(Value status);
  /// Runs `then` only when `cond` holds.
  void ifThen(Value cond, function_ref<void()> then);
  /// `for (iv = lo; iv < hi; ++iv) body(iv)` over i64 (signed compare).
  void forEach(Value lo, Value hi, function_ref<void(Value iv)> body);
  /// An entry-block stack slot of type `t`.
  Value slot(Type t);
  Value load(Type t, Value p) { return LLVM::LoadOp::create(b, loc, t, p); }
  void store(Value v, Value p) { LLVM::StoreOp::create(b, loc, v, p); }

  LLVM::GlobalOp global(StringRef name, Type t, Attribute value, bool constant,
                        uint64_t align = 0);
  /// A constant global `name` holding `text` and a NUL (a C string).
  LLVM::GlobalOp cString(StringRef name, StringRef text);
  /// Returns FUSE_ERROR_INVALID_ARGUMENT with `message` (a cString) when
  /// `cond` holds.
  void rejectIf(Value cond, LLVM::GlobalOp message);
  /// Starts `fn`'s body: its entry block, where the builder then inserts,
  /// and the failure block, whose i32 argument is the status it returns.
  void beginBody();
  Value addressOf(LLVM::GlobalOp g) {
    return LLVM::AddressOfOp::create(b, loc, g);
  }

  /// A device temporary of `bytes` bytes, freed at exit (the workspace
  /// form: the next piece of the workspace).
  Value allocTemp(Value bytes);
  /// Emits `work`, calls that touch the device, so that the workspace
  /// form's dry run skips them.
  void onDevice(function_ref<void()> work);

  /// Launches `fnHandle` on `grid` (i64) blocks of `block` threads with
  /// `sharedBytes` of dynamic shared memory.
  void launch(Value fnHandle, Value grid, int64_t block, ValueRange args,
              int64_t sharedBytes = 0) {
    launch(fnHandle, grid, block, args, c32(sharedBytes));
  }
  /// The same with the dynamic shared memory as a value (i32).
  void launch(Value fnHandle, Value grid, int64_t block, ValueRange args,
              Value sharedBytes) {
    launch(fnHandle, grid, c32(block), args, sharedBytes);
  }
  /// The same with the block's threads as a value (i32).
  void launch(Value fnHandle, Value grid, Value block, ValueRange args,
              Value sharedBytes);

  Value ceilDiv(Value a, Value d) {
    return arith::CeilDivSIOp::create(b, loc, a, d);
  }
  Value minI(Value a, Value c) { return arith::MinSIOp::create(b, loc, a, c); }
  Value maxI(Value a, Value c) { return arith::MaxSIOp::create(b, loc, a, c); }
  Value mul(Value a, Value c) { return arith::MulIOp::create(b, loc, a, c); }
  Value sub(Value a, Value c) { return arith::SubIOp::create(b, loc, a, c); }
  Value add(Value a, Value c) { return arith::AddIOp::create(b, loc, a, c); }
  Value andI(Value a, Value c) { return arith::AndIOp::create(b, loc, a, c); }
  Value orI(Value a, Value c) { return arith::OrIOp::create(b, loc, a, c); }
  Value notI(Value a) { return arith::XOrIOp::create(b, loc, a, c1(true)); }
};

/// A host scalar (i64) and where the caller finds it.
using HostScalar = std::pair<Value, SizeAttr>;

/// Sizes of a group result on the host (i64 values and their sources).
struct ShapeInfer {
  HostBuilder &h;
  DenseMap<Value, HostTensor> &args; // group block arg -> host tensor
  DenseMap<Value, HostScalar> &scalars;

  LogicalResult dims(Value v, SmallVector<Value> &out,
                     SmallVector<SizeAttr> &sizes);
};

} // namespace gpugen
} // namespace fuse

#endif // FUSE_LIB_CONVERSION_FUSETOGPU_HOSTBUILDER_H
