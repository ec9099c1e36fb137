# Sourced by the session-7 and session-8 device-script helpers (scripts/gpu/session*/common.sh),
# after they set NEW (carried binaries), R (the run's result folder under $OUT) and DEADLINE_S.
# late WHAT: true, and logs "skipped (deadline): WHAT" in R/runs.txt, once SECONDS passed
#   DEADLINE_S (later items are skipped so that the tgz gets written).
# tests_and_pack TAG: runs the carried test executables NEW/kkperm_test_* (unless late), logging
#   each rc in R/runs.txt, then packs R into $OUT/TAG.tgz.
# ncu_gens PERMS [NCU ARGS...]: for each generator spec in NCU_GENS (unless late), ncu kernel
#   times (duration, registers, grid, warps active) of one `NEW/kkperm_features --perms PERMS`
#   run, extra ncu arguments (e.g. a kernel filter) passed on, into R/ncu_<i>.txt.gz.
late() { (( SECONDS > DEADLINE_S )) && { echo "skipped (deadline): $*" >> "$R/runs.txt"; return 0; }; return 1; }
tests_and_pack() {
  for t in $NEW/kkperm_test_*; do
    late "$t" && continue
    timeout 300 $t > "$R/$(basename $t).log" 2>&1
    echo "test $(basename $t) rc=$?" >> "$R/runs.txt"
  done
  tar -czf "$OUT/$1.tgz" -C "$OUT" "$1" && rm -rf "$R"
}
ncu_gens() {
  local perms=$1 i=0 g
  shift
  for g in ${NCU_GENS:-}; do
    i=$((i+1))
    late "ncu $g" && continue
    echo "$g" > "$R/ncu_$i.txt"
    timeout 90 ncu --clock-control none "$@" --metrics gpu__time_duration.sum,launch__registers_per_thread,launch__grid_size,sm__warps_active.avg.pct_of_peak_sustained_active \
      --csv $NEW/kkperm_features --gen "$g" --repeat 1 --warmup 0 --perms "$perms" >> "$R/ncu_$i.txt" 2> "$R/ncu_$i.err"
    gzip -f "$R/ncu_$i.txt"
  done
}
