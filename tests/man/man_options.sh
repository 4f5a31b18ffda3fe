#!/usr/bin/env bash
# A man page lists every long option its tool's --help prints, and carries
# the project's version, so the pages stay true as the tools change.
#   man_options.sh VERSION MANPAGE TOOL [TOOL ARGS...]
set -u
version=$1 page=$2
shift 2
help=$("$@" --help 2>&1)
[ -n "$help" ] || { echo "FAIL: $* --help printed nothing"; exit 1; }
# the page's text: troff's \- as -, font escapes dropped
text=$(sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\e/\\/g' "$page")
fail=0
for opt in $(grep -o -- '--[a-z][a-z0-9-]*' <<<"$help" | sort -u); do
  grep -q -- "$opt\\b" <<<"$text" || { echo "FAIL: $(basename "$page") does not list $opt"; fail=1; }
done
head -1 "$page" | grep -q "\"ferry $version\"" || { echo "FAIL: $(basename "$page") is not for ferry $version"; fail=1; }
[ $fail = 0 ] && echo "ok: $(basename "$page") lists every option of $(basename "$1") --help"
exit $fail
