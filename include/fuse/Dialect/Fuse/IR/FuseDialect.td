//===- FuseDialect.td - the fuse dialect -------------------*- tablegen -*-===//
//
// The fuse dialect: value-semantic, data-parallel array operations on
// builtin ranked tensors.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_DIALECT_FUSE_IR_FUSEDIALECT_TD
#define FUSE_DIALECT_FUSE_IR_FUSEDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Fuse_Dialect : Dialect {
  let name = "fuse";
  let cppNamespace = "::fuse";
  let summary = "Data-parallel array pipelines for GPUs";
  let description = [{
    The `fuse` dialect describes pipelines of data-parallel array
    operations (map, reduce, scan, filter, iota, gather, broadcast) on
    builtin ranked tensors with static or dynamic sizes. Operations have
    value semantics; bodies are regions of scalar `arith`/`math` ops ended
    by `fuse.yield`. Regions may read scalar SSA values defined above them.

    Element types: i1, i8, i16, i32, i64, f16, bf16, f32, f64.
  }];
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
  // Checks every `fuse.*` attribute on any op: fuse.target (module,
  // #fuse.target), fuse.entries (module, #fuse.entry list), fuse.tiling
  // (fuse.group, #fuse.tiling), fuse.not_fused (strings) and
  // fuse.size_checks (function, #fuse.size_check list); an unknown
  // `fuse.*` name is an error, not ignored.
  let hasOperationAttrVerify = 1;
  // fuse-fusion's record of why a producer was not fused (one sentence
  // each), read by fuse-explain.
  let discardableAttrs = (ins "::mlir::ArrayAttr":$not_fused);
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Fuse_KindAdd : I32EnumAttrCase<"Add", 0, "add">;
def Fuse_KindMul : I32EnumAttrCase<"Mul", 1, "mul">;
def Fuse_KindMin : I32EnumAttrCase<"Min", 2, "min">;
def Fuse_KindMax : I32EnumAttrCase<"Max", 3, "max">;
def Fuse_KindAnd : I32EnumAttrCase<"And", 4, "and">;
def Fuse_KindOr  : I32EnumAttrCase<"Or", 5, "or">;
def Fuse_KindXor : I32EnumAttrCase<"Xor", 6, "xor">;
// Unsigned integer order (integers are signless; `min`/`max` compare them as
// signed, `umin`/`umax` as unsigned).
def Fuse_KindUMin : I32EnumAttrCase<"UMin", 7, "umin">;
def Fuse_KindUMax : I32EnumAttrCase<"UMax", 8, "umax">;

def Fuse_CombinerKind : I32EnumAttr<"CombinerKind",
    "built-in associative combiner",
    [Fuse_KindAdd, Fuse_KindMul, Fuse_KindMin, Fuse_KindMax, Fuse_KindAnd,
     Fuse_KindOr, Fuse_KindXor, Fuse_KindUMin, Fuse_KindUMax]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::fuse";
}

def Fuse_CombinerKindAttr : EnumAttr<Fuse_Dialect, Fuse_CombinerKind, "kind"> {
  let assemblyFormat = "`<` $value `>`";
}

def Fuse_CombinerKindArrayAttr
    : TypedArrayAttrBase<Fuse_CombinerKindAttr, "array of combiner kinds">;

// The order of a `fuse.sort`. Both are stable: equal keys keep their input
// order.
def Fuse_SortAscending : I32EnumAttrCase<"Ascending", 0, "ascending">;
def Fuse_SortDescending : I32EnumAttrCase<"Descending", 1, "descending">;

def Fuse_SortOrder : I32EnumAttr<"SortOrder", "order of a sort",
    [Fuse_SortAscending, Fuse_SortDescending]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::fuse";
}

// Printed bare in `fuse.sort` (`fuse.sort descending %k ...`).
def Fuse_SortOrderAttr : EnumAttr<Fuse_Dialect, Fuse_SortOrder, "sort_order"> {
  let assemblyFormat = "`<` $value `>`";
}

