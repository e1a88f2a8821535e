// Rank > 2 row computations become rank-2 row computations over the
// collapsed rows, so fusion makes softmax over the last axis of a rank-3
// array one pass (3 without the pass: the maximum, the sum of exp(x - max)
// with the exponentials as line_reduce groups, and the division); the
// reshapes left are views of the arguments and results.
// RUN: fuse-opt %s --fuse-collapse-rows --cse | FileCheck %s
// RUN: fuse-opt %s --fuse-collapse-rows | FileCheck %s --check-prefix=NOCSE
// RUN: fuse-opt %s --fuse-collapse-rows --cse --fuse-fusion --fuse-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: fuse-opt %s --fuse-fusion --fuse-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: fuse-opt %s --fuse-collapse-rows --cse --fuse-fusion --convert-fuse-to-gpu | FileCheck %s --check-prefix=GPU
//
// The GPU entry takes the views: the result is the caller's rank-3
// buffer, its sizes the argument's.
// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-compile %s --emit=shared -o %t/rows
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/rows.json
// MANIFEST: "name": "softmax3"
// MANIFEST: "results": [
// MANIFEST-NEXT: "rank":3,"shape":[null,null,null],"size":["in0_d0","in0_d1","in0_d2"]
//
// Same results as the rank-3 loops (static shapes: the CPU pipeline keeps
// rank > 2 rows, and MLIR's expand-strided-metadata takes only one
// dynamic size in each expanded group).
// RUN: fuse-opt %S/Inputs/static-rows.mlir --fuse-collapse-rows --cse | FileCheck %S/Inputs/static-rows.mlir --check-prefix=STATIC
// RUN: fuse-opt %S/Inputs/static-rows.mlir --fuse-collapse-rows -o %t/collapsed.mlir
// RUN: fuse-run %t/collapsed.mlir --entry static_ln --arg rand:3x4x129 --arg rand:129 --out %t/a
// RUN: fuse-run %S/Inputs/static-rows.mlir --entry static_ln --arg rand:3x4x129 --arg rand:129 --no-fusion --out %t/b
// RUN: %python -c "import numpy as n, sys; a, b = (n.load(sys.argv[i] + '/result0.npy') for i in (1, 2)); assert a.shape == (3, 4, 129) and (a == b).all(), abs(a - b).max()" %t/a %t/b

// EXPLAIN: total for @softmax3: 1 pass, 1 kernel
// EXPLAIN: total for @broadcast_alone: 1 pass, 1 kernel, read 4*n*m*k + 4*k bytes, write 12*n*m*k bytes
// EXPLAIN: total for @two_arguments: 1 pass, 1 kernel
// EXPLAIN: group "row_reduce": read 4*n*m*k bytes, write 4*n*m*k + 4*n*m bytes, 1 pass
// EXPLAIN: total for @rows_and_sums: 2 passes, 2 kernels
// EXPLAIN: total for @sumsq3: 1 pass, 1 kernel, read 4*n*m*k bytes, write 4*n*m bytes; where n = dim 0 of argument #0; m = dim 1 of argument #0; k = dim 2 of argument #0{{$}}
// EXPLAIN: total for @masked_softmax3: 1 pass, 1 kernel
// BEFORE: total for @softmax3: 3 passes, 3 kernels

// CHECK-LABEL: func.func @softmax3
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x?xf32>)
// CHECK: %[[D2:.*]] = tensor.dim %[[X]], %c2
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<?x?x?xf32> into tensor<?x?xf32>
// CHECK: %[[M:.*]] = fuse.reduce max %[[C]] dims [1] : tensor<?x?xf32> -> tensor<?xf32>
// CHECK: %[[MB:.*]] = fuse.broadcast %[[M]] dims [1] (%[[D2]]) : tensor<?xf32> -> tensor<?x?xf32>
// CHECK: %[[E:.*]] = fuse.map %[[C]], %[[MB]] : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
// CHECK: %[[D0:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[D1:.*]] = tensor.dim %[[X]], %c1
// CHECK: %[[S:.*]] = fuse.reduce add %[[E]] dims [1]
// CHECK: %[[SB:.*]] = fuse.broadcast %[[S]] dims [1] (%[[D2]])
// CHECK: %[[Y:.*]] = fuse.map %[[E]], %[[SB]]
// CHECK: %[[R:.*]] = tensor.expand_shape %[[Y]] {{\[}}[0, 1], [2]] output_shape [%[[D0]], %[[D1]], %[[D2]]] : tensor<?x?xf32> into tensor<?x?x?xf32>
// CHECK: return %[[R]]
func.func @softmax3(%x: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c2 = arith.constant 2 : index
  %cols = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %max = fuse.reduce max %x dims [2] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %maxb = fuse.broadcast %max dims [2] (%cols) : tensor<?x?xf32> -> tensor<?x?x?xf32>
  %e = fuse.map %x, %maxb : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32> {
  ^bb0(%a: f32, %m: f32):
    %d = arith.subf %a, %m : f32
    %ex = math.exp %d : f32
    fuse.yield %ex : f32
  }
  %sum = fuse.reduce add %e dims [2] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %sumb = fuse.broadcast %sum dims [2] (%cols) : tensor<?x?xf32> -> tensor<?x?x?xf32>
  %y = fuse.map %e, %sumb : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32> {
  ^bb0(%a: f32, %s: f32):
    %q = arith.divf %a, %s : f32
    fuse.yield %q : f32
  }
  return %y : tensor<?x?x?xf32>
}

