//===- CountChecks.cpp - run-time checks of sizes against counts (CPU) ----===//
//
// See FuseCPUCountChecksPass in Passes.td. The sizes to check are
// EntrySizeChecks' unchecked ones (an argument size combined with a
// filter's or prefix's count); the GPU entries check the same sizes in
// their host code once they read the count (HostEntry::rejectSizes).
//
// A failed check must not let the rest of the entry run: a map of the
// kept values and a shorter argument would read past the argument. So the
// ops after the filter or prefix move into the `else` region of an
// `scf.if` on the mismatch, and the `then` region reports the error and
// yields empty results. Fusion runs after this pass and does not fuse
// across the `scf.if`: these pipelines run as separate loop nests on the
// CPU, which changes their speed, not their results.
//
//===----------------------------------------------------------------------===//

#include "fuse/Conversion/Passes.h"

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/Fuse/Utils/EntrySizeChecks.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace fuse {
#define GEN_PASS_DEF_FUSECPUCOUNTCHECKSPASS
#include "fuse/Conversion/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

namespace {

constexpr StringLiteral kErrorHook = "fuse_cpu_size_error";

/// Whether an empty value of `t` can be made for a failed check's results:
/// a tensor (dynamic dimensions 0) or an integer, index or float scalar.
bool hasEmptyValue(Type t) {
  return isa<RankedTensorType, IntegerType, IndexType, FloatType>(t);
}

Value emptyValue(OpBuilder &b, Location loc, Type t) {
  if (auto tt = dyn_cast<RankedTensorType>(t)) {
    // Dynamic sizes as values, not a cast of a static empty tensor: the
    // cast would give the `scf.if` a buffer of any layout, and the entry's
    // result a copy.
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    SmallVector<Value> dynamic(tt.getNumDynamicDims(), zero);
    return tensor::EmptyOp::create(b, loc, tt.getShape(), tt.getElementType(),
                                   dynamic);
  }
  return arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(t)));
}

/// The value of `size` in `fn`'s body, as i64.
Value boundaryValue(OpBuilder &b, Location loc, func::FuncOp fn,
                    const BoundarySize &size) {
  Value arg = fn.getArgument(size.arg);
  Value v = size.kind == BoundarySize::Kind::ArgDim
                ? tensor::DimOp::create(b, loc, arg, size.dim).getResult()
                : arg;
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
}

