// Scan and filter kernels emit a speculatable group's per-item code once
// for whole and partial tiles: items past the end compute on copies of
// element n - 1 (clamped loads) and only their stores are guarded (and a
// filter's flags masked). A group with an op that is not speculatable
// (integer division by a value not known to be non-zero) keeps a guarded
// copy of the per-item code for partial tiles. Counted at 4 items a thread
// (one 16-byte row): 4 copies shared, 8 with the guarded copy. The
// kernels' values on the GPU: tests/gpu (partial tiles, unaligned inputs).
// RUN: fuse-opt %s --fuse-fusion --fuse-tile="block-threads=64 items-per-thread=4" --convert-fuse-to-gpu -o %t.mlir
// RUN: grep -c "math.exp" %t.mlir | FileCheck %s --check-prefix=EXP
// RUN: grep -c "math.sin" %t.mlir | FileCheck %s --check-prefix=SIN
// RUN: grep -c "arith.divsi" %t.mlir | FileCheck %s --check-prefix=DIV
// RUN: grep -c "arith.remsi" %t.mlir | FileCheck %s --check-prefix=REM
// Clamped loads of partial tiles, no guarded loads.
// RUN: FileCheck %s < %t.mlir

// The filter's predicate: 4 items, once each.
// EXP: {{^}}4{{$}}
// The scan's epilogue: 4 items, once each.
// SIN: {{^}}4{{$}}
// The filter with a division: the guarded copy too.
// DIV: {{^}}8{{$}}
// The scan whose epilogue divides: the guarded copy too.
// REM: {{^}}8{{$}}

// CHECK-LABEL: gpu.func @pos_g0_filter(
// CHECK: arith.minsi
// CHECK-LABEL: gpu.func @scan_sin_g0_scan(
// CHECK: arith.minsi

func.func @pos(%x: tensor<?xf32>) -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %y = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %e = math.exp %a : f32
    %p = arith.cmpf ogt, %e, %zero : f32
    fuse.yield %p : i1
  }
  return %y : tensor<?xf32>
}

func.func @scan_sin(%x: tensor<?xf32>) -> tensor<?xf32> {
  %s = fuse.scan inclusive add %x : tensor<?xf32> -> tensor<?xf32>
  %y = fuse.map %s : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %r = math.sin %a : f32
    fuse.yield %r : f32
  }
  return %y : tensor<?xf32>
}

func.func @div(%x: tensor<?xi32>, %d: tensor<?xi32>) -> tensor<?xi32> {
  %zero = arith.constant 0 : i32
  %y:2 = fuse.filter %x, %d : tensor<?xi32>, tensor<?xi32> -> tensor<?xi32>, tensor<?xi32> {
  ^bb0(%a: i32, %b: i32):
    %q = arith.divsi %a, %b : i32
    %p = arith.cmpi sgt, %q, %zero : i32
    fuse.yield %p : i1
  }
  return %y#0 : tensor<?xi32>
}

func.func @scan_rem(%x: tensor<?xi32>, %d: tensor<?xi32>) -> tensor<?xi32> {
  %s = fuse.scan inclusive add %x : tensor<?xi32> -> tensor<?xi32>
  %y = fuse.map %s, %d : tensor<?xi32>, tensor<?xi32> -> tensor<?xi32> {
  ^bb0(%a: i32, %b: i32):
    %r = arith.remsi %a, %b : i32
    fuse.yield %r : i32
  }
  return %y : tensor<?xi32>
}
