# Sourced by the session-7 and session-8 device-script helpers (scripts/gpu/session*/common.sh),
# after they set NEW (carried binaries), R (the run's result folder under $OUT) and DEADLINE_S.
# late WHAT: true, and logs "skipped (deadline): WHAT" in R/runs.txt, once SECONDS passed
#   DEADLINE_S (later items are skipped so that the tgz gets written).
# res_usage PATTERN [BINARY] [FILE]: registers/stack/shared/local of BINARY's (default
#   NEW/kkperm_features) kernels whose name matches PATTERN (cuobjdump -res-usage) into R/FILE
#   (default res_usage.txt).
# capped T: T, or fewer seconds, so that a command started now ends by HARD_S seconds after the
#   script started (default 570: inside the device call's 600 s limit, with time left to pack R;
#   run 153 lost its files when one command started before DEADLINE_S ran past the limit).
# run_tests [TIMEOUT]: runs the carried test executables NEW/kkperm_test_* (unless late; default
#   300 s each, capped), logging each rc in R/runs.txt.
# tests_and_pack TAG: run_tests 300, then pack_run TAG.
# pack_run TAG: packs R ($OUT/TAG) into $OUT/TAG.tgz and removes R (what comes back from the
#   device call is the tarball).
# feature_rounds [ARGS...]: ROUNDS times (default 2) over S5_GENS, the kkperm_features of each
#   variant in VARIANTS (default "old new": OLD, NEW; any other name: that folder beside NEW)
#   interleaved (`--perms none --repeat 10 --warmup 3`), ARGS passed to all but old, into
#   R/<variant>_<round>_<matrix>.{json,log}.
# ncu_gens PERMS [NCU ARGS...]: for each generator spec in NCU_GENS (unless late), ncu kernel
#   times (duration, registers, grid, warps active) of one `NEW/kkperm_features --perms PERMS`
#   run, extra ncu arguments (e.g. a kernel filter) passed on, into R/ncu_<i>.txt.gz.
# carry_setup CARRY TAG [DEADLINE]: unpacks CARRY/bin.tgz unless CARRY/new exists; sets C
#   (CARRY), NEW (C/new), OLD (C/old), R ($OUT/TAG, created) and DEADLINE_S (default DEADLINE,
#   else 480); writes nvidia-smi and the UTC date into R; exports the carried matrices
#   (KKPERM_MATRICES_DIR, KKPERM_MATRICES).
# feature_setup CARRY TAG: carry_setup, then S5_GENS (the 11-matrix generated set,
#   scripts/gpu/session5/setup.sh).
# variant_tests [TIMEOUT]: run_tests for each variant of VARIANTS but old (folders beside NEW),
#   each log renamed <test>_<variant>.log.
# alternate_order I WORDS...: WORDS in order when I is odd, reversed when I is even (the A/B scripts'
#   "order reversed every other case or round").
# ncu_setup TAG BIN: for the ncu scripts: unpacks BIN's carry (BIN's parent folder/bin.tgz) unless
#   BIN exists; sets R ($OUT/TAG, created); writes the UTC date, nvidia-smi and ncu --version into R.
ncu_setup() {
  [[ -d $2 ]] || tar -xzf "$(dirname "$2")/bin.tgz" -C "$(dirname "$2")"
  R=$OUT/$1
  mkdir -p "$R"
  date -u +%Y-%m-%dT%H:%M:%SZ > "$R/date.txt"
  nvidia-smi > "$R/nvidia-smi.txt" 2>&1
  ncu --version > "$R/ncu_version.txt" 2>&1
}
carry_setup() {
  C=$1
  [[ -d $C/new ]] || tar -xzf "$C/bin.tgz" -C "$C"
  NEW=$C/new
  OLD=$C/old
  R=$OUT/$2
  mkdir -p "$R"
  DEADLINE_S=${DEADLINE_S:-${3:-480}}
  nvidia-smi > "$R/nvidia-smi.txt" 2>&1
  date -u +%Y-%m-%dT%H:%M:%SZ > "$R/date.txt"
  export KKPERM_MATRICES_DIR=$PWD/$C/matrices KKPERM_MATRICES=$PWD/$C/matrices
}
feature_setup() {
  carry_setup "$1" "$2"
  source scripts/gpu/session5/setup.sh
  s5_gens "$KKPERM_MATRICES_DIR/real"
}
variant_tests() {
  local v t n
  for v in ${VARIANTS:-old new}; do
    [[ $v == old ]] && continue
    NEW=$C/$v run_tests ${1:-300}
    for t in "$C/$v"/kkperm_test_*; do
      n=$(basename "$t")
      [[ -f $R/$n.log ]] && mv "$R/$n.log" "$R/${n}_$v.log"
    done
  done
}
alternate_order() {
  local i=$1
  shift
  if (( i % 2 == 1 )); then echo "$@"; else printf '%s\n' "$@" | tac | tr '\n' ' '; fi
}
late() { (( SECONDS > DEADLINE_S )) && { echo "skipped (deadline): $*" >> "$R/runs.txt"; return 0; }; return 1; }
capped() {
  local t=$1 r=$(( ${HARD_S:-570} - SECONDS ))
  (( r < t )) && t=$r
  (( t < 5 )) && t=5
  echo "$t"
}
res_usage() {
  cuobjdump -res-usage ${2:-$NEW/kkperm_features} 2>&1 | grep -A1 "$1" \
    | grep -o "REG:[0-9]*\|STACK:[0-9]*\|SHARED:[0-9]*\|LOCAL:[0-9]*" | paste - - - - > "$R/${3:-res_usage.txt}" 2>&1
}
run_tests() {
  local t
  for t in $NEW/kkperm_test_*; do
    [[ -x $t ]] || continue  # no test executables carried
    late "$t" && continue
    timeout "$(capped ${1:-300})" $t > "$R/$(basename $t).log" 2>&1
    local rc=$?  # read before any command substitution resets it
    echo "test $(basename $t) rc=$rc" >> "$R/runs.txt"
  done
}
pack_run() {
  tar -czf "$OUT/$1.tgz" -C "$OUT" "$1" && rm -rf "$R"
}
tests_and_pack() {
  run_tests 300
  pack_run "$1"
}
feature_rounds() {
  local rep i g v b extra
  for rep in $(seq 1 ${ROUNDS:-2}); do
    i=0
    for g in "${S5_GENS[@]}"; do
      i=$((i+1))
      for v in ${VARIANTS:-old new}; do
        late "$v $g rep $rep" && continue
        b=$(dirname "$NEW")/$v; extra=("$@")
        [[ $v == old ]] && { b=$OLD; extra=(); }
        [[ $v == new ]] && b=$NEW
        timeout 90 $b/kkperm_features --gen "$g" --repeat 10 --warmup 3 --perms none "${extra[@]}" \
          --json "$R/${v}_${rep}_$i.json" > "$R/${v}_${rep}_$i.log" 2>&1
        echo "$v rep $rep $g rc=$?" >> "$R/runs.txt"
      done
    done
  done
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
