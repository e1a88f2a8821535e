// Ops over broadcasts computed before them (BroadcastFolds.cpp) give what
// the ops over the broadcasts give: the expected results are written out
// by hand (NumPy's searchsorted, sum and cumsum/minimum.accumulate over
// the repeated arrays agree), with and without fusion, and the rewritten
// IR searches, reduces and scans the inputs before broadcasting.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/make_npy.py -- %t/a.npy '<f4' 3 '1.0,3.0,5.0'
// RUN: %python %S/Inputs/make_npy.py -- %t/v.npy '<f4' 4 '0.0,3.0,6.0,nan'
// RUN: %python %S/Inputs/make_npy.py -- %t/x.npy '<f4' 2,3 '1.0,2.0,3.0,4.0,5.0,6.0'
// RUN: %python %S/Inputs/make_npy.py -- %t/s.npy '<i4' 3 '3,1,2'
// RUN: fuse-run %s --entry=search --arg=%t/a.npy --arg=%t/v.npy --print | FileCheck %s --check-prefix=SEARCH
// RUN: fuse-run %s --entry=search --no-fusion --arg=%t/a.npy --arg=%t/v.npy --print | FileCheck %s --check-prefix=SEARCH
// RUN: fuse-run %s --entry=rowsum --arg=%t/x.npy --print | FileCheck %s --check-prefix=ROWSUM
// RUN: fuse-run %s --entry=rowsum --no-fusion --arg=%t/x.npy --print | FileCheck %s --check-prefix=ROWSUM
// RUN: fuse-run %s --entry=scans --arg=%t/s.npy --print | FileCheck %s --check-prefix=SCANS
// RUN: fuse-run %s --entry=scans --no-fusion --arg=%t/s.npy --print | FileCheck %s --check-prefix=SCANS
// RUN: fuse-opt %s --canonicalize | FileCheck %s --check-prefix=IR

// SEARCH: result #0: int64 array of shape (2, 4)
// SEARCH-NEXT: {{\[\[}}0, 1, 3, 3],
// SEARCH-NEXT:  [0, 1, 3, 3{{\]\]}}
// IR-LABEL: func.func @search
// IR: fuse.searchsorted left %{{.+}}, %{{.+}} : tensor<?xf32>, tensor<?xf32> -> tensor<?xi64>
// IR: fuse.broadcast
func.func @search(%a: tensor<?xf32>, %v: tensor<?xf32>) -> tensor<?x?xi64> {
  %n = arith.constant 2 : index
  %b = fuse.broadcast %v dims [0] (%n) : tensor<?xf32> -> tensor<?x?xf32>
  %p = fuse.searchsorted left %a, %b : tensor<?xf32>, tensor<?x?xf32> -> tensor<?x?xi64>
  return %p : tensor<?x?xi64>
}

// ROWSUM: result #0: float32 array of shape (2, 2)
// ROWSUM-NEXT: {{\[\[}}6, 15],
// ROWSUM-NEXT:  [6, 15{{\]\]}}
// IR-LABEL: func.func @rowsum
// IR: fuse.reduce add %{{.+}} dims [1] : tensor<?x?xf32> -> tensor<?xf32>
// IR: fuse.broadcast
func.func @rowsum(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %n = arith.constant 2 : index
  %b = fuse.broadcast %x dims [0] (%n) : tensor<?x?xf32> -> tensor<?x?x?xf32>
  %r = fuse.reduce add %b dims [2] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// SCANS: result #0: int32 array of shape (3, 2)
// SCANS-NEXT: {{\[\[}}3, 3],
// SCANS-NEXT:  [4, 4],
// SCANS-NEXT:  [6, 6{{\]\]}}
// SCANS: result #1: int32 array of shape (3, 2)
// SCANS-NEXT: {{\[\[}}2, 2],
// SCANS-NEXT:  [1, 1],
// SCANS-NEXT:  [2, 2{{\]\]}}
// SCANS: result #2: int32 array of shape (3, 2)
// SCANS-NEXT: {{\[\[}}3, 3],
// SCANS-NEXT:  [1, 1],
// SCANS-NEXT:  [2, 2{{\]\]}}
// IR-LABEL: func.func @scans
// IR: fuse.scan inclusive add %{{.+}} dim 0 : tensor<?xi32> -> tensor<?xi32>
// IR-NOT: fuse.scan
// IR: return
func.func @scans(%s: tensor<?xi32>) -> (tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi32>) {
  %n = arith.constant 2 : index
  %b = fuse.broadcast %s dims [1] (%n) : tensor<?xi32> -> tensor<?x?xi32>
  %i = arith.constant 2 : i32
  %c = fuse.scan inclusive add %b dim 0 : tensor<?x?xi32> -> tensor<?x?xi32>
  %m = fuse.scan inclusive min %b init(%i : i32) dim 1 : tensor<?x?xi32> -> tensor<?x?xi32>
  %k = fuse.scan inclusive max %b dim 1 : tensor<?x?xi32> -> tensor<?x?xi32>
  return %c, %m, %k : tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi32>
}
