// Round trip of every fuse op form: custom form -> print -> parse -> print,
// through the generic form, and through MLIR's own round-trip verifier.
// RUN: fuse-opt %s | fuse-opt | FileCheck %s
// RUN: fuse-opt %s --mlir-print-op-generic | fuse-opt | FileCheck %s
// RUN: fuse-opt %s --verify-roundtrip | FileCheck %s

// CHECK-LABEL: func.func @map_unary
// CHECK: %[[Y:.+]] = fuse.map %{{.+}} : tensor<?xf32> -> tensor<?xf32> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32):
// CHECK-NEXT:   %[[M:.+]] = arith.mulf %[[A]], %[[A]] : f32
// CHECK-NEXT:   fuse.yield %[[M]] : f32
// CHECK-NEXT: }
// CHECK: return %[[Y]]
func.func @map_unary(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %m = arith.mulf %a, %a : f32
    fuse.yield %m : f32
  }
  return %y : tensor<?xf32>
}

// n inputs, m results of different element types, a scalar from above.
// CHECK-LABEL: func.func @map_nary_multi_result
// CHECK-SAME: (%[[X:.+]]: tensor<4x?xf32>, %[[W:.+]]: tensor<4x?xf32>, %[[S:.+]]: f32)
// CHECK: %{{.+}}:2 = fuse.map %[[X]], %[[W]] : tensor<4x?xf32>, tensor<4x?xf32> -> tensor<4x?xf32>, tensor<4x?xi1> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32):
// CHECK: arith.mulf %[[A]], %[[S]] : f32
// CHECK: fuse.yield %{{.+}}, %{{.+}} : f32, i1
func.func @map_nary_multi_result(%x: tensor<4x?xf32>, %w: tensor<4x?xf32>, %s: f32)
    -> (tensor<4x?xf32>, tensor<4x?xi1>) {
  %y:2 = fuse.map %x, %w : tensor<4x?xf32>, tensor<4x?xf32>
      -> tensor<4x?xf32>, tensor<4x?xi1> {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %s : f32
    %q = arith.addf %p, %b : f32
    %c = arith.cmpf ogt, %q, %b : f32
    fuse.yield %q, %c : f32, i1
  }
  return %y#0, %y#1 : tensor<4x?xf32>, tensor<4x?xi1>
}

// Rank-0 map, and a map with an attribute in its attr-dict.
// CHECK-LABEL: func.func @map_rank0
// CHECK: fuse.map %{{.+}} {note = "x"} : tensor<f64> -> tensor<f64> {
func.func @map_rank0(%x: tensor<f64>) -> tensor<f64> {
  %y = fuse.map %x {note = "x"} : tensor<f64> -> tensor<f64> {
  ^bb0(%a: f64):
    fuse.yield %a : f64
  }
  return %y : tensor<f64>
}

// Every element type goes through a map.
// CHECK-LABEL: func.func @element_types
// CHECK: fuse.map %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : tensor<?xi1>, tensor<?xi8>, tensor<?xi16>, tensor<?xi32>, tensor<?xi64>, tensor<?xf16>, tensor<?xbf16>, tensor<?xf32>, tensor<?xf64> -> tensor<?xi1>, tensor<?xi8>, tensor<?xi16>, tensor<?xi32>, tensor<?xi64>, tensor<?xf16>, tensor<?xbf16>, tensor<?xf32>, tensor<?xf64>
// CHECK-NEXT: ^bb0(%{{.+}}: i1, %{{.+}}: i8, %{{.+}}: i16, %{{.+}}: i32, %{{.+}}: i64, %{{.+}}: f16, %{{.+}}: bf16, %{{.+}}: f32, %{{.+}}: f64):
func.func @element_types(%a: tensor<?xi1>, %b: tensor<?xi8>, %c: tensor<?xi16>,
                         %d: tensor<?xi32>, %e: tensor<?xi64>, %f: tensor<?xf16>,
                         %g: tensor<?xbf16>, %h: tensor<?xf32>, %i: tensor<?xf64>) {
  %r:9 = fuse.map %a, %b, %c, %d, %e, %f, %g, %h, %i
      : tensor<?xi1>, tensor<?xi8>, tensor<?xi16>, tensor<?xi32>, tensor<?xi64>,
        tensor<?xf16>, tensor<?xbf16>, tensor<?xf32>, tensor<?xf64>
      -> tensor<?xi1>, tensor<?xi8>, tensor<?xi16>, tensor<?xi32>, tensor<?xi64>,
         tensor<?xf16>, tensor<?xbf16>, tensor<?xf32>, tensor<?xf64> {
  ^bb0(%va: i1, %vb: i8, %vc: i16, %vd: i32, %ve: i64, %vf: f16, %vg: bf16,
       %vh: f32, %vi: f64):
    fuse.yield %va, %vb, %vc, %vd, %ve, %vf, %vg, %vh, %vi
        : i1, i8, i16, i32, i64, f16, bf16, f32, f64
  }
  return
}

