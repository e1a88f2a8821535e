// A CUDA toolkit that is missing or incomplete is reported in one line
// naming what is missing, before any pass runs (it used to surface from
// gpu-module-to-binary with a dump of the whole GPU module). Needs no
// CUDA toolkit on the machine.
// RUN: rm -rf %t.missing %t.empty %t.nvvm
// RUN: not fuse-compile %s --emit=obj -o %t.o --toolkit-path=%t.missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: mkdir -p %t.empty
// RUN: not fuse-compile %s --emit=ptx -o %t.ptx --toolkit-path=%t.empty 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: mkdir -p %t.nvvm/nvvm/libdevice && touch %t.nvvm/nvvm/libdevice/libdevice.10.bc
// RUN: not fuse-compile %s --emit=obj -o %t.o --toolkit-path=%t.nvvm 2>&1 | FileCheck %s --check-prefix=NOPTXAS
// RUN: not fuse-compile %s --emit=cubin -o %t.cubin --toolkit-path=%t.nvvm 2>&1 | FileCheck %s --check-prefix=NOPTXAS
// RUN: not fuse-compile %s --emit=obj --format=fatbin -o %t.o --toolkit-path=%t.nvvm 2>&1 | FileCheck %s --check-prefix=NOPTXAS
// RUN: env -u CUDA_ROOT CUDA_HOME=%t.missing not fuse-compile %s --emit=obj -o %t.o 2>&1 | FileCheck %s --check-prefix=ENV
// A module without fuse ops has no kernels and needs no toolkit.
// RUN: fuse-compile %S/Inputs/no-kernels.mlir --emit=obj -o %t.none.o --toolkit-path=%t.missing
// Nor do a header and a manifest (the entries' declarations and
// signatures; no code generation): the same files as with a toolkit.
// RUN: fuse-compile %s --emit=header -o %t.only.h --toolkit-path=%t.missing
// RUN: FileCheck %s --check-prefix=HEADER < %t.only.h
// RUN: fuse-compile %s --emit=manifest -o - --toolkit-path=%t.missing | FileCheck %s --check-prefix=MANIFEST

// MISSING: error: CUDA toolkit '{{.*}}.missing' is not a directory: check --toolkit-path
// MISSING-NOT: see current operation
// MISSING-NOT: gpu.module
// EMPTY: error: CUDA toolkit '{{.*}}.empty' has no nvvm/libdevice/libdevice.10.bc: check --toolkit-path
// EMPTY-NOT: gpu.module
// NOPTXAS: error: CUDA toolkit '{{.*}}.nvvm' has no bin/ptxas: check --toolkit-path
// NOPTXAS-NOT: gpu.module
// ENV: error: CUDA toolkit '{{.*}}.missing' is not a directory: check $CUDA_HOME
// HEADER: #ifndef FUSE_GENERATED_{{.*}}ONLY_H
// HEADER: fuse_status_t sumsq(const float *in0, int64_t in0_d0, float *out0, fuse_stream_t stream);
// MANIFEST: "format": "fuse-aot-manifest"
// MANIFEST: "name": "sumsq"

func.func @sumsq(%x: tensor<?xf32>) -> tensor<f32> {
  %sq = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %m = arith.mulf %a, %a : f32
    fuse.yield %m : f32
  }
  %s = fuse.reduce add %sq : tensor<?xf32> -> tensor<f32>
  return %s : tensor<f32>
}
