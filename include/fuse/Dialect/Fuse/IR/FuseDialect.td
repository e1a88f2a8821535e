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

// The pattern of a fused group (`fuse.group`): chosen by fusion, read by
// tiling and by both lowerings, which pick a kernel family from it.
def Fuse_GroupElementwise : I32EnumAttrCase<"Elementwise", 0, "elementwise">;
def Fuse_GroupReduce : I32EnumAttrCase<"Reduce", 1, "reduce">;
def Fuse_GroupRowReduce : I32EnumAttrCase<"RowReduce", 2, "row_reduce">;
def Fuse_GroupScan : I32EnumAttrCase<"Scan", 3, "scan">;
def Fuse_GroupFilter : I32EnumAttrCase<"Filter", 4, "filter">;

def Fuse_GroupKind : I32EnumAttr<"GroupKind", "pattern of a fused group",
    [Fuse_GroupElementwise, Fuse_GroupReduce, Fuse_GroupRowReduce,
     Fuse_GroupScan, Fuse_GroupFilter]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::fuse";
}

// Printed bare inside `fuse.group` (`fuse.group reduce (...)`), as
// `#fuse.group_kind<reduce>` elsewhere.
def Fuse_GroupKindAttr : EnumAttr<Fuse_Dialect, Fuse_GroupKind, "group_kind"> {
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// Types accepted by the dialect
//===----------------------------------------------------------------------===//

def Fuse_ElementType : AnyTypeOf<[I1, I8, I16, I32, I64, F16, BF16, F32, F64],
    "fuse element type (i1, i8, i16, i32, i64, f16, bf16, f32 or f64)">;

def Fuse_Tensor : RankedTensorOf<[Fuse_ElementType]>;

def Fuse_IndexTensor : RankedTensorOf<[I32, I64]>;

#endif // FUSE_DIALECT_FUSE_IR_FUSEDIALECT_TD
