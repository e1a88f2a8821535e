// REQUIRES: cuda-toolkit
// ptxas-opt-level (fuse-compile --ptxas-opt-level) appends its own
// --opt-level to the ptxas options, after the one fuse-gpu-module-to-binary
// passes from opt-level (ptxas takes the last); unset, only the parallel
// kernel compile is asked for.
// RUN: fuse-opt %s --fuse-to-cubin="ptxas-opt-level=1" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=O1
// RUN: fuse-opt %s --fuse-to-cubin --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: fuse-compile %s --emit=obj --ptxas-opt-level=1 -o %t.o
// RUN: not fuse-compile %s --emit=obj --ptxas-opt-level=7 -o %t.o 2>&1 | FileCheck %s --check-prefix=BAD

// O1: fuse-gpu-module-to-binary{format=bin {{.*}}opts={--split-compile=0 --opt-level 1}
// DEFAULT: fuse-gpu-module-to-binary{format=bin {{.*}}opts=--split-compile=0 toolkit=
// BAD: fuse-compile: --opt-level must be 0-3 and --ptxas-opt-level 0-3

func.func @sumsq(%x: tensor<?xf32>) -> tensor<f32> {
  %sq = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %m = arith.mulf %a, %a : f32
    fuse.yield %m : f32
  }
  %s = fuse.reduce add %sq : tensor<?xf32> -> tensor<f32>
  return %s : tensor<f32>
}
