set -u
( PARTS="t" CARRY=.carry/s32c bash scripts/gpu/session32/setup_ab2.sh run253 ) > $OUT/run253_t_driver.log 2>&1
bash scripts/gpu/session32/ncu_source.sh run253_src > $OUT/run253_src_driver.log 2>&1
( PARTS="d" CARRY=.carry/s32b bash scripts/gpu/session32/setup_ab2.sh run253 ) > $OUT/run253_d_driver.log 2>&1
ls -la $OUT
