// Kernels the GPU suite loads as a cubin/PTX image through fuse_module_load.
// Compiled with nvcc -cubin / -ptx by the runtime's CMake (test images).

// y[i] = a * x[i] + i, for i < n.
extern "C" __global__ void fuse_test_axpy(const float *x, float *y, float a,
                                          long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + (float)i;
}

// Test-only fault: writes far outside any allocation (an illegal address).
extern "C" __global__ void fuse_test_oob_write(float *p) {
  p[(1ll << 40) + threadIdx.x] = 1.0f;
}

// Static and dynamic shared memory together (8 KiB static): y[i] = i + the
// dynamic buffer's size in floats, read back through both buffers. A
// launch whose dynamic bytes fit in 48 KiB but not next to the static
// 8 KiB must still be allowed by fuse_launch.
extern "C" __global__ void fuse_test_shared_mix(float *y, int dynFloats) {
  __shared__ float fixed[2048];
  extern __shared__ float dyn[];
  int t = threadIdx.x;
  fixed[t] = (float)t;
  dyn[dynFloats - 1 - t] = (float)dynFloats;
  __syncthreads();
  y[t] = fixed[t] + dyn[dynFloats - 1 - t];
}
