#!/usr/bin/env bash
# ferry(7) names every environment variable the library reads (getenv and
# its wrappers in src/), and carries the project's version.
#   man_env.sh VERSION MANPAGE SRC_DIR
set -u
version=$1 page=$2 src=$3
text=$(sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$page")
# quoted upper-case names passed to getenv, ferry_env_* and the decouple layer's env_* readers
vars=$(grep -rhoE '(getenv|ferry_env_either|ferry_env_level|env_[a-z]+)\("[A-Z][A-Z0-9_]+"(, *"[A-Z][A-Z0-9_]+")?' "$src" |
  grep -oE '"[A-Z][A-Z0-9_]+"' | tr -d '"' | sort -u)
fail=0
for v in $vars; do
  case $v in FERRY_FAULT | FERRY_DECOUPLE_FAULT) continue ;; esac # test hooks, not for users
  grep -q -- "$v" <<<"$text" || { echo "FAIL: ferry.7 does not name $v"; fail=1; }
done
[ -n "$vars" ] || { echo "FAIL: found no variables in $src"; fail=1; }
head -1 "$page" | grep -q "\"ferry $version\"" || { echo "FAIL: ferry.7 is not for ferry $version"; fail=1; }
[ $fail = 0 ] && echo "ok: ferry.7 names the $(wc -w <<<"$vars") variables src/ reads"
exit $fail
