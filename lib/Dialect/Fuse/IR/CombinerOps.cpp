//===- CombinerOps.cpp - fuse.reduce, fuse.scan, fuse.segmented_reduce ----===//
//
// The ops that fold their inputs with a combiner (built-in kinds or a
// region): their shared parsing, printing and verification, and each op's
// own. Diagnostic tags as in FuseOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "VerifyText.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace fuse;
using namespace fuse::detail;

//===----------------------------------------------------------------------===//
// Combiner ops (reduce, scan): shared parsing, printing and verification
//===----------------------------------------------------------------------===//

/// Parses an optional kind list: `add` or `(add, max)`.
static ParseResult parseOptionalKinds(OpAsmParser &parser,
                                      OperationState &state) {
  SmallVector<Attribute> kinds;
  MLIRContext *ctx = parser.getContext();
  auto addKind = [&](StringRef kw, SMLoc loc) -> ParseResult {
    std::optional<CombinerKind> kind = symbolizeCombinerKind(kw);
    if (!kind)
      return parser.emitError(loc)
             << "unknown combiner kind '" << kw
             << "'; expected add, mul, min, max, umin, umax, and, or or xor";
    kinds.push_back(CombinerKindAttr::get(ctx, *kind));
    return success();
  };
  StringRef kw;
  SMLoc loc = parser.getCurrentLocation();
  if (succeeded(parser.parseOptionalLParen())) {
    if (parser.parseCommaSeparatedList([&]() -> ParseResult {
          SMLoc at = parser.getCurrentLocation();
          return failure(parser.parseKeyword(&kw) || addKind(kw, at));
        }) ||
        parser.parseRParen())
      return failure();
  } else if (succeeded(parser.parseOptionalKeyword(&kw)) &&
             failed(addKind(kw, loc))) {
    return failure();
  }
  if (!kinds.empty())
    state.addAttribute("kinds", ArrayAttr::get(ctx, kinds));
  return success();
}

static void printKinds(OpAsmPrinter &p, ArrayAttr kinds) {
  if (!kinds)
    return;
  p << ' ';
  if (kinds.size() != 1)
    p << '(';
  llvm::interleaveComma(kinds, p, [&](Attribute a) {
    p << stringifyCombinerKind(cast<CombinerKindAttr>(a).getValue());
  });
  if (kinds.size() != 1)
    p << ')';
}

/// Parses `%in, ... (init(%v, ... : t, ...))?`, then everything after the
/// op-specific part: attr-dict `:` in-types `->` result-types region?
static ParseResult
parseCombinerOperands(OpAsmParser &parser,
                      SmallVectorImpl<OpAsmParser::UnresolvedOperand> &inputs,
                      SmallVectorImpl<OpAsmParser::UnresolvedOperand> &inits,
                      SmallVectorImpl<Type> &initTypes) {
  if (parser.parseOperandList(inputs))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("init"))) {
    if (parser.parseLParen() || parser.parseOperandList(inits) ||
        parser.parseColonTypeList(initTypes) || parser.parseRParen())
      return failure();
  }
  return success();
}

/// `segments`: the operands between the inputs and the inits (a
/// segmented_reduce's starts and ends), of `segmentTypes`, each its own
/// operand segment.
static ParseResult
parseCombinerTail(OpAsmParser &parser, OperationState &state,
                  ArrayRef<OpAsmParser::UnresolvedOperand> inputs,
                  ArrayRef<OpAsmParser::UnresolvedOperand> inits,
                  ArrayRef<Type> initTypes,
                  ArrayRef<OpAsmParser::UnresolvedOperand> segments = {},
                  ArrayRef<Type> segmentTypes = {}) {
  SmallVector<Type> inputTypes, resultTypes;
  SMLoc typesLoc = parser.getCurrentLocation();
  if (parser.parseOptionalAttrDict(state.attributes) ||
      parser.parseColonTypeList(inputTypes) || parser.parseArrow() ||
      parser.parseTypeList(resultTypes))
    return failure();
  if (parser.resolveOperands(inputs, inputTypes, typesLoc, state.operands) ||
      parser.resolveOperands(segments, segmentTypes, typesLoc,
                             state.operands) ||
      parser.resolveOperands(inits, initTypes, typesLoc, state.operands))
    return failure();
  state.addTypes(resultTypes);
  SmallVector<int32_t> sizes{static_cast<int32_t>(inputs.size())};
  sizes.append(segments.size(), 1);
  sizes.push_back(static_cast<int32_t>(inits.size()));
  state.addAttribute("operandSegmentSizes",
                     parser.getBuilder().getDenseI32ArrayAttr(sizes));
  Region *region = state.addRegion();
  OptionalParseResult hasRegion = parser.parseOptionalRegion(*region);
  if (hasRegion.has_value() && failed(*hasRegion))
    return failure();
  return success();
}

