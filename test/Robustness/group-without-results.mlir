// REQUIRES: cuda-toolkit
// A fuse.group with no results (found by fuse-fuzz in CI, 2026-11-30):
// convert-fuse-to-gpu sized its launch from the first result and asserted
// (`idx < size()`). It computes nothing observable, so nothing is launched;
// the CPU pipelines, fused and unfused, and fuse-compile accept it too.
// RUN: fuse-opt %s --fuse-to-ptx -o /dev/null
// RUN: fuse-opt %s --fuse-to-cpu -o /dev/null
// RUN: fuse-opt %s --pass-pipeline="builtin.module(fuse-to-cpu{fusion=false})" -o /dev/null
// RUN: fuse-compile %s --emit=obj -o %t.o
// RUN: fuse-opt %s --fuse-tile --convert-fuse-to-gpu | FileCheck %s
// CHECK-LABEL: func.func @group_block_args(
// CHECK-NOT: call @fuse_launch
// CHECK: return

func.func @group_block_args(%x: tensor<?xf32>) {
  fuse.group elementwise (%x) : (tensor<?xf32>) -> () {
  ^bb0(%a: tensor<?xf32>):
    fuse.yield
  }
  return
}
