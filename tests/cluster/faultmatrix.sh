#!/usr/bin/env bash
# The fault matrix of docs/reliability.md, by hand against a running cluster
# (scripts/cluster.sh up): each fault (tests/cluster/fault.sh) under
# t_ridethrough's 8 ranks on 4 nodes, through each ferry strategy and each
# native, in each build. t_ridethrough runs with T_EXPECT=errors, so that a
# cell records what happened rather than stopping at the first failure: how
# many calls failed and with what, whether every rank saw the same class,
# whether everything it was told is written read back, whether syncs
# succeeded again after the first failure, and how long the job took (the
# logs, with FAULT_MATRIX_LOGS=DIR, name the first wrong bytes). One
# markdown row a cell, on stdout and appended to OUT.
#
#   faultmatrix.sh [-f "FAULT..."] [-s "CONFIG..."] [-b "BUILD..."] [-t SECONDS] [-l LIMIT] [-o OUT]
#     FAULT   fault.sh's (default: none brick:10 stop:20 link:storage1:5 link:node3:5
#             slow:storage1:2mbit full:48m)
#     CONFIG  auto independent twophase local forward (ferry, with that strategy),
#             romio321 ompio (Open MPI's own), romio (MPICH's own)
#     BUILD   openmpi mpich (build/BUILD: its libferry.so and t_ridethrough)
#   FERRY_CLUSTER_VOLUME=dist|shard chooses the volume (shard).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
faults="none brick:10 stop:20 link:storage1:5 link:node3:5 slow:storage1:2mbit full:48m"
configs="auto independent twophase local forward romio321 ompio romio"
builds="openmpi mpich" seconds=20 limit=240 out=/dev/null
while getopts f:s:b:t:l:o: o; do
  case $o in
    f) faults=$OPTARG ;; s) configs=$OPTARG ;; b) builds=$OPTARG ;;
    t) seconds=$OPTARG ;; l) limit=$OPTARG ;; o) out=$OPTARG ;;
    *) sed -n '2,18p' "$0"; exit 2 ;;
  esac
done
bash "$root/scripts/cluster.sh" status >/dev/null 2>&1 || { echo "faultmatrix: the cluster is not up (scripts/cluster.sh up)"; exit 77; }
vol=${FERRY_CLUSTER_VOLUME:-shard}
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null)
row() { echo "$*" | tee -a "$out"; }
row ""
row "Volume \`$vol\`, $seconds s runs, at \`$commit\`, $(date -u +%F):"
row ""
row "| fault | build | through | outcome | calls failed | first failure | parts told written | syncs after it | job |"
row "|---|---|---|---|---|---|---|---|---|"
for fault in $faults; do
  for build in $builds; do
    for cfg in $configs; do
      launch="-n 8"
      case $build:$cfg in
        openmpi:romio | mpich:romio321 | mpich:ompio) continue ;;
        openmpi:romio321 | openmpi:ompio) launch="$launch --mca io $cfg" ;;
        mpich:romio) ;;
        *)
          h="*:ferry_write_strategy=$cfg:ferry_read_strategy=$cfg"
          [ "$cfg" = forward ] && h="*:ferry_ind_write_strategy=forward:ferry_ind_read_strategy=forward"
          [ "$cfg" = auto ] && h=""
          if [ "$build" = openmpi ]; then
            launch="$launch -x LD_PRELOAD=$root/build/$build/lib/libferry.so${h:+ -x FERRY_HINTS=$h}"
          else
            launch="$launch -genv LD_PRELOAD $root/build/$build/lib/libferry.so${h:+ -genv FERRY_HINTS $h}"
          fi ;;
      esac
      if [ "$build" = openmpi ]; then launch="$launch -x T_EXPECT=errors -x T_DEBUG=1"; else launch="$launch -genv T_EXPECT errors -genv T_DEBUG 1"; fi
      log=$(bash "$here/fault.sh" "$build" "$limit" "$fault" "$launch" -- "$root/build/$build/tests/mpi/t_ridethrough" "$seconds" 2>&1)
      sum=$(grep -o '^t_ridethrough: [0-9]* rounds.*' <<<"$log")
      firsts=$(grep -o 'first failure: [A-Za-z_]* with [A-Z_]* in round [0-9]*' <<<"$log" | sed 's/first failure: //; s/ in round [0-9]*//' | sort | uniq -c | sed 's/^ *//' | paste -sd, -)
      firstr=$(grep -o 'first failure: .* in round [0-9]* at [0-9.]* s' <<<"$log" | sed 's/.* in round \([0-9]*\) at \([0-9.]*\) s/round \1, \2 s/' | sort -u | head -1)
      failed=$(sed -n 's/.*; \([0-9]*\) calls failed.*/\1/p' <<<"$sum")
      told=$(sed -n 's/.*; \([0-9]* of [0-9]*\) parts told written.*/\1/p' <<<"$sum")
      after=$(sed -n 's/.*; \([0-9]*\) syncs succeeded.*/\1/p' <<<"$sum")
      took=$(sed -n 's/^fault: job ended with status \([0-9]*\) after \([0-9.]*\) s.*/\2 s (status \1)/p' <<<"$log")
      lost=$(grep -o '[0-9]* of the [0-9]* parts told written read back wrong or short' <<<"$log" | awk '{s += $1} END {print s + 0}')
      if grep -q 'the job hung' <<<"$log"; then outcome="**hung** past $limit s"
      elif grep -q "classes differ" <<<"$log"; then outcome="**classes differ across ranks**"
      elif [ "$lost" -gt 0 ]; then outcome="**$lost part$([ "$lost" = 1 ] || echo s) told written read back wrong**"
      elif grep -q 't_ridethrough: passed' <<<"$log"; then
        if [ "${failed:-0}" = 0 ]; then outcome="no error, every byte"; else outcome="errors on every rank alike, nothing told written lost"; fi
      else outcome="**failed**: $(grep -m1 '^FAIL' <<<"$log" | cut -c1-120)"; fi
      row "| $fault | $build | $cfg | $outcome | ${failed:--} | ${firsts:--}${firstr:+ ($firstr)} | ${told:--} | ${after:--} | ${took:--} |"
      [ -n "${FAULT_MATRIX_LOGS:-}" ] && printf '%s\n' "$log" >"$FAULT_MATRIX_LOGS/$vol-${fault//\//_}-$build-$cfg.log"
    done
  done
done
