#!/usr/bin/env bash
# refused.sh TUNE BENCH LIBFERRY MPIEXEC FLAVOR OUTDIR "EXTRA": a workload
# ferry-bench refuses (an unknown pattern, an unknown option after --) is a
# usage error: exit status 2, and ferry-bench's own message, not the
# launcher's text about how the job ended.
set -u
. "$(dirname "$0")/common.sh"
check() { # what-it-was ferry-bench's-words ferry-tune-args...
  local what=$1 words=$2
  shift 2
  "$tune" "$@" --budget 30s -q >"$out/tune_refused.out" 2>&1
  local rc=$?
  [ $rc -eq 2 ] || { cat "$out/tune_refused.out"; fail "$what: exit status $rc, 2 wanted"; }
  grep -q "^ferry-tune: ferry-bench refused the workload .*$words" "$out/tune_refused.out" ||
    { cat "$out/tune_refused.out"; fail "$what: ferry-bench's message is lost"; }
  ! grep -qi "does not run under ferry's defaults\|mpiexec\|exited with\|terminat" "$out/tune_refused.out" ||
    { cat "$out/tune_refused.out"; fail "$what: the launcher's text instead"; }
}
check "unknown pattern" "unknown pattern 'foo'" --pattern foo --ranks 2
check "unknown option" "ferry-bench ior: unknown option '--bogus'" --pattern ior --ranks 2 -- --bogus
echo "tune refused: passed"
