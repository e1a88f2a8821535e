func.func @f() {
  "fuse.frobnicate"() : () -> ()
  return
}
