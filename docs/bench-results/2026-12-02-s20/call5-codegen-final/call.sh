# carry: .device/artifacts (scripts/gpu/prepare-artifacts.sh), final kernels
FUSE_GPU_SUITES="codegen" FUSE_GPU_DEADLINE=200 timeout 250 scripts/gpu/run-all.sh > $OUT/run-all.txt 2>&1
