# carry: .device/bench, .device/variants: select and scan, v0/v2 built by
# e7d8d1c's fuse-compile, v1/v3 by 71f401a's (scripts/gpu/prepare-variants.sh
# NAME "" with BUILD_DIR and FIRST_INDEX; options.txt names the build)
scripts/gpu/run-variants.sh 3 --reps=30 > $OUT/variants.txt 2>&1; python3 scripts/gpu/summarize-variants.py < $OUT/variants.txt
