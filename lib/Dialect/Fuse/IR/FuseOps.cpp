//===- FuseOps.cpp - fuse dialect operations ------------------------------===//
//
// Verifiers, custom assembly and helpers of the fuse ops. Each diagnostic
// carries a tag (`map_c1`, ...) in a comment with a matching case in
// test/Dialect/Fuse/invalid.mlir.
//
//===----------------------------------------------------------------------===//

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "VerifyText.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace fuse;
using namespace fuse::detail;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

/// There is at least one input (`*_c1`) and all inputs share one shape
/// (`*_c2`).
LogicalResult fuse::detail::verifySameShapes(Operation *op, ValueRange inputs,
                                             StringRef what) {
  if (inputs.empty())
    return op->emitOpError() << "requires at least one input";
  ArrayRef<int64_t> shape = tensorTypeOf(inputs.front()).getShape();
  for (auto [i, in] : llvm::enumerate(inputs)) {
    ArrayRef<int64_t> s = tensorTypeOf(in).getShape();
    if (!shapesCompatible(shape, s))
      return op->emitOpError()
             << "requires all " << what << " to have the same shape, but #0 is "
             << shapeString(shape) << " and #" << i << " is "
             << shapeString(s);
  }
  return success();
}

/// Checks the block of a body region: one argument per type in `argTypes`
/// (the count, then each type).
LogicalResult fuse::detail::verifyBlockArgs(Operation *op, Region &region,
                                            TypeRange argTypes,
                                            StringRef what) {
  if (region.empty())
    return op->emitOpError() << "requires a " << what << " region";
  Block &block = region.front();
  if (block.getNumArguments() != argTypes.size())
    return op->emitOpError()
           << "expects the " << what << " block to take " << argTypes.size()
           << " arguments, but it takes " << block.getNumArguments();
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip_equal(block.getArgumentTypes(), argTypes))) {
    auto [got, want] = pair;
    if (got != want)
      return op->emitOpError()
             << "expects " << what << " block argument #" << i
             << " to have type " << want << ", but it has type " << got;
  }
  return success();
}

/// Checks that the block ends in a fuse.yield of `types` (the terminator,
/// the count, then each type).
LogicalResult fuse::detail::verifyYield(Operation *op, Region &region,
                                        TypeRange types, StringRef what) {
  auto yield = dyn_cast<YieldOp>(region.front().getTerminator());
  if (!yield)
    return op->emitOpError() << "expects the " << what
                             << " block to end with fuse.yield";
  if (yield.getValues().size() != types.size())
    return yield.emitOpError()
           << "yields " << yield.getValues().size() << " values, but the "
           << what << " of " << op->getName() << " needs " << types.size();
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip_equal(yield.getValues().getTypes(), types))) {
    auto [got, want] = pair;
    if (got != want)
      return yield.emitOpError() << "operand #" << i << " has type " << got
                                 << ", but the " << what << " of "
                                 << op->getName() << " needs " << want;
  }
  return success();
}

SmallVector<Type> fuse::detail::elementTypes(ValueRange values) {
  return llvm::to_vector(llvm::map_range(values, [](Value v) -> Type {
    return tensorTypeOf(v).getElementType();
  }));
}

LogicalResult fuse::FuseOpTrait::verifyAddressableSizes(Operation *op) {
  auto check = [&](Type type, StringRef what, unsigned i) -> LogicalResult {
    auto t = dyn_cast<RankedTensorType>(type);
    if (!t || !t.hasStaticShape())
      return success();
    // Bytes of one element, rounded up (i1 takes a byte).
    int64_t bytes = std::max<int64_t>(
        1, (t.getElementType().getIntOrFloatBitWidth() + 7) / 8);
    bool overflow = false;
    for (int64_t d : t.getShape())
      overflow |= llvm::MulOverflow(bytes, d, bytes);
    if (!overflow)
      return success();
    return op->emitOpError()
           << what << " #" << i << " has type " << t
           << " whose size overflows 64 bits (at most 2^63-1 bytes)";
  };
  for (auto [i, t] : llvm::enumerate(op->getOperandTypes()))
    if (failed(check(t, "operand", i)))
      return failure();
  for (auto [i, t] : llvm::enumerate(op->getResultTypes()))
    if (failed(check(t, "result", i)))
      return failure();
  return success();
}

