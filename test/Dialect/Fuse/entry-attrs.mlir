// RUN: fuse-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// #fuse.entry, #fuse.entry_output and #fuse.size: the C interface of a
// compiled entry that convert-fuse-to-gpu describes and fuse-compile
// renders as the AOT header. They round-trip, and their verifiers reject
// descriptions that name no argument of the right kind.

// CHECK: fuse.entries = [#fuse.entry<name = "select", groups = 2, inputs = [tensor<?x?xf32>, index], outputs = [#fuse.entry_output<type = tensor<?xf32>, sizes = [#fuse.size<source = arg_dim, dim = 1>], count = kept>, #fuse.entry_output<type = tensor<?x8xf32>, sizes = [#fuse.size<source = arg, value = 1>, #fuse.size<source = static, value = 8>], count = none>, #fuse.entry_output<type = tensor<f32>, sizes = [], count = none>], workspace = none, workspace_note = "a reason">]
module attributes {fuse.entries = [#fuse.entry<name = "select", groups = 2,
    inputs = [tensor<?x?xf32>, index],
    outputs = [
      #fuse.entry_output<type = tensor<?xf32>,
          sizes = [#fuse.size<source = arg_dim, value = 0, dim = 1>],
          count = kept>,
      #fuse.entry_output<type = tensor<?x8xf32>,
          sizes = [#fuse.size<source = arg, value = 1>,
                   #fuse.size<source = static, value = 8>],
          count = none>,
      #fuse.entry_output<type = tensor<f32>, sizes = [], count = none>],
    workspace = none, workspace_note = "a reason">]} {
}

// -----

// expected-error @+1 {{an entry's workspace_note says why it has no workspace form: given exactly when workspace is none}}
module attributes {fuse.entries = [#fuse.entry<name = "f", groups = 1,
    inputs = [], outputs = [], workspace = none>]} {
}

// -----

// expected-error @+1 {{an entry's workspace_note says why it has no workspace form: given exactly when workspace is none}}
module attributes {fuse.entries = [#fuse.entry<name = "f", groups = 1,
    inputs = [], outputs = [], workspace = available, workspace_note = "x">]} {
}

// -----

// expected-error @+1 {{an entry output size names dimension 2 of argument 0, which is not a ranked tensor of that rank}}
module attributes {fuse.entries = [#fuse.entry<name = "f", groups = 1,
    inputs = [tensor<?x?xf32>],
    outputs = [#fuse.entry_output<type = tensor<?xf32>,
        sizes = [#fuse.size<source = arg_dim, dim = 2>], count = none>],
    workspace = available>]} {
}

// -----

// expected-error @+1 {{an entry output size names argument 0 as a scalar, which it is not}}
module attributes {fuse.entries = [#fuse.entry<name = "f", groups = 1,
    inputs = [tensor<?xf32>],
    outputs = [#fuse.entry_output<type = tensor<?xf32>,
        sizes = [#fuse.size<source = arg>], count = none>],
    workspace = available>]} {
}

// -----

// expected-error @+1 {{an entry output of rank 1 takes 1 sizes, not 0}}
module attributes {fuse.entries = [#fuse.entry_output<type = tensor<?xf32>, sizes = [], count = none>]} {
}

// -----

// expected-error @+1 {{a counted entry output has rank 1}}
module attributes {fuse.entries = [#fuse.entry_output<type = tensor<f32>, sizes = [], count = kept>]} {
}

// -----

// expected-error @+1 {{a kept size takes no value or dim}}
module attributes {fuse.entries = [#fuse.size<source = kept, value = 3>]} {
}

// -----

// expected-error @+1 {{a static size takes a non-negative value and no dim, not value -1, dim 0}}
module attributes {fuse.entries = [#fuse.size<source = static, value = -1>]} {
}

// -----

// The sizes an entry checks before any work (#fuse.size_check), which the
// header documents.
// CHECK: fuse.entries = [#fuse.entry<name = "zip", groups = 1, inputs = [tensor<?xf32>, tensor<?xf32>], outputs = [], workspace = available, checks = [#fuse.size_check<kind = equal, lhs = <source = arg_dim, value = 1>, rhs = <source = arg_dim>>]>]
module attributes {fuse.entries = [#fuse.entry<name = "zip", groups = 1,
    inputs = [tensor<?xf32>, tensor<?xf32>], outputs = [],
    workspace = available,
    checks = [#fuse.size_check<kind = equal,
                lhs = #fuse.size<source = arg_dim, value = 1>,
                rhs = #fuse.size<source = arg_dim, value = 0>>]>]} {
}

// -----

// expected-error @+1 {{an entry's size check names argument 2 of a function with 2}}
module attributes {fuse.entries = [#fuse.entry<name = "zip", groups = 1,
    inputs = [tensor<?xf32>, tensor<?xf32>], outputs = [],
    workspace = available,
    checks = [#fuse.size_check<kind = equal,
                lhs = #fuse.size<source = arg_dim, value = 2>,
                rhs = #fuse.size<source = arg_dim, value = 0>>]>]} {
}

// -----

// expected-error @+1 {{an entry's size check is not a #fuse.size_check}}
module attributes {fuse.entries = [#fuse.entry<name = "zip", groups = 1,
    inputs = [tensor<?xf32>], outputs = [], workspace = available,
    checks = [3]>]} {
}
