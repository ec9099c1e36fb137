# Sourced by the session-13 experiment scripts (from the repo root).
# s13_exp_setup TAG DEFAULT_CARRY EXP_CARRY: s12_setup TAG with S12_CARRY defaulting to
# DEFAULT_CARRY (committed build + matrices), then unpacks EXP_CARRY/bin.tgz (exp/: an
# experiment kkperm_spmv, not committed) and sets EXP (its folder) and M (the real matrices).
s13_exp_setup() {
  S12_CARRY=${S12_CARRY:-$2}
  source scripts/gpu/session12/common.sh
  s12_setup "$1"
  EXP=$3
  [[ -d $EXP/exp ]] || tar -xzf "$EXP/bin.tgz" -C "$EXP"
  M=$PWD/$C/matrices/real
}
