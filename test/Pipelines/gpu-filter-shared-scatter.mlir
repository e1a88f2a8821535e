// REQUIRES: cuda-toolkit
// fuse-tile shared-scatter=1 (the default for filters): each kept element
// goes to its offset in a tile buffer in dynamic shared memory (after the
// staged tile of 256 x 20 f32: 20480 bytes in), a barrier, then the block copies the
// tile's kept elements to the output with consecutive threads on
// consecutive elements (a loop stepping by the block's 256 threads).
// shared-scatter=0 stores each kept element from its thread. The launch
// passes the staging plus buffer bytes; tiles in registers (stage-tiles=0)
// pass the buffer's alone; a buffer that would take the block past 48 KiB
// falls back to direct stores.
// RUN: fuse-opt %s --fuse-fusion --fuse-tile | FileCheck %s --check-prefix=ATTR
// RUN: fuse-opt %s --fuse-fusion --fuse-tile=shared-scatter=0 | FileCheck %s --check-prefix=ATTR0
// RUN: fuse-compile %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: fuse-opt %s --fuse-fusion --fuse-tile=shared-scatter=0 -o %t.d.mlir
// RUN: fuse-compile %t.d.mlir --no-fusion --emit=ptx -o %t.d.ptx
// RUN: FileCheck %s --check-prefix=DIRECT < %t.d.ptx
// RUN: fuse-opt %s --fuse-fusion --fuse-tile --convert-fuse-to-gpu | FileCheck %s --check-prefix=HOST
// RUN: fuse-opt %s --fuse-fusion --fuse-tile=stage-tiles=0 --convert-fuse-to-gpu | FileCheck %s --check-prefix=HOST-REG
// RUN: fuse-opt %s --fuse-fusion --fuse-tile="block-threads=512 items-per-thread=32 stage-tiles=0" --convert-fuse-to-gpu | FileCheck %s --check-prefix=HOST-BIG
// RUN: fuse-opt %s --fuse-fusion --fuse-tile="block-threads=1024 items-per-thread=64 stage-tiles=0" --convert-fuse-to-gpu | FileCheck %s --check-prefix=HOST-HUGE

// ATTR: fuse.group filter{{.*}}sharedScatter = true
// ATTR0: fuse.group filter{{.*}}stageTiles = true>

// CHECK: .extern .shared .align 16 .b8 scatter_select_g0_filter_stage[];
// CHECK-LABEL: .entry scatter_select_g0_filter(
// CHECK: st.shared.b32 [{{%rd[0-9]+}}+20480]
// CHECK: bar.sync 0;
// CHECK: [[LOOP:\$L__BB[0-9_]+]]:
// CHECK-NEXT: ld.shared.b32 [[V:%r[0-9]+]], [{{%rd[0-9]+}}];
// CHECK-NEXT: st.global.b32 [{{%rd[0-9]+}}], [[V]];
// CHECK-NEXT: add.s64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 256;
// CHECK: @{{%p[0-9]+}} bra [[LOOP]];

// DIRECT-LABEL: .entry scatter_select_g0_filter(
// DIRECT-NOT: +20480]
// DIRECT: st.global.b32
// DIRECT-NOT: +20480]
// DIRECT: ret;

// HOST-LABEL: func.func @scatter_select(
// HOST: call @fuse_launch({{.*}}, %c256_i32, %{{[^,]*}}, %{{[^,]*}}, %c40960_i32, %{{[^,]*}}, %{{[^,]*}}) :
// HOST-REG-LABEL: func.func @scatter_select(
// HOST-REG: call @fuse_launch({{.*}}, %c256_i32, %{{[^,]*}}, %{{[^,]*}}, %c20480_i32, %{{[^,]*}}, %{{[^,]*}}) :
// HOST-BIG-LABEL: func.func @scatter_select(
// HOST-BIG: call @fuse_launch({{.*}}, %c512_i32, %{{[^,]*}}, %{{[^,]*}}, %c65536_i32, %{{[^,]*}}, %{{[^,]*}}) :
// HOST-HUGE-LABEL: func.func @wide_select(
// HOST-HUGE: call @fuse_launch({{.*}}, %c1024_i32, %{{[^,]*}}, %{{[^,]*}}, %c0_i32{{[_0-9]*}}, %{{[^,]*}}, %{{[^,]*}}) :

func.func @scatter_select(%x: tensor<?xf32>) -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %y = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.cmpf ogt, %a, %zero : f32
    fuse.yield %p : i1
  }
  return %y : tensor<?xf32>
}

func.func @wide_select(%a: tensor<?xf64>, %b: tensor<?xf64>, %c: tensor<?xf64>)
    -> (tensor<?xf64>, tensor<?xf64>, tensor<?xf64>) {
  %zero = arith.constant 0.0 : f64
  %x, %y, %z = fuse.filter %a, %b, %c : tensor<?xf64>, tensor<?xf64>, tensor<?xf64>
      -> tensor<?xf64>, tensor<?xf64>, tensor<?xf64> {
  ^bb0(%p: f64, %q: f64, %r: f64):
    %k = arith.cmpf ogt, %p, %zero : f64
    fuse.yield %k : i1
  }
  return %x, %y, %z : tensor<?xf64>, tensor<?xf64>, tensor<?xf64>
}
