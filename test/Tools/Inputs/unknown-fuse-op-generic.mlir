func.func @f() {
  "fuse.sort"() : () -> ()
  return
}