// Every built-in combiner kind, full reductions.
// CHECK-LABEL: func.func @reduce_kinds
// CHECK: fuse.reduce add %{{.+}} : tensor<?xf32> -> tensor<f32>
// CHECK: fuse.reduce mul %{{.+}} : tensor<?xf16> -> tensor<f16>
// CHECK: fuse.reduce min %{{.+}} : tensor<?x?xbf16> -> tensor<bf16>
// CHECK: fuse.reduce max %{{.+}} : tensor<?xf64> -> tensor<f64>
// CHECK: fuse.reduce and %{{.+}} : tensor<?xi1> -> tensor<i1>
// CHECK: fuse.reduce or %{{.+}} : tensor<?xi8> -> tensor<i8>
// CHECK: fuse.reduce xor %{{.+}} : tensor<?xi16> -> tensor<i16>
// CHECK: fuse.reduce min %{{.+}} : tensor<?xi64> -> tensor<i64>
func.func @reduce_kinds(%a: tensor<?xf32>, %b: tensor<?xf16>, %c: tensor<?x?xbf16>,
                        %d: tensor<?xf64>, %e: tensor<?xi1>, %f: tensor<?xi8>,
                        %g: tensor<?xi16>, %h: tensor<?xi64>) {
  %0 = fuse.reduce add %a : tensor<?xf32> -> tensor<f32>
  %1 = fuse.reduce mul %b : tensor<?xf16> -> tensor<f16>
  %2 = fuse.reduce min %c : tensor<?x?xbf16> -> tensor<bf16>
  %3 = fuse.reduce max %d : tensor<?xf64> -> tensor<f64>
  %4 = fuse.reduce and %e : tensor<?xi1> -> tensor<i1>
  %5 = fuse.reduce or %f : tensor<?xi8> -> tensor<i8>
  %6 = fuse.reduce xor %g : tensor<?xi16> -> tensor<i16>
  %7 = fuse.reduce min %h : tensor<?xi64> -> tensor<i64>
  return
}

// Sibling reductions with inits and dims; an empty dims list.
// CHECK-LABEL: func.func @reduce_multi
// CHECK-SAME: (%[[X:.+]]: tensor<?x8xf32>, %[[Y:.+]]: tensor<?x8xi32>, %[[I0:.+]]: f32, %[[I1:.+]]: i32)
// CHECK: fuse.reduce (add, max) %[[X]], %[[Y]] init(%[[I0]], %[[I1]] : f32, i32) dims [1] : tensor<?x8xf32>, tensor<?x8xi32> -> tensor<?xf32>, tensor<?xi32>
// CHECK: fuse.reduce add %[[X]] dims [0] : tensor<?x8xf32> -> tensor<8xf32>
// CHECK: fuse.reduce add %[[X]] dims [0, 1] : tensor<?x8xf32> -> tensor<f32>
// CHECK: fuse.reduce mul %[[X]] dims [] : tensor<?x8xf32> -> tensor<?x8xf32>
func.func @reduce_multi(%x: tensor<?x8xf32>, %y: tensor<?x8xi32>, %i0: f32, %i1: i32) {
  %0:2 = fuse.reduce (add, max) %x, %y init(%i0, %i1 : f32, i32) dims [1]
      : tensor<?x8xf32>, tensor<?x8xi32> -> tensor<?xf32>, tensor<?xi32>
  %1 = fuse.reduce add %x dims [0] : tensor<?x8xf32> -> tensor<8xf32>
  %2 = fuse.reduce add %x dims [0, 1] : tensor<?x8xf32> -> tensor<f32>
  %3 = fuse.reduce mul %x dims [] : tensor<?x8xf32> -> tensor<?x8xf32>
  return
}

