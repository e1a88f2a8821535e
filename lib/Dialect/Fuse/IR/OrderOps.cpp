//===- OrderOps.cpp - the fuse ops that order or index by data ------------===//
//
// Verifiers and custom assembly of fuse.sort, fuse.gather and
// fuse.searchsorted, and the queries the passes ask about such reads. Each
// diagnostic carries a tag with a case in test/Dialect/Fuse/invalid.mlir.
//
//===----------------------------------------------------------------------===//

#include "VerifyText.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace fuse;

//===----------------------------------------------------------------------===//
// The words before the operands of sort and searchsorted
//===----------------------------------------------------------------------===//

/// `WORD [unsigned]`: WORD a case of the enum `symbolize` reads (named by
/// `expected` in the diagnostic), stored as the attribute `wordAttr`;
/// `unsigned` as `integer_order` (attribute `integerOrderAttr`).
template <typename EnumAttrT, typename EnumT>
static ParseResult
parseOrderWords(OpAsmParser &parser, OperationState &state,
                StringAttr wordAttr, StringAttr integerOrderAttr,
                std::optional<EnumT> (*symbolize)(StringRef),
                StringRef expected) {
  MLIRContext *ctx = parser.getContext();
  StringRef word;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeyword(&word))
    return failure();
  std::optional<EnumT> value = symbolize(word);
  if (!value)
    return parser.emitError(loc, "expected ")
           << expected << ", got `" << word << "`";
  state.addAttribute(wordAttr, EnumAttrT::get(ctx, *value));
  if (succeeded(parser.parseOptionalKeyword("unsigned")))
    state.addAttribute(integerOrderAttr,
                       IntegerOrderAttr::get(ctx, IntegerOrder::Unsigned));
  return success();
}

/// The printed form of parseOrderWords.
static void printOrderWords(OpAsmPrinter &p, StringRef word, bool isUnsigned) {
  p << ' ' << word;
  if (isUnsigned)
    p << " unsigned";
}

//===----------------------------------------------------------------------===//
// SortOp
//===----------------------------------------------------------------------===//

// fuse.sort ORDER [unsigned] [positions] %keys [, %values] attr-dict
//     : KEYS_TYPE [, VALUES_TYPE] -> RESULT_TYPES [COMPARATOR_REGION]
ParseResult SortOp::parse(OpAsmParser &parser, OperationState &state) {
  if (parseOrderWords<SortOrderAttr, SortOrder>(
          parser, state, getOrderAttrName(state.name),
          getIntegerOrderAttrName(state.name), symbolizeSortOrder,
          "the sort order `ascending` or `descending`"))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("positions")))
    state.addAttribute(
        getCarryAttrName(state.name),
        SortCarryAttr::get(parser.getContext(), SortCarry::Positions));
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  SmallVector<Type> types, resultTypes;
  SMLoc operandsLoc = parser.getCurrentLocation();
  if (parser.parseOperandList(operands) ||
      parser.parseOptionalAttrDict(state.attributes) || parser.parseColon() ||
      parser.parseTypeList(types) || parser.parseArrow() ||
      parser.parseTypeList(resultTypes) ||
      parser.resolveOperands(operands, types, operandsLoc, state.operands))
    return failure();
  state.addTypes(resultTypes);
  Region *comparator = state.addRegion();
  OptionalParseResult hasRegion = parser.parseOptionalRegion(*comparator);
  if (hasRegion.has_value() && failed(*hasRegion))
    return failure();
  return success();
}

void SortOp::print(OpAsmPrinter &p) {
  printOrderWords(p, stringifySortOrder(getOrder()), isUnsigned());
  if (hasPositions())
    p << " positions";
  p << ' ' << getOperation()->getOperands();
  p.printOptionalAttrDict(
      (*this)->getAttrs(),
      {getOrderAttrName(), getIntegerOrderAttrName(), getCarryAttrName()});
  p << " : " << getOperation()->getOperandTypes() << " -> "
    << getOperation()->getResultTypes();
  if (hasComparator()) {
    p << ' ';
    p.printRegion(getComparator(), /*printEntryBlockArgs=*/true,
                  /*printBlockTerminators=*/true);
  }
}