// What a `fuse.sort` moves beside its keys: the values operand (if any),
// or each key's position in the input (an argsort: no operand, an i64
// result), which the lowerings produce themselves.
def Fuse_SortCarryOperand : I32EnumAttrCase<"Operand", 0, "operand">;
def Fuse_SortCarryPositions : I32EnumAttrCase<"Positions", 1, "positions">;

def Fuse_SortCarry : I32EnumAttr<"SortCarry",
    "what a sort moves beside its keys",
    [Fuse_SortCarryOperand, Fuse_SortCarryPositions]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::fuse";
}

// Printed bare in `fuse.sort` (`fuse.sort ascending positions %k ...`).
def Fuse_SortCarryAttr : EnumAttr<Fuse_Dialect, Fuse_SortCarry, "sort_carry"> {
  let assemblyFormat = "`<` $value `>`";
}

// How a sort compares integer keys (integers are signless, as in
// `fuse.reduce`'s `min`/`umin`).
def Fuse_IntegersSigned : I32EnumAttrCase<"Signed", 0, "signed">;
def Fuse_IntegersUnsigned : I32EnumAttrCase<"Unsigned", 1, "unsigned">;

def Fuse_IntegerOrder : I32EnumAttr<"IntegerOrder",
    "how integer keys compare", [Fuse_IntegersSigned, Fuse_IntegersUnsigned]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::fuse";
}

def Fuse_IntegerOrderAttr
    : EnumAttr<Fuse_Dialect, Fuse_IntegerOrder, "integer_order"> {
  let assemblyFormat = "`<` $value `>`";
}

// Which end of a run of equal elements `fuse.searchsorted` returns
// (NumPy's `side`).
def Fuse_SearchLeft : I32EnumAttrCase<"Left", 0, "left">;
def Fuse_SearchRight : I32EnumAttrCase<"Right", 1, "right">;

def Fuse_SearchSide : I32EnumAttr<"SearchSide",
    "which insertion point a search returns",
    [Fuse_SearchLeft, Fuse_SearchRight]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::fuse";
}

// Printed bare in `fuse.searchsorted` (`fuse.searchsorted right %a, %v`).
def Fuse_SearchSideAttr
    : EnumAttr<Fuse_Dialect, Fuse_SearchSide, "search_side"> {
  let assemblyFormat = "`<` $value `>`";
}

// The pattern of a fused group (`fuse.group`): chosen by fusion, read by
// tiling and by both lowerings, which pick a kernel family from it.
def Fuse_GroupElementwise : I32EnumAttrCase<"Elementwise", 0, "elementwise">;
def Fuse_GroupReduce : I32EnumAttrCase<"Reduce", 1, "reduce">;
def Fuse_GroupRowReduce : I32EnumAttrCase<"RowReduce", 2, "row_reduce">;
def Fuse_GroupScan : I32EnumAttrCase<"Scan", 3, "scan">;
def Fuse_GroupFilter : I32EnumAttrCase<"Filter", 4, "filter">;
def Fuse_GroupHistogram : I32EnumAttrCase<"Histogram", 5, "histogram">;
def Fuse_GroupSegmentedReduce
    : I32EnumAttrCase<"SegmentedReduce", 6, "segmented_reduce">;
def Fuse_GroupLineReduce : I32EnumAttrCase<"LineReduce", 7, "line_reduce">;

def Fuse_GroupKind : I32EnumAttr<"GroupKind", "pattern of a fused group",
    [Fuse_GroupElementwise, Fuse_GroupReduce, Fuse_GroupRowReduce,
     Fuse_GroupScan, Fuse_GroupFilter, Fuse_GroupHistogram,
     Fuse_GroupSegmentedReduce, Fuse_GroupLineReduce]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::fuse";
}

