// REQUIRES: cuda-toolkit
// A result computed from a filter's kept elements (here a map over them) is
// sized by the filter's count: the entry takes an `out0_count` for it as
// for the filter's own result, the host code stores the count there, and
// the manifest marks it as count-sized (found by the GPU-vs-CPU random
// program suite: without the count a caller saw the whole capacity).
// RUN: fuse-compile %s --emit=header -o %t.h
// RUN: FileCheck %s --check-prefix=HDR < %t.h
// RUN: fuse-compile %s --emit=manifest -o - | FileCheck %s --check-prefix=MAN
// RUN: fuse-opt %s --fuse-fusion --fuse-tile --convert-fuse-to-gpu | FileCheck %s --check-prefix=HOST

// HDR: out0: device pointer to tensor<?xf32>, caller-allocated, capacity: the size of the filtered input; the first *out0_count elements are written.
// HDR: fuse_status_t scaled_positive(const float *in0, int64_t in0_d0, float *out0, float *out1, int64_t *out0_count, int64_t *out1_count, fuse_stream_t stream);
// HDR: fuse_status_t scaled_positive_ws(const float *in0, int64_t in0_d0, float *out0, float *out1, int64_t *out0_count, int64_t *out1_count, void *workspace, int64_t *workspace_bytes, fuse_stream_t stream);
// HDR: fuse_status_t plain_map(const float *in0, int64_t in0_d0, float *out0, fuse_stream_t stream);
// HDR: fuse_status_t plain_map_ws(const float *in0, int64_t in0_d0, float *out0, void *workspace, int64_t *workspace_bytes, fuse_stream_t stream);
// An iota sized by the filter's count (tensor.dim of the kept elements),
// returned without the filter: it gets the count too (it did not).
// HDR: No capture-safe form: the size of a filter's result is known only on the device, and the entry's tensor.dim reads it.
// HDR: fuse_status_t iota_of_count(const float *in0, int64_t in0_d0, int64_t *out0, int64_t *out0_count, fuse_stream_t stream);

// The map after the filter reads the count on the device, so both entries
// with a map have a capture-safe form; the iota's size is the count, which
// the host needs.
// HOST: #fuse.entry<name = "scaled_positive", {{.*}}count = kept>], workspace = available>
// HOST-SAME: #fuse.entry<name = "plain_map", {{.*}} workspace = available>
// HOST-SAME: #fuse.entry<name = "iota_of_count", {{.*}} workspace = none, workspace_note = "the size of a filter's result is known only on the device, and the entry's tensor.dim reads it">

// MAN: "name": "scaled_positive", {{.*}}"workspace_packed": "scaled_positive_ws__fuse_packed",
// MAN: "filter":true,"rank":1,"shape":[null],"size":["in0_d0"]
// MAN: "filter":true,"rank":1,"shape":[null],"size":["in0_d0"]
// MAN: "name": "plain_map", {{.*}}"workspace_packed": "plain_map_ws__fuse_packed",
// MAN: "filter":false
// MAN: "name": "iota_of_count"
// MAN: "filter":true

// The count pointers are %arg4 (the map's result) and %arg5 (the
// filter's): both receive the filter's count, each when non-null, read
// once (the stream waited for) when either is asked for.
// HOST-LABEL: func.func @scaled_positive(
// HOST: %[[A4:.*]] = llvm.icmp "ne" %arg4
// HOST: %[[A5:.*]] = llvm.icmp "ne" %arg5
// HOST: %[[ANY:.*]] = arith.ori %{{.*}}, %[[A5]]
// HOST: cf.cond_br %[[ANY]]
// HOST: call @fuse_memcpy_dtoh
// HOST: call @fuse_stream_synchronize
// HOST-NOT: call @fuse_stream_synchronize
// HOST: llvm.store %[[CNT:[0-9]+]], %arg4 : i64
// HOST: llvm.store %[[CNT]], %arg5 : i64
// HOST-LABEL: func.func @plain_map(
// HOST-NOT: llvm.store %{{.*}}, %arg4 : i64
// HOST-LABEL: func.func private @plain_map_ws__fuse_impl(

func.func @scaled_positive(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %zero = arith.constant 0.0 : f32
  %k = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.cmpf ogt, %a, %zero : f32
    fuse.yield %p : i1
  }
  %two = arith.constant 2.0 : f32
  %y = fuse.map %k : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %m = arith.mulf %a, %two : f32
    fuse.yield %m : f32
  }
  return %y, %k : tensor<?xf32>, tensor<?xf32>
}

func.func @plain_map(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %m = arith.mulf %a, %a : f32
    fuse.yield %m : f32
  }
  return %y : tensor<?xf32>
}

func.func @iota_of_count(%x: tensor<?xf32>) -> tensor<?xi64> {
  %f = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %z = arith.constant 0.0 : f32
    %p = arith.cmpf ogt, %a, %z : f32
    fuse.yield %p : i1
  }
  %c0 = arith.constant 0 : index
  %n = tensor.dim %f, %c0 : tensor<?xf32>
  %io = fuse.iota %n : tensor<?xi64>
  return %io : tensor<?xi64>
}
