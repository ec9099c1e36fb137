# Sourced by the session-8 device scripts (from the repo root).
# s8_setup TAG: unpacks $S8_CARRY/bin.tgz (default .carry/s8; new/: this session's kkperm_features
# and feature tests; old/: the kkperm_features to compare with, commit 89ac5a9's = session 6's
# staged row pass), sets OLD, NEW, KKPERM_MATRICES_DIR, M (real matrices), R ($OUT/TAG),
# DEADLINE_S (default 480), S5_GENS (the 11-matrix generated set of sessions 5-6), records the GPU and the UTC date in R.
# late, tests_and_pack TAG and ncu_gens come from scripts/gpu/lib/session_common.sh.
s8_setup() {
  local c=${S8_CARRY:-.carry/s8}
  [[ -d $c/new ]] || tar -xzf "$c/bin.tgz" -C "$c"
  OLD=$c/old
  NEW=$c/new
  source scripts/gpu/session5/setup.sh
  s5_setup "$1"   # sets R, M, KKPERM_MATRICES_DIR, S5_GENS, writes nvidia-smi.txt and date.txt
  DEADLINE_S=${DEADLINE_S:-480}
}
source scripts/gpu/lib/session_common.sh  # late, tests_and_pack, ncu_gens