bool fuse::isKindValidForType(CombinerKind kind, Type type) {
  switch (kind) {
  case CombinerKind::Add:
  case CombinerKind::Mul:
  case CombinerKind::Min:
  case CombinerKind::Max:
    return isa<FloatType, IntegerType>(type);
  case CombinerKind::And:
  case CombinerKind::Or:
  case CombinerKind::Xor:
  case CombinerKind::UMin:
  case CombinerKind::UMax:
    return isa<IntegerType>(type);
  }
  return false;
}

TypedAttr fuse::getKindIdentity(CombinerKind kind, Type type) {
  if (auto ft = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = ft.getFloatSemantics();
    switch (kind) {
    case CombinerKind::Add:
      return FloatAttr::get(ft, APFloat::getZero(sem));
    case CombinerKind::Mul:
      return FloatAttr::get(ft, APFloat::getOne(sem));
    case CombinerKind::Min:
      return FloatAttr::get(ft, APFloat::getInf(sem));
    case CombinerKind::Max:
      return FloatAttr::get(ft, APFloat::getInf(sem, /*Negative=*/true));
    default:
      return {};
    }
  }
  auto it = cast<IntegerType>(type);
  unsigned w = it.getWidth();
  switch (kind) {
  case CombinerKind::Add:
  case CombinerKind::Or:
  case CombinerKind::Xor:
    return IntegerAttr::get(it, APInt::getZero(w));
  case CombinerKind::Mul:
    return IntegerAttr::get(it, APInt(w, 1));
  case CombinerKind::Min:
    return IntegerAttr::get(it, APInt::getSignedMaxValue(w));
  case CombinerKind::Max:
    return IntegerAttr::get(it, APInt::getSignedMinValue(w));
  case CombinerKind::And:
  case CombinerKind::UMin:
    return IntegerAttr::get(it, APInt::getAllOnes(w));
  case CombinerKind::UMax:
    return IntegerAttr::get(it, APInt::getZero(w));
  }
  return {};
}

Value fuse::buildCombine(OpBuilder &b, Location loc, CombinerKind kind,
                               Value lhs, Value rhs) {
  bool isFloat = isa<FloatType>(lhs.getType());
  switch (kind) {
  case CombinerKind::Add:
    return isFloat ? arith::AddFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::AddIOp::create(b, loc, lhs, rhs).getResult();
  case CombinerKind::Mul:
    return isFloat ? arith::MulFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::MulIOp::create(b, loc, lhs, rhs).getResult();
  case CombinerKind::Min:
    return isFloat ? arith::MinimumFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::MinSIOp::create(b, loc, lhs, rhs).getResult();
  case CombinerKind::Max:
    return isFloat ? arith::MaximumFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::MaxSIOp::create(b, loc, lhs, rhs).getResult();
  case CombinerKind::And:
    return arith::AndIOp::create(b, loc, lhs, rhs);
  case CombinerKind::Or:
    return arith::OrIOp::create(b, loc, lhs, rhs);
  case CombinerKind::Xor:
    return arith::XOrIOp::create(b, loc, lhs, rhs);
  case CombinerKind::UMin:
    return arith::MinUIOp::create(b, loc, lhs, rhs);
  case CombinerKind::UMax:
    return arith::MaxUIOp::create(b, loc, lhs, rhs);
  }
  llvm_unreachable("unknown combiner kind");
}

//===----------------------------------------------------------------------===//
// MapOp
//===----------------------------------------------------------------------===//