// A custom combiner: argmax as a tuple reduction.
// CHECK-LABEL: func.func @reduce_custom
// CHECK: %{{.+}}:2 = fuse.reduce %{{.+}}, %{{.+}} init(%{{.+}}, %{{.+}} : f32, i64) : tensor<?xf32>, tensor<?xi64> -> tensor<f32>, tensor<i64> {
// CHECK-NEXT: ^bb0(%[[AV:.+]]: f32, %[[AI:.+]]: i64, %[[BV:.+]]: f32, %[[BI:.+]]: i64):
// CHECK-NEXT: arith.cmpf ogt, %[[BV]], %[[AV]] : f32
// CHECK: fuse.yield %{{.+}}, %{{.+}} : f32, i64
func.func @reduce_custom(%x: tensor<?xf32>, %idx: tensor<?xi64>)
    -> (tensor<f32>, tensor<i64>) {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %v, %i = fuse.reduce %x, %idx init(%ninf, %c0 : f32, i64)
      : tensor<?xf32>, tensor<?xi64> -> tensor<f32>, tensor<i64> {
  ^bb0(%av: f32, %ai: i64, %bv: f32, %bi: i64):
    %gt = arith.cmpf ogt, %bv, %av : f32
    %v2 = arith.select %gt, %bv, %av : f32
    %i2 = arith.select %gt, %bi, %ai : i64
    fuse.yield %v2, %i2 : f32, i64
  }
  return %v, %i : tensor<f32>, tensor<i64>
}

// A custom combiner over some dims of a rank-3 tensor.
// CHECK-LABEL: func.func @reduce_custom_dims
// CHECK: fuse.reduce %{{.+}} init(%{{.+}} : i32) dims [0, 2] : tensor<2x?x4xi32> -> tensor<?xi32> {
func.func @reduce_custom_dims(%x: tensor<2x?x4xi32>, %z: i32) -> tensor<?xi32> {
  %r = fuse.reduce %x init(%z : i32) dims [0, 2] : tensor<2x?x4xi32> -> tensor<?xi32> {
  ^bb0(%a: i32, %b: i32):
    %s = arith.subi %a, %b : i32
    fuse.yield %s : i32
  }
  return %r : tensor<?xi32>
}

// Scans: inclusive/exclusive, every kind, dim, inits, multi-input, custom.
// CHECK-LABEL: func.func @scans
// CHECK: fuse.scan inclusive add %{{.+}} : tensor<?xf32> -> tensor<?xf32>
// CHECK: fuse.scan exclusive add %{{.+}} dim 1 : tensor<?x?xi32> -> tensor<?x?xi32>
// CHECK: fuse.scan inclusive max %{{.+}} dim 0 : tensor<?x?xi32> -> tensor<?x?xi32>
// CHECK: fuse.scan exclusive (mul, min) %{{.+}}, %{{.+}} init(%{{.+}}, %{{.+}} : f32, f32) : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32>, tensor<?xf32>
// CHECK: fuse.scan inclusive (and, or, xor) %{{.+}}, %{{.+}}, %{{.+}} : tensor<?xi8>, tensor<?xi8>, tensor<?xi8> -> tensor<?xi8>, tensor<?xi8>, tensor<?xi8>
// CHECK: fuse.scan exclusive %{{.+}} init(%{{.+}} : f32) dim 0 : tensor<?xf32> -> tensor<?xf32> {
// CHECK-NEXT: ^bb0(%{{.+}}: f32, %{{.+}}: f32):
func.func @scans(%x: tensor<?xf32>, %m: tensor<?x?xi32>, %b: tensor<?xi8>, %f: f32) {
  %0 = fuse.scan inclusive add %x : tensor<?xf32> -> tensor<?xf32>
  %1 = fuse.scan exclusive add %m dim 1 : tensor<?x?xi32> -> tensor<?x?xi32>
  %2 = fuse.scan inclusive max %m dim 0 : tensor<?x?xi32> -> tensor<?x?xi32>
  %3:2 = fuse.scan exclusive (mul, min) %x, %x init(%f, %f : f32, f32)
      : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32>, tensor<?xf32>
  %4:3 = fuse.scan inclusive (and, or, xor) %b, %b, %b
      : tensor<?xi8>, tensor<?xi8>, tensor<?xi8> -> tensor<?xi8>, tensor<?xi8>, tensor<?xi8>
  %5 = fuse.scan exclusive %x init(%f : f32) dim 0 : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %c: f32):
    %s = arith.maximumf %a, %c : f32
    fuse.yield %s : f32
  }
  return
}

