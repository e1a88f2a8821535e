// RUN: fuse-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// The fuse.* attributes that stages hand each other are checked wherever
// they appear: fuse.target and fuse.entries on the module, fuse.tiling on
// a fuse.group, fuse.not_fused as a list of reasons. Any other fuse.* name
// (a typo, or a marker from an older compiler) is an error, not ignored.

// CHECK-LABEL: module attributes {fuse.target = #fuse.target<chip = "sm_80"
// CHECK: fuse.group elementwise (%{{.*}}) {fuse.not_fused = ["a reason"], fuse.tiling = #fuse.tiling<blockThreads = 128
module attributes {fuse.target = #fuse.target<chip = "sm_80", smCount = 108, maxThreadsPerBlock = 1024, maxThreadsPerSM = 2048, sharedMemoryPerBlock = 166912, sharedMemoryPerSM = 167936, registersPerSM = 65536, l2Bytes = 41943040, vectorBytes = 16>} {
func.func @ok(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = fuse.group elementwise (%x) {fuse.not_fused = ["a reason"], fuse.tiling = #fuse.tiling<blockThreads = 128, grid = 7, itemsPerThread = 8, vectorWidth = 2>} : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>):
    fuse.yield %a : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}
}

// -----

// expected-error @below {{unknown fuse attribute 'fuse.welford'}}
func.func @unknown(%x: tensor<?xf32>) attributes {fuse.welford} {
  return
}

// -----

// expected-error @below {{'fuse.tiling' must be a #fuse.tiling on a fuse.group}}
func.func @tiling_off_group(%x: tensor<?xf32>) attributes {fuse.tiling = #fuse.tiling<blockThreads = 128, grid = 7, itemsPerThread = 8, vectorWidth = 2>} {
  return
}

// -----

// expected-error @below {{'fuse.target' must be a #fuse.target on a module}}
module attributes {fuse.target = "sm_90"} {
}

// -----

// expected-error @below {{'fuse.entries' must be a list of #fuse.entry on a module}}
module attributes {fuse.entries = ["f"]} {
}

// -----

func.func @not_fused_ints(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @below {{'fuse.not_fused' must be a list of strings}}
  %r = fuse.group elementwise (%x) {fuse.not_fused = [1]} : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>):
    fuse.yield %a : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}
