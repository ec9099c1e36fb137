# Sourced by the session-12 device scripts (from the repo root).
# s12_setup TAG: unpacks $S12_CARRY/bin.tgz (default .carry/s12; new/: kkperm_spmv and the SpMV
# candidate test; matrices/: the carried shared/matrices), sets C, NEW, R ($OUT/TAG), DEADLINE_S
# (default 540), exports KKPERM_MATRICES_DIR / KKPERM_MATRICES, records the GPU and the UTC date
# in R. late and res_usage come from scripts/gpu/lib/session_common.sh.
s12_setup() { carry_setup "${S12_CARRY:-.carry/s12}" "$1" 540; }
source scripts/gpu/lib/session_common.sh  # late, res_usage