// Printed bare inside `fuse.group` (`fuse.group reduce (...)`), as
// `#fuse.group_kind<reduce>` elsewhere.
def Fuse_GroupKindAttr : EnumAttr<Fuse_Dialect, Fuse_GroupKind, "group_kind"> {
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// Target description
//===----------------------------------------------------------------------===//

def Fuse_TargetAttr : AttrDef<Fuse_Dialect, "Target"> {
  let mnemonic = "target";
  let summary = "the GPU that tiling and code generation are for";
  let description = [{
    The figures of one GPU that fusion, tiling (`fuse-tile`) and code
    generation (`convert-fuse-to-gpu`) read: the architecture, the SM
    count, threads per block and per SM, shared memory a block may opt in
    to and an SM has, registers and L2 per chip, and the widest vector
    access. `fuse-attach-target{chip=sm_XY}` puts the known figures of a
    chip on the module as `fuse.target` (the GPU pipelines do it first,
    from their `chip` option); a pass that finds none uses the default
    chip's (sm_90: H100/H200). No other place holds a GPU figure.

    ```mlir
    module attributes {fuse.target = #fuse.target<chip = "sm_80",
        smCount = 108, maxThreadsPerBlock = 1024, maxThreadsPerSM = 2048,
        sharedMemoryPerBlock = 166912, sharedMemoryPerSM = 167936,
        registersPerSM = 65536, l2Bytes = 41943040, vectorBytes = 16>} {}
    ```

    Every figure is positive; `chip` is `sm_` and a compute capability of
    two or three digits with an optional `a` or `f`; a block's shared
    memory and threads are at most an SM's.
  }];
  let parameters = (ins
    StringRefParameter<"architecture, sm_XY[a|f]">:$chip,
    "int64_t":$smCount,
    "int64_t":$maxThreadsPerBlock,
    "int64_t":$maxThreadsPerSM,
    "int64_t":$sharedMemoryPerBlock,
    "int64_t":$sharedMemoryPerSM,
    "int64_t":$registersPerSM,
    "int64_t":$l2Bytes,
    "int64_t":$vectorBytes);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The module attribute that carries it.
    static constexpr ::llvm::StringLiteral getAttrName() {
      return ::llvm::StringLiteral("fuse.target");
    }
    /// The known figures of `chip` (sm_75 ... sm_121a), or null.
    static TargetAttr getForChip(::mlir::MLIRContext *ctx,
                                 ::llvm::StringRef chip);
    /// The default chip's figures.
    static TargetAttr getDefault(::mlir::MLIRContext *ctx);
    /// The `fuse.target` of `op`'s nearest enclosing module (or of `op`
    /// itself, a module), else the default.
    static TargetAttr lookup(::mlir::Operation *op);
    /// The compute capability as a number: 90 for sm_90a.
    unsigned getSMVersion() const;
    /// cp.async (sm_80 and later): tiles and rows can be staged in shared
    /// memory.
    bool hasAsyncCopy() const { return getSMVersion() >= 80; }
  }];
}

//===----------------------------------------------------------------------===//
// Tiling
//===----------------------------------------------------------------------===//

