#!/usr/bin/env bash
# The direction of flow in src/, checked. Fails when
#  1. a folder includes a folder above it. Layers, top down:
#       binding, decouple  (the two public faces)
#       core               (file object, views, hints, statistics)
#       strategy           (how bytes move)
#       learn              (what auto measured and keeps; no file object)
#       datatype, driver   (memory layouts; what a file system does)
#       topology           (machine models; knows nothing of files)
#       util               (sizes and names, shared with the tools)
#     A folder includes itself and folders below it, never one beside it;
#     datatype, driver and topology include nothing but themselves and
#     util; util includes nothing.
#     One exception, by design: strategy includes core, whose file object it
#     acts on and whose table of entry points (core/strategies.h) it fills;
#     the core reaches strategies only through that table, never by name.
#  2. two files of one folder include each other: a.c or a.h includes b.h
#     and b.c or b.h includes a.h (x_internal.h counts as x's header);
#  3. files of one folder use each other in a loop, by the symbols their
#     objects define and use (with OBJ_ROOT, the build's src/ directory): a
#     shared header such as flat_internal.h hides such loops from check 2.
#
#   tests/layering.sh SRC_DIR [OBJ_ROOT]     check a tree
#   tests/layering.sh --self-test            the checks catch what they should
set -u

declare -A below=(
  [binding]="core strategy learn datatype driver topology util"
  [decouple]="core strategy learn datatype driver topology util"
  [core]="learn datatype driver topology util"
  [strategy]="core learn datatype driver topology util"
  [learn]="driver util"
  [datatype]="util"
  [driver]="util"
  [topology]="util"
  [util]=""
)

check_tree() { # SRC_DIR [OBJ_ROOT] -> prints violations, returns 1 if any
  local src=$1 obj=${2:-} bad=0 d
  # every quoted include of a folder's header, as "folder file target-folder target-unit"
  local incs
  incs=$(grep -H '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[a-z_]*/' "$src"/*/*.[ch] |
    sed 's|^\(.*\)/\([a-z_]*\)/\([a-z0-9_]*\.[ch]\):.*"\([a-z_]*\)/\([a-z0-9_]*\).*|\2 \3 \4 \5|' | sort -u)
  # 1. folders
  for d in $(ls "$src"); do
    [ -d "$src/$d" ] || continue
    [ -n "${below[$d]+set}" ] || { echo "layering: $d/ is not a known layer (add it to tests/layering.sh)"; bad=1; }
  done
  while read -r d u td tu; do
    [ -n "$d" ] && [ -n "${below[$d]+set}" ] && [ "$td" != "$d" ] || continue
    case " ${below[$d]} " in *" $td "*) ;; *)
      echo "layering: $d/$u includes $td/$tu.h (a layer above or beside $d/)"; bad=1 ;;
    esac
  done <<<"$incs"
  # 2. pairs of files by their headers
  while read -r d a b; do
    [ -n "$d" ] || continue
    echo "layering: $d/$a and $d/$b include each other's headers"; bad=1
  done < <(awk '$1 == $3 { u = $2; h = $4; sub(/\.[ch]$/, "", u); sub(/_internal$/, "", u); sub(/_internal$/, "", h)
                           if (u != h) e[$1" "u" "h] = 1 }
                END { for (k in e) { split(k, x, " ");
                      if ((x[1]" "x[3]" "x[2]) in e && x[2] < x[3]) print x[1], x[2], x[3] } }' <<<"$incs")
  # 3. loops of files by their symbols
  [ -n "$obj" ] || return $bad
  local dir nobj=0
  for d in "${!below[@]}"; do
    dir=$(find "$obj" -type d -name "ferry_$d.dir" 2>/dev/null | head -1)
    [ -n "$dir" ] || continue
    local edges
    edges=$(nm -A "$dir"/*.o 2>/dev/null |
      awk '{ split($1, p, "/"); u = p[length(p)]; sub(/\.o:.*$/, "", u); sub(/\.c$/, "", u) }
           $2 == "U" { use[u" "$3] = 1 } NF == 3 && $2 ~ /^[TDBRC]$/ { def[$3] = u }
           END { for (k in use) { split(k, a, " "); if ((a[2] in def) && def[a[2]] != a[1]) print a[1], def[a[2]] } }' |
      sort -u)
    nobj=$((nobj + 1))
    [ -n "$edges" ] || continue
    local loop
    loop=$(tsort <<<"$edges" 2>&1 >/dev/null | sed -n 's/^tsort: \([a-z0-9_]*\)$/\1/p' | tr '\n' ' ')
    if [ -n "$loop" ]; then
      echo "layering: files of $d/ use each other in a loop: $loop"; bad=1
    fi
  done
  if [ "$nobj" -eq 0 ]; then
    echo "layering: no objects under $obj (build first)"; bad=1
  fi
  return $bad
}

self_test() {
  local t fails=0
  t=$(mktemp -d)
  trap 'rm -rf "$t"' RETURN
  mk() { mkdir -p "$(dirname "$t/$1")"; printf '%s\n' "$2" >"$t/$1"; }
  expect() { # want(0|1) label
    local out rc
    out=$(check_tree "$t/src" "${3:-}"); rc=$?
    if [ "$rc" -ne "$1" ]; then echo "layering self-test: $2: exit $rc, wanted $1"; echo "$out"; fails=1; fi
  }
  mk src/core/io.c '#include "core/io.h"
#include "datatype/flat.h"'
  mk src/core/io.h '#include "core/file.h"'
  mk src/strategy/table.c '#include "core/strategies.h"'
  expect 0 "a clean tree"
  mk src/core/open.c '#include "strategy/forward.h"'
  expect 1 "core including strategy/"
  rm "$t/src/core/open.c"
  mk src/datatype/iter.c '#include "driver/driver.h"'
  expect 1 "a layer including one beside it"
  rm "$t/src/datatype/iter.c"
  mk src/core/async.h '#include "core/io.h"'
  mk src/core/io.c '#include "core/async.h"'
  expect 1 "two files including each other"
  rm "$t/src/core/async.h" "$t/src/core/io.c"
  mk src/core/stats.c '#include "core/stats_internal.h"'
  mk src/core/stats_internal.h '#include "core/stats.h"'
  expect 0 "a file and its own _internal header"
  # symbols: a.c calls b.c, b.c calls c.c, c.c calls a.c, all through one shared header
  local od=$t/obj/ferry_datatype.dir
  mkdir -p "$od"
  mk src/datatype/shared.h 'int fa(void); int fb(void); int fc(void);'
  printf 'int fb(void); int fa(void) { return fb(); }\n' >"$t/a.c"
  printf 'int fc(void); int fb(void) { return fc(); }\n' >"$t/b.c"
  printf 'int fc(void) { return 0; }\n' >"$t/c.c"
  for x in a b c; do cc -c "$t/$x.c" -o "$od/$x.c.o" || fails=1; done
  expect 0 "files using each other without a loop" "$t/obj"
  printf 'int fa(void); int fc(void) { return fa(); }\n' >"$t/c.c"
  cc -c "$t/c.c" -o "$od/c.c.o" || fails=1
  expect 1 "three files using each other in a loop" "$t/obj"
  [ "$fails" -eq 0 ] && echo "layering self-test: the checks catch what they should"
  return $fails
}

if [ "${1:-}" = "--self-test" ]; then
  self_test
  exit $?
fi
[ -d "${1:-}" ] || { echo "usage: tests/layering.sh SRC_DIR [OBJ_ROOT] | --self-test" >&2; exit 2; }
check_tree "$1" "${2:-}" || exit 1
echo "layering: $1 flows one way"
