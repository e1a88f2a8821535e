// f16 and bf16 sums and products accumulate in f32, rounded once to the
// input's type: the pass widens the input with a map (fused into the
// reduction's pass), the init with arith.extf, and narrows the result.
// min/max and combiner regions are left as written.
// RUN: fuse-opt %s --fuse-widen-accumulators | FileCheck %s
//
// Run on the CPU, fused and unfused, 5000 ones: f32 accumulation gives
// 5000 (f16) and 4992 (bf16: 5000 rounded to its 8 bits); accumulating in
// the input's type would stop at 2048 (f16) and 256 (bf16).
// RUN: fuse-run %s --entry ones_f16 --arg rand:5000 --print | FileCheck %s --check-prefix=F16
// RUN: fuse-run %s --entry ones_f16 --arg rand:5000 --no-fusion --print | FileCheck %s --check-prefix=F16
// F16: result #0: float16 array of shape ()
// F16-NEXT: {{^}}5000{{$}}
// F16: result #1: float16 array of shape (5000,)
// F16-NEXT: [1, 2, 3, ..., 5000, 5000, 5000]
// RUN: fuse-run %s --entry ones_bf16 --arg rand:5000 --print | FileCheck %s --check-prefix=BF16
// RUN: fuse-run %s --entry ones_bf16 --arg rand:5000 --no-fusion --print | FileCheck %s --check-prefix=BF16
// BF16: result #0: bfloat16 array of shape ()
// BF16-NEXT: {{^}}4992{{$}}

// CHECK-LABEL: func.func @sum_f16
// CHECK-SAME: (%[[X:.*]]: tensor<?xf16>, %[[I:.*]]: f16)
// CHECK: %[[W:.*]] = fuse.map %[[X]] : tensor<?xf16> -> tensor<?xf32>
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: %[[IW:.*]] = arith.extf %[[I]] : f16 to f32
// CHECK: %[[S:.*]] = fuse.reduce add %[[W]] init(%[[IW]] : f32) : tensor<?xf32> -> tensor<f32>
// CHECK: %[[N:.*]] = fuse.map %[[S]] : tensor<f32> -> tensor<f16>
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: return %[[N]]
func.func @sum_f16(%x: tensor<?xf16>, %i: f16) -> tensor<f16> {
  %s = fuse.reduce add %x init(%i : f16) : tensor<?xf16> -> tensor<f16>
  return %s : tensor<f16>
}

// Sibling reductions: only the bf16 product widens; the max stays bf16.
// CHECK-LABEL: func.func @siblings
// CHECK: %[[W:.*]] = fuse.map %{{.*}} : tensor<?x?xbf16> -> tensor<?x?xf32>
// CHECK: %[[R:.*]]:2 = fuse.reduce (mul, max) %[[W]], %{{.*}} dims [1] : tensor<?x?xf32>, tensor<?x?xbf16> -> tensor<?xf32>, tensor<?xbf16>
// CHECK: %[[N:.*]] = fuse.map %[[R]]#0 : tensor<?xf32> -> tensor<?xbf16>
// CHECK: return %[[N]], %[[R]]#1
func.func @siblings(%x: tensor<?x?xbf16>) -> (tensor<?xbf16>, tensor<?xbf16>) {
  %p, %m = fuse.reduce (mul, max) %x, %x dims [1] : tensor<?x?xbf16>, tensor<?x?xbf16> -> tensor<?xbf16>, tensor<?xbf16>
  return %p, %m : tensor<?xbf16>, tensor<?xbf16>
}

// CHECK-LABEL: func.func @scan_bf16
// CHECK: fuse.scan exclusive add %{{.*}} : tensor<?xf32> -> tensor<?xf32>
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @scan_bf16(%x: tensor<?xbf16>) -> tensor<?xbf16> {
  %y = fuse.scan exclusive add %x : tensor<?xbf16> -> tensor<?xbf16>
  return %y : tensor<?xbf16>
}

// CHECK-LABEL: func.func @segments_f16
// CHECK: fuse.segmented_reduce add %{{.*}} segments(%{{.*}}, %{{.*}} : tensor<?xi64>, tensor<?xi64>) : tensor<?xf32> -> tensor<?xf32>
func.func @segments_f16(%x: tensor<?xf16>, %s: tensor<?xi64>, %e: tensor<?xi64>) -> tensor<?xf16> {
  %r = fuse.segmented_reduce add %x segments(%s, %e : tensor<?xi64>, tensor<?xi64>) : tensor<?xf16> -> tensor<?xf16>
  return %r : tensor<?xf16>
}

// Left alone: f32, min/max, combiner regions.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT: arith.extf
// CHECK: fuse.reduce add %{{.*}} : tensor<?xf32> -> tensor<f32>
// CHECK: fuse.reduce min %{{.*}} : tensor<?xf16> -> tensor<f16>
// CHECK: fuse.reduce %{{.*}} init(%{{.*}} : f16) : tensor<?xf16> -> tensor<f16> {
// CHECK-NOT: arith.extf
// CHECK: return
func.func @untouched(%x: tensor<?xf32>, %h: tensor<?xf16>, %i: f16) -> (tensor<f32>, tensor<f16>, tensor<f16>) {
  %a = fuse.reduce add %x : tensor<?xf32> -> tensor<f32>
  %b = fuse.reduce min %h : tensor<?xf16> -> tensor<f16>
  %c = fuse.reduce %h init(%i : f16) : tensor<?xf16> -> tensor<f16> {
  ^bb0(%acc: f16, %e: f16):
    %s = arith.addf %acc, %e : f16
    fuse.yield %s : f16
  }
  return %a, %b, %c : tensor<f32>, tensor<f16>, tensor<f16>
}

func.func @ones_f16(%x: tensor<?xf16>) -> (tensor<f16>, tensor<?xf16>) {
  %one = fuse.map %x : tensor<?xf16> -> tensor<?xf16> {
  ^bb0(%a: f16):
    %c = arith.constant 1.0 : f16
    fuse.yield %c : f16
  }
  %s = fuse.reduce add %one : tensor<?xf16> -> tensor<f16>
  %c = fuse.scan inclusive add %one : tensor<?xf16> -> tensor<?xf16>
  return %s, %c : tensor<f16>, tensor<?xf16>
}

func.func @ones_bf16(%x: tensor<?xbf16>) -> tensor<bf16> {
  %one = fuse.map %x : tensor<?xbf16> -> tensor<?xbf16> {
  ^bb0(%a: bf16):
    %c = arith.constant 1.0 : bf16
    fuse.yield %c : bf16
  }
  %s = fuse.reduce add %one : tensor<?xbf16> -> tensor<bf16>
  return %s : tensor<bf16>
}
