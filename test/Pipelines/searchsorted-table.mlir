// fuse-searchsorted-table against the search itself: each entry run on
// the CPU as written (a binary search a needle, the reference) and after
// the rewrite (the 256 answers searched once, gathered at each needle's
// byte), the results compared byte for byte; the needles cover all 256
// bytes, in both orders and sides, with ties in `sorted` and an empty
// `sorted`.
// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-opt %s --fuse-searchsorted-table | FileCheck %s
// RUN: fuse-opt %s --fuse-searchsorted-table -o %t/table.mlir
// RUN: for e in signed_left unsigned_right all_bytes; do \
// RUN:   for m in 0 37 1000; do \
// RUN:     fuse-run %s --entry $e --arg rand:$m --arg rand:3001 --out %t/ref-$e-$m && \
// RUN:     fuse-run %t/table.mlir --entry $e --arg rand:$m --arg rand:3001 --out %t/new-$e-$m && \
// RUN:     for f in %t/ref-$e-$m/*.npy; do cmp $f %t/new-$e-$m/$(basename $f) || exit 1; done; \
// RUN:   done; \
// RUN: done

// CHECK-LABEL: func @signed_left
// CHECK: %[[BYTES:.+]] = fuse.iota : tensor<256xi8>
// CHECK: %[[TABLE:.+]] = fuse.searchsorted left %{{.+}}, %[[BYTES]] : tensor<?xi8>, tensor<256xi8> -> tensor<256xi64>
// CHECK: %[[K:.+]] = fuse.map
// CHECK: arith.extui %{{.+}} : i8 to i64
// CHECK: fuse.gather %[[TABLE]][%[[K]]] : tensor<256xi64>, tensor<?xi64> -> tensor<?xi64>
// CHECK-NOT: fuse.searchsorted
// CHECK: return
func.func @signed_left(%a: tensor<?xi8>, %x: tensor<?xi8>) -> tensor<?xi64> {
  %s = fuse.sort ascending %a : tensor<?xi8> -> tensor<?xi8>
  %i = fuse.searchsorted left %s, %x : tensor<?xi8>, tensor<?xi8> -> tensor<?xi64>
  return %i : tensor<?xi64>
}

// CHECK-LABEL: func @unsigned_right
// CHECK: fuse.searchsorted right unsigned %{{.+}}, %{{.+}} : tensor<?xi8>, tensor<256xi8> -> tensor<256xi64>
// CHECK: fuse.gather
func.func @unsigned_right(%a: tensor<?xi8>, %x: tensor<?xi8>) -> tensor<?xi64> {
  %s = fuse.sort ascending unsigned %a : tensor<?xi8> -> tensor<?xi8>
  %i = fuse.searchsorted right unsigned %s, %x : tensor<?xi8>, tensor<?xi8> -> tensor<?xi64>
  return %i : tensor<?xi64>
}

// Needles 3 * k + x_k (wrapping): every byte, both orders, both sides.
// CHECK-LABEL: func @all_bytes
// CHECK-COUNT-4: fuse.gather
func.func @all_bytes(%a: tensor<?xi8>, %x: tensor<?xi8>) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xi8>
  %k = fuse.iota %n : tensor<?xi8>
  %v = fuse.map %k, %x : tensor<?xi8>, tensor<?xi8> -> tensor<?xi8> {
  ^bb0(%p: i8, %q: i8):
    %c3 = arith.constant 3 : i8
    %m = arith.muli %p, %c3 : i8
    %r = arith.addi %m, %q : i8
    fuse.yield %r : i8
  }
  %s = fuse.sort ascending %a : tensor<?xi8> -> tensor<?xi8>
  %u = fuse.sort ascending unsigned %a : tensor<?xi8> -> tensor<?xi8>
  %i0 = fuse.searchsorted left %s, %v : tensor<?xi8>, tensor<?xi8> -> tensor<?xi64>
  %i1 = fuse.searchsorted right %s, %v : tensor<?xi8>, tensor<?xi8> -> tensor<?xi64>
  %i2 = fuse.searchsorted left unsigned %u, %v : tensor<?xi8>, tensor<?xi8> -> tensor<?xi64>
  %i3 = fuse.searchsorted right unsigned %u, %v : tensor<?xi8>, tensor<?xi8> -> tensor<?xi64>
  return %i0, %i1, %i2, %i3 : tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
}

// Left alone: wider needles, 256 needles or fewer, a broadcast's.
// CHECK-LABEL: func @left_alone
// CHECK-NOT: fuse.gather
// CHECK-COUNT-3: fuse.searchsorted
// CHECK-NOT: fuse.gather
// CHECK: return
func.func @left_alone(%a: tensor<?xi16>, %x: tensor<?xi16>, %b: tensor<?xi8>, %y: tensor<256xi8>, %r: tensor<?xi8>, %m: index) -> (tensor<?xi64>, tensor<256xi64>, tensor<?x?xi64>) {
  %i = fuse.searchsorted left %a, %x : tensor<?xi16>, tensor<?xi16> -> tensor<?xi64>
  %j = fuse.searchsorted left %b, %y : tensor<?xi8>, tensor<256xi8> -> tensor<256xi64>
  %w = fuse.broadcast %r dims [1] (%m) : tensor<?xi8> -> tensor<?x?xi8>
  %k = fuse.searchsorted left %b, %w : tensor<?xi8>, tensor<?x?xi8> -> tensor<?x?xi64>
  return %i, %j, %k : tensor<?xi64>, tensor<256xi64>, tensor<?x?xi64>
}
