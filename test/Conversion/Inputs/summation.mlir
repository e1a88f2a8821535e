// Float32 sums that a sequential float32 loop gets wrong by ~1% (terms of
// 0.1 over 10^6 elements); see cpu-summation-accuracy.test.

// A full reduction over rank 1, after a map (fused: one "reduce" group).
func.func @sum(%x: tensor<?xf32>) -> tensor<f32> {
  %m = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %n = arith.negf %a : f32
    fuse.yield %n : f32
  }
  %s = fuse.reduce add %m : tensor<?xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// A full reduction over rank 2 with an init (applied first), and a
// sibling max (not blocked on its own, blocked with its sibling).
func.func @sum2d(%x: tensor<?x?xf32>) -> (tensor<f32>, tensor<f32>) {
  %init = arith.constant 1.0e+03 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %m = fuse.map %x : tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32):
    %n = arith.negf %a : f32
    fuse.yield %n : f32
  }
  %s, %mx = fuse.reduce (add, max) %m, %m init(%init, %ninf : f32, f32)
      : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<f32>, tensor<f32>
  return %s, %mx : tensor<f32>, tensor<f32>
}

// One sum per row.
func.func @rows(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %m = fuse.map %x : tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32):
    %n = arith.negf %a : f32
    fuse.yield %n : f32
  }
  %s = fuse.reduce add %m dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %s : tensor<?xf32>
}

// A combiner region (a user-written add) is blocked too.
func.func @custom(%x: tensor<?xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %s = fuse.reduce %x init(%zero : f32) : tensor<?xf32> -> tensor<f32> {
  ^bb0(%acc: f32, %e: f32):
    %t = arith.addf %acc, %e : f32
    fuse.yield %t : f32
  }
  return %s : tensor<f32>
}

// Scans carry the running prefix in f64 and round each output.
func.func @scan(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %m = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %n = arith.negf %a : f32
    fuse.yield %n : f32
  }
  %i = fuse.scan inclusive add %m : tensor<?xf32> -> tensor<?xf32>
  %e = fuse.scan exclusive add %m : tensor<?xf32> -> tensor<?xf32>
  return %i, %e : tensor<?xf32>, tensor<?xf32>
}
