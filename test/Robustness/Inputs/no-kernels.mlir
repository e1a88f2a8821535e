// No fuse ops: fuse-compile emits host code only (used by
// bad-toolkit-path.mlir).
func.func @add(%a: i64, %b: i64) -> i64 {
  %s = arith.addi %a, %b : i64
  return %s : i64
}