LogicalResult SortOp::verify() {
  auto keys = getKeys().getType();
  // sort_c1: rank-1 keys.
  if (keys.getRank() != 1)
    return emitOpError() << "requires rank-1 keys, but they have rank "
                         << keys.getRank();
  // sort_c2: values of rank 1 and the keys' length.
  if (Value values = getValues()) {
    auto vt = cast<RankedTensorType>(values.getType());
    if (vt.getRank() != 1)
      return emitOpError() << "requires rank-1 values, but they have rank "
                           << vt.getRank();
    if (!shapesCompatible(vt.getShape(), keys.getShape()))
      return emitOpError() << "values of shape " << shapeString(vt.getShape())
                           << " do not match the keys' shape "
                           << shapeString(keys.getShape());
  }
  // sort_c7: positions replace a values operand.
  if (hasPositions() && getValues())
    return emitOpError() << "`positions` moves the keys' positions instead "
                            "of a values operand; drop one";
  // sort_c3: one result per operand, of its type; the positions after the
  // keys.
  unsigned expected = getNumOperands() + (hasPositions() ? 1 : 0);
  if (getResults().size() != expected)
    return emitOpError() << "has " << getResults().size() << " results for "
                         << getNumOperands()
                         << " operands (keys and optional values)"
                         << (hasPositions() ? " and the positions" : "");
  for (auto [i, operand, result] : llvm::enumerate(
           getOperands(), getResults().take_front(getNumOperands())))
    if (operand.getType() != result.getType())
      return emitOpError() << "result #" << i << " has type "
                           << result.getType() << ", but its operand has "
                           << operand.getType();
  if (hasPositions()) {
    auto want = RankedTensorType::get(keys.getShape(),
                                      IntegerType::get(getContext(), 64));
    if (getResults()[1].getType() != want)
      return emitOpError() << "result #1 holds the positions, of type " << want
                           << ", but it has " << getResults()[1].getType();
  }
  // sort_c4: `unsigned` orders integers only, and only without a
  // comparator (which gives the order itself).
  if (isUnsigned() && hasComparator())
    return emitOpError() << "`unsigned` and a comparator region both give "
                            "the key order; keep one";
  if (isUnsigned() && !isa<IntegerType>(keys.getElementType()))
    return emitOpError() << "`unsigned` orders integer keys, but the keys "
                            "are "
                         << keys.getElementType();
  return success();
}

LogicalResult SortOp::verifyRegions() {
  if (!hasComparator())
    return success();
  Region &comparator = getComparator();
  if (!comparator.hasOneBlock())
    return emitOpError() << "expects a comparator region with one block";
  // sort_c5: (a, b) of the keys' element type; sort_c6: yields an i1.
  Type key = getKeys().getType().getElementType();
  SmallVector<Type, 2> args{key, key};
  if (failed(detail::verifyBlockArgs(*this, comparator, args, "comparator")))
    return failure();
  Type i1 = IntegerType::get(getContext(), 1);
  return detail::verifyYield(*this, comparator, TypeRange(i1), "comparator");
}

//===----------------------------------------------------------------------===//
// GatherOp
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::verify() {
  auto src = getSource().getType(), idx = getIndices().getType(),
       res = getResult().getType();
  // gather_c1: a rank-1 source.
  if (src.getRank() != 1)
    return emitOpError() << "requires a rank-1 source, but it has rank "
                         << src.getRank();
  // gather_c2: the result has the indices' shape.
  if (!shapesCompatible(res.getShape(), idx.getShape()))
    return emitOpError() << "result shape " << shapeString(res.getShape())
                         << " differs from the indices' shape "
                         << shapeString(idx.getShape());
  // gather_c3: the result has the source's element type.
  if (res.getElementType() != src.getElementType())
    return emitOpError() << "result element type " << res.getElementType()
                         << " differs from the source's "
                         << src.getElementType();
  return success();
}

bool fuse::isElementwiseOp(Operation *op) {
  return isa_and_nonnull<MapOp, BroadcastOp, IotaOp, GatherOp, SearchSortedOp>(
      op);
}

