//===- Passes.td - fuse conversion passes ------------------*- tablegen -*-===//
#ifndef FUSE_CONVERSION_PASSES_TD
#define FUSE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertFuseToLoopsPass : Pass<"convert-fuse-to-loops"> {
  let summary = "Lower fuse ops to scf loops over tensors (the CPU path)";
  let description = [{
    Rewrites every fuse op into `scf.for` loop nests that read elements with
    `tensor.extract` and build results with `tensor.insert` (fuse.filter
    also uses `scf.if` and `tensor.extract_slice`). The result is ready for
    one-shot bufferization and the standard lowering to LLVM. This is the
    reference semantics of the dialect: the CPU backend and the oracle the
    tests compare against.

    Before:
    ```mlir
    %y = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%a: f32):
      %m = arith.mulf %a, %a : f32
      fuse.yield %m : f32
    }
    ```
    After:
    ```mlir
    %n = tensor.dim %x, %c0 : tensor<?xf32>
    %e = tensor.empty(%n) : tensor<?xf32>
    %y = scf.for %i = %c0 to %n step %c1 iter_args(%t = %e) -> (tensor<?xf32>) {
      %a = tensor.extract %x[%i] : tensor<?xf32>
      %m = arith.mulf %a, %a : f32
      %t2 = tensor.insert %m into %t[%i] : tensor<?xf32>
      scf.yield %t2 : tensor<?xf32>
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FuseCPUCountChecksPass
    : Pass<"fuse-cpu-count-checks", "::mlir::ModuleOp"> {
  let summary = "Check argument sizes against filter and prefix counts "
                "at run time (the CPU path)";
  let description = [{
    A size the caller passes that the pipeline combines with a
    `fuse.filter`'s kept count or a `fuse.prefix`'s count (e.g. a map of
    the kept values and an argument) cannot be checked before the call:
    the count exists only once the filter or prefix has run. fuse-to-cpu
    runs this pass first. Right after the filter or prefix it compares the
    count with each such size; on a mismatch the entry calls

    ```c
    void fuse_cpu_size_error(const char *format, int64_t size, int64_t count);
    ```

    (`format` a printf format of the message, e.g. "keptzip: size
    mismatch: in1 dimension 0 is %lld but the filter keeps %lld elements;
    the pipeline combines them, so they must be equal") and returns
    empty results (every dynamic dimension 0, scalars 0) without running
    the rest of the pipeline, so nothing reads past an argument. The
    code that links the entries defines the function: fuse-run reports
    the message and exits 1; an embedder records it and discards the
    results. The GPU entries make the same check in their host code.

    Before:
    ```mlir
    %k = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {...}
    %m = fuse.map %k, %y : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {...}
    return %m : tensor<?xf32>
    ```
    After:
    ```mlir
    %k = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {...}
    %n = tensor.dim %k, %c0 : tensor<?xf32>
    %s = tensor.dim %y, %c0 : tensor<?xf32>
    %bad = arith.cmpi ne, %s, %n : index
    %r = scf.if %bad -> (tensor<?xf32>) {
      func.call @fuse_cpu_size_error(%msg, %s64, %n64) : (!llvm.ptr, i64, i64) -> ()
      %e = tensor.empty(%c0) : tensor<?xf32>
      scf.yield %e : tensor<?xf32>
    } else {
      %m = fuse.map %k, %y : ... {...}
      scf.yield %m : tensor<?xf32>
    }
    return %r : tensor<?xf32>
    ```
  }];
  let statistics = [
    Statistic<"numChecks", "checks", "Number of run-time count checks">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FuseAttachTargetPass : Pass<"fuse-attach-target", "::mlir::ModuleOp"> {
  let summary = "Put the target GPU's description on the module";
  let description = [{
    Sets the module's `fuse.target` to the figures of `chip` (a
    `#fuse.target`: SM count, threads, shared memory, registers, L2,
    vector width), which fusion, `fuse-tile` and `convert-fuse-to-gpu`
    read. The GPU pipelines run it first with their `chip` option; a
    module without `fuse.target` is tiled and compiled for sm_90. An
    unknown chip is an error naming the known ones. `sm-count` replaces
    the SM count of the table (e.g. 114 for an H100 PCIe; the generated
    host code reads the device's own count at run time, so this sizes
    only static grids).

    ```mlir
    // fuse-opt --fuse-attach-target=chip=sm_80
    module attributes {fuse.target = #fuse.target<chip = "sm_80",
        smCount = 108, maxThreadsPerBlock = 1024, maxThreadsPerSM = 2048,
        sharedMemoryPerBlock = 166912, sharedMemoryPerSM = 167936,
        registersPerSM = 65536, l2Bytes = 41943040, vectorBytes = 16>} {}
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", "\"sm_90\"",
           "GPU architecture (sm_75 ... sm_121a)">,
    Option<"smCount", "sm-count", "int64_t", "0",
           "SM count instead of the chip's (0: the table's)">
  ];
  // The attribute is the fuse dialect's, loaded or not by the input.
  let dependentDialects = ["::fuse::FuseDialect"];
}

def ConvertFuseToGPUPass : Pass<"convert-fuse-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower fused groups to GPU kernels plus C-ABI host functions";
  let description = [{
    Every `func.func` whose body holds `fuse.group` ops (top-level fuse ops
    outside a group are first wrapped in a group of their own) becomes
      - kernels in `gpu.module @fuse_kernels`, one per `elementwise` group,
        two per `reduce` group (per-block partials, then a one-block
        fixed-order finish; a single launch when the input is small), one
        per `row_reduce` group (a block per row); and
      - a host `func.func` with the same name and the C ABI
        `i32 NAME(ptr in0, i64 in0_d0, ..., ptr out0, ..., ptr stream)`
        that calls the runtime (`fuse_module_load`, `fuse_launch`,
        `fuse_malloc`, ...). The image global `@fuse_kernels_image` is a
        placeholder filled by `fuse-embed-gpu-binary`.
    Kernels use 16-byte vector loads and stores when every pointer is
    16-byte aligned (checked at run time, scalar loop otherwise), grid-stride
    loops over a grid sized from the SM count, an unrolled main loop, warp
    shuffles and shared memory for block reductions, and 64-bit indices.
    A group's `fuse.tiling` (`#fuse.tiling`, from fuse-tile) says how it
    is tiled; the pass options tile the groups that carry none. The module's
    `fuse.target` (fuse-attach-target; sm_90 when absent) says what the
    chip has: below sm_80 (no cp.async) tiles and rows are not staged in
    shared memory whatever the tiling asks, and staged rows take at most
    what a block may opt in to.

    Before:
    ```mlir
    func.func @sumsq(%x: tensor<?xf32>) -> tensor<f32> {
      %s = fuse.group reduce (%x) : (tensor<?xf32>) -> tensor<f32> {...}
      return %s : tensor<f32>
    }
    ```
    After (abridged):
    ```mlir
    gpu.module @fuse_kernels {
      gpu.func @sumsq_g0_partial(...) kernel {...}
      gpu.func @sumsq_g0_finish(...) kernel {...}
    }
    func.func @sumsq(%x: !llvm.ptr, %x_d0: i64, %out0: !llvm.ptr,
                     %stream: !llvm.ptr) -> i32 {...}
    ```
  }];
  let options = [
    Option<"blockThreads", "block-threads", "int64_t",
           "::fuse::kDefaultBlockThreads",
           "Threads per block (a multiple of 32, at most 1024)">,
    Option<"unroll", "unroll", "int64_t", "::fuse::kDefaultUnroll",
           "Vector loads in flight per thread in the main loop">,
    Option<"blocksPerSM", "blocks-per-sm", "int64_t",
           "::fuse::kDefaultBlocksPerSM",
           "Resident blocks per SM used to size persistent grids">,
    Option<"smallReduce", "small-reduce", "int64_t",
           "::fuse::kDefaultSmallReduce",
           "Reductions over at most this many elements run as one launch "
           "of one block">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect"];
}

