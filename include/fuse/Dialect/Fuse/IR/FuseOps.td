//===- FuseOps.td - fuse dialect operations ----------------*- tablegen -*-===//
//
// Verifier checks are tagged (`map_c1`, ...). Each tag has a matching case
// in test/Dialect/Fuse/invalid.mlir.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_DIALECT_FUSE_IR_FUSEOPS_TD
#define FUSE_DIALECT_FUSE_IR_FUSEOPS_TD

include "fuse/Dialect/Fuse/IR/FuseDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/IR/OpAsmInterface.td"

// (all_c1) every static shape of an operand or result has an element count
// and a byte size that fit in int64.
def Fuse_AddressableSizes : NativeOpTrait<"AddressableSizes"> {
  let cppNamespace = "::fuse::FuseOpTrait";
}

class Fuse_Op<string mnemonic, list<Trait> traits = []>
    : Op<Fuse_Dialect, mnemonic, !listconcat(traits, [Fuse_AddressableSizes])>;

//===----------------------------------------------------------------------===//
// fuse.map
//===----------------------------------------------------------------------===//

def Fuse_MapOp : Fuse_Op<"map", [RecursiveMemoryEffects,
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface,
      ["reifyResultShapes"]>]> {
  let summary = "elementwise function of n tensors, m results";
  let description = [{
    Applies the body to the elements at each index of its inputs. All
    inputs have the same shape; each result has that shape and the element
    type of the matching `fuse.yield` operand. The body's block takes one
    scalar per input, in order. To combine tensors of different ranks,
    `fuse.broadcast` the smaller one first.

    ```mlir
    %y = fuse.map %x, %w : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%a: f32, %b: f32):
      %p = arith.mulf %a, %b : f32
      fuse.yield %p : f32
    }
    ```

    Constraints (verifier tags):
    - (map_c1) at least one input;
    - (map_c2) all inputs have the same shape;
    - (map_c3) at least one result;
    - (map_c4) each result has the inputs' shape;
    - (map_c5) the body's single block takes one argument per input, of
      that input's element type;
    - (map_c6) the body ends in `fuse.yield` of one value per result, of
      that result's element type.
  }];
  let arguments = (ins Variadic<Fuse_Tensor>:$inputs);
  let results = (outs Variadic<Fuse_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $inputs attr-dict `:` type($inputs) `->` type($results) $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// The yield ending the body.
    YieldOp getYield();
  }];
}

//===----------------------------------------------------------------------===//
// fuse.reduce
//===----------------------------------------------------------------------===//

