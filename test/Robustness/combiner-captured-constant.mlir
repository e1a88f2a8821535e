// REQUIRES: cuda-toolkit
// A combiner region that uses a constant defined above it (written so, or
// hoisted there by canonicalization, which the fusing pipelines run
// first): the GPU kernels emit the combiner in several nested regions, and
// the constant, emitted once and reused, did not dominate every use
// ("operand #1 does not dominate this use"; found by fuse-fuzz on a
// Welford combiner). Each use now gets the constant where it is.
// RUN: fuse-compile %s --emit=ptx -o %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: fuse-run %s --entry capped_max --arg rand:1000 --print | FileCheck %s --check-prefix=CPU
// CPU: result #0: int64 array of shape ()
// CPU-NEXT: 7
func.func @capped_max(%x: tensor<?xf32>) -> tensor<i64> {
  %z = arith.constant 0 : i64
  %k = arith.constant 7 : i64
  %i = fuse.map %x : tensor<?xf32> -> tensor<?xi64> {
  ^bb0(%a: f32):
    %c = arith.constant 100.0 : f32
    %s = arith.mulf %a, %c : f32
    %v = arith.fptosi %s : f32 to i64
    fuse.yield %v : i64
  }
  %s = fuse.reduce %i init(%z : i64) : tensor<?xi64> -> tensor<i64> {
  ^bb0(%a: i64, %b: i64):
    %m = arith.maxsi %a, %b : i64
    %q = arith.minsi %m, %k : i64
    fuse.yield %q : i64
  }
  return %s : tensor<i64>
}

func.func @welford_like(%x: tensor<?xf32>) -> (tensor<i64>, tensor<f32>) {
  %t:2 = fuse.map %x : tensor<?xf32> -> tensor<?xi64>, tensor<?xf32> {
  ^bb0(%e: f32):
    %one = arith.constant 1 : i64
    fuse.yield %one, %e : i64, f32
  }
  %c0 = arith.constant 0 : i64
  %f0 = arith.constant 0.0 : f32
  %w:2 = fuse.reduce %t#0, %t#1 init(%c0, %f0 : i64, f32) : tensor<?xi64>, tensor<?xf32> -> tensor<i64>, tensor<f32> {
  ^bb0(%na: i64, %ma: f32, %nb: i64, %mb: f32):
    %n = arith.addi %na, %nb : i64
    %z = arith.constant 0 : i64
    %e = arith.cmpi eq, %n, %z : i64
    %one = arith.constant 1.0 : f32
    %nf = arith.sitofp %n : i64 to f32
    %d = arith.select %e, %one, %nf : f32
    %nbf = arith.sitofp %nb : i64 to f32
    %r = arith.divf %nbf, %d : f32
    %diff = arith.subf %mb, %ma : f32
    %inc = arith.mulf %diff, %r : f32
    %m = arith.addf %ma, %inc : f32
    fuse.yield %n, %m : i64, f32
  }
  return %w#0, %w#1 : tensor<i64>, tensor<f32>
}
