// The reference lowering of every fuse op to scf loops over tensors.
// RUN: fuse-opt %s --convert-fuse-to-loops --cse --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @map
// CHECK-SAME: (%[[X:.+]]: tensor<?xf32>, %[[Y:.+]]: tensor<?xf32>)
// CHECK: %[[C0:.+]] = arith.constant 0 : index
// CHECK: %[[N:.+]] = tensor.dim %[[X]], %[[C0]]
// CHECK: %[[E:.+]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK: %[[C1:.+]] = arith.constant 1 : index
// CHECK: %[[R:.+]] = scf.for %[[I:[a-z0-9_]+]] = %[[C0]] to %[[N]] step %[[C1]] iter_args(%[[T:[a-z0-9_]+]] = %[[E]])
// CHECK-DAG: %[[A:.+]] = tensor.extract %[[X]][%[[I]]]
// CHECK-DAG: %[[B:.+]] = tensor.extract %[[Y]][%[[I]]]
// CHECK: %[[M:.+]] = arith.subf %[[A]], %[[B]] : f32
// CHECK: %[[T2:.+]] = tensor.insert %[[M]] into %[[T]][%[[I]]]
// CHECK: scf.yield %[[T2]]
// CHECK: return %[[R]]
// CHECK-NOT: fuse.
func.func @map(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %r = fuse.map %x, %y : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %m = arith.subf %a, %b : f32
    fuse.yield %m : f32
  }
  return %r : tensor<?xf32>
}

// -----

