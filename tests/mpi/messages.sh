#!/usr/bin/env bash
# messages.sh OUT -- LAUNCH...: runs LAUNCH (ferry-bench tile through ferry,
# with a misspelt variable and bad hints in the environment) and checks the
# wording of what ferry says: one "ferry:" per line, "did you mean" for a
# misspelt hint key and variable, the file system described without
# repeating itself, counts of one in the singular.
set -u
out=$1
shift 2
"$@" >"$out" 2>&1
rc=$?
fail=0
want() { grep -qF -- "$1" "$out" || { echo "messages: missing: $1"; fail=1; }; }
never() { if grep -qE -- "$1" "$out"; then echo "messages: forbidden /$1/: $(grep -E -- "$1" "$out" | head -1)"; fail=1; fi; }
[ $rc -eq 0 ] || { echo "messages: the run failed ($rc)"; fail=1; }
want "ferry: warning: FERRY_STAT is not a variable ferry reads; did you mean FERRY_STATS?"
want ": FERRY_HINTS: hint cb_buffer_size=\"16q\" ignored: unknown unit 'q' (k, m, g or t, alone or with B or iB; all powers of 1024)"
want ": FERRY_HINTS: unknown hint \"cb_ndoes\" ignored; did you mean cb_nodes?"
want " ranks on 1 node"
grep -qE '^  file system [a-z0-9.]+ \(' "$out" || { echo "messages: no file system line"; fail=1; }
never 'ferry: .*ferry: '
never 'local, local'
never '\b1 (nodes|ranks|bricks)\b'
[ $fail -eq 0 ] && echo "messages: passed"
exit $fail
