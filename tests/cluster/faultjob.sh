# The part of a fault test that runs the job (sourced by nodefault.sh and
# fault.sh): the job starts in the background under the test's time
# limit, and the fault waits until its ranks are under way.
#
#   fault_job_start LIMIT OUT FLAVOR EXTRA PROG ARGS...   sets $job
#   fault_job_wait_started DIR                            returns when DIR/started exists or the job ended

fault_job_start() {
  local limit=$1 out=$2 flavor=$3 extra=$4
  shift 4
  # shellcheck disable=SC2086
  timeout "$limit" bash "$C" mpirun "$flavor" $extra "${fwd[@]}" "$@" >"$out" 2>&1 &
  job=$!
}

fault_job_wait_started() {
  for _ in $(seq 1 300); do
    bash "$C" exec node1 test -e "$1/started" && return 0
    kill -0 "$job" 2>/dev/null || return 1
    sleep 0.2
  done
  return 1
}
