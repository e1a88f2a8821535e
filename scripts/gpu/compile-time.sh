# Sourced by scripts/gpu/prepare-bench.sh and run-compile-times.sh.
# median_compile_ms FUSE_COMPILE SOURCE OBJECT REPS: runs
# `fuse-compile SOURCE --prefix=fb_ --emit=obj -o OBJECT --time` REPS times
# and prints "PROCESS_MS IN_PROCESS_MS", the medians (of an even count the
# lower middle) of the process's wall time (what a user waits for: start-up
# and loading included) and of --time's figure (parse to object written).
median_compile_ms() {
  local fc="$1" src="$2" obj="$3" reps="$4" t0 _
  local ts=() ins=()
  for _ in $(seq "$reps"); do
    t0=$(date +%s%N)
    ins+=("$("$fc" "$src" --prefix=fb_ --emit=obj -o "$obj" --time 2>&1 |
             sed -n 's/.*wall time \([0-9.]*\) ms/\1/p')")
    ts+=("$(( ($(date +%s%N) - t0) / 1000000 ))")
  done
  local mid=$(( (reps + 1) / 2 ))
  echo "$(printf '%s\n' "${ts[@]}" | sort -n | sed -n "${mid}p")" \
       "$(printf '%s\n' "${ins[@]}" | sort -n | sed -n "${mid}p")"
}