bool fuse::isReadAtComputedPositions(OpOperand &use) {
  Operation *owner = use.getOwner();
  if (auto g = dyn_cast<GatherOp>(owner))
    return &use == &g.getSourceMutable();
  if (auto s = dyn_cast<SearchSortedOp>(owner))
    return &use == &s.getSortedMutable();
  if (auto s = dyn_cast<SegmentedReduceOp>(owner))
    return use.getOperandNumber() < s.getInputs().size();
  return false;
}

bool fuse::readsNoElements(OpOperand &use) {
  Operation *owner = use.getOwner();
  if (isa<tensor::DimOp>(owner))
    return true;
  if (auto map = dyn_cast<MapOp>(owner))
    return map.getBody()
        .front()
        .getArgument(use.getOperandNumber())
        .use_empty();
  return false;
}

bool fuse::onlySizesRead(Value v) {
  return llvm::all_of(v.getUses(),
                      [](OpOperand &use) { return readsNoElements(use); });
}

bool fuse::isByteView(Operation *op) {
  if (!isa_and_nonnull<arith::ExtUIOp, arith::TruncIOp>(op))
    return false;
  auto from = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto to = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!from || !to)
    return false;
  bool widens = isa<arith::ExtUIOp>(op);
  return from.getElementType().isInteger(widens ? 1 : 8) &&
         to.getElementType().isInteger(widens ? 8 : 1);
}

//===----------------------------------------------------------------------===//
// SearchSortedOp
//===----------------------------------------------------------------------===//

ParseResult SearchSortedOp::parse(OpAsmParser &parser, OperationState &state) {
  if (parseOrderWords<SearchSideAttr, SearchSide>(
          parser, state, getSideAttrName(state.name),
          getIntegerOrderAttrName(state.name), symbolizeSearchSide,
          "the search side `left` or `right`"))
    return failure();
  OpAsmParser::UnresolvedOperand sorted, values;
  Type sortedType, valuesType, resultType;
  SMLoc operandsLoc = parser.getCurrentLocation();
  if (parser.parseOperand(sorted) || parser.parseComma() ||
      parser.parseOperand(values) ||
      parser.parseOptionalAttrDict(state.attributes) || parser.parseColon() ||
      parser.parseType(sortedType) || parser.parseComma() ||
      parser.parseType(valuesType) || parser.parseArrow() ||
      parser.parseType(resultType) ||
      parser.resolveOperands({sorted, values}, {sortedType, valuesType},
                             operandsLoc, state.operands))
    return failure();
  state.addTypes(resultType);
  return success();
}

void SearchSortedOp::print(OpAsmPrinter &p) {
  printOrderWords(p, stringifySearchSide(getSide()), isUnsigned());
  p << ' ' << getSorted() << ", " << getValues();
  p.printOptionalAttrDict((*this)->getAttrs(),
                          {getSideAttrName(), getIntegerOrderAttrName()});
  p << " : " << getSorted().getType() << ", " << getValues().getType() << " -> "
    << getResult().getType();
}

LogicalResult SearchSortedOp::verify() {
  auto sorted = getSorted().getType(), values = getValues().getType(),
       res = getResult().getType();
  // searchsorted_c1: a rank-1 sorted tensor.
  if (sorted.getRank() != 1)
    return emitOpError() << "requires a rank-1 sorted tensor, but it has rank "
                         << sorted.getRank();
  // searchsorted_c2: the values have the sorted tensor's element type.
  if (values.getElementType() != sorted.getElementType())
    return emitOpError() << "values of element type " << values.getElementType()
                         << " differ from the sorted tensor's "
                         << sorted.getElementType();
  // searchsorted_c3: the result has the values' shape.
  if (!shapesCompatible(res.getShape(), values.getShape()))
    return emitOpError() << "result shape " << shapeString(res.getShape())
                         << " differs from the values' shape "
                         << shapeString(values.getShape());
  // searchsorted_c4: `unsigned` only orders integers.
  if (isUnsigned() && !isa<IntegerType>(sorted.getElementType()))
    return emitOpError() << "`unsigned` needs integer elements, not "
                         << sorted.getElementType();
  return success();
}