def Fuse_ReduceOp : Fuse_Op<"reduce", [RecursiveMemoryEffects,
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface,
      ["reifyResultShapes"]>]> {
  let summary = "reduction over all or some dimensions, variadic";
  let description = [{
    Reduces k tensors of one shape over `dims` (all dimensions when
    omitted), giving k tensors of the remaining shape (rank 0 for a full
    reduction).

    The combiner is either a list of built-in kinds, one per input
    (`add`, `mul`, `min`, `max`, `umin`, `umax`, `and`, `or`, `xor`; several inputs with
    built-in kinds are independent sibling reductions done in one pass), or
    a region taking k accumulators then k elements and yielding k new
    accumulators (tuple reductions such as argmax or Welford).

    `init` gives one scalar per input: the result is
    `init (+) x0 (+) x1 (+) ...` in index order. Built-in kinds may omit it
    (the kind's identity is used); a combiner region requires it. A
    reduction over zero elements yields its init.

    Combiners must be associative. fuse may regroup but never reorders
    operands, so non-commutative combiners are fine. `min`/`max` on floats
    propagate NaN (`arith.minimumf`/`maximumf`). Integers are signless:
    `min`/`max` order them as signed, `umin`/`umax` as unsigned (for
    unsigned data, e.g. NumPy's uint8..uint64); `umin`, `umax`, `and`,
    `or` and `xor` take integers only.

    ```mlir
    %s = fuse.reduce add %x : tensor<?xf32> -> tensor<f32>
    %r = fuse.reduce max %m dims [1] : tensor<?x?xf32> -> tensor<?xf32>
    %v, %i = fuse.reduce %x, %idx init(%ninf, %c0 : f32, i64)
        : tensor<?xf32>, tensor<?xi64> -> tensor<f32>, tensor<i64> {
    ^bb0(%av: f32, %ai: i64, %bv: f32, %bi: i64):
      %gt = arith.cmpf ogt, %bv, %av : f32
      %v2 = arith.select %gt, %bv, %av : f32
      %i2 = arith.select %gt, %bi, %ai : i64
      fuse.yield %v2, %i2 : f32, i64
    }
    ```

    Constraints (verifier tags, `X` = reduce):
    - (X_c1) at least one input;
    - (X_c2) all inputs have the same shape;
    - (X_c3) one result per input;
    - (X_c4) `dims` are in range, sorted and unique;
    - (X_c5) each result has the input shape without the reduced dimensions, and its input's element type;
    - (X_c6) with built-in kinds, one kind per input;
    - (X_c7) each kind is defined on its input's element type (`and`,
      `or`, `xor`, `umin`, `umax`: integers only);
    - (X_c8) inits: none or one per input with built-in kinds, exactly one
      per input with a combiner region;
    - (X_c9) each init has its input's element type;
    - (X_c10) exactly one of built-in kinds and a combiner region;
    - (X_c11) the combiner region has one block taking k accumulators then
      k elements, of the inputs' element types;
    - (X_c12) the combiner ends in `fuse.yield` of k values of the inputs'
      element types.
  }];
  let arguments = (ins Variadic<Fuse_Tensor>:$inputs,
                       Variadic<Fuse_ElementType>:$inits,
                       OptionalAttr<Fuse_CombinerKindArrayAttr>:$kinds,
                       OptionalAttr<DenseI64ArrayAttr>:$dims);
  let results = (outs Variadic<Fuse_Tensor>:$results);
  let regions = (region AnyRegion:$combiner);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// The reduced dimensions, sorted (all dimensions when `dims` is absent).
    SmallVector<int64_t> getReducedDims();
    /// True when the op reduces every dimension.
    bool isFullReduction();
    /// True when the combiner is a list of built-in kinds.
    bool hasBuiltinKinds() { return getKindsAttr() != nullptr; }
    /// The built-in kind of input `i`; requires hasBuiltinKinds().
    CombinerKind getKind(unsigned i);
  }];
}

//===----------------------------------------------------------------------===//
// fuse.scan
//===----------------------------------------------------------------------===//

def Fuse_ScanOp : Fuse_Op<"scan", [RecursiveMemoryEffects,
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface,
      ["reifyResultShapes"]>]> {
  let summary = "inclusive or exclusive prefix scan along one dimension";
  let description = [{
    Prefix scan of k tensors of one shape along dimension `dim` (the
    innermost when omitted). Results have the inputs' shapes and element
    types. Inclusive: `y[i] = init (+) x[0] (+) ... (+) x[i]`; exclusive:
    `y[i] = init (+) x[0] (+) ... (+) x[i-1]`. Combiners and inits work as
    for `fuse.reduce`.

    ```mlir
    %y = fuse.scan inclusive add %x : tensor<?xf32> -> tensor<?xf32>
    %e = fuse.scan exclusive add %x dim 1 : tensor<?x?xi32> -> tensor<?x?xi32>
    ```

    Constraints (verifier tags, `X` = scan):
    - (X_c1) at least one input;
    - (X_c2) all inputs have the same shape;
    - (X_c3) one result per input;
    - (X_c4) the inputs have rank 1 or more and `dim` is one of their dimensions;
    - (X_c5) each result has its input's type;
    - (X_c6) with built-in kinds, one kind per input;
    - (X_c7) each kind is defined on its input's element type (`and`,
      `or`, `xor`, `umin`, `umax`: integers only);
    - (X_c8) inits: none or one per input with built-in kinds, exactly one
      per input with a combiner region;
    - (X_c9) each init has its input's element type;
    - (X_c10) exactly one of built-in kinds and a combiner region;
    - (X_c11) the combiner region has one block taking k accumulators then
      k elements, of the inputs' element types;
    - (X_c12) the combiner ends in `fuse.yield` of k values of the inputs'
      element types.
  }];
  let arguments = (ins Variadic<Fuse_Tensor>:$inputs,
                       Variadic<Fuse_ElementType>:$inits,
                       OptionalAttr<Fuse_CombinerKindArrayAttr>:$kinds,
                       OptionalAttr<I64Attr>:$dim,
                       UnitAttr:$exclusive);
  let results = (outs Variadic<Fuse_Tensor>:$results);
  let regions = (region AnyRegion:$combiner);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// The scanned dimension (the innermost when `dim` is absent).
    int64_t getScanDim();
    bool hasBuiltinKinds() { return getKindsAttr() != nullptr; }
    CombinerKind getKind(unsigned i);
  }];
}

