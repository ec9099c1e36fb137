# Sourced by the session-5 device scripts (from the repo root): s5_setup TAG sets B (carried
# binaries), R ($OUT/TAG, created), KKPERM_MATRICES_DIR and M (the real matrices), and records the
# GPU (nvidia-smi.txt) and the UTC date (date.txt) in R.
s5_setup() {
  B=.carry/s5
  R=$OUT/$1; mkdir -p "$R"
  export KKPERM_MATRICES_DIR=$PWD/.carry/kkperm-gpu/matrices
  M=$KKPERM_MATRICES_DIR/real
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$R/nvidia-smi.txt" 2>&1
  date -u +%FT%TZ > "$R/date.txt"
}