Value fuse::buildElementwiseMap(
    OpBuilder &b, Location loc, ValueRange inputs, Type to,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  auto t = cast<RankedTensorType>(inputs.front().getType());
  auto map = MapOp::create(b, loc, TypeRange{t.clone(to)}, inputs);
  SmallVector<Type> elems;
  for (Value in : inputs)
    elems.push_back(cast<RankedTensorType>(in.getType()).getElementType());
  // The guard first: createBlock moves the insertion point into the block.
  OpBuilder::InsertionGuard g(b);
  Block *blk = b.createBlock(&map.getBody(), {}, elems,
                             SmallVector<Location>(elems.size(), loc));
  YieldOp::create(b, loc, body(b, loc, blk->getArguments()));
  return map.getResult(0);
}

Value fuse::buildElementwiseMap(
    OpBuilder &b, Location loc, Value input, Type to,
    function_ref<Value(OpBuilder &, Location, Value)> body) {
  return buildElementwiseMap(b, loc, ValueRange{input}, to,
                             [&](OpBuilder &mb, Location l, ValueRange x) {
                               return body(mb, l, x[0]);
                             });
}

YieldOp MapOp::getYield() {
  return cast<YieldOp>(getBody().front().getTerminator());
}

LogicalResult MapOp::verify() {
  // map_c1, map_c2: one or more inputs of one shape.
  if (failed(verifySameShapes(*this, getInputs(), "inputs")))
    return failure();
  // map_c3: one or more results.
  if (getResults().empty())
    return emitOpError() << "requires at least one result";
  // map_c4: each result has the inputs' shape.
  ArrayRef<int64_t> shape = tensorTypeOf(getInputs().front()).getShape();
  for (auto [i, r] : llvm::enumerate(getResults())) {
    ArrayRef<int64_t> s = tensorTypeOf(r).getShape();
    if (!shapesCompatible(shape, s))
      return emitOpError() << "result #" << i << " has shape "
                           << shapeString(s) << ", but the inputs have shape "
                           << shapeString(shape);
  }
  return success();
}

LogicalResult MapOp::verifyRegions() {
  // map_c5: one block argument per input, of its element type.
  if (failed(verifyBlockArgs(*this, getBody(), elementTypes(getInputs()),
                             "body")))
    return failure();
  // map_c6: the body yields one scalar per result, of its element type.
  return verifyYield(*this, getBody(), elementTypes(getResults()), "body");
}

//===----------------------------------------------------------------------===//
// FilterOp
//===----------------------------------------------------------------------===//

LogicalResult FilterOp::verify() {
  // filter_c1, filter_c2: one or more inputs of one shape.
  if (failed(verifySameShapes(*this, getInputs(), "inputs")))
    return failure();
  // filter_c3: the inputs have rank 1.
  if (tensorTypeOf(getInputs().front()).getRank() != 1)
    return emitOpError() << "requires rank-1 inputs, but input #0 has rank "
                         << tensorTypeOf(getInputs().front()).getRank();
  // filter_c4: one result per input.
  if (getResults().size() != getInputs().size())
    return emitOpError() << "has " << getResults().size() << " results for "
                         << getInputs().size() << " inputs";
  // filter_c5: each result is rank-1, dynamic, of its input's elements.
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip_equal(getInputs(), getResults()))) {
    auto [in, res] = pair;
    auto rt = tensorTypeOf(res);
    if (rt.getRank() != 1 || !rt.isDynamicDim(0) ||
        rt.getElementType() != tensorTypeOf(in).getElementType())
      return emitOpError()
             << "result #" << i << " must be "
             << RankedTensorType::get({ShapedType::kDynamic},
                                      tensorTypeOf(in).getElementType())
             << ", but is " << rt;
  }
  return success();
}

LogicalResult FilterOp::verifyRegions() {
  // filter_c6: one predicate argument per input, of its element type.
  if (failed(verifyBlockArgs(*this, getPredicate(), elementTypes(getInputs()),
                             "predicate")))
    return failure();
  // filter_c7: the predicate yields one i1.
  Type i1 = IntegerType::get(getContext(), 1);
  return verifyYield(*this, getPredicate(), TypeRange{i1}, "predicate");
}

