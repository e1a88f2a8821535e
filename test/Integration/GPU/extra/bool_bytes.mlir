// ARGS: rand:4099 rand:4099 rand:37x129
// RULE: exact
// i1 tensors at every kind of group boundary, as bytes (fuse-bool-bytes):
// an i1 argument read by a map, an i1 result of a map, a scan of i1 whose
// result a filter compacts (group to group, and a filter result with its
// count), full and row reductions of i1 (or, add = parity, signed max =
// and: reduced as bytes with the kinds that give the same bits), and
// a column count of an i1 matrix (the line kernel reading the argument),
// and the first true of the argument through a combiner region (the
// ordered reduce kernels, the region's i1 accumulator as a byte).
func.func @bool_bytes(%m: tensor<?xi1>, %x: tensor<?xf32>, %r: tensor<?x?xi1>)
    -> (tensor<?xf32>, tensor<?xi1>, tensor<?xi1>, tensor<i1>, tensor<i1>, tensor<?xi1>, tensor<?xi1>, tensor<?xi32>, tensor<i1>, tensor<i64>) {
  %y = fuse.map %m, %x : tensor<?xi1>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: i1, %b: f32):
    %z = arith.constant 0.0 : f32
    %s = arith.select %a, %b, %z : f32
    fuse.yield %s : f32
  }
  %c = fuse.map %x : tensor<?xf32> -> tensor<?xi1> {
  ^bb0(%b: f32):
    %z = arith.constant 0.0 : f32
    %p = arith.cmpf ogt, %b, %z : f32
    fuse.yield %p : i1
  }
  %s = fuse.scan inclusive xor %c : tensor<?xi1> -> tensor<?xi1>
  %k:2 = fuse.filter %s, %m : tensor<?xi1>, tensor<?xi1> -> tensor<?xi1>, tensor<?xi1> {
  ^bb0(%a: i1, %b: i1):
    %e = arith.xori %a, %b : i1
    fuse.yield %e : i1
  }
  %any:2 = fuse.reduce (or, add) %c, %c : tensor<?xi1>, tensor<?xi1> -> tensor<i1>, tensor<i1>
  %rows:2 = fuse.reduce (add, max) %r, %r dims [1] : tensor<?x?xi1>, tensor<?x?xi1> -> tensor<?xi1>, tensor<?xi1>
  %w = fuse.map %r : tensor<?x?xi1> -> tensor<?x?xi32> {
  ^bb0(%a: i1):
    %e = arith.extui %a : i1 to i32
    fuse.yield %e : i32
  }
  %cnt = fuse.reduce add %w dims [0] : tensor<?x?xi32> -> tensor<?xi32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %m, %c0 : tensor<?xi1>
  %idx = fuse.iota %n : tensor<?xi64>
  %f = arith.constant false
  %none = arith.constant -1 : i64
  %first:2 = fuse.reduce %m, %idx init(%f, %none : i1, i64) : tensor<?xi1>, tensor<?xi64> -> tensor<i1>, tensor<i64> {
  ^bb0(%av: i1, %ai: i64, %bv: i1, %bi: i64):
    %gt = arith.cmpi ugt, %bv, %av : i1
    %v = arith.select %gt, %bv, %av : i1
    %j = arith.select %gt, %bi, %ai : i64
    fuse.yield %v, %j : i1, i64
  }
  return %y, %c, %k#0, %any#0, %any#1, %rows#0, %rows#1, %cnt, %first#0, %first#1 : tensor<?xf32>, tensor<?xi1>, tensor<?xi1>, tensor<i1>, tensor<i1>, tensor<?xi1>, tensor<?xi1>, tensor<?xi32>, tensor<i1>, tensor<i64>
}
