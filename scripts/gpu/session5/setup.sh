# Sourced by the session-5 device scripts (from the repo root): s5_setup TAG sets B (carried
# binaries), R ($OUT/TAG, created), KKPERM_MATRICES_DIR and M (the real matrices), and records the
# GPU (nvidia-smi.txt) and the UTC date (date.txt) in R, and S5_GENS: the 11-matrix generated set
# (every generator family, 5e6-1.8e7 nnz) that bench_features.sh and session6/ab_rowpass.sh measure.
# s5_gens DIR: sets S5_GENS with the Kronecker matrix read from DIR (the real matrices).
s5_gens() {
  local m=$1
  S5_GENS=(
    "laplace2d5:nx=1414,ny=1414"
    "laplace3d7:nx=100"
    "laplace3d27:nx=70"
    "uniform:rows=1000000,nnz=8,seed=1"
    "uniform:rows=300000,nnz_min=1,nnz_max=63,seed=2"
    "powerlaw:n=1250000,deg=8,gamma=2.2,seed=1"
    "banded:n=1000000,lower=4,seed=8"
    "block:blocks=10000,size=32,seed=10"
    "arrow:n=1000000,dense_rows=2,dense_cols=2,seed=12"
    "hypersparse:n=4000000,frac=0.05,nnz=32,seed=14"
    "kron:file=$m/4elt.mtx.gz,nnz=1e7,seed=16"
  )
}
s5_setup() {
  B=.carry/s5
  R=$OUT/$1; mkdir -p "$R"
  export KKPERM_MATRICES_DIR=$PWD/.carry/kkperm-gpu/matrices
  M=$KKPERM_MATRICES_DIR/real
  s5_gens "$M"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$R/nvidia-smi.txt" 2>&1
  date -u +%FT%TZ > "$R/date.txt"
}
