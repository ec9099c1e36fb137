# Sourced by the session-7 device scripts (from the repo root).
# s7_setup TAG: unpacks $S7_CARRY/bin.tgz (default .carry/s7; new/: this session's kkperm_amg,
# kkperm_spgemm and SpGEMM tests; old/: the kkperm_amg, kkperm_spgemm to compare with — in
# .carry/s7 those of the session-3 pack, in .carry/s7b, s7c, s7d those of commit 8fc7f50, in
# .carry/s7e those of commit f9c2639),
# sets OLD, NEW,
# KKPERM_MATRICES_DIR, M (real matrices), R ($OUT/TAG), DEADLINE_S (default 480), records the GPU and the UTC date in R.
# late and tests_and_pack TAG come from scripts/gpu/lib/session_common.sh.
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
source scripts/gpu/lib/session_common.sh  # late, tests_and_pack
