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
