# carry: .device/bench (scripts/gpu/prepare-bench.sh), .device/compiler
# (scripts/gpu/prepare-compiler.sh)
mkdir -p $OUT/bench; BENCH_ROUNDS=2 BENCH_WIDTHS="2080892x129 65552x4095" timeout 560 scripts/gpu/run-bench.sh .device/bench "$OUT/bench" > "$OUT/bench.log" 2>&1; echo "rc=$?"; tail -45 "$OUT/bench/report.md"