// A rank-4 row sum keeps its per-row result's shape through the expand.
// CHECK-LABEL: func.func @rank4
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3]] : tensor<?x?x?x?xf32> into tensor<?x?xf32>
// CHECK: fuse.reduce add %{{.*}} dims [1] : tensor<?x?xf32> -> tensor<?xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1, 2]] output_shape
// CHECK-SAME: : tensor<?xf32> into tensor<?x?x?xf32>
func.func @rank4(%x: tensor<?x?x?x?xf32>) -> tensor<?x?x?xf32> {
  %s = fuse.reduce add %x dims [3] : tensor<?x?x?x?xf32> -> tensor<?x?x?xf32>
  return %s : tensor<?x?x?xf32>
}

// Left alone: reductions over other dimensions, broadcasts of one value
// per batch (not per row or per column), rank-2 rows, elementwise rank-3
// maps that touch no row op.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT: collapse_shape
// CHECK-NOT: expand_shape
// CHECK: return
func.func @untouched(%x: tensor<?x?x?xf32>, %v: tensor<?xf32>, %m: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d1 = tensor.dim %x, %c1 : tensor<?x?x?xf32>
  %d2 = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %a = fuse.reduce add %x dims [1] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %vb = fuse.broadcast %v dims [1, 2] (%d1, %d2) : tensor<?xf32> -> tensor<?x?x?xf32>
  %y = fuse.map %x, %vb : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32> {
  ^bb0(%p: f32, %q: f32):
    %s = arith.addf %p, %q : f32
    fuse.yield %s : f32
  }
  %r = fuse.reduce add %m dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %a, %y, %r : tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?xf32>
}

// A broadcast along the rows with no row reduction to collapse (x + v
// over the last axis): nothing gains from rank 2, and collapsed the map
// would meet the rank-3 ops it feeds through reshapes that fusion does
// not cross (a kernel and a tensor's round trip more).
// CHECK-LABEL: func.func @broadcast_alone
// CHECK-NOT: collapse_shape
// CHECK-NOT: expand_shape
// CHECK: return
// (EXPLAIN above: one kernel, x and v read once.)
func.func @broadcast_alone(%x: tensor<?x?x?xi32>, %v: tensor<?xf32>) -> (tensor<?x?x?xf64>, tensor<?x?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?x?xi32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?x?xi32>
  %vb = fuse.broadcast %v dims [0, 1] (%d0, %d1) : tensor<?xf32> -> tensor<?x?x?xf32>
  %y = fuse.map %vb, %x : tensor<?x?x?xf32>, tensor<?x?x?xi32> -> tensor<?x?x?xf32> {
  ^bb0(%p: f32, %q: i32):
    %f = arith.sitofp %q : i32 to f32
    %s = arith.addf %f, %p : f32
    fuse.yield %s : f32
  }
  %z = fuse.map %y : tensor<?x?x?xf32> -> tensor<?x?x?xf64> {
  ^bb0(%p: f32):
    %e = arith.extf %p : f32 to f64
    fuse.yield %e : f64
  }
  return %z, %y : tensor<?x?x?xf64>, tensor<?x?x?xf32>
}

// x - max(x, axis=-1) + y with y another rank-3 argument: collapsed, x's
// and y's leading dimensions meet only as products (d0 * d1), which the
// entry's size checks cannot relate to the arguments, so x's (2, 3, C)
// against y's (3, 2, C) would go unchecked. The checks the collapsed rows
// lose are recorded on the function; the entry made from it checks them
// (GPU below).
// CHECK-LABEL: func.func @two_arguments
// CHECK-SAME: fuse.size_checks = [#fuse.size_check<kind = equal, lhs = <source = arg_dim, value = 1>, rhs = <source = arg_dim>>, #fuse.size_check<kind = equal, lhs = <source = arg_dim, value = 1, dim = 1>, rhs = <source = arg_dim, dim = 1>>]
// CHECK: fuse.reduce max %{{.+}} dims [1] : tensor<?x?xf32> -> tensor<?xf32>
// CHECK: return
// GPU-DAG: @__fuse_msg_two_arguments_{{[0-9]+}}("two_arguments: size mismatch: in1 dimension 0 is %lld but in0 dimension 0 is %lld;
// GPU-DAG: @__fuse_msg_two_arguments_{{[0-9]+}}("two_arguments: size mismatch: in1 dimension 1 is %lld but in0 dimension 1 is %lld;
// GPU-DAG: @__fuse_msg_two_arguments_{{[0-9]+}}("two_arguments: size mismatch: in1 dimension 2 is %lld but in0 dimension 2 is %lld;
func.func @two_arguments(%x: tensor<?x?x?xf32>, %y: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?x?xf32>
  %d2 = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %m = fuse.reduce max %x dims [2] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %b = fuse.broadcast %m dims [2] (%d2) : tensor<?x?xf32> -> tensor<?x?x?xf32>
  %z = fuse.map %x, %b, %y : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32> {
  ^bb0(%a: f32, %mb: f32, %c: f32):
    %s = arith.subf %a, %mb : f32
    %t = arith.addf %s, %c : f32
    fuse.yield %t : f32
  }
  return %z : tensor<?x?x?xf32>
}

