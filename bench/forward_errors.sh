#!/usr/bin/env bash
# What the forwarder's acknowledgement costs a forwarded write.
# ferry_forward_errors=call (the default) makes each forwarded write wait
# until the forwarder has written it, so a lost write fails at its call;
# =deferred returns once the data is copied out (write-behind: the error
# comes at a later call, sync or close). Independent IOR-like segmented N:1
# writes through forward with one collector per virtual node, under both
# modes and under ferry's direct path for reference; configurations
# alternate round after round (bench/alternate.sh), per transfer size.
# ferry-bench fsyncs at the end of the write phase, so write-behind data is
# in the file when its clock stops too.
#
#   bench/forward_errors.sh [ROUNDS] [RANKS] [XFERS] [BLOCK] [DIR]
#   env: BUILD (default build/openmpi), PPN (2), REPS (3)
set -eu
cd "$(dirname "$0")/.."
. bench/alternate.sh
rounds=${1:-5} ranks=${2:-4} xfers=${3:-"16k 256k"} block=${4:-4m} dir=${5:-/dev/shm}
reps=${REPS:-3} ppn=${PPN:-2} build=${BUILD:-build/openmpi}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bench=$build/bin/ferry-bench lib=$PWD/$build/lib/libferry.so
[ -x "$bench" ] || { echo "forward_errors: build first (make build)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out" "$dir"/ferry-fwderr.*' EXIT
fwd="ferry_ind_write_strategy=forward:ferry_ind_read_strategy=forward:ferry_forward_collectors=1"
hints_of() {
  case $1 in
    direct) echo "*:ferry_ind_write_strategy=direct:ferry_ind_read_strategy=direct" ;;
    call) echo "*:$fwd:ferry_forward_errors=call" ;;
    deferred) echo "*:$fwd:ferry_forward_errors=deferred" ;;
  esac
}
sample() { # config round
  mpiexec.openmpi --oversubscribe -n "$ranks" --mca pml ob1 --mca btl self,vader \
    -x LD_PRELOAD="$lib" -x FERRY_HINTS="$(hints_of "$1")" -x FERRY_RANKS_PER_NODE="$ppn" \
    "$bench" ior -w -t "$xfer" -b "$block" -s 2 -e -i "$reps" -o "$dir/ferry-fwderr.$1" |
    awk -v c="$1" -v x="$xfer" '$2 == "write" { print x, c, $8 }' >>"$out/all"
}
echo "load before: $(uptime)"
for xfer in $xfers; do
  bench_rounds "$rounds" sample call deferred direct
done
echo "load after: $(uptime)"
echo "forwarded independent writes, $ranks ranks, $ppn per virtual node, -b $block -s 2 -e, $dir," \
  "$rounds rounds x $reps reps (write MiB/s, medians)"
bench_medians 2 <"$out/all" |
  awk '{ m[$1, $2] = $3; n[$1] = $4; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
       END {
         for (i = 1; i <= k; i++) {
           x = order[i]
           printf "-t %-5s call %8.1f  deferred %8.1f  call/deferred %5.3f  direct %8.1f  n=%d\n", x,
             m[x, "call"], m[x, "deferred"], m[x, "call"] / m[x, "deferred"], m[x, "direct"], n[x]
         }
       }'
