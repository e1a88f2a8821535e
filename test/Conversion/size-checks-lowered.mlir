// A function's recorded size checks (fuse.size_checks) name its tensor
// arguments; convert-fuse-to-loops drops them once the fuse ops are loops,
// since bufferization makes those arguments memrefs and the checks would
// no longer verify (fuse-fuzz found the CPU pipeline leaving such IR).
// The GPU pipeline replaces the function by its host entry.
// RUN: fuse-opt %s --fuse-to-cpu --verify-each | FileCheck %s
// CHECK-NOT: fuse.size_checks
// RUN: fuse-compile %s --emit=ptx -o /dev/null
func.func @f(%x: tensor<?x?x?xf32>, %y: tensor<?x?x?xf32>, %n: index) -> tensor<?x?x?xf32> attributes {fuse.size_checks = [
    #fuse.size_check<kind = equal, lhs = #fuse.size<source = arg_dim, value = 1, dim = 0>, rhs = #fuse.size<source = arg_dim, value = 0, dim = 0>>,
    #fuse.size_check<kind = non_negative, lhs = #fuse.size<source = arg, value = 2>>]} {
  %z = fuse.map %x, %y : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuse.yield %s : f32
  }
  return %z : tensor<?x?x?xf32>
}