static void printCombinerOperands(OpAsmPrinter &p, ValueRange inputs,
                                  ValueRange inits) {
  p << ' ' << inputs;
  if (!inits.empty())
    p << " init(" << inits << " : " << inits.getTypes() << ")";
}

static void printCombinerTail(OpAsmPrinter &p, Operation *op, ValueRange inputs,
                              Region &combiner, ArrayRef<StringRef> elided) {
  SmallVector<StringRef> skip(elided);
  skip.push_back("operandSegmentSizes");
  skip.push_back("kinds");
  p.printOptionalAttrDict(op->getAttrs(), skip);
  p << " : " << inputs.getTypes() << " -> " << op->getResultTypes();
  if (!combiner.empty()) {
    p << ' ';
    p.printRegion(combiner, /*printEntryBlockArgs=*/true,
                  /*printBlockTerminators=*/true);
  }
}

/// Result `i` of a reduction has its input's element type (reduce_c5,
/// segmented_reduce_c3).
static LogicalResult verifyResultElementType(Operation *op, size_t i, Value in,
                                             Value res) {
  Type rt = tensorTypeOf(res).getElementType();
  Type it = tensorTypeOf(in).getElementType();
  if (rt == it)
    return success();
  return op->emitOpError() << "result #" << i << " has element type " << rt
                           << ", but input #" << i << " has " << it;
}

/// Checks kinds, inits and the combiner of a reduce or scan with inputs of
/// element types `elemTypes`.
static LogicalResult verifyCombiner(Operation *op, ArrayAttr kinds,
                                    ValueRange inits, Region &combiner,
                                    TypeRange elemTypes) {
  size_t k = elemTypes.size();
  if (kinds) {
    // reduce_c6, scan_c6: one kind per input.
    if (kinds.size() != k)
      return op->emitOpError() << "has " << kinds.size()
                               << " combiner kinds for " << k << " inputs";
    // reduce_c7, scan_c7: the kind is defined on the element type.
    for (auto [i, pair] : llvm::enumerate(llvm::zip_equal(kinds, elemTypes))) {
      auto [a, t] = pair;
      CombinerKind kind = cast<CombinerKindAttr>(a).getValue();
      if (!isKindValidForType(kind, t))
        return op->emitOpError()
               << "combiner kind '" << stringifyCombinerKind(kind)
               << "' is not defined on element type " << t << " (input #" << i
               << ")";
    }
    // reduce_c10, scan_c10: built-in kinds take no region.
    if (!combiner.empty())
      return op->emitOpError()
             << "has both built-in combiner kinds and a combiner region";
    // reduce_c8, scan_c8: inits are optional for built-in kinds, else one
    // per input.
    if (!inits.empty() && inits.size() != k)
      return op->emitOpError()
             << "has " << inits.size() << " init values for " << k << " inputs";
  } else {
    // reduce_c10, scan_c10: no kind, so a region is needed.
    if (combiner.empty())
      return op->emitOpError()
             << "needs a combiner: built-in kinds or a combiner region";
    // reduce_c8, scan_c8: a combiner region needs one init per input.
    if (inits.size() != k)
      return op->emitOpError()
             << "with a combiner region needs one init value per input (" << k
             << "), but has " << inits.size();
  }
  // reduce_c9, scan_c9: init types match the element types.
  for (auto [i, pair] : llvm::enumerate(llvm::zip_equal(
           inits.getTypes(), elemTypes.take_front(inits.size())))) {
    auto [got, want] = pair;
    if (got != want)
      return op->emitOpError()
             << "init value #" << i << " has type " << got << ", but input #"
             << i << " has element type " << want;
  }
  return success();
}