def Fuse_TilingAttr : AttrDef<Fuse_Dialect, "Tiling"> {
  let mnemonic = "tiling";
  let summary = "how a fused group is tiled onto the GPU";
  let description = [{
    What `fuse-tile` chose for one `fuse.group` (its `fuse.tiling`
    attribute) and `convert-fuse-to-gpu` builds: threads a block, the grid
    (0: sized by the host from the sizes and the SM count), index width,
    items and vector width a thread, then the fields of particular
    kernel families, which keep their defaults elsewhere and are printed
    only when set: `stageTiles`, `sharedScatter`, `pollDelay` and
    `lookbackDelay` (scan and filter look-back tiles), `finishPrefetch`
    (a reduction's finish kernel), for row groups `longRowItems`,
    `longRowStageItems`, `onlineMaxSum`, `oneWalkVariance`, `narrowRows`,
    `stagedRows`, `stagedThreads` and `wideRowThreads`, and `segmentPiece`
    (segmented_reduce groups).
    `docs/generated/FuseTransformsPasses.md` (fuse-tile's options) says
    what each does.

    ```mlir
    %s = fuse.group reduce (%x) {fuse.tiling = #fuse.tiling<blockThreads = 256,
        grid = 1056, itemsPerThread = 16, vectorWidth = 4,
        finishPrefetch = 4>} : (tensor<16777216xf32>) -> tensor<f32> {...}
    ```

    Verified: `blockThreads` and a non-zero `stagedThreads` are whole warps
    up to 1024, a non-zero `wideRowThreads` whole warps above
    `blockThreads` up to 1024; `grid` 0 to 2^31-1; `itemsPerThread` 1 to 1024;
    `vectorWidth` a power of two up to 16; `finishPrefetch` 0-8; `longRowItems` and `longRowStageItems` 0-32; `narrowRows` 0 or a power
    of two up to 32; `stagedRows` and `segmentPiece` not negative; the
    delays 0 to 10^6 ns.
  }];
  let parameters = (ins
    "int64_t":$blockThreads,
    "int64_t":$grid,
    "int64_t":$itemsPerThread,
    "int64_t":$vectorWidth,
    DefaultValuedParameter<"bool", "false">:$stageTiles,
    DefaultValuedParameter<"bool", "false">:$sharedScatter,
    DefaultValuedParameter<"int64_t", "::fuse::kDefaultPollDelay">:$pollDelay,
    DefaultValuedParameter<"int64_t", "::fuse::kDefaultLookbackDelay">:
        $lookbackDelay,
    DefaultValuedParameter<"int64_t", "0">:$finishPrefetch,
    DefaultValuedParameter<"int64_t", "0">:$longRowItems,
    DefaultValuedParameter<"int64_t", "0">:$longRowStageItems,
    DefaultValuedParameter<"bool", "false">:$onlineMaxSum,
    DefaultValuedParameter<"bool", "false">:$oneWalkVariance,
    DefaultValuedParameter<"int64_t", "0">:$narrowRows,
    DefaultValuedParameter<"int64_t", "0">:$stagedRows,
    DefaultValuedParameter<"int64_t", "0">:$stagedThreads,
    DefaultValuedParameter<"int64_t", "0">:$wideRowThreads,
    DefaultValuedParameter<"int64_t", "::fuse::kDefaultSegmentPiece">:
        $segmentPiece);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The group attribute that carries it.
    static constexpr ::llvm::StringLiteral getAttrName() {
      return ::llvm::StringLiteral("fuse.tiling");
    }
  }];
}

//===----------------------------------------------------------------------===//
// Entries: what convert-fuse-to-gpu tells fuse-compile about each entry
//===----------------------------------------------------------------------===//

def Fuse_SizeStatic : I32EnumAttrCase<"Static", 0, "static">;
def Fuse_SizeArgDim : I32EnumAttrCase<"ArgDim", 1, "arg_dim">;
def Fuse_SizeArg : I32EnumAttrCase<"Arg", 2, "arg">;
def Fuse_SizeComputed : I32EnumAttrCase<"Computed", 3, "computed">;
def Fuse_SizeKept : I32EnumAttrCase<"Kept", 4, "kept">;

def Fuse_SizeSource : I32EnumAttr<"SizeSource",
    "where an entry's result extent comes from",
    [Fuse_SizeStatic, Fuse_SizeArgDim, Fuse_SizeArg, Fuse_SizeComputed,
     Fuse_SizeKept]> {
  let cppNamespace = "::fuse";
  let genSpecializedAttr = 0;
}

