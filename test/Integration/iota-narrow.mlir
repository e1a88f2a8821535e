// An iota of a narrow integer type wraps (i8: 0..127, -128..-1, 0, ...)
// wherever it is computed, fused into a consumer or not. MLIR's
// canonicalizer folds index_cast(index_cast(i : index -> i8) -> index)
// back to i, so a fused histogram of an i8 iota once counted element 256
// in bin 256 (past a 256-bin buffer: heap corruption with fewer bins).
// RUN: fuse-run %s --entry=bins300 --arg=rand:3000 --print | FileCheck %s --check-prefix=B300
// RUN: fuse-run %s --entry=bins300 --no-fusion --arg=rand:3000 --print | FileCheck %s --check-prefix=B300
// RUN: fuse-run %s --entry=one_bin --arg=rand:3000 --print | FileCheck %s --check-prefix=ONE
// RUN: fuse-run %s --entry=one_bin --no-fusion --arg=rand:3000 --print | FileCheck %s --check-prefix=ONE
// RUN: fuse-run %s --entry=sum_u8 --arg=rand:3000 --print | FileCheck %s --check-prefix=SUM

// 3000 elements: values 0..127 occur 12 times (0..183 of the last lap
// included), the negative ones never count.
// B300: result #0: int32 array of shape (300,)
// B300-NEXT: [12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 0,
func.func @bins300(%x: tensor<?xf64>) -> tensor<300xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf64>
  %i = fuse.iota %n : tensor<?xi8>
  %h = fuse.histogram %i : tensor<?xi8> -> tensor<300xi32>
  return %h : tensor<300xi32>
}

// ONE: result #0: int32 array of shape (1,)
// ONE-NEXT: [12]
func.func @one_bin(%x: tensor<?xf64>) -> tensor<1xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf64>
  %i = fuse.iota %n : tensor<?xi8>
  %h = fuse.histogram %i : tensor<?xi8> -> tensor<1xi32>
  return %h : tensor<1xi32>
}

// The wrapped values summed as unsigned bytes, widened: 11 laps of
// 0..255 (11 * 32640) and 0..183 (16836).
// SUM: result #0: int64 array of shape ()
// SUM-NEXT: {{^}}375876{{$}}
func.func @sum_u8(%x: tensor<?xf64>) -> tensor<i64> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf64>
  %i = fuse.iota %n : tensor<?xi8>
  %w = fuse.map %i : tensor<?xi8> -> tensor<?xi64> {
  ^bb0(%a: i8):
    %e = arith.extui %a : i8 to i64
    fuse.yield %e : i64
  }
  %s = fuse.reduce add %w : tensor<?xi64> -> tensor<i64>
  return %s : tensor<i64>
}