//===----------------------------------------------------------------------===//
// PrefixOp
//===----------------------------------------------------------------------===//

LogicalResult PrefixOp::verify() {
  auto st = tensorTypeOf(getSource());
  // prefix_c1: a rank-1 source.
  if (st.getRank() != 1)
    return emitOpError() << "requires a rank-1 source, but it has rank "
                         << st.getRank();
  // prefix_c2: the result is tensor<?xT> of the source's elements.
  auto want =
      RankedTensorType::get({ShapedType::kDynamic}, st.getElementType());
  if (tensorTypeOf(getResult()) != want)
    return emitOpError() << "result must be " << want << ", but is "
                         << getResult().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// AllGatherOp
//===----------------------------------------------------------------------===//

LogicalResult AllGatherOp::verify() {
  auto in = tensorTypeOf(getInput());
  SmallVector<int64_t> shape{ShapedType::kDynamic};
  llvm::append_range(shape, in.getShape());
  auto want = RankedTensorType::get(shape, in.getElementType());
  // all_gather_c1: the input's type under a dynamic leading dimension.
  if (tensorTypeOf(getResult()) != want)
    return emitOpError() << "result must be " << want << " (the input's type "
                         << "with a leading dimension of the shard count), "
                            "but is "
                         << getResult().getType();
  return success();
}

LogicalResult AllConcatOp::verify() {
  auto in = tensorTypeOf(getInput());
  // all_concat_c1: rank 1 or more.
  if (in.getRank() < 1)
    return emitOpError() << "requires an input of rank 1 or more (parts "
                            "along the leading dimension), but it has rank 0";
  SmallVector<int64_t> shape(in.getShape());
  shape[0] = ShapedType::kDynamic;
  auto want = RankedTensorType::get(shape, in.getElementType());
  // all_concat_c2: the input's type, leading dimension dynamic.
  if (tensorTypeOf(getResult()) != want)
    return emitOpError() << "result must be " << want
                         << " (the input's type with a dynamic leading "
                            "dimension), but is "
                         << getResult().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// IotaOp
//===----------------------------------------------------------------------===//

LogicalResult IotaOp::verify() {
  auto type = getResult().getType();
  // iota_c1: rank >= 1.
  if (type.getRank() == 0)
    return emitOpError() << "requires a result of rank 1 or more";
  // iota_c2: the dimension is in range.
  int64_t d = getIotaDim();
  if (d < 0 || d >= type.getRank())
    return emitOpError() << "dimension " << d << " is out of range for rank "
                         << type.getRank();
  // iota_c3: one size operand per dynamic dimension.
  if (getSizes().size() != static_cast<size_t>(type.getNumDynamicDims()))
    return emitOpError() << "has " << getSizes().size()
                         << " size operands, but the result type has "
                         << type.getNumDynamicDims() << " dynamic dimensions";
  // iota_c4: an element type that can hold an index (not i1).
  if (type.getElementType().isInteger(1))
    return emitOpError() << "cannot produce indices of type i1";
  return success();
}

//===----------------------------------------------------------------------===//
// BroadcastOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  auto in = getInput().getType(), res = getResult().getType();
  ArrayRef<int64_t> dims = getDims();
  // broadcast_c1: rank(result) = rank(input) + |dims|.
  if (res.getRank() != in.getRank() + static_cast<int64_t>(dims.size()))
    return emitOpError() << "result rank " << res.getRank()
                         << " is not the input rank " << in.getRank()
                         << " plus " << dims.size() << " added dimensions";
  // broadcast_c2: dims sorted, unique, in range.
  int64_t prev = -1;
  for (int64_t d : dims) {
    if (d < 0 || d >= res.getRank())
      return emitOpError() << "added dimension " << d
                           << " is out of range for result rank "
                           << res.getRank();
    if (d <= prev)
      return emitOpError() << "added dimensions must be sorted and unique";
    prev = d;
  }
  // broadcast_c3: element types match.
  if (in.getElementType() != res.getElementType())
    return emitOpError() << "result element type " << res.getElementType()
                         << " differs from the input's "
                         << in.getElementType();
  // broadcast_c4: each kept dimension equals its input dimension.
  int64_t j = 0, numDynAdded = 0;
  for (int64_t d = 0; d < res.getRank(); ++d) {
    if (llvm::is_contained(dims, d)) {
      numDynAdded += res.isDynamicDim(d);
      continue;
    }
    int64_t a = in.getDimSize(j), b = res.getDimSize(d);
    if (a != b)
      return emitOpError() << "result dimension " << d << " ("
                           << shapeString({b})
                           << ") must equal input dimension " << j << " ("
                           << shapeString({a}) << ")";
    ++j;
  }
  // broadcast_c5: one size per dynamic added dimension.
  if (static_cast<int64_t>(getSizes().size()) != numDynAdded)
    return emitOpError() << "has " << getSizes().size()
                         << " size operands, but " << numDynAdded
                         << " added dimensions are dynamic";
  return success();
}

//===----------------------------------------------------------------------===//
// GroupOp
//===----------------------------------------------------------------------===//

YieldOp GroupOp::getYield() {
  return cast<YieldOp>(getBody().front().getTerminator());
}

/// `fuse.group KIND (...)`: the kind as a bare keyword (group_c1 is the
/// enum's: an unknown keyword is a parse error).
static ParseResult parseGroupKind(OpAsmParser &parser, GroupKindAttr &kind) {
  StringRef kw;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeyword(&kw))
    return failure();
  std::optional<GroupKind> k = symbolizeGroupKind(kw);
  if (!k)
    return parser.emitError(loc)
           << "unknown group kind '" << kw
           << "'; expected elementwise, reduce, row_reduce, scan, filter, "
              "histogram or segmented_reduce";
  kind = GroupKindAttr::get(parser.getContext(), *k);
  return success();
}

