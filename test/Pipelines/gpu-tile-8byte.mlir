// REQUIRES: cuda-toolkit
// Scan and filter tiles of 8-byte elements hold the items fuse-tile asks
// for: filters 80 bytes a thread (10 f64: five 16-byte cp.async copies
// into a 20 KiB staged tile, plus a 20 KiB shared-scatter buffer), scans
// 128 bytes (16 i64 in registers). Until this was fixed the kernels took
// twice the items (20 and 32) and spilled 468 and 552 bytes.
// RUN: fuse-opt %s --fuse-fusion --fuse-tile | FileCheck %s --check-prefix=ATTR
// RUN: fuse-opt %s --fuse-fusion --fuse-tile --convert-fuse-to-gpu | FileCheck %s --check-prefix=HOST
// RUN: fuse-compile %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -v -arch=sm_90 %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// ATTR: fuse.group filter{{.*}}itemsPerThread = 10{{.*}}vectorWidth = 2
// ATTR: fuse.group scan{{.*}}blockThreads = 512{{.*}}itemsPerThread = 16{{.*}}vectorWidth = 2

// HOST-LABEL: func.func @keep_f64(
// HOST: call @fuse_launch({{.*}}, %c256_i32, %{{[^,]*}}, %{{[^,]*}}, %c40960_i32, %{{[^,]*}}, %{{[^,]*}}) :
// HOST-LABEL: func.func @cumsum_i64(
// HOST: call @fuse_launch({{.*}}, %c512_i32, %{{[^,]*}}, %{{[^,]*}}, %c0_i32{{[_0-9]*}}, %{{[^,]*}}, %{{[^,]*}}) :

// CHECK-LABEL: .entry keep_f64_g0_filter(
// CHECK-COUNT-5: cp.async.cg.shared.global [{{%rd[0-9]+}}], [{{%rd[0-9]+}}{{[+0-9]*}}], 16;
// CHECK-NOT: cp.async.cg.shared.global
// CHECK: cp.async.commit_group;
// CHECK-LABEL: .entry cumsum_i64_g0_scan(
// CHECK-NOT: cp.async

// PTXAS-DAG: Compiling entry function 'keep_f64_g0_filter'
// PTXAS-DAG: Compiling entry function 'cumsum_i64_g0_scan'
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill stores

func.func @keep_f64(%x: tensor<?xf64>) -> tensor<?xf64> {
  %zero = arith.constant 0.0 : f64
  %y = fuse.filter %x : tensor<?xf64> -> tensor<?xf64> {
  ^bb0(%a: f64):
    %p = arith.cmpf ogt, %a, %zero : f64
    fuse.yield %p : i1
  }
  return %y : tensor<?xf64>
}

func.func @cumsum_i64(%x: tensor<?xi64>) -> tensor<?xi64> {
  %y = fuse.scan inclusive add %x : tensor<?xi64> -> tensor<?xi64>
  return %y : tensor<?xi64>
}
