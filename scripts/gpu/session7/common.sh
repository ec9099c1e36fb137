# Sourced by the session-7 device scripts (from the repo root).
# s7_setup TAG: unpacks $S7_CARRY/bin.tgz (default .carry/s7; new/: this session's kkperm_amg,
# kkperm_spgemm and SpGEMM tests; old/: the kkperm_amg, kkperm_spgemm to compare with — in
# .carry/s7 those of the session-3 pack, in .carry/s7b, s7c, s7d those of commit 8fc7f50, in
# .carry/s7e those of commit f9c2639),
# sets OLD, NEW,
# KKPERM_MATRICES_DIR, M (real matrices), R ($OUT/TAG), DEADLINE_S (default 480) and `late`
# (true, and logged, once SECONDS passed DEADLINE_S: later items are skipped so that the tgz gets
# written), records the GPU and the UTC date in R.
# s7_tests_and_pack TAG: runs the carried test executables (unless late), packs R into $OUT/TAG.tgz.
s7_setup() {
  local c=${S7_CARRY:-.carry/s7}
  [[ -d $c/new ]] || tar -xzf "$c/bin.tgz" -C "$c"
  OLD=$c/old
  NEW=$c/new
  export KKPERM_MATRICES_DIR=$PWD/.carry/kkperm-gpu/matrices
  M=$KKPERM_MATRICES_DIR/real
  R=$OUT/$1; mkdir -p "$R"
  DEADLINE_S=${DEADLINE_S:-480}
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$R/nvidia-smi.txt" 2>&1
  date -u +%FT%TZ > "$R/date.txt"
}
late() { (( SECONDS > DEADLINE_S )) && { echo "skipped (deadline): $*" >> "$R/runs.txt"; return 0; }; return 1; }
s7_tests_and_pack() {
  for t in $NEW/kkperm_test_*; do
    late "$t" && continue
    timeout 300 $t > "$R/$(basename $t).log" 2>&1
    echo "test $(basename $t) rc=$?" >> "$R/runs.txt"
  done
  tar -czf "$OUT/$1.tgz" -C "$OUT" "$1" && rm -rf "$R"
}
