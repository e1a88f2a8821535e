// fuse-comparator-keys against the comparator itself: each entry run on
// the CPU as written (the merge sort with its comparator, the reference)
// and after the rewrite (a sort of the computed keys and gathers), the
// results compared byte for byte. The keys have ties, NaNs of both signs
// and -0.0 next to +0.0.
// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-opt %s --fuse-comparator-keys | FileCheck %s --check-prefix=IR
// RUN: fuse-opt %s --fuse-comparator-keys -o %t/keys.mlir
// RUN: for e in mag_up mag_down residue_down wide_key plain_desc; do \
// RUN:   fuse-run %s --entry $e --arg scalar:1000 --out %t/ref-$e && \
// RUN:   fuse-run %t/keys.mlir --entry $e --arg scalar:1000 --out %t/new-$e && \
// RUN:   for f in %t/ref-$e/*.npy; do cmp $f %t/new-$e/$(basename $f) || exit 1; done; \
// RUN: done
// RUN: for e in mag_up mag_down residue_down wide_key plain_desc; do \
// RUN:   fuse-run %t/keys.mlir --entry $e --arg scalar:0 --out %t/empty-$e || exit 1; \
// RUN: done

// IR-LABEL: func @mag_up
// IR: fuse.map
// IR: math.absf
// IR: arith.cmpf uno
// IR: arith.select
// IR: fuse.sort ascending positions
// IR-NOT: fuse.gather
// IR: return
// IR-LABEL: func @mag_down
// IR: fuse.sort descending positions
// IR: fuse.gather
// IR-LABEL: func @residue_down
// IR: arith.remsi
// IR: fuse.sort ascending positions
// IR-COUNT-2: fuse.gather
// IR-LABEL: func @wide_key
// IR: arith.extf
// IR: fuse.sort ascending positions %{{.*}} : tensor<?xf64>
// IR-LABEL: func @plain_desc
// IR: fuse.sort descending %{{.*}}, %{{.*}} : tensor<?xi32>, tensor<?xi64>
// IR-NOT: fuse.map

// x_i = ((37 i) mod 101 - 50) / 4, NaN where i mod 13 == 0 (negative
// where i mod 26 == 0), -0.0 where i mod 17 == 0.
func.func private @keys(%n: index) -> tensor<?xf32> {
  %i = fuse.iota %n : tensor<?xi64>
  %x = fuse.map %i : tensor<?xi64> -> tensor<?xf32> {
  ^bb0(%j: i64):
    %c37 = arith.constant 37 : i64
    %c101 = arith.constant 101 : i64
    %c50 = arith.constant 50 : i64
    %c13 = arith.constant 13 : i64
    %c26 = arith.constant 26 : i64
    %c17 = arith.constant 17 : i64
    %c0 = arith.constant 0 : i64
    %m = arith.muli %j, %c37 : i64
    %r = arith.remsi %m, %c101 : i64
    %s = arith.subi %r, %c50 : i64
    %f = arith.sitofp %s : i64 to f32
    %q = arith.constant 0.25 : f32
    %v = arith.mulf %f, %q : f32
    %z = arith.constant 0.0 : f32
    %nan = arith.divf %z, %z : f32
    %nnan = arith.negf %nan : f32
    %mz = arith.constant -0.0 : f32
    %r13 = arith.remsi %j, %c13 : i64
    %r26 = arith.remsi %j, %c26 : i64
    %r17 = arith.remsi %j, %c17 : i64
    %is13 = arith.cmpi eq, %r13, %c0 : i64
    %is26 = arith.cmpi eq, %r26, %c0 : i64
    %is17 = arith.cmpi eq, %r17, %c0 : i64
    %n1 = arith.select %is26, %nnan, %nan : f32
    %w1 = arith.select %is17, %mz, %v : f32
    %w2 = arith.select %is13, %n1, %w1 : f32
    fuse.yield %w2 : f32
  }
  return %x : tensor<?xf32>
}