static void printGroupKind(OpAsmPrinter &p, Operation *, GroupKindAttr kind) {
  p << stringifyGroupKind(kind.getValue());
}

LogicalResult GroupOp::verify() {
  // group_c1 holds by construction (GroupKindAttr).
  // group_c2: operands are tensors or scalars.
  for (auto [i, t] : llvm::enumerate(getOperands().getTypes()))
    if (!isa<RankedTensorType, IntegerType, FloatType, IndexType>(t))
      return emitOpError() << "operand #" << i << " has type " << t
                           << "; expected a ranked tensor or a scalar";
  return success();
}

LogicalResult GroupOp::verifyRegions() {
  // group_c3: one block argument per operand, of its type.
  if (failed(verifyBlockArgs(*this, getBody(), getOperands().getTypes(),
                             "body")))
    return failure();
  // group_c4: the body yields the results.
  if (failed(verifyYield(*this, getBody(), getResultTypes(), "body")))
    return failure();
  // group_c5: a row_reduce group computes its values one row at a time, so
  // a rank-1 value computed in the body is a per-row value and can only be
  // broadcast along the row (dims [1]).
  if (getKind() != GroupKind::RowReduce)
    return success();
  WalkResult w = getBody().walk([&](BroadcastOp bc) {
    Operation *def = bc.getInput().getDefiningOp();
    if (!def || def->getParentRegion() != &getBody() ||
        bc.getInput().getType().getRank() != 1 ||
        bc.getDims() == ArrayRef<int64_t>{1})
      return WalkResult::advance();
    bc.emitOpError() << "broadcasts a per-row value of its row_reduce group "
                        "along dims ["
                     << bc.getDims() << "]; a row_reduce group can only "
                     << "broadcast its row values along the row (dims [1])";
    return WalkResult::interrupt();
  });
  return failure(w.wasInterrupted());
}

#define GET_OP_CLASSES
#include "fuse/Dialect/Fuse/IR/FuseOps.cpp.inc"
