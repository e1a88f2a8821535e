// REQUIRES: cuda-toolkit
// --prefix renames every entry's C symbol (and its header declaration), so
// an entry named like a libc function (select) cannot collide with it.
// RUN: fuse-compile %s --prefix=mylib_ --emit=header -o - | FileCheck %s --check-prefix=HDR
// RUN: fuse-compile %s --prefix=mylib_ --emit=obj -o %t.o
// RUN: nm %t.o | FileCheck %s --check-prefix=SYM
// RUN: sed 's/^\/\/ DECL: //' %s > %t.clash.mlir
// RUN: not fuse-compile %t.clash.mlir --prefix=mylib_ --emit=header -o - 2>&1 | FileCheck %s --check-prefix=CLASH

// HDR: fuse_status_t mylib_select(const float *in0, int64_t in0_d0, float *out0, fuse_stream_t stream);
// HDR: fuse_status_t mylib_ect(
// SYM-DAG: T mylib_select
// SYM-DAG: T mylib_ect
// SYM-NOT: T select
// CLASH: error: fuse-compile: --prefix makes 'mylib_ect', which already exists
// DECL: func.func private @mylib_ect(tensor<?xf32>) -> tensor<?xf32>

func.func @select(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %m = arith.mulf %a, %a : f32
    fuse.yield %m : f32
  }
  return %y : tensor<?xf32>
}

func.func @ect(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %m = arith.addf %a, %a : f32
    fuse.yield %m : f32
  }
  return %y : tensor<?xf32>
}
