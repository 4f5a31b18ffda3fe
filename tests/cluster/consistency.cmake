# ferry correct on real nodes (docs/filesystems.md, "Consistency across
# nodes"; docs/reliability.md, "One-sided on TCP"): on the cluster's
# default-configured sharded volume, with each node's own client,
#  - cluster_consist: MPI's consistency rules (sync-barrier-sync, atomic
#    mode, close-then-open), every strategy, collective and independent
#    calls, readers on other nodes that cached the bytes first: no stale
#    byte, no wrong size;
#  - cluster_diff_*: the differential tests of each strategy across nodes
#    (ferry across the nodes on the sharded volume, the natives on this
#    host, where no cache is stale: same bytes, same counts);
#  - cluster_nodefault: a node's client killed mid-write: one error class
#    on every rank, the job ends in bounded time.
# Open MPI runs with its default one-sided component, which makes no window
# across these nodes. Rounds are few here (make test's time); the long run
# is t_consist -r 100 by hand (docs/filesystems.md). cluster_consist and
# cluster_nodefault run in both builds (MPICH on its 5.0.2 runtime there),
# the differential tests under Open MPI only (below).
set(FWD_HINT "*consist-forward*:ferry_ind_write_strategy=forward:ferry_ind_read_strategy=forward")
cluster_env(CONSIST_FWD FERRY_TEST_OUT @DIR@ FERRY_HINTS ${FWD_HINT})
cluster_test(cluster_consist TIMEOUT 300 PASS "t_consist: passed"
  COMMAND ${CLUSTER_MPIRUN} ${CLUSTER_PRE} ${CONSIST_FWD}
  $<TARGET_FILE:t_consist> -r 2 -s independent,sieve,twophase,local,forward,auto)

# What every rank must see alike across nodes (tests/mpi/t_filestate.c): the
# shared file pointer (every record exactly once; under Open MPI it lives in
# a locked hidden file there), sizes after set_size, preallocate and other
# nodes' writes, small files a client caches whole, and the rest of the
# per-file state; both volumes, both builds. The long run is
# t_filestate -r 100 by hand (docs/reliability.md).
cluster_env(STATE_FWD FERRY_TEST_OUT @DIR@)
cluster_test(cluster_filestate_dist TIMEOUT 400 PASS "t_filestate: passed" ENV FERRY_CLUSTER_VOLUME=dist
  COMMAND ${CLUSTER_MPIRUN} ${CLUSTER_PRE} ${STATE_FWD}
  $<TARGET_FILE:t_filestate> -r 2 -s auto,independent,twophase,local,forward)
cluster_test(cluster_filestate_shard TIMEOUT 300 PASS "t_filestate: passed"
  COMMAND ${CLUSTER_MPIRUN} ${CLUSTER_PRE} ${STATE_FWD}
  $<TARGET_FILE:t_filestate> -r 2 -s auto,twophase)

# MPI-IO from 4 threads per rank at MPI_THREAD_MULTIPLE across the nodes,
# a file each and one shared: every byte back after sync-barrier-sync, no
# deadlock (the time limit).
cluster_test(cluster_threads TIMEOUT 240 PASS "t_threads: passed" ENV FERRY_CLUSTER_VOLUME=dist
  COMMAND ${CLUSTER_MPIRUN} ${CLUSTER_PRE} ${STATE_FWD} $<TARGET_FILE:t_threads> -r 2)

string(REPLACE ";" " " PRE_STRING "${CLUSTER_PRE}")
cluster_test(cluster_nodefault TIMEOUT 300 PASS "t_nodefault: passed"
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/nodefault.sh ${FERRY_MPI_FLAVOR} 180 "${PRE_STRING}" --
  $<TARGET_FILE:t_nodefault>)

# Rounds of writes from every node, a sync every few rounds, the file growing
# past its first shard, then a cut to a multiple of 4 MiB: every byte reads
# back after sync-barrier-sync and after the cut, and the size is what was
# written, through each strategy, and with the file closed and opened again
# every 4 rounds (GlusterFS shard empties the block before a cut to a
# multiple of its shard size: ferry's own cuts, which set racing sizes back,
# left the whole file zeros, every call having succeeded).
cluster_test(cluster_growth_reopen TIMEOUT 180 PASS "t_ridethrough: passed"
  COMMAND ${CLUSTER_MPIRUN} ${CLUSTER_PRE} ${STATE_FWD} $<TARGET_FILE:t_ridethrough> 3 4)
foreach(s independent twophase local)
  set(h "*:ferry_write_strategy=${s}:ferry_read_strategy=${s}")
  cluster_env(GROWTH_FWD FERRY_HINTS ${h})
  cluster_test(cluster_growth_${s} TIMEOUT 180 PASS "t_ridethrough: passed"
    COMMAND ${CLUSTER_MPIRUN} ${CLUSTER_PRE} ${STATE_FWD} ${GROWTH_FWD} $<TARGET_FILE:t_ridethrough> 3)
