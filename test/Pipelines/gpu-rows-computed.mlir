// REQUIRES: cuda-toolkit
// Row groups whose body computes positions or reads at them: iota along
// either dimension, a gather of a table at an index matrix, a searchsorted
// in a sorted table, and a row maximum written as a combiner region, all
// in one row_reduce group (the program is the GPU suite's extra program,
// which compares GPU and CPU values on the H200).
// RUN: fuse-opt %S/../Integration/GPU/extra/rows_computed.mlir --fuse-builtin-combiners --fuse-fusion | FileCheck %s --check-prefix=GROUPS
// RUN: fuse-compile %S/../Integration/GPU/extra/rows_computed.mlir --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: fuse-run %S/../Integration/GPU/extra/rows_computed.mlir --arg rand:31x1025 --arg rand:77 --arg rand:31x1025 --print > %t.fused.txt
// RUN: fuse-run %S/../Integration/GPU/extra/rows_computed.mlir --arg rand:31x1025 --arg rand:77 --arg rand:31x1025 --print --no-fusion > %t.unfused.txt
// RUN: diff %t.fused.txt %t.unfused.txt

// GROUPS: fuse.group elementwise
// GROUPS: fuse.group row_reduce
// GROUPS-NOT: fuse.group

// Every row path, each with the gather's bounds check, the binary search's
// loop and the iota's index conversion.
// CHECK-LABEL: .entry rows_computed_g1_rows(
// CHECK-DAG: cvt.rn.f32.{{[us](32|64)}}
// CHECK-DAG: ld.global.b32
// CHECK-LABEL: .entry rows_computed_g1_rows_narrow(
// CHECK-LABEL: .entry rows_computed_g1_rows_narrow_scalar(
// CHECK-LABEL: .entry rows_computed_g1_rows_long(
// CHECK-LABEL: .entry rows_computed_g1_rows_staged(
// CHECK-LABEL: .entry rows_computed_g1_rows_staged_wide(
