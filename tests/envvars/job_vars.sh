#!/usr/bin/env bash
# The ROMIO and Cray MPICH variables of existing job scripts, through ferry:
#   job_vars.sh CASE LIBFERRY T_PMPI T_RW_ERROR DIR -- LAUNCHER...
# CASE: print_hints, stats_csv, stats_csv_default, abort_on_rw_error,
# refused. Each runs the program and checks what the variable promises
# (docs/hints.md, "Variables of other MPI-IO libraries").
set -u
case_=$1 lib=$2 prog=$3 rwerr=$4 dir=$5
shift 6
launcher=("$@")
work="$dir/jobvars-$case_-$$"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
run() { # VAR=VALUE... -- program args: stdout to out, stderr to err, status to rc
  local pass=() e
  case "${launcher[0]}" in *mpich* | *hydra*) mpich=1 ;; *) mpich=0 ;; esac
  while [ "$1" != "--" ]; do
    e=$1
    if [ $mpich = 1 ]; then pass+=(-genv "${e%%=*}" "${e#*=}"); else pass+=(-x "$e"); fi
    shift
  done
  shift
  if [ $mpich = 1 ]; then pass+=(-genv LD_PRELOAD "$lib"); else pass+=(-x "LD_PRELOAD=$lib"); fi
  "${launcher[@]}" "${pass[@]}" "$@" >out 2>err
  rc=$?
}
fail=0
no() { echo "FAIL ($case_): $*"; fail=1; }
data="$work/data.dat"
case $case_ in
  print_hints)
    # ROMIO's lines on stdout, once (rank 0), every hint with get_info's value
    run ROMIO_PRINT_HINTS=1 "FERRY_HINTS=*:cb_buffer_size=2097152" -- "$prog" "$data"
    [ $rc = 0 ] || no "exit $rc"
    grep -qE '^key = cb_buffer_size +value = 2097152 +$' out || no "no ROMIO line for cb_buffer_size"
    # ROMIO's columns, every "value =" in one column (ferry's keys are longer than ROMIO's)
    [ "$(grep '^key = ' out | awk '{ print index($0, "value =") }' | sort -u | wc -l)" = 1 ] ||
      no "the value column is out of line"
    [ "$(grep -c '^key = romio_cb_write ' out)" = 1 ] || no "not one line per hint (rank 0 alone)"
    grep -q '^ferry: ROMIO_PRINT_HINTS for ".*data.dat", ferry [0-9.]* (' out || no "no line naming the file and version"
    run ROMIO_PRINT_HINTS=0 -- "$prog" "$data"
    ! grep -q '^key = ' out || no "ROMIO_PRINT_HINTS=0 printed hints"
    ;;
  stats_csv | stats_csv_default)
    # Cray's =2: the rank-0 summary, and one CSV file per rank
    prefix="$work/stats"
    vars=(MPICH_MPIIO_STATS=2 "MPICH_MPIIO_STATS_FILE=$prefix")
    [ $case_ = stats_csv_default ] && { vars=(MPICH_MPIIO_STATS=2); prefix="$work/_cray_mpiio_stats_"; }
    run "${vars[@]}" -- "$prog" "$data"
    [ $rc = 0 ] || no "exit $rc"
    grep -q "statistics for \"$data\"" err || no "no rank-0 summary"
    for r in 0 1; do
      f="$prefix.$r.csv"
      [ -f "$f" ] || { no "no $f"; continue; }
      head -1 "$f" | grep -q '^file,rank,ranks,ind_reads,ind_writes,' || no "$f: no header"
      [ "$(grep -c "^\"$data\",$r,2," "$f")" = 1 ] || no "$f: not one row for the file"
      # t_pmpi writes 5 blocks of 1 KiB per rank: bytes_written is the 9th column
      bw=$(grep "^\"$data\"," "$f" | cut -d, -f9)
      [ "$bw" = 5120 ] || no "$f: bytes_written $bw, not 5120"
    done
    ls "$work"/*.csv 2>/dev/null | grep -vq "^$prefix\." && no "CSV files under another prefix"
    rm -f "$work"/*.csv
    run MPICH_MPIIO_STATS=1 -- "$prog" "$data"
    ! ls "$work"/*.csv >/dev/null 2>&1 || no "MPICH_MPIIO_STATS=1 wrote CSV files"
    ;;
  abort_on_rw_error)
    # a write the file system fails: returned by default, the job ended with a line when enabled
    run -- "$rwerr" /dev/full
    [ $rc = 0 ] && grep -q 'class NO_SPACE' out || no "without the variable the error is not returned (exit $rc)"
    run MPICH_MPIIO_ABORT_ON_RW_ERROR=disable -- "$rwerr" /dev/full
    [ $rc = 0 ] || no "=disable aborted"
    run MPICH_MPIIO_ABORT_ON_RW_ERROR=enable -- "$rwerr" /dev/full
    [ $rc != 0 ] || no "=enable did not end the job"
    ! grep -q 'class NO_SPACE' out || no "=enable returned the error to the program"
    grep -q 'ferry: MPI_File_write_at on "/dev/full" failed: .*; aborting (MPICH_MPIIO_ABORT_ON_RW_ERROR)' err ||
      no "no line naming the call, the file and the variable"
    ;;
  refused)
    # one line each, once per job, for what ferry does not read
    run ROMIO_FSTYPE_FORCE=ufs: MPICH_MPIIO_DVS_MAXNODES=4 ROMIO_PRINT_HINTS=0 -- "$prog" "$data"
    [ $rc = 0 ] || no "exit $rc"
    # ROMIO_FSTYPE_FORCE is read (driver/select.c): ufs: is ferry's POSIX driver
    ! grep -q 'ROMIO_FSTYPE_FORCE' err || no "ROMIO_FSTYPE_FORCE, which ferry reads, was called unread"
    [ "$(grep -c '^ferry: MPICH_MPIIO_DVS_MAXNODES is another MPI-IO' err)" = 1 ] || no "not one line for MPICH_MPIIO_DVS_MAXNODES"
    ! grep -q 'ROMIO_PRINT_HINTS is' err || no "a variable ferry reads was called unread"
    ;;
  *) echo "job_vars.sh: unknown case $case_"; exit 2 ;;
esac
if [ $fail != 0 ]; then
  echo "--- stdout"; cat out; echo "--- stderr"; cat err
  exit 1
fi
cd / && rm -rf "$work"
echo "ok ($case_)"
