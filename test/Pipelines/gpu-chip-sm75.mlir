// REQUIRES: cuda-toolkit
// Chips before sm_80 have no cp.async: convert-fuse-to-gpu, on a module
// whose fuse.target is such a chip (the GPU pipelines attach their chip's) stages no scan/filter tiles and no
// long rows there, whatever the tiling asks, so such pipelines compile
// for sm_75 (the oldest CUDA 13 compiles for) instead of stopping in
// NVPTX's instruction selection. sm_90 keeps both.
// RUN: fuse-opt %fuse_src_root/examples/softmax_rows.mlir --fuse-fusion --fuse-tile -o %t.sm.mlir
// RUN: fuse-opt %t.sm.mlir --fuse-attach-target=chip=sm_75 --convert-fuse-to-gpu | FileCheck %s --check-prefix=OLD
// RUN: fuse-opt %t.sm.mlir --convert-fuse-to-gpu | FileCheck %s --check-prefix=NEW
// RUN: fuse-opt %fuse_src_root/examples/select.mlir --fuse-fusion --fuse-tile -o %t.sel.mlir
// RUN: fuse-opt %t.sel.mlir --fuse-attach-target=chip=sm_75 --convert-fuse-to-gpu | FileCheck %s --check-prefix=OLD
// RUN: fuse-opt %t.sel.mlir --fuse-attach-target=chip=sm_90a --convert-fuse-to-gpu | FileCheck %s --check-prefix=NEW
// RUN: fuse-compile %fuse_src_root/examples/select.mlir --chip=sm_75 --emit=ptx -o %t.sel.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sel.ptx
// RUN: fuse-compile %fuse_src_root/examples/softmax_rows.mlir --chip=sm_75 --emit=cubin -o %t.sm.cubin
// RUN: fuse-opt %fuse_src_root/examples/select.mlir --fuse-to-cubin="chip=sm_75" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPE

// OLD-NOT: nvvm.cp.async
// OLD: gpu.return
// NEW: nvvm.cp.async.shared.global
// PTX: .target sm_75
// PTX-NOT: cp.async
// PIPE: fuse-attach-target{chip=sm_75
// PIPE: convert-fuse-to-gpu{block-threads=256