def Fuse_SizeAttr : AttrDef<Fuse_Dialect, "Size"> {
  let mnemonic = "size";
  let summary = "one extent of an entry's result, as the caller knows it";
  let description = [{
    `static` (`value` the extent), `arg_dim` (dimension `dim` of tensor
    argument `value`), `arg` (scalar argument `value`), `computed` (a
    value the entry computes from its arguments) or `kept` (the number of
    elements a fuse.filter kept). fuse-compile writes it into the entry's
    documentation in the AOT header (`in0_d1`, `in2`, ...).

    ```mlir
    #fuse.size<source = arg_dim, value = 0, dim = 1>
    ```

    Verified: `value` and `dim` are not negative, and 0 where the source
    has none.
  }];
  let parameters = (ins
    EnumParameter<Fuse_SizeSource>:$source,
    DefaultValuedParameter<"int64_t", "0">:$value,
    DefaultValuedParameter<"int64_t", "0">:$dim);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Fuse_CheckEqual : I32EnumAttrCase<"Equal", 0, "equal">;
def Fuse_CheckNonNegative : I32EnumAttrCase<"NonNegative", 1, "non_negative">;

def Fuse_SizeCheckKind : I32EnumAttr<"SizeCheckKind",
    "what a run-time size check of an entry requires",
    [Fuse_CheckEqual, Fuse_CheckNonNegative]> {
  let cppNamespace = "::fuse";
  let genSpecializedAttr = 0;
}

def Fuse_SizeCheckAttr : AttrDef<Fuse_Dialect, "SizeCheck"> {
  let mnemonic = "size_check";
  let summary = "a run-time size check an entry keeps after a rewrite";
  let description = [{
    An entry checks, before any work starts, the size equalities its fuse
    ops imply (a map's operands, a row vector against the rows, ...), each
    derived from the IR when the entry is generated. A rewrite that
    expresses the same computation with fewer of those equalities (a
    rank-3 map over collapsed rows relates only the products of the
    leading dimensions) records the ones it would lose in the function's
    `fuse.size_checks` list, and every entry checks them too.

    `equal`: `lhs` and `rhs` are equal (`rhs` may be `static`).
    `non_negative`: scalar argument `lhs` is not negative (it sizes a
    tensor); no `rhs`.

    ```mlir
    func.func @f(%x: tensor<?x?x?xf32>, %y: tensor<?x?x?xf32>) -> ...
        attributes {fuse.size_checks = [#fuse.size_check<kind = equal,
          lhs = #fuse.size<source = arg_dim, value = 1>,
          rhs = #fuse.size<source = arg_dim, value = 0>>]}
    ```

    Verified: `lhs` is an `arg_dim` or `arg` size, `rhs` is given exactly
    for `equal` (an `arg_dim`, `arg` or `static` size) and `lhs` of a
    `non_negative` check is an `arg`; on the function, each size names an
    argument it has (a tensor's dimension within its rank, an `index`
    scalar).
  }];
  let parameters = (ins
    EnumParameter<Fuse_SizeCheckKind>:$kind,
    "SizeAttr":$lhs,
    OptionalParameter<"SizeAttr">:$rhs);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The function attribute that lists them.
    static constexpr ::llvm::StringLiteral getAttrName() {
      return ::llvm::StringLiteral("fuse.size_checks");
    }
  }];
}

def Fuse_CountNone : I32EnumAttrCase<"None", 0, "none">;
def Fuse_CountKept : I32EnumAttrCase<"Kept", 1, "kept">;
def Fuse_CountFromKept : I32EnumAttrCase<"FromKept", 2, "from_kept">;

def Fuse_OutputCount : I32EnumAttr<"OutputCount",
    "whether an entry result comes with a count of valid elements",
    [Fuse_CountNone, Fuse_CountKept, Fuse_CountFromKept]> {
  let cppNamespace = "::fuse";
  let genSpecializedAttr = 0;
}