def FuseEmbedGPUBinaryPass : Pass<"fuse-embed-gpu-binary", "::mlir::ModuleOp"> {
  let summary = "Embed the gpu.binary made by gpu-module-to-binary as a global";
  let description = [{
    Replaces `gpu.binary @fuse_kernels` (the cubin, fatbin or PTX of the
    kernels) with the bytes of its first object in the LLVM globals
    `@fuse_kernels_image` / `@fuse_kernels_image_size` that the host code of
    convert-fuse-to-gpu passes to `fuse_module_load`, and drops
    `gpu.container_module`, leaving a module that translates to LLVM IR.
    Fails with a diagnostic when an offloading (LLVM IR) object or no
    placeholder global is found.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def FuseExpandArithPass : Pass<"fuse-expand-arith"> {
  let summary = "Expand the arith ops that convert-arith-to-llvm cannot "
                "lower, keeping IEEE maximum/minimum";
  let description = [{
    The expansions of upstream `arith-expand` that the LLVM lowering needs
    (`ceildivsi`, `ceildivui`, `floordivsi`, scaling extension/truncation),
    without its rewrite of `arith.maximumf`/`arith.minimumf` into a compare
    and select: that rewrite returns the second operand when both compare
    equal, so `maximumf(+0.0, -0.0)` gave -0.0. Left alone, they become
    `llvm.intr.maximum`/`llvm.intr.minimum`, which order -0.0 below +0.0
    and propagate NaN, as fuse documents. bf16 conversions become integer
    code (the C runtime of the host may lack `__truncsfbf2`); f64 -> bf16
    goes through an f32 rounded to odd, so it is correctly rounded. Used
    by `fuse-to-cpu`, after `math-extend-to-supported-types` and
    `arith-emulate-unsupported-floats` moved bf16 arithmetic to f32.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def FuseExpandShapeStridesPass : Pass<"fuse-expand-shape-strides"> {
  let summary = "Lower memref.expand_shape with several dynamic sizes in a "
                "group to memref.reinterpret_cast";
  let description = [{
    MLIR 22's `expand-strided-metadata` computes an expanded group's sizes
    and strides from the source's size and the static sizes, which takes
    at most one dynamic size a group; with two or more (a rank-2 buffer
    viewed as `[n, m, k]` from `[n * m, k]`) it dereferences a null size
    and crashes. This pass rewrites exactly those `memref.expand_shape`
    ops first, as `memref.reinterpret_cast` of the source's base buffer
    (`memref.extract_strided_metadata`) with the sizes of `output_shape`
    and, within each group, strides that are the source dimension's
    stride times the sizes of the group's later dimensions (row-major
    order, as `expand_shape` defines). Other expand_shape ops are left to
    `expand-strided-metadata`. Used by `fuse-to-cpu` just before it.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def FuseGPUModuleToBinaryPass
    : Pass<"fuse-gpu-module-to-binary", "::mlir::ModuleOp"> {
  let summary = "gpu-module-to-binary with a module's kernels compiled in "
                "parallel (LLVM and ptxas)";
  let description = [{
    Serializes every `gpu.module` into a `gpu.binary`, as upstream
    `gpu-module-to-binary` does, except that the kernels of a module with
    one NVVM target are compiled in parallel: the kernels are dealt to up
    to `jobs` parts (balanced by operation count), each part is translated
    to LLVM IR, optimized and compiled to PTX by NVPTX on its own thread,
    and the parts' PTX is joined into one PTX module, which ptxas compiles
    once (its `--split-compile` compiles the kernels on parallel threads
    too). The image is one cubin, fatbin or PTX text, as before; each
    kernel's machine code is what a serial compile gives (kernels share no
    code).

    A module with one kernel, `jobs=1`, another target, device functions
    (defined functions that are not kernels), or parts whose PTX cannot be
    joined (any module-level item other than entries and `.extern .shared`
    declarations) takes the serial path: the whole module at once, as
    upstream.
    Errors of LLVM, ptxas or fatbinary are reported on the module with the
    tool's log.
  }];
  let options = [
    Option<"format", "format", "std::string", "\"bin\"",
           "Image format: isa (PTX), bin (cubin) or fatbin (cubin + PTX)">,
    Option<"cmdOptions", "opts", "std::string", "\"\"",
           "Options appended to ptxas's command line">,
    Option<"toolkitPath", "toolkit", "std::string", "\"\"",
           "CUDA toolkit root (bin/ptxas, bin/fatbinary, libdevice); empty: "
           "the NVVM target's default search">,
    Option<"jobs", "jobs", "unsigned", "0",
           "Kernel parts of a module (0: one per thread of the context, "
           "1: the whole module at once, as upstream; N: up to N parts, "
           "run on the context's threads)">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // FUSE_CONVERSION_PASSES_TD
