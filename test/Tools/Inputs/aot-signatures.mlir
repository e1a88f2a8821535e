// Entries with scalar arguments, static shapes and sizes taken from index
// values, for the manifest tests (fuse-compile --emit=manifest).

func.func @scale(%x: tensor<?xf32>, %s: f32) -> tensor<?xf32> {
  %y = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %m = arith.mulf %a, %s : f32
    fuse.yield %m : f32
  }
  return %y : tensor<?xf32>
}

func.func @row_sums(%x: tensor<?x8xf64>) -> tensor<?xf64> {
  %r = fuse.reduce add %x dims [1] : tensor<?x8xf64> -> tensor<?xf64>
  return %r : tensor<?xf64>
}

func.func @evens(%n: index) -> tensor<?xi64> {
  %c2 = arith.constant 2 : index
  %m = arith.muli %n, %c2 : index
  %i = fuse.iota %m : tensor<?xi64>
  %y = fuse.map %i : tensor<?xi64> -> tensor<?xi64> {
  ^bb0(%a: i64):
    %d = arith.addi %a, %a : i64
    fuse.yield %d : i64
  }
  return %y : tensor<?xi64>
}

func.func @positives(%x: tensor<?xi32>) -> (tensor<?xi32>, tensor<i32>) {
  %zero = arith.constant 0 : i32
  %y = fuse.filter %x : tensor<?xi32> -> tensor<?xi32> {
  ^bb0(%a: i32):
    %p = arith.cmpi sgt, %a, %zero : i32
    fuse.yield %p : i1
  }
  %s = fuse.reduce add %x : tensor<?xi32> -> tensor<i32>
  return %y, %s : tensor<?xi32>, tensor<i32>
}