/// reduce_c11, scan_c11: one block taking (acc..., x...); reduce_c12,
/// scan_c12: it yields the new accumulators.
static LogicalResult verifyCombinerRegion(Operation *op, Region &combiner,
                                          TypeRange elemTypes) {
  if (combiner.empty())
    return success();
  if (!combiner.hasOneBlock())
    return op->emitOpError() << "expects a combiner region with one block";
  SmallVector<Type> argTypes(elemTypes);
  argTypes.append(elemTypes.begin(), elemTypes.end());
  if (failed(verifyBlockArgs(op, combiner, argTypes, "combiner")))
    return failure();
  return verifyYield(op, combiner, elemTypes, "combiner");
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

SmallVector<int64_t> ReduceOp::getReducedDims() {
  if (std::optional<ArrayRef<int64_t>> dims = getDims())
    return llvm::to_vector(*dims);
  int64_t rank = tensorTypeOf(getInputs().front()).getRank();
  return llvm::to_vector(llvm::seq<int64_t>(0, rank));
}

bool ReduceOp::isFullReduction() {
  return static_cast<int64_t>(getReducedDims().size()) ==
         tensorTypeOf(getInputs().front()).getRank();
}

ReduceShape fuse::reduceShape(ReduceOp r) {
  if (r.isFullReduction())
    return ReduceShape::Full;
  auto t = cast<RankedTensorType>(r.getInputs()[0].getType());
  SmallVector<int64_t> dims = r.getReducedDims();
  if (dims.size() != 1)
    return ReduceShape::Other;
  if (t.getRank() == 2 && dims[0] == 1)
    return ReduceShape::Rows;
  return ReduceShape::Lines;
}

CombinerKind ReduceOp::getKind(unsigned i) {
  return cast<CombinerKindAttr>(getKindsAttr()[i]).getValue();
}

ParseResult ReduceOp::parse(OpAsmParser &parser, OperationState &state) {
  SmallVector<OpAsmParser::UnresolvedOperand> inputs, inits;
  SmallVector<Type> initTypes;
  if (parseOptionalKinds(parser, state) ||
      parseCombinerOperands(parser, inputs, inits, initTypes))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("dims"))) {
    SmallVector<int64_t> dims;
    if (parser.parseLSquare())
      return failure();
    if (failed(parser.parseOptionalRSquare())) {
      if (parser.parseCommaSeparatedList([&]() -> ParseResult {
            int64_t d;
            if (parser.parseInteger(d))
              return failure();
            dims.push_back(d);
            return success();
          }) ||
          parser.parseRSquare())
        return failure();
    }
    state.addAttribute("dims", parser.getBuilder().getDenseI64ArrayAttr(dims));
  }
  return parseCombinerTail(parser, state, inputs, inits, initTypes);
}

void ReduceOp::print(OpAsmPrinter &p) {
  printKinds(p, getKindsAttr());
  printCombinerOperands(p, getInputs(), getInits());
  if (std::optional<ArrayRef<int64_t>> dims = getDims()) {
    p << " dims [";
    llvm::interleaveComma(*dims, p);
    p << ']';
  }
  printCombinerTail(p, *this, getInputs(), getCombiner(), {"dims"});
}

LogicalResult ReduceOp::verify() {
  // reduce_c1, reduce_c2: one or more inputs of one shape.
  if (failed(verifySameShapes(*this, getInputs(), "inputs")))
    return failure();
  auto inType = tensorTypeOf(getInputs().front());
  int64_t rank = inType.getRank();
  // reduce_c4: dims in range, sorted and unique.
  if (std::optional<ArrayRef<int64_t>> dims = getDims()) {
    int64_t prev = -1;
    for (int64_t d : *dims) {
      if (d < 0 || d >= rank)
        return emitOpError() << "reduction dimension " << d
                             << " is out of range for rank " << rank;
      if (d <= prev)
        return emitOpError()
               << "reduction dimensions must be sorted and unique";
      prev = d;
    }
  }
  // reduce_c3: one result per input.
  if (getResults().size() != getInputs().size())
    return emitOpError() << "has " << getResults().size() << " results for "
                         << getInputs().size() << " inputs";
  // reduce_c5: each result has the kept shape and the input element type.
  SmallVector<int64_t> reduced = getReducedDims();
  SmallVector<int64_t> kept;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(reduced, d))
      kept.push_back(inType.getDimSize(d));
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip_equal(getInputs(), getResults()))) {
    auto [in, res] = pair;
    auto rt = tensorTypeOf(res);
    if (!shapesCompatible(rt.getShape(), kept))
      return emitOpError() << "result #" << i << " has shape "
                           << shapeString(rt.getShape())
                           << ", but reducing dims of "
                           << shapeString(inType.getShape()) << " leaves "
                           << shapeString(kept);
    if (failed(verifyResultElementType(*this, i, in, res)))
      return failure();
  }
  return verifyCombiner(*this, getKindsAttr(), getInits(), getCombiner(),
                        elementTypes(getInputs()));
}

