// The traffic model on every WORKLOADS pipeline (examples/): after fusion
// each one moves the minimal bytes of the "bytes" column.
// RUN: fuse-opt %fuse_src_root/examples/sumsq.mlir --fuse-fusion --fuse-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=SUMSQ
// RUN: fuse-opt %fuse_src_root/examples/dot.mlir --fuse-fusion --fuse-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=DOT
// RUN: fuse-opt %fuse_src_root/examples/chain.mlir --fuse-fusion --fuse-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHAIN
// RUN: fuse-opt %fuse_src_root/examples/scan.mlir --fuse-fusion --fuse-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCAN
// RUN: fuse-opt %fuse_src_root/examples/select.mlir --fuse-fusion --fuse-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=SELECT
// RUN: fuse-opt %fuse_src_root/examples/softmax_rows.mlir --fuse-fusion --fuse-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=SOFTMAX
// RUN: fuse-opt %fuse_src_root/examples/logsumexp_rows.mlir --fuse-fusion --fuse-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=LSE
// RUN: fuse-opt %fuse_src_root/examples/variance.mlir --fuse-fusion --fuse-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=VAR
// RUN: fuse-opt %fuse_src_root/examples/variance.mlir --fuse-fusion=welford=false --fuse-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=VAR2
// RUN: fuse-opt %fuse_src_root/examples/sumsq.mlir --fuse-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNFUSED
// RUN: fuse-opt %s --fuse-fusion --fuse-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATIC

// SUMSQ: remark: group "reduce": read 4*n bytes, write 4 bytes, 1 pass, 2 kernels
// SUMSQ-NEXT: fused: fuse.map at sumsq.mlir:{{[0-9]+}}:{{[0-9]+}}, fuse.reduce at sumsq.mlir
// SUMSQ: remark: total for @sumsq: 1 pass, 2 kernels, read 4*n bytes, write 4 bytes; where n = dim 0 of argument #0

// DOT: total for @dot: 1 pass, 2 kernels, read 8*n bytes, write 4 bytes; where n = dim 0 of argument #0

// CHAIN: remark: group "elementwise": read 4*n bytes, write 4*n bytes, 1 pass, 1 kernel
// CHAIN: total for @chain: 1 pass, 1 kernel, read 4*n bytes, write 4*n bytes

// SCAN: remark: group "scan": read 4*n bytes, write 4*n bytes, 1 pass, 1 kernel
// SCAN: total for @scan: 1 pass

// SELECT: remark: group "filter": read 4*n bytes, write 4*count bytes, 1 pass, 1 kernel
// SELECT: total for @select: 1 pass, 1 kernel, read 4*n bytes, write 4*count bytes; where n = dim 0 of argument #0; count = the number of elements kept by the filter at select.mlir

// SOFTMAX: remark: group "row_reduce": read 4*n*m bytes, write 4*n*m bytes, 1 pass, 1 kernel
// SOFTMAX: total for @softmax_rows: 1 pass, 1 kernel, read 4*n*m bytes, write 4*n*m bytes; where n = dim 0 of argument #0; m = dim 1 of argument #0

// LSE: total for @logsumexp_rows: 1 pass, 1 kernel, read 4*n*m bytes, write 4*n bytes

// VAR: remark: group "reduce": read 4*n bytes, write 4 bytes, 1 pass, 2 kernels
// VAR: total for @variance: 1 pass, 2 kernels, read 4*n bytes, write 4 bytes

// VAR2: not fused: not fused with fuse.reduce at variance.mlir:{{.*}} (reduce group): reads fuse.reduce at variance.mlir:{{.*}}, a full reduction in the producer group, at every element: that needs a second pass over memory
// VAR2: total for @variance: 2 passes, 4 kernels, read 8*n + 4 bytes, write 8 bytes

// Unfused: every op is its own pass (x*x written and read back).
// UNFUSED: remark: unfused fuse.map: read 4*n bytes, write 4*n bytes, 1 pass, 1 kernel
// UNFUSED: remark: unfused fuse.reduce: read 4*n bytes, write 4 bytes, 1 pass, 2 kernels
// UNFUSED: total for @sumsq: 2 passes, 3 kernels, read 8*n bytes, write 4*n + 4 bytes

// Static shapes give numbers; a gather reads one source element per index.
// STATIC: remark: group "reduce": read 8192 bytes, write 4 bytes
// STATIC: total for @static_gather: 1 pass, 2 kernels, read 8192 bytes, write 4 bytes
func.func @static_gather(%src: tensor<100000xf32>, %idx: tensor<1024xi32>) -> tensor<f32> {
  %g = fuse.gather %src[%idx] : tensor<100000xf32>, tensor<1024xi32> -> tensor<1024xf32>
  %s = fuse.reduce add %g : tensor<1024xf32> -> tensor<f32>
  return %s : tensor<f32>
}
