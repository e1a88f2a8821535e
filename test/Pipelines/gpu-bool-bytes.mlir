// REQUIRES: cuda-toolkit
// i1 tensors at the entry's boundary and between groups, as bytes
// (fuse-bool-bytes): the GPU suite's extra program bool_bytes.mlir (an i1
// argument, map results, a scan feeding a filter, full, row and column
// reductions, a combiner region over i1) compiles for every group kind, the entry keeps i1 in its
// signature (int8_t in C, "i1" in the manifest) and the filter result its
// count; the GPU suite compares its values with the CPU's on the H200.
// RUN: fuse-compile %S/../Integration/GPU/extra/bool_bytes.mlir --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: fuse-compile %S/../Integration/GPU/extra/bool_bytes.mlir --emit=header -o - | FileCheck %s --check-prefix=HEADER
// RUN: fuse-compile %S/../Integration/GPU/extra/bool_bytes.mlir --emit=manifest -o - | FileCheck %s --check-prefix=MANIFEST
// RUN: fuse-run %S/../Integration/GPU/extra/bool_bytes.mlir --arg rand:1000 --arg rand:1000 --arg rand:5x33 --print > %t.fused.txt
// RUN: fuse-run %S/../Integration/GPU/extra/bool_bytes.mlir --arg rand:1000 --arg rand:1000 --arg rand:5x33 --print --no-fusion > %t.unfused.txt
// RUN: diff %t.fused.txt %t.unfused.txt

// The scan of i1 stores bytes; the filter group reads them back.
// CHECK-LABEL: .entry bool_bytes_g0_scan(
// CHECK: st.global.{{(u|b)}}8
// CHECK-LABEL: .entry bool_bytes_g1_filter(
// CHECK: ld.global.{{(u|b)}}8
// CHECK-LABEL: .entry bool_bytes_g2_partial(
// CHECK-LABEL: .entry bool_bytes_g3_rows(
// CHECK-LABEL: .entry bool_bytes_g4_linereduce(
// CHECK-LABEL: .entry bool_bytes_g5_opartial(

// HEADER: fuse_status_t bool_bytes(const int8_t *in0, int64_t in0_d0, const float *in1, int64_t in1_d0, const int8_t *in2, int64_t in2_d0, int64_t in2_d1, float *out0, int8_t *out1, int8_t *out2, int8_t *out3, int8_t *out4, int8_t *out5, int8_t *out6, int32_t *out7, int8_t *out8, int64_t *out9, int64_t *out2_count, fuse_stream_t stream);

// MANIFEST: "args": [
// MANIFEST-NEXT: {"dtype":"i1","kind":"tensor","rank":1,
// MANIFEST: "results": [
// MANIFEST-NEXT: {"dtype":"f32",
// MANIFEST-NEXT: {"dtype":"i1","filter":false,
// MANIFEST-NEXT: {"dtype":"i1","filter":true,