// |a| < |b|, NaN last (Python's `(abs(a) < abs(b)) | ((a == a) & (b != b))`).
func.func @mag_up(%n: index) -> tensor<?xi64> {
  %x = func.call @keys(%n) : (index) -> tensor<?xf32>
  %s, %p = fuse.sort ascending positions %x : tensor<?xf32> -> tensor<?xf32>, tensor<?xi64> {
  ^bb0(%a: f32, %b: f32):
    %aa = math.absf %a : f32
    %bb = math.absf %b : f32
    %lt = arith.cmpf olt, %aa, %bb : f32
    %oa = arith.cmpf oeq, %a, %a : f32
    %nb = arith.cmpf une, %b, %b : f32
    %last = arith.andi %oa, %nb : i1
    %r = arith.ori %lt, %last : i1
    fuse.yield %r : i1
  }
  return %p : tensor<?xi64>
}

// The same comparator, descending (NaN first), the keys sorted.
func.func @mag_down(%n: index) -> tensor<?xf32> {
  %x = func.call @keys(%n) : (index) -> tensor<?xf32>
  %s = fuse.sort descending %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %aa = math.absf %a : f32
    %bb = math.absf %b : f32
    %ua = arith.cmpf uno, %bb, %bb : f32
    %oa = arith.cmpf ord, %aa, %aa : f32
    %last = arith.andi %ua, %oa : i1
    %lt = arith.cmpf olt, %aa, %bb : f32
    %r = arith.ori %last, %lt : i1
    fuse.yield %r : i1
  }
  return %s : tensor<?xf32>
}

// Integer keys by their residue, greater first written as k(b) < k(a),
// in a descending sort (so ascending by residue), with values.
func.func @residue_down(%n: index) -> (tensor<?xi32>, tensor<?xf32>) {
  %x = func.call @keys(%n) : (index) -> tensor<?xf32>
  %k = fuse.map %x : tensor<?xf32> -> tensor<?xi32> {
  ^bb0(%v: f32):
    %c = arith.constant 4.0 : f32
    %w = arith.mulf %v, %c : f32
    %i = arith.fptosi %w : f32 to i32
    fuse.yield %i : i32
  }
  %s, %t = fuse.sort descending %k, %x : tensor<?xi32>, tensor<?xf32> -> tensor<?xi32>, tensor<?xf32> {
  ^bb0(%a: i32, %b: i32):
    %c7 = arith.constant 7 : i32
    %ra = arith.remsi %a, %c7 : i32
    %rb = arith.remsi %b, %c7 : i32
    %lt = arith.cmpi slt, %rb, %ra : i32
    fuse.yield %lt : i1
  }
  return %s, %t : tensor<?xi32>, tensor<?xf32>
}

// A key of another type (f64 of a square, NaN-free here).
func.func @wide_key(%n: index) -> tensor<?xi64> {
  %x = func.call @keys(%n) : (index) -> tensor<?xf32>
  %y = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%v: f32):
    %o = arith.cmpf ord, %v, %v : f32
    %z = arith.constant 1.5 : f32
    %w = arith.select %o, %v, %z : f32
    fuse.yield %w : f32
  }
  %s, %p = fuse.sort ascending positions %y : tensor<?xf32> -> tensor<?xf32>, tensor<?xi64> {
  ^bb0(%a: f32, %b: f32):
    %wa = arith.extf %a : f32 to f64
    %wb = arith.extf %b : f32 to f64
    %sa = arith.mulf %wa, %wa : f64
    %sb = arith.mulf %wb, %wb : f64
    %lt = arith.cmpf olt, %sa, %sb : f64
    fuse.yield %lt : i1
  }
  return %p : tensor<?xi64>
}

// k(x) = x: the key order itself, without a comparator.
func.func @plain_desc(%n: index) -> (tensor<?xi32>, tensor<?xi64>) {
  %x = func.call @keys(%n) : (index) -> tensor<?xf32>
  %k = fuse.map %x : tensor<?xf32> -> tensor<?xi32> {
  ^bb0(%v: f32):
    %c = arith.constant 4.0 : f32
    %w = arith.mulf %v, %c : f32
    %i = arith.fptosi %w : f32 to i32
    fuse.yield %i : i32
  }
  %i = fuse.iota %n : tensor<?xi64>
  %s, %p = fuse.sort ascending %k, %i : tensor<?xi32>, tensor<?xi64> -> tensor<?xi32>, tensor<?xi64> {
  ^bb0(%a: i32, %b: i32):
    %lt = arith.cmpi sgt, %a, %b : i32
    fuse.yield %lt : i1
  }
  return %s, %p : tensor<?xi32>, tensor<?xi64>
}
