#!/usr/bin/env bash
# Differential runner: the same ferry-unaware MPI program runs under each
# native MPI-IO and under ferry (preloaded). ferry's run must pass its own
# checks; its REPORT lines and the bytes of every file it wrote must match at
# least one native run, except where native_deviations.txt says why the
# native result is wrong.
#
#   diffrun.sh --mpiexec CMD --np N --lib LIBFERRY --flavor openmpi|mpich \
#              --out DIR [--extra "ARGS"] [--env "K=V ..."] -- PROG ARGS...
#
# Where the program's files are not visible here (the emulated cluster's
# volume, mounted inside its nodes only): --remote DIR (where the runs of
# --mpiexec write) and --remote-cmd "CMD", which `CMD prep DIR` empties
# there and `CMD get DIR LOCALDIR` copies here (tests/cluster/remote.sh).
# --native-mpiexec "CMD" [--native-extra "ARGS"] runs the natives with
# another launcher, writing here (--native-out); --native-reuse keeps a
# native's earlier run there when it is newer than the program.
set -u
here=$(cd "$(dirname "$0")" && pwd)
extra="" envs="" native_out="" remote="" remote_cmd="" native_mpiexec="" native_extra="" native_reuse=0
while [ $# -gt 0 ]; do
  case "$1" in
    --mpiexec) mpiexec=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --lib) lib=$2; shift 2 ;;
    --flavor) flavor=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --native-out) native_out=$2; shift 2 ;;
    --extra) extra=$2; shift 2 ;;
    --remote) remote=$2; shift 2 ;;
    --remote-cmd) remote_cmd=$2; shift 2 ;;
    --native-mpiexec) native_mpiexec=$2; shift 2 ;;
    --native-extra) native_extra=$2; shift 2 ;;
    --native-reuse) native_reuse=1; shift ;;
    --env) envs=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "diffrun: unknown option $1" >&2; exit 2 ;;
  esac
done
prog=("$@")
name=$(basename "${prog[0]}")
# every variant's report lands here, the natives' first: with --native-out
# they run elsewhere, so nothing else has made it yet in a new build directory
mkdir -p "$out" || exit 1
base_of() { # variant -> the directory its files and output go to
  if [ "$1" != ferry ] && [ -n "$native_out" ]; then echo "$native_out"; else echo "$out"; fi
}

if [ "$flavor" = openmpi ]; then
  variants=(ompio romio ferry)
else
  variants=(romio ferry)
fi

run_variant() { # variant -> writes $out/$v.{out,err}, files under $out/$v
  local v=$1 dir args=() small="" at launcher=$mpiexec more=$extra far=$remote
  dir=$(base_of "$v")/$v
  if [ "$v" != ferry ] && [ -n "$native_mpiexec" ]; then
    launcher=$native_mpiexec more=$native_extra far=""
    if [ $native_reuse -eq 1 ] && [ "$dir.out" -nt "${prog[0]}" ] && [ -f "$dir.rc" ]; then
      return "$(cat "$dir.rc")"
    fi
  fi
  rm -rf "$dir"; mkdir -p "$dir"
  at=$dir
  if [ -n "$far" ]; then
    at=$far/$v
    $remote_cmd prep "$at" || return 1
  # a 1 MiB tmpfs for real ENOSPC, when we may mount one
  elif mkdir -p "$dir.small" && mount -t tmpfs -o size=1m tmpfs "$dir.small" 2>/dev/null; then
    small=$dir.small
  fi
  case "$flavor:$v" in
    openmpi:ompio) args=(--mca io ompio) ;;
    openmpi:romio) args=(--mca io romio321) ;;
    openmpi:ferry) args=(-x LD_PRELOAD="$lib") ;;
    mpich:ferry) args=(-genv LD_PRELOAD "$lib") ;;
  esac
  # shellcheck disable=SC2086
  env FERRY_TEST_OUT="$at" FERRY_TEST_SMALLFS="$small" $envs \
    timeout $([ "$v" = ferry ] && echo 300 || echo 120) $launcher $more -n "$np" "${args[@]}" "${prog[@]}" >"$dir.out" 2>"$dir.err"
  local rc=$?
  if [ -n "$far" ]; then $remote_cmd get "$at" "$dir" || rc=1; fi
  echo $rc >"$dir.rc"
  if [ -n "$small" ]; then umount "$dir.small"; fi
  rmdir "$dir.small" 2>/dev/null
  return $rc
}

status=0
for v in "${variants[@]}"; do
  run_variant "$v"; rc=$?
  if [ "$v" = ferry ]; then
    if [ $rc -ne 0 ]; then
      echo "diffrun: $name failed under ferry (exit $rc)"; cat "$out/ferry.out" "$out/ferry.err" | tail -40
      exit 1
    fi
  elif [ $rc -ne 0 ]; then
    echo "diffrun: note: $name exits $rc under native $v (native checks failed; compared anyway)"
    grep -h '^FAIL' "$(base_of "$v")/$v.err" | head -5
  fi
  grep '^REPORT' "$(base_of "$v")/$v.out" | sort > "$out/$v.report"
done

allowed() { # key -> 0 if the native deviation list excuses it
  grep -qE "^$name[[:space:]]+$1[[:space:]]" "$here/native_deviations.txt" 2>/dev/null
}

natives=("${variants[@]:0:${#variants[@]}-1}")
while IFS= read -r line; do
  found=0
  for v in "${natives[@]}"; do
    grep -qxF -- "$line" "$out/$v.report" && { found=1; break; }
  done
  if [ $found -eq 0 ]; then
    key=$(echo "$line" | awk '{print $3}')
    if allowed "$key"; then
      echo "diffrun: known native deviation: $line"
    else
      echo "diffrun: MISMATCH: ferry reports '$line'; natives:"
      for v in "${natives[@]}"; do grep -F " $key " "$out/$v.report" | grep -F "$(echo "$line" | awk '{print $2}')" | sed "s/^/   $v: /"; done
      status=1
    fi
  fi
done < "$out/ferry.report"

# file bytes
while IFS= read -r -d '' f; do
  rel=${f#"$out/ferry/"}
  same=0
  for v in "${natives[@]}"; do
    nv=$(base_of "$v")/$v
    if [ -f "$nv/$rel" ] && cmp -s "$f" "$nv/$rel"; then same=1; break; fi
  done
  if [ $same -eq 0 ] && allowed "$rel"; then
    echo "diffrun: known native deviation: file $rel"
  elif [ $same -eq 0 ]; then
    echo "diffrun: MISMATCH: file $rel differs from every native run"
    for v in "${natives[@]}"; do nv=$(base_of "$v")/$v; [ -f "$nv/$rel" ] && cmp "$f" "$nv/$rel" | sed "s/^/   $v: /"; done
    status=1
  fi
done < <(find "$out/ferry" -type f -print0)

n=$(wc -l < "$out/ferry.report")
if [ $status -eq 0 ]; then
  echo "diffrun: $name: $n reports and $(find "$out/ferry" -type f | wc -l) files match native (${natives[*]})"
fi
exit $status
