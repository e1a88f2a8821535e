// REQUIRES: cuda-toolkit
// cp.async copies one vector of its own size: 16 bytes with .cg, or the
// vector's 4 or 8 bytes with .ca where the vector width is capped below 16
// bytes. A 16-byte copy at every 8-byte step read from misaligned
// addresses (a device fault that poisons the context) and past the row or
// tile.
//
// A staged filter tile at vector-width=2 over f32: 8-byte vectors.
// RUN: fuse-compile %s --emit=ptx --tile-options="vector-width=2" -o %t.tile.ptx
// RUN: FileCheck %s --check-prefix=TILE < %t.tile.ptx
// The default width: 16-byte vectors.
// RUN: fuse-compile %s --emit=ptx -o %t.default.ptx
// RUN: FileCheck %s --check-prefix=DEFAULT < %t.default.ptx
// Staged f16 rows of a group whose f32 result caps the vector width at 4
// (GPU extra rows_staged_half): 8-byte chunks.
// RUN: fuse-compile %fuse_src_root/test/Integration/GPU/extra/rows_staged_half.mlir --emit=ptx -o %t.rows.ptx
// RUN: FileCheck %s --check-prefix=ROWS < %t.rows.ptx

// TILE-LABEL: .entry staged_filter_g0_filter(
// TILE: cp.async.ca.shared.global [{{.*}}], [{{.*}}], 8;
// TILE-NOT: cp.async.cg
// DEFAULT-LABEL: .entry staged_filter_g0_filter(
// DEFAULT: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// ROWS-LABEL: .entry rows_staged_half_g0_rows_staged(
// ROWS: cp.async.ca.shared.global [{{.*}}], [{{.*}}], 8;
// ROWS-NOT: cp.async.cg
// ROWS-LABEL: .entry rows_staged_half_g0_rows_staged_wide(
// ROWS: cp.async.ca.shared.global [{{.*}}], [{{.*}}], 8;
// ROWS-NOT: cp.async.cg
func.func @staged_filter(%x: tensor<?xf32>) -> tensor<?xf32> {
  %k = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %z = arith.constant 0.5 : f32
    %p = arith.cmpf ogt, %a, %z : f32
    fuse.yield %p : i1
  }
  return %k : tensor<?xf32>
}