// Filters: one input, several inputs, static input length.
// CHECK-LABEL: func.func @filters
// CHECK: fuse.filter %{{.+}} : tensor<?xf32> -> tensor<?xf32> {
// CHECK-NEXT: ^bb0(%{{.+}}: f32):
// CHECK: fuse.yield %{{.+}} : i1
// CHECK: %{{.+}}:2 = fuse.filter %{{.+}}, %{{.+}} : tensor<16xf32>, tensor<16xi64> -> tensor<?xf32>, tensor<?xi64> {
// CHECK-NEXT: ^bb0(%{{.+}}: f32, %{{.+}}: i64):
func.func @filters(%x: tensor<?xf32>, %s: tensor<16xf32>, %i: tensor<16xi64>) {
  %zero = arith.constant 0.0 : f32
  %0 = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.cmpf ogt, %a, %zero : f32
    fuse.yield %p : i1
  }
  %1:2 = fuse.filter %s, %i : tensor<16xf32>, tensor<16xi64> -> tensor<?xf32>, tensor<?xi64> {
  ^bb0(%a: f32, %b: i64):
    %p = arith.cmpf olt, %a, %zero : f32
    fuse.yield %p : i1
  }
  return
}

// Iotas: static, dynamic, with dim, float elements.
// CHECK-LABEL: func.func @iotas
// CHECK-SAME: (%[[N:.+]]: index, %[[M:.+]]: index)
// CHECK: fuse.iota : tensor<8xi32>
// CHECK: fuse.iota %[[N]] : tensor<?xi64>
// CHECK: fuse.iota %[[N]], %[[M]] dim 1 : tensor<?x?xf32>
// CHECK: fuse.iota %[[M]] dim 0 : tensor<3x?x2xi16>
func.func @iotas(%n: index, %m: index) {
  %0 = fuse.iota : tensor<8xi32>
  %1 = fuse.iota %n : tensor<?xi64>
  %2 = fuse.iota %n, %m dim 1 : tensor<?x?xf32>
  %3 = fuse.iota %m dim 0 : tensor<3x?x2xi16>
  return
}

// Prefixes of a static and a dynamic source, of i1 elements too.
// CHECK-LABEL: func.func @shards
// CHECK: %[[R:.+]], %[[C:.+]] = fuse.shard_rank
// CHECK: fuse.all_gather %{{.+}} : tensor<f32> -> tensor<?xf32>
// CHECK: fuse.all_gather %{{.+}} : tensor<3x?xi8> -> tensor<?x3x?xi8>
// CHECK: fuse.all_concat %{{.+}} : tensor<3x?xi8> -> tensor<?x?xi8>
func.func @shards(%s: tensor<f32>, %m: tensor<3x?xi8>) -> index {
  %rank, %count = fuse.shard_rank
  %0 = fuse.all_gather %s : tensor<f32> -> tensor<?xf32>
  %1 = fuse.all_gather %m : tensor<3x?xi8> -> tensor<?x3x?xi8>
  %2 = fuse.all_concat %m : tensor<3x?xi8> -> tensor<?x?xi8>
  return %rank : index
}