endforeach()

# A compute node's link and the storage node's link away for 5 s under a
# writing job (tests/cluster/fault.sh): the clients and TCP ride it out,
# so no call fails and every byte reads back; the job's time limit catches a
# hang. auto only here (make test's time); every strategy and the natives by
# hand (docs/reliability.md).
foreach(v node3 storage1)
  cluster_test(cluster_linkdrop_${v} TIMEOUT 300 PASS "t_ridethrough: passed"
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/fault.sh ${FERRY_MPI_FLAVOR} 180 link:${v}:5 "${PRE_STRING}" --
    $<TARGET_FILE:t_ridethrough> 15)
endforeach()

# Faults the file system does not ride out (tests/cluster/fault.sh with
# t_ridethrough's T_EXPECT=errors): the brick that holds the file killed and
# started again 10 s later, and a storage target that fills (a volume of its
# own on a 48 MiB tmpfs). Calls fail, a collective one with one class on
# every rank; every part a successful sync covered reads back once the file
# is opened again; the job ends within its limit. auto only here; every
# strategy and the natives by hand (tests/cluster/faultmatrix.sh).
cluster_env(PRELOAD LD_PRELOAD ${FERRY_PRELOAD_LIBS})
cluster_env(ERRORS_OK T_EXPECT errors)
foreach(f brick:10 full:48m)
  string(REGEX REPLACE ":.*" "" n ${f})
  cluster_test(cluster_fault_${n} TIMEOUT 300 PASS "t_ridethrough: passed"
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/fault.sh ${FERRY_MPI_FLAVOR} 180 ${f} "${PRE_STRING} ${ERRORS_OK_STRING}" --
    $<TARGET_FILE:t_ridethrough> 10)
endforeach()

# A server that neither answers nor fails: the brick that holds the file
# stopped (SIGSTOP) for 25 s under ferry_io_timeout=10. The rank whose call
# waits past 10 s says so (rank, file, call) and aborts the job, instead of
# every rank waiting the 42 s GlusterFS takes to give the server up
# (docs/reliability.md, "How long a job may hang").
cluster_env(IO_TIMEOUT FERRY_HINTS *:ferry_io_timeout=10)
cluster_test(cluster_fault_stop TIMEOUT 300 PASS "ferry: error: rank [0-9]+: a [a-z]+ system call on .* has not returned after 1[0-9] s"
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/fault.sh ${FERRY_MPI_FLAVOR} 180 stop:25 "${PRE_STRING} ${IO_TIMEOUT_STRING}" --
  $<TARGET_FILE:t_ridethrough> 30)
set_tests_properties(cluster_fault_stop PROPERTIES FAIL_REGULAR_EXPRESSION "the job hung")

# Two jobs on one volume at once, on nodes of their own
# (tests/cluster/neighbours.sh): each with a file of its own, and one
# reading a file the other rewrites in place with the same bytes; every
# byte checked, no hang. Their speed against running alone is measured by
# hand (ROUNDS > 0; docs/reliability.md).
cluster_test(cluster_neighbours TIMEOUT 300 PASS "neighbours: passed"
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/neighbours.sh ${FERRY_MPI_FLAVOR} 0 8m "${PRELOAD_STRING}"
  $<TARGET_FILE:ferry-bench>)

# The differential tests compare with the natives on this host at 8 ranks,
# where Debian's MPICH 4.0.2 (not the 5.0.2 runtime the cluster runs) fails
# t_coll natively: Open MPI only.
if(FERRY_MPI_FLAVOR STREQUAL "mpich")
  return()
endif()
set(DIFF_EXTRA "-x FERRY_TEST_OUT -x FERRY_HINTS")

# cluster_diff(NAME PROGRAM HINTS)
function(cluster_diff name prog hints)
  cluster_test(cluster_diff_${name} TIMEOUT 600
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/diffrun_cluster.sh ${FERRY_MPI_FLAVOR}
    ${CLUSTER_RANKS} $<TARGET_FILE:ferry> ${PROJECT_BINARY_DIR}/testtmp/cluster_diff_${name}
    ${PROJECT_BINARY_DIR}/testtmp/cluster-native/${prog} "${FERRY_MPIEXEC} ${FERRY_MPIEXEC_EXTRA}" "${DIFF_EXTRA}"
    "FERRY_HINTS=${hints}" -- $<TARGET_FILE:${prog}>)
endfunction()
foreach(s independent twophase local auto)
  cluster_diff(coll_${s} t_coll "*:ferry_write_strategy=${s}:ferry_read_strategy=${s}:cb_buffer_size=65536")
endforeach()
foreach(s sieve forward)
  cluster_diff(rw_${s} t_rw "*:ferry_ind_write_strategy=${s}:ferry_ind_read_strategy=${s}")
endforeach()