struct FuseCPUCountChecksPass
    : fuse::impl::FuseCPUCountChecksPassBase<FuseCPUCountChecksPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // A pass instance may run on several modules.
    checks.clear();
    unsigned messages = 0;
    for (auto fn : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (fn.isDeclaration() ||
          !llvm::all_of(fn.getResultTypes(), hasEmptyValue))
        continue;
      // Both lists from the entry as written, before any check moves ops.
      SmallVector<UncheckedSize> unchecked = entryUncheckedSizes(fn);
      SmallVector<CountPair> pairs = entryCountPairs(fn);
      for (const UncheckedSize &u : unchecked)
        if (guard(
                fn, u.filter, u.messageFormat(fn.getSymName()),
                [&](OpBuilder &b, Location loc) {
                  return boundaryValue(b, loc, fn, u.size);
                },
                messages))
          ++numChecks;
      // (the first's count is the given size: the format's first value)
      for (const CountPair &p : pairs)
        if (guard(
                fn, p.second, p.messageFormat(fn.getSymName()),
                [&](OpBuilder &b, Location loc) {
                  return countOf(b, loc, p.first);
                },
                messages))
          ++numChecks;
    }
  }

  /// The count of `op` (a filter or prefix) as i64.
  static Value countOf(OpBuilder &b, Location loc, Operation *op) {
    return arith::IndexCastOp::create(
        b, loc, b.getI64Type(),
        tensor::DimOp::create(b, loc, op->getResult(0), 0));
  }

  /// Compares `filter`'s count with the size `given` builds right after
  /// `filter`, and wraps what follows it in its block in an `scf.if` on
  /// the mismatch (`format` the message, with the size and the count).
  /// Returns false where the block does not end in the entry's return (or
  /// an earlier check's yield), which leaves it unchecked.
  bool guard(func::FuncOp fn, Operation *filter, const std::string &format,
             function_ref<Value(OpBuilder &, Location)> given, unsigned &id) {
    Block *block = filter->getBlock();
    Operation *term = block->getTerminator();
    if (!isa<func::ReturnOp>(term) &&
        !(isa<scf::YieldOp>(term) && checks.contains(term->getParentOp())))
      return false;
    func::FuncOp hook = errorHook(fn);
    if (!hook)
      return false;
    Location loc = filter->getLoc();
    OpBuilder b(filter->getContext());
    b.setInsertionPointAfter(filter);
    Value count = countOf(b, loc, filter);
    Value size = given(b, loc);
    Value bad =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, size, count);
    Operation *first = bad.getDefiningOp()->getNextNode();
    TypeRange types = term->getOperandTypes();
    auto ifOp = scf::IfOp::create(b, loc, types, bad, /*withElse=*/true);
    checks.insert(ifOp);

    // else: the rest of the block, then what the block returned.
    Block *elseBlock = &ifOp.getElseRegion().front();
    if (!elseBlock->empty())
      elseBlock->getTerminator()->erase();
    elseBlock->getOperations().splice(elseBlock->end(), block->getOperations(),
                                      Block::iterator(first),
                                      Block::iterator(term));
    b.setInsertionPointToEnd(elseBlock);
    SmallVector<Value> results;
    for (Value v : term->getOperands()) {
      // A filter's or prefix's result is a slice of a larger buffer; an
      // `scf.if` yielding it would have a buffer of any strides, which the
      // entry's identity-layout result then copies element by element
      // (a runtime-library call). A copy here is contiguous.
      if (isa_and_nonnull<FilterOp, PrefixOp>(v.getDefiningOp()))
        v = bufferization::AllocTensorOp::create(
            b, loc, cast<RankedTensorType>(v.getType()), ValueRange{}, v);
      results.push_back(v);
    }
    scf::YieldOp::create(b, loc, results);
    term->setOperands(ifOp.getResults());

    // then: report, and empty results.
    Block *thenBlock = ifOp.thenBlock();
    if (!thenBlock->empty())
      thenBlock->getTerminator()->erase();
    b.setInsertionPointToEnd(thenBlock);
    auto module = fn->getParentOfType<ModuleOp>();
    std::string name;
    do
      name = "__fuse_size_error_" + std::to_string(id++);
    while (module.lookupSymbol(name));
    Value message =
        LLVM::createGlobalString(loc, b, name, format, LLVM::Linkage::Internal);
    func::CallOp::create(b, loc, hook, ValueRange{message, size, count});
    SmallVector<Value> empty;
    for (Type t : types)
      empty.push_back(emptyValue(b, loc, t));
    scf::YieldOp::create(b, loc, empty);
    return true;
  }

  /// The declaration of the error hook in `fn`'s module; null, with an
  /// error, where the module defines the name otherwise.
  func::FuncOp errorHook(func::FuncOp fn) {
    auto module = fn->getParentOfType<ModuleOp>();
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    auto type = b.getFunctionType({LLVM::LLVMPointerType::get(fn.getContext()),
                                   b.getI64Type(), b.getI64Type()},
                                  {});
    Operation *existing = module.lookupSymbol(kErrorHook);
    if (!existing) {
      auto f = func::FuncOp::create(b, fn.getLoc(), kErrorHook, type);
      f.setPrivate();
      return f;
    }
    auto f = dyn_cast<func::FuncOp>(existing);
    if (f && f.isDeclaration() && f.getFunctionType() == type)
      return f;
    existing->emitError() << "'" << kErrorHook
                          << "' is the CPU entries' size-error hook, declared "
                             "as (!llvm.ptr, i64, i64) -> () and defined by "
                             "the code that links them";
    signalPassFailure();
    return nullptr;
  }

  /// The `scf.if` of each check made so far: a later check of the same
  /// entry nests in its `else` region.
  llvm::SmallPtrSet<Operation *, 4> checks;
};

} // namespace