//===----------------------------------------------------------------------===//
// fuse.filter
//===----------------------------------------------------------------------===//

def Fuse_FilterOp : Fuse_Op<"filter", [RecursiveMemoryEffects]> {
  let summary = "stream compaction: keep the elements where a predicate holds";
  let description = [{
    Takes k rank-1 tensors of one length and keeps, in order, the positions
    where the predicate body (one scalar per input, yielding one `i1`) is
    true. Each result is a rank-1 tensor of dynamic size holding the kept
    elements of the matching input; `tensor.dim` of a result is the count.

    ```mlir
    %pos = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%a: f32):
      %p = arith.cmpf ogt, %a, %zero : f32
      fuse.yield %p : i1
    }
    ```

    Constraints (verifier tags):
    - (filter_c1) at least one input;
    - (filter_c2) all inputs have the same shape;
    - (filter_c3) the inputs have rank 1;
    - (filter_c4) one result per input;
    - (filter_c5) each result is `tensor<?xT>` with its input's element
      type `T`;
    - (filter_c6) the predicate's single block takes one argument per
      input, of that input's element type;
    - (filter_c7) the predicate ends in `fuse.yield` of one `i1`.
  }];
  let arguments = (ins Variadic<Fuse_Tensor>:$inputs);
  let results = (outs Variadic<Fuse_Tensor>:$results);
  let regions = (region SizedRegion<1>:$predicate);
  let assemblyFormat = [{
    $inputs attr-dict `:` type($inputs) `->` type($results) $predicate
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// fuse.prefix
//===----------------------------------------------------------------------===//

def Fuse_PrefixOp : Fuse_Op<"prefix", [Pure]> {
  let summary = "the first `count` elements of a rank-1 tensor";
  let description = [{
    `y = source[0 : clamp(count, 0, size(source))]`, where `count` is a
    rank-0 `i64` tensor: a size that lives where the tensors live. On the
    GPU it is a device buffer, so a pipeline can take the kept elements of
    an earlier pipeline's filter (its buffer, of the filter's capacity)
    and the count that filter wrote to device memory (`NAME_ws`), and run
    on them without the host reading the count: the kernels read it, as
    they read a filter's count inside one pipeline. A count below 0 takes
    nothing and one past the source takes all of it, so no kernel reads
    outside the source's buffer.

    ```mlir
    %kept = fuse.prefix %buf, %n : tensor<?xf32>, tensor<i64> -> tensor<?xf32>
    %s = fuse.reduce add %kept : tensor<?xf32> -> tensor<f32>
    ```

    Constraints (verifier tags):
    - (prefix_c1) the source has rank 1;
    - (prefix_c2) the result is `tensor<?xT>` with the source's element
      type `T`.
  }];
  let arguments = (ins Fuse_Tensor:$source, 0DTensorOf<[I64]>:$count);
  let results = (outs Fuse_Tensor:$result);
  let assemblyFormat = [{
    $source `,` $count attr-dict `:` type($source) `,` type($count) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// fuse.iota
//===----------------------------------------------------------------------===//

def Fuse_IotaOp : Fuse_Op<"iota", [Pure,
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface,
      ["reifyResultShapes"]>]> {
  let summary = "the index along one dimension, as a tensor";
  let description = [{
    `y[i0, ..., ir] = i_dim` converted to the element type. `dim` defaults
    to 0. One `index` operand gives each dynamic size, in order.

    ```mlir
    %i = fuse.iota %n : tensor<?xi64>
    %j = fuse.iota %r, %c dim 1 : tensor<?x?xf32>
    ```

    Constraints (verifier tags):
    - (iota_c1) the result has rank 1 or more;
    - (iota_c2) `dim` is one of its dimensions;
    - (iota_c3) one size operand per dynamic dimension;
    - (iota_c4) the element type is not `i1`.
  }];
  let arguments = (ins Variadic<Index>:$sizes, OptionalAttr<I64Attr>:$dim);
  let results = (outs Fuse_Tensor:$result);
  let assemblyFormat = [{
    $sizes (`dim` $dim^)? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getIotaDim() { return getDim() ? *getDim() : 0; }
  }];
}

//===----------------------------------------------------------------------===//
// fuse.gather
//===----------------------------------------------------------------------===//

def Fuse_GatherOp : Fuse_Op<"gather", [Pure,
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface,
      ["reifyResultShapes"]>]> {
  let summary = "read a rank-1 source at given indices";
  let description = [{
    `y[i...] = source[indices[i...]]`. The result has the shape of
    `indices` and the element type of `source`. An index outside
    `[0, size(source))` reads zero (of the element type), so the op is
    defined for every input, an empty source included.

    ```mlir
    %y = fuse.gather %src[%idx] : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>
    ```

    Constraints (verifier tags; indices are `i32` or `i64` by type):
    - (gather_c1) the source has rank 1;
    - (gather_c2) the result has the shape of `indices`;
    - (gather_c3) the result has the source's element type.
  }];
  let arguments = (ins Fuse_Tensor:$source, Fuse_IndexTensor:$indices);
  let results = (outs Fuse_Tensor:$result);
  let assemblyFormat = [{
    $source `[` $indices `]` attr-dict `:` type($source) `,` type($indices)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// fuse.searchsorted
//===----------------------------------------------------------------------===//

def Fuse_SearchSortedOp : Fuse_Op<"searchsorted", [Pure,
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface,
      ["reifyResultShapes"]>]> {
  let summary = "insertion points of values in a sorted rank-1 tensor";
  let description = [{
    For every element `v` of `values`, the position at which `v` would be
    inserted into the ascending rank-1 tensor `sorted` to keep it sorted:
    with `left`, the number of elements of `sorted` that are less than
    `v` (the first position `i` with `v <= sorted[i]`, NumPy's
    `side="left"` and C++'s `lower_bound`); with `right`, the number that
    are less than or equal to `v` (`side="right"`, `upper_bound`). The
    result has the shape of `values` and is `i64`; every element lies in
    `[0, size(sorted)]`. Like `fuse.gather`, it is elementwise over
    `values` and reads `sorted` at positions computed from the data, so it
    fuses with the maps around it: a binary search of
    `ceil(log2(size(sorted) + 1))` reads per element.

    ```mlir
    %i = fuse.searchsorted left %edges, %x
        : tensor<?xf32>, tensor<?xf32> -> tensor<?xi64>
    %j = fuse.searchsorted right unsigned %a, %v
        : tensor<?xi32>, tensor<?xi32> -> tensor<?xi64>
    ```

    Order: integers compare as signed, or as unsigned with `unsigned`
    (`i1` as false < true); floating-point values by value with -0.0 and
    +0.0 equal and every NaN equal to every other and greater than +inf,
    which is NumPy's order (a NaN needle goes after the numbers with
    `left`, and after the NaNs too with `right`). When `sorted` is not
    ascending in that order the result is still a position in
    `[0, size(sorted)]`, but not a meaningful one.

    Constraints (verifier tags):
    - (searchsorted_c1) `sorted` has rank 1;
    - (searchsorted_c2) `values` has `sorted`'s element type;
    - (searchsorted_c3) the result has the shape of `values`;
    - (searchsorted_c4) `unsigned` only with integer elements.
  }];
  let arguments = (ins Fuse_Tensor:$sorted, Fuse_Tensor:$values,
      DefaultValuedAttr<Fuse_SearchSideAttr,
                        "::fuse::SearchSide::Left">:$side,
      DefaultValuedAttr<Fuse_IntegerOrderAttr,
                        "::fuse::IntegerOrder::Signed">:$integer_order);
  let results = (outs RankedTensorOf<[I64]>:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    bool isRight() { return getSide() == SearchSide::Right; }
    bool isUnsigned() { return getIntegerOrder() == IntegerOrder::Unsigned; }
  }];
}

//===----------------------------------------------------------------------===//
// fuse.histogram
//===----------------------------------------------------------------------===//

def Fuse_HistogramOp : Fuse_Op<"histogram", [Pure,
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface,
      ["reifyResultShapes"]>]> {
  let summary = "count how often each bin index occurs";
  let description = [{
    Counts the elements of `indices` (any rank, integers read as signed)
    by value: `counts[b]` is the number of elements equal to `b`, for each
    bin `b` in `[0, bins)`; elements outside that range are not counted.
    The number of bins is the result's size: static, or given by the
    `bins` operand when dynamic, which must not be negative (an entry
    checks it where it is an argument, like every size). Counts
    are exact integers (`i32` or `i64`), so the result does not depend on
    the order in which elements are counted.

    How a value falls into a bin is an ordinary elementwise computation
    before the op, which fusion puts in the same pass: even bins are
    `floor((x - lo) * bins / (hi - lo))` (see the Python front end for
    NumPy's exact rule), bins given by edges are a `fuse.searchsorted` of
    `x` in the edges minus one, and an out-of-range value maps to -1.

    ```mlir
    %c = fuse.histogram %bin : tensor<?xi64> -> tensor<256xi64>
    %d = fuse.histogram %bin bins(%n) : tensor<?xi32> -> tensor<?xi32>
    ```

    Constraints (verifier tags):
    - (histogram_c1) `indices` have rank 1 or more and an integer element
      type of 8 to 64 bits;
    - (histogram_c2) the result has rank 1 and element type `i32` or
      `i64`;
    - (histogram_c3) one `bins` operand exactly when the result's size is
      dynamic.
  }];
  let arguments = (ins Fuse_Tensor:$indices, Optional<Index>:$bins);
  let results = (outs Fuse_Tensor:$result);
  let assemblyFormat = [{
    $indices (`bins` `(` $bins^ `)`)? attr-dict `:` type($indices) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// fuse.segmented_reduce
//===----------------------------------------------------------------------===//

def Fuse_SegmentedReduceOp : Fuse_Op<"segmented_reduce",
    [RecursiveMemoryEffects, AttrSizedOperandSegments,
     DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface,
       ["reifyResultShapes"]>]> {
  let summary = "reductions over segments given by start and end offsets";
  let description = [{
    Reduces k rank-1 tensors of one length n over segments: segment `s`
    holds the positions `p` with `starts[s] <= p < ends[s]`, and result
    `i` at `s` is `init (+) x_i[p0] (+) x_i[p0 + 1] (+) ...` over them in
    index order (cuda.compute's and CUB's `DeviceSegmentedReduce`
    convention; CSR offsets `o` of m + 1 entries give `starts = o[0..m)`
    and `ends = o[1..m]`). A segment with `ends[s] <= starts[s]` is empty
    and yields the init. Segments may overlap, leave gaps and come in any
    order. Positions outside `[0, n)` belong to no segment: offsets are
    clamped to the input, so no offset reads out of bounds.

    The combiner is that of `fuse.reduce`: a list of built-in kinds, one
    per input (the kind's identity is the default init), or a region
    taking k accumulators then k elements and yielding k accumulators
    (the inits are then required). Combiners must be associative; fuse
    may regroup a segment's elements but never reorders them.

    Fusion puts the op in a `segmented_reduce` group that iterates over the
    segments: the offsets and everything computed per segment after the
    reduction (an epilogue) share its pass, and a cheap map producing the
    inputs is recomputed at the positions the segments read.

    ```mlir
    %s = fuse.segmented_reduce add %x segments(%starts, %ends
        : tensor<?xi64>, tensor<?xi64>) : tensor<?xf32> -> tensor<?xf32>
    %v, %i = fuse.segmented_reduce %x, %idx init(%ninf, %c0 : f32, i64)
        segments(%b, %e : tensor<?xi32>, tensor<?xi32>)
        : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>, tensor<?xi64> {
    ^bb0(%av: f32, %ai: i64, %bv: f32, %bi: i64):
      %gt = arith.cmpf ogt, %bv, %av : f32
      %v2 = arith.select %gt, %bv, %av : f32
      %i2 = arith.select %gt, %bi, %ai : i64
      fuse.yield %v2, %i2 : f32, i64
    }
    ```

    Constraints (verifier tags):
    - (segmented_reduce_c1) at least one input, all of rank 1 and one
      length;
    - (segmented_reduce_c2) `starts` and `ends` have rank 1, one length
      and one element type, `i32` or `i64`;
    - (segmented_reduce_c3) one result per input, of rank 1 with the
      offsets' length and its input's element type;
    - (segmented_reduce_c4) the combiner follows `fuse.reduce`'s rules
      (reduce_c6 to reduce_c12).
  }];
  let arguments = (ins Variadic<Fuse_Tensor>:$inputs, Fuse_Tensor:$starts,
                       Fuse_Tensor:$ends,
                       Variadic<Fuse_ElementType>:$inits,
                       OptionalAttr<Fuse_CombinerKindArrayAttr>:$kinds);
  let results = (outs Variadic<Fuse_Tensor>:$results);
  let regions = (region AnyRegion:$combiner);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// True when the combiner is a list of built-in kinds.
    bool hasBuiltinKinds() { return getKindsAttr() != nullptr; }
    /// The built-in kind of input `i`; requires hasBuiltinKinds().
    CombinerKind getKind(unsigned i);
  }];
}

//===----------------------------------------------------------------------===//
// fuse.broadcast
//===----------------------------------------------------------------------===//

def Fuse_BroadcastOp : Fuse_Op<"broadcast", [Pure,
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface,
      ["reifyResultShapes"]>]> {
  let summary = "repeat a tensor along new dimensions";
  let description = [{
    Inserts the result dimensions listed in `dims` (sorted, unique): the
    result has rank `rank(input) + size(dims)`, and
    `y[i...] = input[i... without the dims]`. The kept dimensions take the
    input's sizes; one `index` operand gives each dynamic added dimension,
    in order. Fusion reads the input in place of the broadcast, so a
    reduction result broadcast into a map costs no extra pass.

    ```mlir
    %b = fuse.broadcast %s dims [0] (%n) : tensor<f32> -> tensor<?xf32>
    %rb = fuse.broadcast %rowmax dims [1] (%c) : tensor<?xf32> -> tensor<?x?xf32>
    ```

    Constraints (verifier tags):
    - (broadcast_c1) rank(result) = rank(input) + size(dims);
    - (broadcast_c2) `dims` are in range, sorted and unique;
    - (broadcast_c3) the result has the input's element type;
    - (broadcast_c4) each kept result dimension equals its input dimension
      (both static and equal, or both dynamic);
    - (broadcast_c5) one size operand per dynamic added dimension.
  }];
  let arguments = (ins Fuse_Tensor:$input, DenseI64ArrayAttr:$dims,
                       Variadic<Index>:$sizes);
  let results = (outs Fuse_Tensor:$result);
  let assemblyFormat = [{
    $input `dims` $dims (` ` `(` $sizes^ `)`)? attr-dict `:` type($input) `->`
    type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// fuse.sort
//===----------------------------------------------------------------------===//

def Fuse_SortOp : Fuse_Op<"sort", [RecursiveMemoryEffects,
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface,
      ["reifyResultShapes"]>]> {
  let summary = "stable sort of rank-1 keys, optionally carrying values";
  let description = [{
    Sorts a rank-1 tensor of keys, ascending or descending, and moves an
    optional tensor of values of the same length with them. The sort is
    stable in both orders: equal keys keep their input order. With
    `positions` there is no values operand: the second result is each
    sorted key's position in the input (`i64`), an argsort, which the
    lowerings produce without reading a tensor of positions; it is what
    `fuse.sort` of the keys and `fuse.iota` gives (the GPU pipeline's
    fuse-sort-positions rewrites that form into this one). Fusion leaves it
    outside the fused groups: it is a device-wide algorithm, which the GPU
    lowering runs through the runtime's radix sort (CUB) between the
    groups, and the CPU lowering as a merge sort.

    ```mlir
    %s = fuse.sort ascending %k : tensor<?xf32> -> tensor<?xf32>
    %sk, %perm = fuse.sort descending %k, %i
        : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>, tensor<?xi64>
    %u = fuse.sort ascending unsigned %w : tensor<?xi32> -> tensor<?xi32>
    %sk2, %pos = fuse.sort ascending positions %k
        : tensor<?xf32> -> tensor<?xf32>, tensor<?xi64>
    ```

    Key order (the order of CUB's radix sort, which the GPU lowering
    calls):
    - integers compare as signed, or as unsigned with `unsigned`; `i1` as
      false < true;
    - floating-point keys (f16, bf16, f32, f64) in the order of their
      values, -0.0 and +0.0 equal (so they keep their input order), a NaN
      whose sign bit is clear after +inf and one whose sign bit is set
      before -inf (NumPy's and PyTorch's NaN, 0/0 on the GPU and
      `float("nan")`, have it clear). `descending` is the reverse order,
      with equal keys still in input order.

    A comparator region replaces the key order: it takes two keys `a`, `b`
    and yields an `i1`, true when `a` goes strictly before `b` (a "less"
    function, as C++'s `std::stable_sort` and CUB's DeviceMergeSort take).
    The sort stays stable: keys neither of which goes before the other keep
    their input order; `descending` sorts by the reversed comparator (`b`
    before `a`), equal keys still in input order. The comparator must be a
    strict weak order for the result to be sorted; for any other function
    the results are still a permutation of the operands, in an unspecified
    order. Both lowerings run it as a merge sort (on the GPU, generated
    kernels instead of the runtime's radix sort).

    ```mlir
    // |x| ascending, ties in input order
    %s, %p = fuse.sort ascending %k, %i
        : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>, tensor<?xi64> {
    ^bb0(%a: f32, %b: f32):
      %aa = math.absf %a : f32
      %bb = math.absf %b : f32
      %lt = arith.cmpf olt, %aa, %bb : f32
      fuse.yield %lt : i1
    }
    ```

    Constraints (verifier tags):
    - (sort_c1) the keys have rank 1;
    - (sort_c2) the values, when given, have rank 1 and the keys' length;
    - (sort_c3) one result per operand, each of its operand's type, and
      with `positions` a second, `i64` one of the keys' shape;
    - (sort_c4) `unsigned` only with integer keys, and not with a
      comparator;
    - (sort_c5) the comparator region, when given, has one block taking two
      arguments of the keys' element type;
    - (sort_c6) the comparator ends in `fuse.yield` of one `i1`;
    - (sort_c7) `positions` only without a values operand.
  }];
  let arguments = (ins Fuse_Tensor:$keys, Optional<Fuse_Tensor>:$values,
      DefaultValuedAttr<Fuse_SortOrderAttr,
                        "::fuse::SortOrder::Ascending">:$order,
      DefaultValuedAttr<Fuse_IntegerOrderAttr,
                        "::fuse::IntegerOrder::Signed">:$integer_order,
      DefaultValuedAttr<Fuse_SortCarryAttr,
                        "::fuse::SortCarry::Operand">:$carry);
  let results = (outs Variadic<Fuse_Tensor>:$results);
  let regions = (region AnyRegion:$comparator);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    bool isDescending() { return getOrder() == SortOrder::Descending; }
    bool isUnsigned() { return getIntegerOrder() == IntegerOrder::Unsigned; }
    /// True when the second result is the keys' input positions (no
    /// values operand).
    bool hasPositions() { return getCarry() == SortCarry::Positions; }
    /// The result that moves with the keys (the values' or the
    /// positions'), or null for keys alone.
    ::mlir::Value getCarried() {
      return getResults().size() > 1 ? getResults()[1] : ::mlir::Value();
    }
    /// True when a comparator region gives the key order.
    bool hasComparator() { return !getComparator().empty(); }
  }];
}

//===----------------------------------------------------------------------===//
// fuse.group
//===----------------------------------------------------------------------===//

def Fuse_GroupOp : Fuse_Op<"group", [IsolatedFromAbove, SingleBlock,
    RecursiveMemoryEffects]> {
  let summary = "a fused group: fuse ops that run as one pass over memory";
  let description = [{
    Produced by fusion. The body is a single block whose arguments are the
    group's operands (tensors read from memory, and scalars) and which ends
    in `fuse.yield` of the group's results (tensors written to memory).
    Every intermediate value inside the body stays on chip: code generation
    turns one group into one kernel (or one fixed sequence of kernels for
    multi-stage patterns such as a device-wide reduction's finishing
    stage). The body holds fuse ops and scalar ops only.

    `kind` names the group's pattern, chosen by fusion and read by code
    generation: `elementwise` (maps, broadcasts, iotas and gathers only),
    `reduce` (one or more sibling full reductions of elementwise values),
    `row_reduce` (reductions over the inner dimension, plus maps over the
    same rows that read them, e.g. softmax), `scan` (an elementwise
    prologue, the scan, an elementwise epilogue), `filter` (an
    elementwise prologue and the compaction), `histogram` (an
    elementwise prologue computing bin indices and the counting),
    `segmented_reduce` (an elementwise prologue over the segment offsets
    and the segments' reductions) and `line_reduce` (one reduction along
    a single dimension other than a rank-2 tensor's last, e.g. column
    sums, with an elementwise prologue over its input's shape).

    ```mlir
    %s = fuse.group reduce (%x) : (tensor<?xf32>) -> tensor<f32> {
    ^bb0(%a: tensor<?xf32>):
      %sq = fuse.map %a : tensor<?xf32> -> tensor<?xf32> { ... }
      %r = fuse.reduce add %sq : tensor<?xf32> -> tensor<f32>
      fuse.yield %r : tensor<f32>
    }
    ```

    Constraints (verifier tags):
    - (group_c1) `kind` is one of the patterns above (a `GroupKind`
      enum, printed bare: `fuse.group reduce (...)`);
    - (group_c2) operands are ranked tensors or scalars (integer, float,
      index);
    - (group_c3) the body block takes one argument per operand, of its
      type;
    - (group_c4) the body ends in `fuse.yield` of the results;
    - (group_c5) in a `row_reduce` group, a rank-1 value computed in the
      body is known one row at a time, so it is broadcast only along the
      row (`dims [1]`).
  }];
  let arguments = (ins Fuse_GroupKindAttr:$kind, Variadic<AnyType>:$operands);
  let results = (outs Variadic<Fuse_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    custom<GroupKind>($kind) ` ` `(` $operands `)` attr-dict `:` functional-type($operands, $results)
    $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    YieldOp getYield();
  }];
}

//===----------------------------------------------------------------------===//
// fuse.yield
//===----------------------------------------------------------------------===//

def Fuse_YieldOp : Fuse_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["MapOp", "ReduceOp", "ScanOp", "SegmentedReduceOp",
                 "FilterOp", "SortOp", "GroupOp"]>]> {
  let summary = "ends a fuse body, yielding its scalars";
  let description = [{
    Ends the body of `fuse.map`, `fuse.reduce`, `fuse.scan`,
    `fuse.segmented_reduce`, `fuse.filter`, `fuse.sort` (scalars) and
    `fuse.group` (tensors). The parent op checks the count
    and types.
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ /* nothing to yield */ }]>];
}

//===----------------------------------------------------------------------===//
// Sharded entries: fuse.shard_rank, fuse.all_gather
//===----------------------------------------------------------------------===//

def Fuse_ShardRankOp : Fuse_Op<"shard_rank", [Pure]> {
  let summary = "this shard's index and the number of shards";
  let description = [{
    In an entry that fuse-shard rewrote to run on every shard of its data
    (one copy a device, each on its own part), the index of the shard this
    copy runs on (0 .. count - 1) and the number of shards. Outside a
    sharded run the index is 0 and the count 1.

    ```mlir
    %rank, %count = fuse.shard_rank
    ```
  }];
  let results = (outs Index:$rank, Index:$count);
  let assemblyFormat = "attr-dict";
}

def Fuse_AllGatherOp : Fuse_Op<"all_gather", [Pure]> {
  let summary = "every shard's value, stacked in shard order";
  let description = [{
    A collective of the shards of a sharded entry: each shard passes a
    tensor of one shape (the same on every shard) and receives all of
    them, shard 0 first, along a new leading dimension of size the number
    of shards. Every shard runs the same entry, so every shard reaches
    the same collectives in the same order. Cross-shard reductions fold
    the gathered values in shard order, so a result does not depend on
    which shard finished first.

    ```mlir
    %all = fuse.all_gather %partial : tensor<f32> -> tensor<?xf32>
    ```

    Constraints (verifier tags):
    - (all_gather_c1) the result is the input's type with a dynamic
      leading dimension added.
  }];
  let arguments = (ins Fuse_Tensor:$input);
  let results = (outs Fuse_Tensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Fuse_AllConcatOp : Fuse_Op<"all_concat", [Pure]> {
  let summary = "every shard's part, concatenated in shard order";
  let description = [{
    A collective of the shards of a sharded entry: each shard passes its
    part of an array split along the leading dimension (the parts' leading
    sizes may differ, the other dimensions may not) and receives the
    whole array, shard 0's part first. fuse-shard uses it where an op
    reads split data at positions of the whole array (a gather's source,
    a sort's keys).

    ```mlir
    %whole = fuse.all_concat %part : tensor<?xf32> -> tensor<?xf32>
    ```

    Constraints (verifier tags):
    - (all_concat_c1) the input has rank 1 or more;
    - (all_concat_c2) the result is the input's type with a dynamic
      leading dimension.
  }];
  let arguments = (ins Fuse_Tensor:$input);
  let results = (outs Fuse_Tensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // FUSE_DIALECT_FUSE_IR_FUSEOPS_TD
