# Test helpers shared by every test folder.
#
# Every MPI test runs under the launcher of the MPI this build targets.
# Differential tests run the same (ferry-unaware) binary twice: natively and
# with libferry preloaded, and compare what the two runs produce.

set(FERRY_TEST_ENV
  "OMPI_ALLOW_RUN_AS_ROOT=1" "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
  "OMPI_MCA_rmaps_base_oversubscribe=1" "OMPI_MCA_btl_vader_single_copy_mechanism=none"
  "HYDRA_LAUNCHER=fork" "FERRY_TEST_TMP=${PROJECT_BINARY_DIR}/testtmp"
  # no store of learned choices: every test starts from auto's rules (and
  # leaves the user's ~/.cache alone); the learning tests name their own
  "FERRY_LEARN_CACHE=off")
file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/testtmp)

# What PRELOAD puts in LD_PRELOAD: libferry; in a sanitizer build the ASan
# runtime before it (an ASan-built library must not load ahead of its
# runtime) and a shim that keeps the MPI library's components loaded, so
# their leaks have a module name that tests/reliability/lsan.supp can
# suppress (ferry's own leaks are not suppressed). Tests that preload this
# way check leaks; diffrun tests, whose preload is libferry alone, run with
# AddressSanitizer and UBSan but without leak checking.
set(FERRY_PRELOAD_LIBS $<TARGET_FILE:ferry>)
# Tests that inject faults (FERRY_FAULT, FERRY_DECOUPLE_FAULT) preload the
# test library instead, which has the hook (src/driver/faults.h); programs
# linked against libferry find it first through FERRY_FAULTS_ENV.
set(FERRY_FAULTS_PRELOAD_LIBS $<TARGET_FILE:ferry_faults>)
set(FERRY_FAULTS_ENV "LD_LIBRARY_PATH=$<TARGET_FILE_DIR:ferry_faults>")
set(FERRY_PRELOAD_ENV "")
if(FERRY_SANITIZE)
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so
    OUTPUT_VARIABLE FERRY_ASAN_RUNTIME OUTPUT_STRIP_TRAILING_WHITESPACE)
  add_library(ferry_nodlclose SHARED ${PROJECT_SOURCE_DIR}/tests/reliability/nodlclose.c)
  set(FERRY_PRELOAD_LIBS "${FERRY_ASAN_RUNTIME}:$<TARGET_FILE:ferry>:$<TARGET_FILE:ferry_nodlclose>")
  set(FERRY_FAULTS_PRELOAD_LIBS "${FERRY_ASAN_RUNTIME}:$<TARGET_FILE:ferry_faults>:$<TARGET_FILE:ferry_nodlclose>")
  list(APPEND FERRY_TEST_ENV
    "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/reliability/lsan.supp:print_suppressions=0"
    "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0:suppressions=${PROJECT_SOURCE_DIR}/tests/reliability/asan.supp"
    "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
  set(FERRY_PRELOAD_ENV "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1:fast_unwind_on_malloc=0:suppressions=${PROJECT_SOURCE_DIR}/tests/reliability/asan.supp")
endif()

# Sanitized code runs several times slower: the unit tests' limit grows with it.
set(FERRY_UNIT_TIMEOUT 120)
if(FERRY_SANITIZE)
  set(FERRY_UNIT_TIMEOUT 600)
endif()

# ferry_unit_test(NAME SOURCES... [LIBS ...]): a plain (no mpiexec) test program.
function(ferry_unit_test name)
  cmake_parse_arguments(T "" "" "LIBS" ${ARGN})
  add_executable(${name} ${T_UNPARSED_ARGUMENTS})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/tests)
  target_link_libraries(${name} PRIVATE ${T_LIBS})
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${FERRY_TEST_ENV}" TIMEOUT ${FERRY_UNIT_TIMEOUT} LABELS unit)
endfunction()

# ferry_mpi_program(NAME SOURCES...): an MPI program that knows nothing of
# ferry (linked against the MPI library only), for running natively and preloaded.
function(ferry_mpi_program name)
  add_executable(${name} ${ARGN})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  target_link_libraries(${name} PRIVATE MPI::MPI_C m)
endfunction()

# ferry_mpi_test(NAME NP N COMMAND cmd... [PRELOAD] [FAULTS]): run cmd under
# mpiexec -n N, with libferry preloaded when PRELOAD is given (the test
# library with the fault hook when FAULTS is given too).
function(ferry_mpi_test name)
  cmake_parse_arguments(T "PRELOAD;FAULTS" "NP;TIMEOUT" "COMMAND;ENV" ${ARGN})
  if(NOT T_NP)
    set(T_NP ${FERRY_TEST_RANKS})
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  set(env ${FERRY_TEST_ENV} ${T_ENV})
  set(pre "")
  if(T_PRELOAD)
    list(APPEND env ${FERRY_PRELOAD_ENV})
    set(libs ${FERRY_PRELOAD_LIBS})
    if(T_FAULTS)
      set(libs ${FERRY_FAULTS_PRELOAD_LIBS})
    endif()
    set(pre -x LD_PRELOAD=${libs})
    if(FERRY_MPI_FLAVOR STREQUAL "mpich")
      set(pre -genv LD_PRELOAD ${libs})
    endif()
  endif()
  separate_arguments(extra UNIX_COMMAND "${FERRY_MPIEXEC_EXTRA}")
  add_test(NAME ${name} COMMAND ${FERRY_MPIEXEC} ${extra} -n ${T_NP} ${pre} ${T_COMMAND})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${env}" TIMEOUT ${T_TIMEOUT} LABELS mpi)
endfunction()
