#!/usr/bin/env bash
# scripts/test.sh's suite step on two stand-in build directories (a CTest
# file each, no build): a test that fails once and then passes, one that
# always passes, and one that always fails (beside another flaky one). The suite reruns failures and
# must name the flaky test in its summary as passed only on the rerun, and
# must not name the test that failed twice there.
#   test_sh_rerun.sh SRC WORKDIR
set -u
src=$1 work=$2
rm -rf "$work"
mkdir -p "$work/a" "$work/b" "$work/c"
cat >"$work/a/CTestTestfile.cmake" <<CT
add_test(steady "true")
add_test(flaky "bash" "-c" "[ -f $work/a/ran ] || { touch $work/a/ran; exit 1; }")
CT
cat >"$work/b/CTestTestfile.cmake" <<CT
add_test(broken "false")
add_test(flaky2 "bash" "-c" "[ -f $work/b/ran ] || { touch $work/b/ran; exit 1; }")
CT
FERRY_TEST_STEPS=suite FERRY_TEST_BUILDS="$work/a $work/b $work/c" bash "$src/scripts/test.sh" >"$work/log" 2>&1
rc=$?
sed -n '/^=== summary/,$p' "$work/log"
fail=0
[ $rc -eq 1 ] || { echo "test_sh_rerun: exit $rc, 1 wanted (broken failed twice)"; fail=1; }
grep -qx "tests: openmpi: ok ([0-9]* s); passed only on the rerun: flaky" "$work/log" ||
  { echo "test_sh_rerun: the summary does not name flaky as passed only on the rerun"; fail=1; }
grep -qx "tests: mpich: FAILED ([0-9]* s); passed only on the rerun: flaky2" "$work/log" ||
  { echo "test_sh_rerun: beside a test that failed twice, the flaky one is not named alone"; fail=1; }
[ $fail -eq 0 ] && echo "test_sh_rerun: passed"
exit $fail
