# Correctness on the cluster with I/O nodes (scripts/cluster.sh up
# --io-nodes 2; docs/cluster.md, "I/O nodes"): each compute node's storage
# traffic crosses its I/O node, and seed 001's data processes run there.
# Label cluster-ion; each test skips unless the cluster is up with the tier,
# so the main suite (on the default cluster) skips them and make test runs
# them in a step of their own (scripts/test.sh), with the tier up:
#  - cluster_ion_consist: MPI's consistency rules across the compute
#    nodes' clients, every strategy (as cluster_consist), ionode too: its
#    servers on ion1 and ion2 (the ranks' hosts include the I/O nodes);
#  - cluster_ion_filestate: sizes and the shared file pointer alike on
#    every rank;
#  - cluster_ion_linkdrop_*: an I/O node's compute-side and storage-side
#    links away for 5 s: no call fails, every byte reads back;
#  - cluster_ion_dp: a data process on an I/O node killed: its ranks get
#    an error in bounded time and the others right sums (MPICH), or the
#    launcher ends the job at once (Open MPI; tests/cluster/dpfault.sh);
#  - cluster_ion_diff_coll_auto: the differential test of auto (Open MPI).
function(ion_test name)
  cluster_test(${name} ${ARGN} ENV FERRY_CLUSTER_NEEDS_IONS=1)
  set_tests_properties(${name} PROPERTIES LABELS "mpi;cluster;cluster-ion")
endfunction()

cluster_env(ION_HOSTS T_IO_NODES ion1,ion2)
ion_test(cluster_ion_consist TIMEOUT 360 PASS "t_consist: passed"
  COMMAND ${CLUSTER_MPIRUN} --hosts all ${CLUSTER_PRE} ${CONSIST_FWD} ${ION_HOSTS}
  $<TARGET_FILE:t_consist> -r 2 -s independent,sieve,twophase,local,ionode,forward,auto)
ion_test(cluster_ion_filestate TIMEOUT 300 PASS "t_filestate: passed"
  COMMAND ${CLUSTER_MPIRUN} --hosts all ${CLUSTER_PRE} ${STATE_FWD} ${ION_HOSTS}
  $<TARGET_FILE:t_filestate> -r 1 -s auto,twophase,ionode,forward)
foreach(v ion1 ion1/storage)
  string(REPLACE "/" "_" n ${v})
  ion_test(cluster_ion_linkdrop_${n} TIMEOUT 300 PASS "t_ridethrough: passed"
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/fault.sh ${FERRY_MPI_FLAVOR} 180 link:${v}:5 "${PRE_STRING}" --
    $<TARGET_FILE:t_ridethrough> 15)
endforeach()
if(FERRY_MPI_FLAVOR STREQUAL "mpich")
  set(DP_PASS "t_dc_outage: 4 of 8 compute ranks lost their data process; passed")
else()
  set(DP_PASS "fault: job ended with status [1-9][0-9]* after")
endif()
ion_test(cluster_ion_dp TIMEOUT 240 PASS "${DP_PASS}"
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/dpfault.sh ${FERRY_MPI_FLAVOR} 120
  $<TARGET_FILE:ferry-run> $<TARGET_FILE:t_dc_outage> 15)
set_tests_properties(cluster_ion_dp PROPERTIES FAIL_REGULAR_EXPRESSION "the job hung;FAILED")
if(FERRY_MPI_FLAVOR STREQUAL "openmpi")
  ion_test(cluster_ion_diff_coll_auto TIMEOUT 600
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/diffrun_cluster.sh ${FERRY_MPI_FLAVOR}
    ${CLUSTER_RANKS} $<TARGET_FILE:ferry> ${PROJECT_BINARY_DIR}/testtmp/cluster_ion_diff_coll_auto
    ${PROJECT_BINARY_DIR}/testtmp/cluster-native/t_coll "${FERRY_MPIEXEC} ${FERRY_MPIEXEC_EXTRA}"
    "${DIFF_EXTRA}"
    "FERRY_HINTS=*:ferry_write_strategy=auto:ferry_read_strategy=auto:cb_buffer_size=65536" -- $<TARGET_FILE:t_coll>)
endif()