// CHECK-LABEL: func.func @prefixes
// CHECK: fuse.prefix %{{.+}}, %{{.+}} : tensor<?xf32>, tensor<i64> -> tensor<?xf32>
// CHECK: fuse.prefix %{{.+}}, %{{.+}} : tensor<8xi1>, tensor<i64> -> tensor<?xi1>
func.func @prefixes(%x: tensor<?xf32>, %b: tensor<8xi1>, %n: tensor<i64>) {
  %0 = fuse.prefix %x, %n : tensor<?xf32>, tensor<i64> -> tensor<?xf32>
  %1 = fuse.prefix %b, %n : tensor<8xi1>, tensor<i64> -> tensor<?xi1>
  return
}

// Gathers with i32 and i64 indices, rank-2 indices, rank-0 indices.
// CHECK-LABEL: func.func @gathers
// CHECK: fuse.gather %{{.+}}[%{{.+}}] : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>
// CHECK: fuse.gather %{{.+}}[%{{.+}}] : tensor<?xf32>, tensor<?xi32> -> tensor<?xf32>
// CHECK: fuse.gather %{{.+}}[%{{.+}}] : tensor<?xf32>, tensor<2x?xi32> -> tensor<2x?xf32>
// CHECK: fuse.gather %{{.+}}[%{{.+}}] : tensor<?xf32>, tensor<i64> -> tensor<f32>
func.func @gathers(%src: tensor<?xf32>, %i64: tensor<?xi64>, %i32: tensor<?xi32>,
                   %i2: tensor<2x?xi32>, %i0: tensor<i64>) {
  %0 = fuse.gather %src[%i64] : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>
  %1 = fuse.gather %src[%i32] : tensor<?xf32>, tensor<?xi32> -> tensor<?xf32>
  %2 = fuse.gather %src[%i2] : tensor<?xf32>, tensor<2x?xi32> -> tensor<2x?xf32>
  %3 = fuse.gather %src[%i0] : tensor<?xf32>, tensor<i64> -> tensor<f32>
  return
}

// Broadcasts: scalar to vector, row vector to matrix, static added dims,
// no added dims.
// CHECK-LABEL: func.func @broadcasts
// CHECK-SAME: (%[[S:.+]]: tensor<f32>, %[[R:.+]]: tensor<?xf32>, %[[N:.+]]: index)
// CHECK: fuse.broadcast %[[S]] dims [0] (%[[N]]) : tensor<f32> -> tensor<?xf32>
// CHECK: fuse.broadcast %[[R]] dims [1] (%[[N]]) : tensor<?xf32> -> tensor<?x?xf32>
// CHECK: fuse.broadcast %[[R]] dims [0, 2] : tensor<?xf32> -> tensor<4x?x5xf32>
// CHECK: fuse.broadcast %[[R]] dims [] : tensor<?xf32> -> tensor<?xf32>
func.func @broadcasts(%s: tensor<f32>, %r: tensor<?xf32>, %n: index) {
  %0 = fuse.broadcast %s dims [0] (%n) : tensor<f32> -> tensor<?xf32>
  %1 = fuse.broadcast %r dims [1] (%n) : tensor<?xf32> -> tensor<?x?xf32>
  %2 = fuse.broadcast %r dims [0, 2] : tensor<?xf32> -> tensor<4x?x5xf32>
  %3 = fuse.broadcast %r dims [] : tensor<?xf32> -> tensor<?xf32>
  return
}