// Full reduction without init: the accumulator starts at the identity and
// takes acc (+) x in index order (row-major over both dims).
// CHECK-LABEL: func.func @reduce_full
// CHECK-SAME: (%[[X:.+]]: tensor<?x?xf32>)
// CHECK-DAG: %[[ID:.+]] = arith.constant 0x7F800000 : f32
// CHECK: %[[R:.+]] = scf.for %[[I:[a-z0-9_]+]] = {{.+}} iter_args(%[[ACC:[a-z0-9_]+]] = %[[ID]]) -> (f32)
// CHECK: scf.for %[[J:[a-z0-9_]+]] = {{.+}} iter_args(%[[ACC2:[a-z0-9_]+]] = %[[ACC]]) -> (f32)
// CHECK: %[[V:.+]] = tensor.extract %[[X]][%[[I]], %[[J]]]
// CHECK: arith.minimumf %[[ACC2]], %[[V]] : f32
// CHECK: tensor.insert %[[R]] into %{{.+}}[] : tensor<f32>
func.func @reduce_full(%x: tensor<?x?xf32>) -> tensor<f32> {
  %r = fuse.reduce min %x : tensor<?x?xf32> -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// Row reduction with an init: kept dim outside, reduced dim inside, the
// init restarts for every row.
// CHECK-LABEL: func.func @reduce_rows
// CHECK-SAME: (%[[X:.+]]: tensor<?x?xi32>, %[[INIT:.+]]: i32)
// CHECK: scf.for %[[I:[a-z0-9_]+]] = {{.+}} iter_args(%[[T:[a-z0-9_]+]] = %{{.+}}) -> (tensor<?xi32>)
// CHECK: %[[ACC:.+]] = scf.for %[[J:[a-z0-9_]+]] = {{.+}} iter_args(%[[A:[a-z0-9_]+]] = %[[INIT]]) -> (i32)
// CHECK: %[[V:.+]] = tensor.extract %[[X]][%[[I]], %[[J]]]
// CHECK: arith.maxsi %[[A]], %[[V]] : i32
// CHECK: tensor.insert %[[ACC]] into %[[T]][%[[I]]]
func.func @reduce_rows(%x: tensor<?x?xi32>, %init: i32) -> tensor<?xi32> {
  %r = fuse.reduce max %x init(%init : i32) dims [1] : tensor<?x?xi32> -> tensor<?xi32>
  return %r : tensor<?xi32>
}

// -----

// Column reduction: the kept dim (1) is the outer loop and indexes dim 1.
// CHECK-LABEL: func.func @reduce_cols
// CHECK-SAME: (%[[X:.+]]: tensor<?x?xf32>)
// CHECK: scf.for %[[J:[a-z0-9_]+]] = {{.+}} -> (tensor<?xf32>)
// CHECK: scf.for %[[I:[a-z0-9_]+]] = {{.+}} -> (f32)
// CHECK: tensor.extract %[[X]][%[[I]], %[[J]]]
func.func @reduce_cols(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %r = fuse.reduce add %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// A custom combiner is inlined with (acc..., x...) in that order. Over
// floats it is blocked (combiners are associative, see Accumulate.h): each
// chunk of 1024 elements starts from its first element and is combined
// into the running value, which starts at the init.
// CHECK-LABEL: func.func @reduce_custom
// CHECK-SAME: (%[[X:.+]]: tensor<?xf32>, %[[INIT:.+]]: f32)
// CHECK-DAG: %[[B:.+]] = arith.constant 1024 : index
// CHECK: scf.for %[[C:[a-z0-9_]+]] = %{{.+}} to %[[N:.+]] step %[[B]] iter_args(%[[A:[a-z0-9_]+]] = %[[INIT]]) -> (f32)
// CHECK: %[[F:.+]] = tensor.extract %[[X]][%[[C]]]
// CHECK: %[[END:.+]] = arith.addi %[[C]], %[[B]]
// CHECK: %[[HI:.+]] = arith.minui %[[END]], %[[N]]
// CHECK: %[[LO:.+]] = arith.addi %[[C]], %{{.+}}
// CHECK: %[[CH:.+]] = scf.for %[[I:[a-z0-9_]+]] = %[[LO]] to %[[HI]] step %{{.+}} iter_args(%[[P:[a-z0-9_]+]] = %[[F]]) -> (f32)
// CHECK: %[[V:.+]] = tensor.extract %[[X]][%[[I]]]
// CHECK: %[[D:.+]] = arith.subf %[[P]], %[[V]] : f32
// CHECK: scf.yield %[[D]] : f32
// CHECK: %[[R:.+]] = arith.subf %[[A]], %[[CH]] : f32
// CHECK: scf.yield %[[R]] : f32
func.func @reduce_custom(%x: tensor<?xf32>, %init: f32) -> tensor<f32> {
  %r = fuse.reduce %x init(%init : f32) : tensor<?xf32> -> tensor<f32> {
  ^bb0(%acc: f32, %e: f32):
    %d = arith.subf %acc, %e : f32
    fuse.yield %d : f32
  }
  return %r : tensor<f32>
}

// -----

// Inclusive scan stores the new accumulator.
// CHECK-LABEL: func.func @scan_inclusive
// CHECK-SAME: (%[[X:.+]]: tensor<?xi32>)
// CHECK-DAG: %[[Z:.+]] = arith.constant 0 : i32
// CHECK: scf.for %[[I:[a-z0-9_]+]] = {{.+}} iter_args(%[[A:[a-z0-9_]+]] = %[[Z]], %[[T:[a-z0-9_]+]] = %{{.+}}) -> (i32, tensor<?xi32>)
// CHECK: %[[V:.+]] = tensor.extract %[[X]][%[[I]]]
// CHECK: %[[S:.+]] = arith.addi %[[A]], %[[V]] : i32
// CHECK: %[[T2:.+]] = tensor.insert %[[S]] into %[[T]][%[[I]]]
// CHECK: scf.yield %[[S]], %[[T2]]
func.func @scan_inclusive(%x: tensor<?xi32>) -> tensor<?xi32> {
  %r = fuse.scan inclusive add %x : tensor<?xi32> -> tensor<?xi32>
  return %r : tensor<?xi32>
}

// -----

// Exclusive scan along dim 0 stores the accumulator before the element;
// the scanned dim is the inner loop and the other dim the outer one.
// CHECK-LABEL: func.func @scan_exclusive_dim0
// CHECK-SAME: (%[[X:.+]]: tensor<?x?xi32>, %[[INIT:.+]]: i32)
// CHECK: scf.for %[[J:[a-z0-9_]+]] = {{.+}} -> (tensor<?x?xi32>)
// CHECK: scf.for %[[I:[a-z0-9_]+]] = {{.+}} iter_args(%[[A:[a-z0-9_]+]] = %[[INIT]], %[[T:[a-z0-9_]+]] = %{{.+}}) -> (i32, tensor<?x?xi32>)
// CHECK: %[[V:.+]] = tensor.extract %[[X]][%[[I]], %[[J]]]
// CHECK: %[[S:.+]] = arith.muli %[[A]], %[[V]] : i32
// CHECK: %[[T2:.+]] = tensor.insert %[[A]] into %[[T]][%[[I]], %[[J]]]
// CHECK: scf.yield %[[S]], %[[T2]]
func.func @scan_exclusive_dim0(%x: tensor<?x?xi32>, %init: i32) -> tensor<?x?xi32> {
  %r = fuse.scan exclusive mul %x init(%init : i32) dim 0 : tensor<?x?xi32> -> tensor<?x?xi32>
  return %r : tensor<?x?xi32>
}

// -----

// A float32 add scan carries its running prefix in f64 and rounds each
// output; the init is widened first.
// CHECK-LABEL: func.func @scan_f32_wide
// CHECK-SAME: (%[[X:.+]]: tensor<?xf32>, %[[INIT:.+]]: f32)
// CHECK: %[[W:.+]] = arith.extf %[[INIT]] : f32 to f64
// CHECK: scf.for %[[I:[a-z0-9_]+]] = {{.+}} iter_args(%[[A:[a-z0-9_]+]] = %[[W]], %[[T:[a-z0-9_]+]] = %{{.+}}) -> (f64, tensor<?xf32>)
// CHECK: %[[V:.+]] = tensor.extract %[[X]][%[[I]]]
// CHECK: %[[VW:.+]] = arith.extf %[[V]] : f32 to f64
// CHECK: %[[S:.+]] = arith.addf %[[A]], %[[VW]] : f64
// CHECK: %[[N:.+]] = arith.truncf %[[S]] : f64 to f32
// CHECK: %[[T2:.+]] = tensor.insert %[[N]] into %[[T]][%[[I]]]
// CHECK: scf.yield %[[S]], %[[T2]]
func.func @scan_f32_wide(%x: tensor<?xf32>, %init: f32) -> tensor<?xf32> {
  %r = fuse.scan inclusive add %x init(%init : f32) : tensor<?xf32> -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Filter: a counter, scf.if on the predicate, a slice of the count.
// CHECK-LABEL: func.func @filter
// CHECK-SAME: (%[[X:.+]]: tensor<?xf32>)
// CHECK: %[[C0:.+]] = arith.constant 0 : index
// CHECK: %[[N:.+]] = tensor.dim %[[X]], %[[C0]]
// CHECK: %[[C1:.+]] = arith.constant 1 : index
// CHECK: %[[R:.+]]:2 = scf.for %[[I:[a-z0-9_]+]] = %[[C0]] to %[[N]] step %[[C1]] iter_args(%[[K:[a-z0-9_]+]] = %[[C0]], %[[T:[a-z0-9_]+]] = %{{.+}}) -> (index, tensor<?xf32>)
// CHECK: %[[V:.+]] = tensor.extract %[[X]][%[[I]]]
// CHECK: %[[P:.+]] = arith.cmpf ogt, %[[V]]
// CHECK: scf.if %[[P]] -> (index, tensor<?xf32>)
// CHECK: %[[K1:.+]] = arith.addi %[[K]], %[[C1]]
// CHECK: %[[T1:.+]] = tensor.insert %[[V]] into %[[T]][%[[K]]]
// CHECK: scf.yield %[[K1]], %[[T1]]
// CHECK: } else {
// CHECK: scf.yield %[[K]], %[[T]]
// CHECK: tensor.extract_slice %[[R]]#1[0] [%[[R]]#0] [1] : tensor<?xf32> to tensor<?xf32>
func.func @filter(%x: tensor<?xf32>) -> tensor<?xf32> {
  %z = arith.constant 0.0 : f32
  %r = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.cmpf ogt, %a, %z : f32
    fuse.yield %p : i1
  }
  return %r : tensor<?xf32>
}

// -----

// Iota along dim 1 of a 2-d result, converted to f32 through i64.
// CHECK-LABEL: func.func @iota
// CHECK-SAME: (%[[N:.+]]: index)
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : index
// CHECK: tensor.empty(%[[N]]) : tensor<3x?xf32>
// CHECK: scf.for %[[I:[a-z0-9_]+]] = %{{.+}} to %[[C3]]
// CHECK: scf.for %[[J:[a-z0-9_]+]] = %{{.+}} to %[[N]]
// CHECK: %[[J64:.+]] = arith.index_cast %[[J]] : index to i64
// CHECK: %[[F:.+]] = arith.sitofp %[[J64]] : i64 to f32
// CHECK: tensor.insert %[[F]] into %{{.+}}[%[[I]], %[[J]]]
func.func @iota(%n: index) -> tensor<3x?xf32> {
  %r = fuse.iota %n dim 1 : tensor<3x?xf32>
  return %r : tensor<3x?xf32>
}

// -----

// Gather: an i32 index is sign-extended, bounds-checked against [0, n),
// and reads zero outside.
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[S:.+]]: tensor<?xf32>, %[[IDX:.+]]: tensor<?xi32>)
// CHECK: %[[N:.+]] = tensor.dim %[[S]]
// CHECK: %[[N64:.+]] = arith.index_cast %[[N]] : index to i64
// CHECK-DAG: %[[Z64:.+]] = arith.constant 0 : i64
// CHECK-DAG: %[[ZF:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: scf.for %[[I:[a-z0-9_]+]] =
// CHECK: %[[RAW:.+]] = tensor.extract %[[IDX]][%[[I]]]
// CHECK: %[[W:.+]] = arith.extsi %[[RAW]] : i32 to i64
// CHECK: %[[GE:.+]] = arith.cmpi sge, %[[W]], %[[Z64]]
// CHECK: %[[LT:.+]] = arith.cmpi slt, %[[W]], %[[N64]]
// CHECK: %[[OK:.+]] = arith.andi %[[GE]], %[[LT]]
// CHECK: scf.if %[[OK]] -> (f32)
// CHECK: %[[II:.+]] = arith.index_cast %[[W]] : i64 to index
// CHECK: %[[V:.+]] = tensor.extract %[[S]][%[[II]]]
// CHECK: scf.yield %[[V]]
// CHECK: } else {
// CHECK: scf.yield %[[ZF]]
func.func @gather(%s: tensor<?xf32>, %idx: tensor<?xi32>) -> tensor<?xf32> {
  %r = fuse.gather %s[%idx] : tensor<?xf32>, tensor<?xi32> -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Broadcast of a column vector along dim 1: the added dim's size comes
// from the operand, the kept one from the input; reads skip the added dim.
// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: (%[[X:.+]]: tensor<?xf32>, %[[M:.+]]: index)
// CHECK: %[[N:.+]] = tensor.dim %[[X]]
// CHECK: tensor.empty(%[[N]], %[[M]]) : tensor<?x?xf32>
// CHECK: scf.for %[[I:[a-z0-9_]+]] = %{{.+}} to %[[N]]
// CHECK: scf.for %[[J:[a-z0-9_]+]] = %{{.+}} to %[[M]]
// CHECK: %[[V:.+]] = tensor.extract %[[X]][%[[I]]]
// CHECK: tensor.insert %[[V]] into %{{.+}}[%[[I]], %[[J]]]
func.func @broadcast(%x: tensor<?xf32>, %m: index) -> tensor<?x?xf32> {
  %r = fuse.broadcast %x dims [1] (%m) : tensor<?xf32> -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
