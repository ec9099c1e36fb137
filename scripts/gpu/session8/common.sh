# Sourced by the session-8 device scripts (from the repo root).
# s8_setup TAG: unpacks $S8_CARRY/bin.tgz (default .carry/s8; new/: this session's kkperm_features
# and feature tests; old/: the kkperm_features to compare with, commit 89ac5a9's = session 6's
# staged row pass), sets OLD, NEW, KKPERM_MATRICES_DIR, M (real matrices), R ($OUT/TAG),
# DEADLINE_S (default 480), S5_GENS (the 11-matrix generated set of sessions 5-6) and `late`
# (true, and logged, once SECONDS passed DEADLINE_S), records the GPU and the UTC date in R.
# s8_tests_and_pack TAG: runs the carried test executables (unless late), packs R into $OUT/TAG.tgz.
s8_setup() {
  local c=${S8_CARRY:-.carry/s8}
  [[ -d $c/new ]] || tar -xzf "$c/bin.tgz" -C "$c"
  OLD=$c/old
  NEW=$c/new
  source scripts/gpu/session5/setup.sh
  s5_setup "$1"   # sets R, M, KKPERM_MATRICES_DIR, S5_GENS, writes nvidia-smi.txt and date.txt
  DEADLINE_S=${DEADLINE_S:-480}
}
late() { (( SECONDS > DEADLINE_S )) && { echo "skipped (deadline): $*" >> "$R/runs.txt"; return 0; }; return 1; }
s8_tests_and_pack() {
  for t in $NEW/kkperm_test_*; do
    late "$t" && continue
    timeout 300 $t > "$R/$(basename $t).log" 2>&1
    echo "test $(basename $t) rc=$?" >> "$R/runs.txt"
  done
  tar -czf "$OUT/$1.tgz" -C "$OUT" "$1" && rm -rf "$R"
}