// A fused group with tensor and scalar operands.
// CHECK-LABEL: func.func @group
// CHECK: fuse.group reduce (%{{.+}}, %{{.+}}) : (tensor<?xf32>, f32) -> tensor<f32> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<?xf32>, %[[K:.+]]: f32):
// CHECK: fuse.reduce add
// CHECK: fuse.yield %{{.+}} : tensor<f32>
// CHECK: fuse.group elementwise (%{{.+}}) : (tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
func.func @group(%x: tensor<?xf32>, %k: f32) -> tensor<f32> {
  %s = fuse.group reduce (%x, %k) : (tensor<?xf32>, f32) -> tensor<f32> {
  ^bb0(%a: tensor<?xf32>, %kk: f32):
    %sq = fuse.map %a : tensor<?xf32> -> tensor<?xf32> {
    ^bb1(%e: f32):
      %m = arith.mulf %e, %kk : f32
      fuse.yield %m : f32
    }
    %r = fuse.reduce add %sq : tensor<?xf32> -> tensor<f32>
    fuse.yield %r : tensor<f32>
  }
  %p:2 = fuse.group elementwise (%x) : (tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  ^bb0(%a: tensor<?xf32>):
    fuse.yield %a, %a : tensor<?xf32>, tensor<?xf32>
  }
  return %s : tensor<f32>
}

// Sorts: keys alone, key-value pairs, unsigned integer keys, static sizes.
// The default order of integers (signed) is not printed.
// CHECK-LABEL: func.func @searchsorted
// CHECK: fuse.searchsorted left %{{.+}}, %{{.+}} : tensor<?xf32>, tensor<?x4xf32> -> tensor<?x4xi64>
// CHECK: fuse.searchsorted right unsigned %{{.+}}, %{{.+}} : tensor<5xi8>, tensor<7xi8> -> tensor<7xi64>
// CHECK: fuse.searchsorted left %{{.+}}, %{{.+}} : tensor<?xf64>, tensor<f64> -> tensor<i64>
func.func @searchsorted(%a: tensor<?xf32>, %v: tensor<?x4xf32>, %b: tensor<5xi8>, %w: tensor<7xi8>, %c: tensor<?xf64>, %s: tensor<f64>) {
  %0 = fuse.searchsorted left %a, %v : tensor<?xf32>, tensor<?x4xf32> -> tensor<?x4xi64>
  %1 = fuse.searchsorted right unsigned %b, %w : tensor<5xi8>, tensor<7xi8> -> tensor<7xi64>
  %2 = fuse.searchsorted left %c, %s : tensor<?xf64>, tensor<f64> -> tensor<i64>
  return
}

// Histograms: a static number of bins, a dynamic one (the `bins` operand),
// i32 counts, bin indices of any rank and integer width.
// CHECK-LABEL: func.func @histogram
// CHECK: fuse.histogram %{{.+}} : tensor<?xi64> -> tensor<256xi64>
// CHECK: fuse.histogram %{{.+}} bins(%{{.+}}) : tensor<?x4xi8> -> tensor<?xi32>
// CHECK: fuse.histogram %{{.+}} : tensor<7xi32> -> tensor<0xi64>
func.func @histogram(%x: tensor<?xi64>, %y: tensor<?x4xi8>, %z: tensor<7xi32>, %n: index) {
  %0 = fuse.histogram %x : tensor<?xi64> -> tensor<256xi64>
  %1 = fuse.histogram %y bins(%n) : tensor<?x4xi8> -> tensor<?xi32>
  %2 = fuse.histogram %z : tensor<7xi32> -> tensor<0xi64>
  return
}

