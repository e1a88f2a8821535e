// RUN: fuse-opt %s --fuse-fusion --fuse-tile | FileCheck %s
// Scan and filter tiles size items by what a thread holds per item: the
// most of the loaded operands, the scanned or filtered values and the
// results (128 bytes for scans, 80 for filters, at most 32 items).

// i32 loads, scanned as i64: 8 bytes an item, 16 items.
// CHECK-LABEL: func.func @widened_scan
// CHECK: fuse.group scan{{.*}}itemsPerThread = 16{{.*}}vectorWidth = 2
func.func @widened_scan(%x: tensor<?xi32>) -> tensor<?xi64> {
  %w = fuse.map %x : tensor<?xi32> -> tensor<?xi64> {
  ^bb0(%a: i32):
    %e = arith.extsi %a : i32 to i64
    fuse.yield %e : i64
  }
  %s = fuse.scan inclusive add %w : tensor<?xi64> -> tensor<?xi64>
  return %s : tensor<?xi64>
}

// f32 loads and scan, with an f64 side output: 12 bytes an item, 128 / 12
// = 10 items (a multiple of the 2-element vectors of f64).
// CHECK-LABEL: func.func @side_output_scan
// CHECK: fuse.group scan{{.*}}itemsPerThread = 10{{.*}}vectorWidth = 2
func.func @side_output_scan(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf64>) {
  %d = fuse.map %x : tensor<?xf32> -> tensor<?xf64> {
  ^bb0(%a: f32):
    %e = arith.extf %a : f32 to f64
    fuse.yield %e : f64
  }
  %s = fuse.scan inclusive add %x : tensor<?xf32> -> tensor<?xf32>
  return %s, %d : tensor<?xf32>, tensor<?xf64>
}

// A filter of f64 values computed from i32 loads: 8 bytes an item, 10.
// CHECK-LABEL: func.func @widened_filter
// CHECK: fuse.group filter{{.*}}itemsPerThread = 10{{.*}}vectorWidth = 2
func.func @widened_filter(%x: tensor<?xi32>) -> tensor<?xf64> {
  %zero = arith.constant 0.0 : f64
  %w = fuse.map %x : tensor<?xi32> -> tensor<?xf64> {
  ^bb0(%a: i32):
    %e = arith.sitofp %a : i32 to f64
    fuse.yield %e : f64
  }
  %y = fuse.filter %w : tensor<?xf64> -> tensor<?xf64> {
  ^bb0(%u: f64):
    %p = arith.cmpf ogt, %u, %zero : f64
    fuse.yield %p : i1
  }
  return %y : tensor<?xf64>
}

// Plain f32 scan and filter keep 32 and 20 items.
// CHECK-LABEL: func.func @plain
// CHECK: fuse.group scan{{.*}}itemsPerThread = 32{{.*}}vectorWidth = 4
// CHECK: fuse.group filter{{.*}}itemsPerThread = 20{{.*}}vectorWidth = 4
func.func @plain(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %zero = arith.constant 0.0 : f32
  %s = fuse.scan inclusive add %x : tensor<?xf32> -> tensor<?xf32>
  %y = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%u: f32):
    %p = arith.cmpf ogt, %u, %zero : f32
    fuse.yield %p : i1
  }
  return %s, %y : tensor<?xf32>, tensor<?xf32>
}
