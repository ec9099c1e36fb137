#!/usr/bin/env bash
# Session 30: SpGEMM setup A/B with launch traces of carried builds — session 16's
# spgemm_profile.sh with --trace-setup on every run (kkperm_spgemm: A2, AP, RAP; kkperm_amg where
# the variant's folder carries it), no ncu, candidates esc,cusparse_alg1 unless CANDS or a
# variant's "@CANDS" says otherwise. VARIANTS, ROUNDS, GENS, DEADLINE_S, HARD_S as there.
# Usage (GPU host, repo root):
#   S30_CARRY=.carry/s30b VARIANTS="old@esc,cusparse_alg1 new@esc,cusparse_alg1" ROUNDS=3 \
#     bash scripts/gpu/session30/trace_ab.sh TAG   -> $OUT/TAG.tgz
# Summaries: python3 scripts/gpu/session30/trace_summary.py DIR; session 27's setup_ab.py.
cd "$(dirname "$0")/../../.."
S16_CARRY=${S30_CARRY:-.carry/s30b} EXTRA="--trace-setup ${EXTRA:-}" NCU= CANDS=${CANDS:-esc,cusparse_alg1} \
  DEADLINE_S=${DEADLINE_S:-480} exec bash scripts/gpu/session16/spgemm_profile.sh "${1:-s30ab}"
