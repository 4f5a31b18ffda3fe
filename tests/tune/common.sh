# Sourced by the ferry-tune test scripts: arguments and a launcher.
#   TUNE BENCH LIBFERRY MPIEXEC FLAVOR OUTDIR "EXTRA FLAGS"
tune=$1 bench=$2 lib=$3 mpiexec=$4 flavor=$5 out=$6 extra=${7:-}
# run NP VAR=VALUE... -- CMD...: CMD under mpiexec, libferry preloaded,
# each VAR set on every rank
run() {
  local np=$1 env=()
  shift
  while [ "$1" != "--" ]; do
    if [ "$flavor" = mpich ]; then env+=(-genv "${1%%=*}" "${1#*=}"); else env+=(-x "$1"); fi
    shift
  done
  shift
  if [ "$flavor" = mpich ]; then env+=(-genv LD_PRELOAD "$lib"); else env+=(-x "LD_PRELOAD=$lib"); fi
  # shellcheck disable=SC2086
  "$mpiexec" $extra -n "$np" "${env[@]}" "$@"
}
fail() { echo "FAIL: $*"; exit 1; }