// Row sums of x feed both a row epilogue over x and a reduction of their
// own: the sums' expand back to rank 2 moves down to that reduction, so the
// epilogue joins the row group (x read once, not once for the sums and
// again for the map), and both maps of x read one view of it.
// NOCSE-LABEL: func.func @rows_and_sums
// NOCSE: tensor.collapse_shape %arg0
// NOCSE-NOT: tensor.collapse_shape
// NOCSE: return
func.func @rows_and_sums(%x: tensor<?x?x?xf32>) -> (tensor<?x?x?xf32>, tensor<?xf32>) {
  %c2 = arith.constant 2 : index
  %d2 = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %s = fuse.reduce add %x dims [2] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %b = fuse.broadcast %s dims [2] (%d2) : tensor<?x?xf32> -> tensor<?x?x?xf32>
  %y = fuse.map %b, %x : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32> {
  ^bb0(%a: f32, %v: f32):
    %r = arith.addf %a, %v : f32
    fuse.yield %r : f32
  }
  %t = fuse.reduce max %s dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %y, %t : tensor<?x?x?xf32>, tensor<?xf32>
}

// A prologue map (x * x of a sum of squares over the last axis) is
// collapsed with the reduction it feeds, so the two are one pass; left at
// rank 3 it was a pass of its own that wrote x * x.
// CHECK-LABEL: func.func @sumsq3
// CHECK: %[[C:.+]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]]
// CHECK: %[[M:.+]] = fuse.map %[[C]] : tensor<?x?xf32> -> tensor<?x?xf32>
// CHECK: fuse.reduce add %[[M]] dims [1] : tensor<?x?xf32> -> tensor<?xf32>
func.func @sumsq3(%x: tensor<?x?x?xf32>) -> tensor<?x?xf32> {
  %m = fuse.map %x : tensor<?x?x?xf32> -> tensor<?x?x?xf32> {
  ^bb0(%a: f32):
    %r = arith.mulf %a, %a : f32
    fuse.yield %r : f32
  }
  %s = fuse.reduce add %m dims [2] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}

// A causal mask from iotas (keep column j of row i where j <= i, over
// heads x rows x columns) before a softmax: the iotas become ops of the
// collapsed shape, the last-axis one an iota of it, the row one
// (r mod rows) of the collapsed row index r, and the whole is one pass.
// CHECK-LABEL: func.func @masked_softmax3
// CHECK: %[[R:.+]] = fuse.iota %{{.+}}, %{{.+}} : tensor<?x?xi64>
// CHECK: fuse.map %[[R]] : tensor<?x?xi64> -> tensor<?x?xi32>
// CHECK: arith.remui
// CHECK: arith.trunci
// CHECK: fuse.iota %{{.+}}, %{{.+}} dim 1 : tensor<?x?xi32>
func.func @masked_softmax3(%x: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?x?xf32>
  %d2 = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %i = fuse.iota %d0, %d1, %d2 dim 1 : tensor<?x?x?xi32>
  %j = fuse.iota %d0, %d1, %d2 dim 2 : tensor<?x?x?xi32>
  %ninf = arith.constant 0xFF800000 : f32
  %xm = fuse.map %x, %i, %j : tensor<?x?x?xf32>, tensor<?x?x?xi32>, tensor<?x?x?xi32> -> tensor<?x?x?xf32> {
  ^bb0(%a: f32, %r: i32, %c: i32):
    %keep = arith.cmpi sle, %c, %r : i32
    %v = arith.select %keep, %a, %ninf : f32
    fuse.yield %v : f32
  }
  %m = fuse.reduce max %xm dims [2] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %mb = fuse.broadcast %m dims [2] (%d2) : tensor<?x?xf32> -> tensor<?x?x?xf32>
  %e = fuse.map %xm, %mb : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32> {
  ^bb0(%a: f32, %b: f32):
    %d = arith.subf %a, %b : f32
    %ex = math.exp %d : f32
    fuse.yield %ex : f32
  }
  %s = fuse.reduce add %e dims [2] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %sb = fuse.broadcast %s dims [2] (%d2) : tensor<?x?xf32> -> tensor<?x?x?xf32>
  %y = fuse.map %e, %sb : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32> {
  ^bb0(%a: f32, %b: f32):
    %q = arith.divf %a, %b : f32
    fuse.yield %q : f32
  }
  return %y : tensor<?x?x?xf32>
}
