// REQUIRES: cuda-toolkit
// fuse-gpu-module-to-binary compiles a module's kernels in parts (here
// jobs=2: two parts whatever the machine's cores), each part through LLVM
// on its own thread, and joins the parts' PTX into one module: the
// module's kernels in its order, one header. A module with a device
// function (called by two kernels) is compiled whole, as is every module
// with jobs=1. The image formats go through ptxas (and fatbinary) once.
// RUN: fuse-opt %s --fuse-gpu-module-to-binary="format=isa jobs=2" | FileCheck %s
// RUN: fuse-opt %s --fuse-gpu-module-to-binary="format=isa jobs=1" | FileCheck %s --check-prefix=WHOLE
// RUN: fuse-opt %s --fuse-gpu-module-to-binary="format=bin jobs=2" | FileCheck %s --check-prefix=BIN
// RUN: fuse-opt %s --fuse-gpu-module-to-binary="format=fatbin jobs=2" | FileCheck %s --check-prefix=FAT
// RUN: not fuse-opt %s --fuse-gpu-module-to-binary="format=elf" 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: gpu.binary @two
// CHECK-SAME: (fuse: 2 parts joined)
// CHECK-SAME: .version
// CHECK-NOT: .version
// CHECK-SAME: .entry first(
// CHECK-SAME: .entry second(
// CHECK-SAME: mul.rn.f32
// CHECK-SAME: .entry third(
// CHECK: gpu.binary @shared_extern
// CHECK-SAME: (fuse: 2 parts joined)
// CHECK-SAME: .extern .shared .align 16 .b8 buf[];
// CHECK-NOT: .extern
// CHECK-SAME: .entry e(
// CHECK-SAME: .entry f(
// CHECK: gpu.binary @helper
// CHECK-NOT: parts joined
// CHECK-SAME: .func {{.*}}twice(
// CHECK-SAME: .entry c(
// CHECK-SAME: .entry d(

// WHOLE: gpu.binary @two
// WHOLE-NOT: parts joined
// WHOLE-SAME: .entry first(

// BIN: gpu.binary @two  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90">, {{.*}}bin = "\7FELF
// BIN: gpu.binary @helper  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90">, {{.*}}bin = "\7FELF
// FAT: gpu.binary @two  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90">, "P{{.}}EDU{{.}}BA
// BAD: unknown GPU image format 'elf' (isa, bin or fatbin)

module attributes {gpu.container_module} {
  gpu.module @two [#nvvm.target<chip = "sm_90", O = 3>] {
    llvm.func @first(%p: !llvm.ptr<1>, %v: f32) attributes {gpu.kernel, nvvm.kernel} {
      llvm.store %v, %p : f32, !llvm.ptr<1>
      llvm.return
    }
    llvm.func @second(%p: !llvm.ptr<1>, %v: f32) attributes {gpu.kernel, nvvm.kernel} {
      %m = llvm.fmul %v, %v : f32
      llvm.store %m, %p : f32, !llvm.ptr<1>
      llvm.return
    }
    llvm.func @third(%p: !llvm.ptr<1>, %v: i32) attributes {gpu.kernel, nvvm.kernel} {
      llvm.store %v, %p : i32, !llvm.ptr<1>
      llvm.return
    }
  }
  // Both parts declare the dynamic shared buffer: declared once.
  gpu.module @shared_extern [#nvvm.target<chip = "sm_90", O = 3>] {
    llvm.mlir.global external @buf() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    llvm.func @e(%p: !llvm.ptr<1>, %v: f32) attributes {gpu.kernel, nvvm.kernel} {
      %b = llvm.mlir.addressof @buf : !llvm.ptr<3>
      llvm.store %v, %b : f32, !llvm.ptr<3>
      %r = llvm.load %b : !llvm.ptr<3> -> f32
      llvm.store %r, %p : f32, !llvm.ptr<1>
      llvm.return
    }
    llvm.func @f(%p: !llvm.ptr<1>, %v: i32) attributes {gpu.kernel, nvvm.kernel} {
      %b = llvm.mlir.addressof @buf : !llvm.ptr<3>
      llvm.store %v, %b : i32, !llvm.ptr<3>
      %r = llvm.load %b : !llvm.ptr<3> -> i32
      llvm.store %r, %p : i32, !llvm.ptr<1>
      llvm.return
    }
  }
  gpu.module @helper [#nvvm.target<chip = "sm_90", O = 3>] {
    llvm.func @twice(%v: f32) -> f32 attributes {passthrough = ["noinline"]} {
      %m = llvm.fadd %v, %v : f32
      llvm.return %m : f32
    }
    llvm.func @c(%p: !llvm.ptr<1>, %v: f32) attributes {gpu.kernel, nvvm.kernel} {
      %m = llvm.call @twice(%v) : (f32) -> f32
      llvm.store %m, %p : f32, !llvm.ptr<1>
      llvm.return
    }
    llvm.func @d(%p: !llvm.ptr<1>, %v: f32) attributes {gpu.kernel, nvvm.kernel} {
      %m = llvm.call @twice(%v) : (f32) -> f32
      %n = llvm.call @twice(%m) : (f32) -> f32
      llvm.store %n, %p : f32, !llvm.ptr<1>
      llvm.return
    }
  }
}
