// A two-pass variance over f16 (the mean, then the sum of squared
// deviations) is still one Welford pass after fuse-widen-accumulators has
// widened both sums: fuse-fusion looks through the widening maps and runs
// the Welford reduction on the widened data, in f32.
// RUN: fuse-opt %s --fuse-widen-accumulators --fuse-fusion | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../Integration/Inputs/make_npy.py -- %t/x.npy '<f2' 5 '1,2,3,4,5'
// RUN: fuse-run %s --arg=%t/x.npy --print | FileCheck %s --check-prefix=VAR
// RUN: fuse-run %s --no-fusion --arg=%t/x.npy --print | FileCheck %s --check-prefix=VAR

// CHECK-LABEL: func.func @variance
// CHECK: fuse.group reduce
// CHECK: fuse.reduce add %{{.*}} : tensor<?xf32> -> tensor<f32>
// CHECK: fuse.reduce %{{.*}}, %{{.*}}, %{{.*}} init(%{{.*}} : i64, f32, f32) : tensor<?xi64>, tensor<?xf32>, tensor<?xf32>
// CHECK-NOT: fuse.group
// CHECK: return
// VAR: result #0: float16 array of shape ()
// VAR-NEXT: {{^}}2{{$}}
func.func @variance(%x: tensor<?xf16>) -> tensor<f16> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf16>
  %ni = arith.index_cast %n : index to i64
  %nf = arith.uitofp %ni : i64 to f16
  %sum = fuse.reduce add %x : tensor<?xf16> -> tensor<f16>
  %sumb = fuse.broadcast %sum dims [0] (%n) : tensor<f16> -> tensor<?xf16>
  %dev = fuse.map %x, %sumb : tensor<?xf16>, tensor<?xf16> -> tensor<?xf16> {
  ^bb0(%a: f16, %s: f16):
    %mean = arith.divf %s, %nf : f16
    %d = arith.subf %a, %mean : f16
    %d2 = arith.mulf %d, %d : f16
    fuse.yield %d2 : f16
  }
  %ss = fuse.reduce add %dev : tensor<?xf16> -> tensor<f16>
  %var = fuse.map %ss : tensor<f16> -> tensor<f16> {
  ^bb0(%a: f16):
    %v = arith.divf %a, %nf : f16
    fuse.yield %v : f16
  }
  return %var : tensor<f16>
}
