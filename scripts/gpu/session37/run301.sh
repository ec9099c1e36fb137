#!/usr/bin/env bash
# Session 37, run 301: the ESC analysis kernel (plan_keys_launch) with launch bounds for 4 teams of
# 256 a SM (new/) against the final code without them (old/), with cuSPARSE ALG1 in new, 4
# rounds, both orders (session 16's spgemm_profile.sh with --trace-setup; no tests carried).
# Carry .carry/s37g: bin.tgz (new/, old/).
# Usage (GPU host, repo root): bash scripts/gpu/session37/run301.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run301}
S16_CARRY=${CARRY:-.carry/s37g} EXTRA="--trace-setup" NCU= VARIANTS="new@esc,cusparse_alg1 old@esc" ROUNDS=4 \
  DEADLINE_S=200 HARD_S=220 bash scripts/gpu/session16/spgemm_profile.sh "${TAG}_a"
S16_CARRY=${CARRY:-.carry/s37g} EXTRA="--trace-setup" NCU= VARIANTS="old@esc new@esc,cusparse_alg1" ROUNDS=4 \
  DEADLINE_S=190 HARD_S=210 bash scripts/gpu/session16/spgemm_profile.sh "${TAG}_b"
ls -la "$OUT"