// Segmented reductions: a built-in kind with i64 offsets, two kinds with
// inits and i32 offsets, a combiner region (argmax).
// CHECK-LABEL: func.func @segmented_reduce
// CHECK: fuse.segmented_reduce add %{{.+}} segments(%{{.+}}, %{{.+}} : tensor<?xi64>, tensor<?xi64>) : tensor<?xf32> -> tensor<?xf32>
// CHECK: fuse.segmented_reduce (min, max) %{{.+}}, %{{.+}} init(%{{.+}}, %{{.+}} : f32, i32) segments(%{{.+}}, %{{.+}} : tensor<8xi32>, tensor<8xi32>) : tensor<?xf32>, tensor<?xi32> -> tensor<8xf32>, tensor<8xi32>
// CHECK: fuse.segmented_reduce %{{.+}}, %{{.+}} init(%{{.+}}, %{{.+}} : f32, i64) segments(%{{.+}}, %{{.+}} : tensor<?xi64>, tensor<?xi64>) : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>, tensor<?xi64> {
// CHECK: fuse.yield %{{.+}}, %{{.+}} : f32, i64
func.func @segmented_reduce(%x: tensor<?xf32>, %y: tensor<?xi32>, %i: tensor<?xi64>,
                            %s: tensor<?xi64>, %e: tensor<?xi64>,
                            %s8: tensor<8xi32>, %e8: tensor<8xi32>) {
  %0 = fuse.segmented_reduce add %x segments(%s, %e : tensor<?xi64>, tensor<?xi64>)
      : tensor<?xf32> -> tensor<?xf32>
  %c = arith.constant 1.0 : f32
  %d = arith.constant 0 : i32
  %1:2 = fuse.segmented_reduce (min, max) %x, %y init(%c, %d : f32, i32)
      segments(%s8, %e8 : tensor<8xi32>, tensor<8xi32>)
      : tensor<?xf32>, tensor<?xi32> -> tensor<8xf32>, tensor<8xi32>
  %m = arith.constant 0xFF800000 : f32
  %k = arith.constant -1 : i64
  %2:2 = fuse.segmented_reduce %x, %i init(%m, %k : f32, i64)
      segments(%s, %e : tensor<?xi64>, tensor<?xi64>)
      : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>, tensor<?xi64> {
  ^bb0(%av: f32, %ai: i64, %bv: f32, %bi: i64):
    %gt = arith.cmpf ogt, %bv, %av : f32
    %v2 = arith.select %gt, %bv, %av : f32
    %i2 = arith.select %gt, %bi, %ai : i64
    fuse.yield %v2, %i2 : f32, i64
  }
  return
}

// CHECK-LABEL: func.func @sort
// CHECK: fuse.sort ascending %{{.+}} : tensor<?xf32> -> tensor<?xf32>
// CHECK: fuse.sort descending %{{.+}}, %{{.+}} : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>, tensor<?xi64>
// CHECK: fuse.sort ascending unsigned %{{.+}} : tensor<?xi32> -> tensor<?xi32>
// CHECK: fuse.sort descending %{{.+}} : tensor<8xi1> -> tensor<8xi1>
// CHECK: fuse.sort ascending positions %{{.+}} : tensor<?xf32> -> tensor<?xf32>, tensor<?xi64>
// CHECK: fuse.sort descending unsigned positions %{{.+}} : tensor<8xi32> -> tensor<8xi32>, tensor<8xi64>
func.func @sort(%k: tensor<?xf32>, %i: tensor<?xi64>, %u: tensor<?xi32>, %b: tensor<8xi1>, %w: tensor<8xi32>) {
  %0 = fuse.sort ascending %k : tensor<?xf32> -> tensor<?xf32>
  %1:2 = fuse.sort descending %k, %i : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>, tensor<?xi64>
  %2 = fuse.sort ascending unsigned %u : tensor<?xi32> -> tensor<?xi32>
  %3 = fuse.sort descending %b {integer_order = #fuse.integer_order<signed>} : tensor<8xi1> -> tensor<8xi1>
  %4:2 = fuse.sort ascending positions %k : tensor<?xf32> -> tensor<?xf32>, tensor<?xi64>
  %5:2 = fuse.sort descending unsigned %w {carry = #fuse.sort_carry<positions>} : tensor<8xi32> -> tensor<8xi32>, tensor<8xi64>
  return
}

// CHECK-LABEL: func.func @sort_comparator
// CHECK: fuse.sort descending %{{.+}}, %{{.+}} : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>, tensor<?xi64> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32):
// CHECK-NEXT: math.absf %[[A]]
// CHECK: fuse.yield %{{.+}} : i1
func.func @sort_comparator(%k: tensor<?xf32>, %i: tensor<?xi64>) {
  %0:2 = fuse.sort descending %k, %i : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>, tensor<?xi64> {
  ^bb0(%a: f32, %b: f32):
    %x = math.absf %a : f32
    %y = math.absf %b : f32
    %lt = arith.cmpf olt, %x, %y : f32
    fuse.yield %lt : i1
  }
  return
}