LogicalResult ReduceOp::verifyRegions() {
  // reduce_c11, reduce_c12: (acc..., x...) -> acc...
  return verifyCombinerRegion(*this, getCombiner(), elementTypes(getInputs()));
}

//===----------------------------------------------------------------------===//
// ScanOp
//===----------------------------------------------------------------------===//

int64_t ScanOp::getScanDim() {
  if (std::optional<int64_t> d = getDim())
    return *d;
  return tensorTypeOf(getInputs().front()).getRank() - 1;
}

CombinerKind ScanOp::getKind(unsigned i) {
  return cast<CombinerKindAttr>(getKindsAttr()[i]).getValue();
}

ParseResult ScanOp::parse(OpAsmParser &parser, OperationState &state) {
  StringRef mode;
  SMLoc modeLoc = parser.getCurrentLocation();
  if (parser.parseKeyword(&mode))
    return failure();
  if (mode != "inclusive" && mode != "exclusive")
    return parser.emitError(modeLoc)
           << "expected 'inclusive' or 'exclusive', got '" << mode << "'";
  if (mode == "exclusive")
    state.addAttribute("exclusive", parser.getBuilder().getUnitAttr());
  SmallVector<OpAsmParser::UnresolvedOperand> inputs, inits;
  SmallVector<Type> initTypes;
  if (parseOptionalKinds(parser, state) ||
      parseCombinerOperands(parser, inputs, inits, initTypes))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("dim"))) {
    int64_t d;
    if (parser.parseInteger(d))
      return failure();
    state.addAttribute("dim", parser.getBuilder().getI64IntegerAttr(d));
  }
  return parseCombinerTail(parser, state, inputs, inits, initTypes);
}

void ScanOp::print(OpAsmPrinter &p) {
  p << (getExclusive() ? " exclusive" : " inclusive");
  printKinds(p, getKindsAttr());
  printCombinerOperands(p, getInputs(), getInits());
  if (std::optional<int64_t> d = getDim())
    p << " dim " << *d;
  printCombinerTail(p, *this, getInputs(), getCombiner(), {"dim", "exclusive"});
}

LogicalResult ScanOp::verify() {
  // scan_c1, scan_c2: one or more inputs of one shape.
  if (failed(verifySameShapes(*this, getInputs(), "inputs")))
    return failure();
  auto inType = tensorTypeOf(getInputs().front());
  // scan_c4: a scanned dimension that exists.
  if (inType.getRank() == 0)
    return emitOpError() << "cannot scan a rank-0 tensor";
  int64_t d = getScanDim();
  if (d < 0 || d >= inType.getRank())
    return emitOpError() << "scan dimension " << d
                         << " is out of range for rank " << inType.getRank();
  // scan_c3: one result per input.
  if (getResults().size() != getInputs().size())
    return emitOpError() << "has " << getResults().size() << " results for "
                         << getInputs().size() << " inputs";
  // scan_c5: each result has its input's type.
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip_equal(getInputs(), getResults()))) {
    auto [in, res] = pair;
    auto it = tensorTypeOf(in), rt = tensorTypeOf(res);
    if (!shapesCompatible(it.getShape(), rt.getShape()) ||
        it.getElementType() != rt.getElementType())
      return emitOpError() << "result #" << i << " has type " << rt
                           << ", but input #" << i << " has type " << it;
  }
  return verifyCombiner(*this, getKindsAttr(), getInits(), getCombiner(),
                        elementTypes(getInputs()));
}