def Fuse_EntryOutputAttr : AttrDef<Fuse_Dialect, "EntryOutput"> {
  let mnemonic = "entry_output";
  let summary = "one result of a compiled entry";
  let description = [{
    The result's type, the extents of the buffer the caller allocates
    (`#fuse.size` each; none for rank 0), and its count: `none`, `kept`
    (a fuse.filter's own result: the entry writes the number of kept
    elements to `outK_count`) or `from_kept` (a value computed from kept
    elements, as many as the count).
  }];
  let parameters = (ins
    "::mlir::Type":$type,
    "::mlir::ArrayAttr":$sizes,
    EnumParameter<Fuse_OutputCount>:$count);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Fuse_WorkspaceNone : I32EnumAttrCase<"None", 0, "none">;
def Fuse_WorkspaceAvailable : I32EnumAttrCase<"Available", 1, "available">;

def Fuse_WorkspaceForm : I32EnumAttr<"WorkspaceForm",
    "whether an entry has a capture-safe form with a caller's workspace",
    [Fuse_WorkspaceNone, Fuse_WorkspaceAvailable]> {
  let cppNamespace = "::fuse";
  let genSpecializedAttr = 0;
}

def Fuse_EntryAttr : AttrDef<Fuse_Dialect, "Entry"> {
  let mnemonic = "entry";
  let summary = "an entry point convert-fuse-to-gpu made: its C interface";
  let description = [{
    convert-fuse-to-gpu lists one per converted function in the module's
    `fuse.entries` array; fuse-compile renders the C header from them. The
    C function takes, in order: per input a device pointer and one int64_t
    per dimension (tensors) or the value (scalars), per output a device
    pointer, per counted output an `int64_t *` count, and a stream.

    `workspace = available` says that the entry also has its capture-safe
    form `NAME_ws`: the same arguments, with each count a device pointer,
    then `void *workspace` and `int64_t *workspace_bytes` before the
    stream. It allocates nothing (its temporaries are carved from the
    workspace; with a NULL workspace it only reports the bytes it needs)
    and never waits for the device (counts are copied on the device).
    `workspace = none` comes with `workspace_note`, why there is no such
    form (a size the host would need only the device knows). `checks`
    lists the size equalities (and non-negative scalars) the entry checks
    before any work, as #fuse.size_check; the header documents them.

    ```mlir
    #fuse.entry<name = "sumsq", groups = 1, inputs = [tensor<?xf32>],
        outputs = [#fuse.entry_output<type = tensor<f32>, sizes = [],
        count = none>], workspace = available>
    ```

    Verified: `inputs` holds types, `outputs` #fuse.entry_output, every
    size (of an output or a check) names an argument of the right kind,
    and `workspace_note` is given exactly when `workspace` is `none`.
  }];
  let parameters = (ins
    StringRefParameter<"the entry's C symbol">:$name,
    "int64_t":$groups,
    "::mlir::ArrayAttr":$inputs,
    "::mlir::ArrayAttr":$outputs,
    EnumParameter<Fuse_WorkspaceForm>:$workspace,
    StringRefParameter<"why there is no workspace form", "\"\"">:$workspace_note,
    OptionalParameter<"::mlir::ArrayAttr",
        "the sizes checked before any work (#fuse.size_check)">:$checks);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The module attribute that lists them.
    static constexpr ::llvm::StringLiteral getAttrName() {
      return ::llvm::StringLiteral("fuse.entries");
    }
  }];
}

//===----------------------------------------------------------------------===//
// Types accepted by the dialect
//===----------------------------------------------------------------------===//

def Fuse_ElementType : AnyTypeOf<[I1, I8, I16, I32, I64, F16, BF16, F32, F64],
    "fuse element type (i1, i8, i16, i32, i64, f16, bf16, f32 or f64)">;

def Fuse_Tensor : RankedTensorOf<[Fuse_ElementType]>;

def Fuse_IndexTensor : RankedTensorOf<[I32, I64]>;

#endif // FUSE_DIALECT_FUSE_IR_FUSEDIALECT_TD
