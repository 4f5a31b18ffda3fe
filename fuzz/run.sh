#!/usr/bin/env bash
# Builds the libFuzzer harnesses (clang, ASan + UBSan, MPICH singleton) and
# runs each for a bounded time, starting from the seed corpus in the repo.
#
#   fuzz/run.sh            45 s each (what make test runs)
#   fuzz/run.sh 3600       an hour each, by hand
#   fuzz/run.sh 600 flat   one harness
#
# New interesting inputs go to build/fuzz/corpus-<name>/ (the repo's seed
# corpus fuzz/corpus/<name>/ is only read; copy good finds into it, or
# minimize with: build/fuzz/fuzz_<name> -merge=1 fuzz/corpus/<name> build/fuzz/corpus-<name>).
# A crash leaves its input in build/fuzz/artifacts/ and fails the run;
# reproduce it with: build/fuzz/fuzz_<name> build/fuzz/artifacts/<file>.
set -u
cd "$(dirname "$0")/.."
secs=${1:-45}
names=${2:-"hints flat learned"}
b=build/fuzz
cmake -S fuzz -B "$b" -G Ninja -DCMAKE_C_COMPILER=clang -DMPI_C_COMPILER=mpicc.mpich >/dev/null || exit 1
cmake --build "$b" || exit 1
export LSAN_OPTIONS="suppressions=$PWD/tests/reliability/lsan.supp:print_suppressions=0"
export HYDRA_LAUNCHER=fork
status=0
for f in $names; do
  mkdir -p "$b/corpus-$f" "$b/artifacts"
  "$b/fuzz_$f" -max_total_time="$secs" -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$b/artifacts/$f-" "$b/corpus-$f" "fuzz/corpus/$f" >"$b/fuzz_$f.log" 2>&1
  rc=$?
  runs=$(grep -oE 'Done [0-9]+ runs in [0-9]+ second' "$b/fuzz_$f.log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$b/fuzz_$f.log" | tail -1)
  if [ $rc -ne 0 ]; then
    echo "fuzz_$f: FAILED (exit $rc); log $b/fuzz_$f.log"
    grep -E 'ERROR|runtime error|fuzz_(hints|flat|learned):|Test unit written' "$b/fuzz_$f.log" | head -20
    status=1
  else
    echo "fuzz_$f: ok: ${runs:-?}s, $cov"
  fi
done
exit $status
