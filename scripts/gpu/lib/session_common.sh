# Sourced by the session-7 and session-8 device-script helpers (scripts/gpu/session*/common.sh),
# after they set NEW (carried binaries), R (the run's result folder under $OUT) and DEADLINE_S.
# late WHAT: true, and logs "skipped (deadline): WHAT" in R/runs.txt, once SECONDS passed
#   DEADLINE_S (later items are skipped so that the tgz gets written).
# tests_and_pack TAG: runs the carried test executables NEW/kkperm_test_* (unless late), logging
#   each rc in R/runs.txt, then packs R into $OUT/TAG.tgz.
late() { (( SECONDS > DEADLINE_S )) && { echo "skipped (deadline): $*" >> "$R/runs.txt"; return 0; }; return 1; }
tests_and_pack() {
  for t in $NEW/kkperm_test_*; do
    late "$t" && continue
    timeout 300 $t > "$R/$(basename $t).log" 2>&1
    echo "test $(basename $t) rc=$?" >> "$R/runs.txt"
  done
  tar -czf "$OUT/$1.tgz" -C "$OUT" "$1" && rm -rf "$R"
}
