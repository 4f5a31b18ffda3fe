#!/usr/bin/env bash
# "Did you mean" knows every FERRY_ variable the library reads: each name
# src/ passes to getenv and its wrappers is in core/env_names.c's list, so a
# real variable is never taken for a slip of another.
#   env_names.sh SRC_DIR
set -u
src=$1
vars=$(grep -rhoE '(getenv|ferry_env_either|ferry_env_level|env_[a-z]+)\("FERRY_[A-Z0-9_]+"(, *"[A-Z][A-Z0-9_]+")?' "$src" |
  grep -oE '"FERRY_[A-Z0-9_]+"' | tr -d '"' | sort -u)
fail=0
for v in $vars; do
  # the test library's own variables are listed with its hook (driver/faults.c)
  grep -q "\"$v\"" "$src/core/env_names.c" || grep -q "ferry_testlib_env_names.*\"$v\"" "$src/driver/faults.c" ||
    { echo "FAIL: core/env_names.c does not know $v"; fail=1; }
done
[ -n "$vars" ] || { echo "FAIL: found no variables in $src"; fail=1; }
[ $fail = 0 ] && echo "ok: env_names.c knows the $(wc -w <<<"$vars") FERRY_ variables src/ reads"
exit $fail