LogicalResult ScanOp::verifyRegions() {
  // scan_c11, scan_c12: (acc..., x...) -> acc...
  return verifyCombinerRegion(*this, getCombiner(), elementTypes(getInputs()));
}

//===----------------------------------------------------------------------===//
// SegmentedReduceOp
//===----------------------------------------------------------------------===//

CombinerKind SegmentedReduceOp::getKind(unsigned i) {
  return cast<CombinerKindAttr>(getKindsAttr()[i]).getValue();
}

ParseResult SegmentedReduceOp::parse(OpAsmParser &parser,
                                     OperationState &state) {
  SmallVector<OpAsmParser::UnresolvedOperand> inputs, inits, segments;
  SmallVector<Type> initTypes, segmentTypes;
  if (parseOptionalKinds(parser, state) ||
      parseCombinerOperands(parser, inputs, inits, initTypes) ||
      parser.parseKeyword("segments") || parser.parseLParen() ||
      parser.parseOperandList(segments) ||
      parser.parseColonTypeList(segmentTypes) || parser.parseRParen())
    return failure();
  if (segments.size() != 2 || segmentTypes.size() != 2)
    return parser.emitError(parser.getCurrentLocation())
           << "expected `segments(%starts, %ends : type, type)`";
  return parseCombinerTail(parser, state, inputs, inits, initTypes, segments,
                           segmentTypes);
}

void SegmentedReduceOp::print(OpAsmPrinter &p) {
  printKinds(p, getKindsAttr());
  printCombinerOperands(p, getInputs(), getInits());
  p << " segments(" << getStarts() << ", " << getEnds() << " : "
    << getStarts().getType() << ", " << getEnds().getType() << ")";
  printCombinerTail(p, *this, getInputs(), getCombiner(), {});
}

LogicalResult SegmentedReduceOp::verify() {
  // segmented_reduce_c1: one or more rank-1 inputs of one length.
  if (failed(verifySameShapes(*this, getInputs(), "inputs")))
    return failure();
  if (int64_t rank = tensorTypeOf(getInputs().front()).getRank(); rank != 1)
    return emitOpError() << "requires rank-1 inputs, but they have rank "
                         << rank;
  // segmented_reduce_c2: rank-1 offsets of one length and type, i32 or i64.
  auto st = tensorTypeOf(getStarts()), et = tensorTypeOf(getEnds());
  if (st.getRank() != 1 || et.getRank() != 1)
    return emitOpError() << "requires rank-1 starts and ends, but they have "
                            "ranks "
                         << st.getRank() << " and " << et.getRank();
  if (st.getElementType() != et.getElementType() ||
      !(st.getElementType().isInteger(32) || st.getElementType().isInteger(64)))
    return emitOpError() << "requires starts and ends of one element type, "
                            "i32 or i64, but they have "
                         << st.getElementType() << " and "
                         << et.getElementType();
  if (!shapesCompatible(st.getShape(), et.getShape()))
    return emitOpError() << "requires starts and ends of one length, but they "
                            "have shapes "
                         << shapeString(st.getShape()) << " and "
                         << shapeString(et.getShape());
  // segmented_reduce_c3: a result per input, one element per segment.
  if (getResults().size() != getInputs().size())
    return emitOpError() << "has " << getResults().size() << " results for "
                         << getInputs().size() << " inputs";
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip_equal(getInputs(), getResults()))) {
    auto [in, res] = pair;
    auto rt = tensorTypeOf(res);
    if (!shapesCompatible(rt.getShape(), st.getShape()))
      return emitOpError() << "result #" << i << " has shape "
                           << shapeString(rt.getShape()) << ", but there are "
                           << shapeString(st.getShape()) << " segments";
    if (failed(verifyResultElementType(*this, i, in, res)))
      return failure();
  }
  // segmented_reduce_c4: reduce_c6 to reduce_c10.
  return verifyCombiner(*this, getKindsAttr(), getInits(), getCombiner(),
                        elementTypes(getInputs()));
}

LogicalResult SegmentedReduceOp::verifyRegions() {
  // segmented_reduce_c4: reduce_c11, reduce_c12.
  return verifyCombinerRegion(*this, getCombiner(), elementTypes(getInputs()));
}
