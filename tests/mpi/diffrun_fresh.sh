#!/usr/bin/env bash
# diffrun.sh in a new build directory, as the cluster's differential tests
# first meet it: the natives write elsewhere (--native-out, their own
# launcher) and the natives' report is written to --out before any ferry
# run has made that directory. A stand-in launcher and program (no MPI)
# write the same report lines and file bytes in every variant, so the run
# must pass.
#   diffrun_fresh.sh DIFFRUN WORKDIR
set -u
diffrun=$1 work=$2
rm -rf "$work"
mkdir -p "$work/bin" "$work/native"
# the launcher: [-n N] [-genv K V]... PROG ARGS
cat >"$work/bin/launch" <<'LAUNCH'
#!/usr/bin/env bash
while [ $# -gt 0 ]; do
  case $1 in
    -n) shift 2 ;;
    -genv) shift 3 ;;
    *) break ;;
  esac
done
exec "$@"
LAUNCH
# the program: one report line and one file, the same under every variant
cat >"$work/bin/prog" <<'PROG'
#!/usr/bin/env bash
echo "REPORT stand-in bytes 4096"
printf 'same bytes\n' >"$FERRY_TEST_OUT/data"
PROG
chmod +x "$work/bin/launch" "$work/bin/prog"
out=$work/out/never-made
bash "$diffrun" --mpiexec "$work/bin/launch" --np 2 --lib /nonexistent/libferry.so --flavor mpich \
  --out "$out" --native-mpiexec "$work/bin/launch" --native-out "$work/native" -- "$work/bin/prog" >"$work/log" 2>&1
rc=$?
cat "$work/log"
[ $rc -eq 0 ] || { echo "diffrun_fresh: diffrun.sh exit $rc in a new --out directory"; exit 1; }
grep -q "prog: 1 reports and 1 files match native (romio)" "$work/log" || { echo "diffrun_fresh: no verdict"; exit 1; }
echo "diffrun_fresh: passed"
