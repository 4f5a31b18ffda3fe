# The alternation every bench script uses (source it). Configurations run in
# turn, round after round, the order rotating by one each round, so drift of
# a loaded machine spreads over all of them; the tables show medians.
#
#   bench_rounds ROUNDS RUN CONFIG...
#       calls "RUN CONFIG ROUND" for every configuration, ROUNDS times:
#       round 1 runs a b c, round 2 b c a, round 3 c a b, ... If the caller
#       defines bench_round_done, it is called with the round after each one.
#   bench_medians KEYS < SAMPLES
#       SAMPLES are lines of KEYS key fields and then values. Prints, per key
#       in the order keys first appear, the keys, the median of each value
#       column (the mean of the middle two for an even count), and the count.

bench_rounds() {
  local rounds=$1 run=$2 r i
  shift 2
  local configs=("$@") n=$#
  for ((r = 0; r < rounds; r++)); do
    for ((i = 0; i < n; i++)); do
      "$run" "${configs[(r + i) % n]}" "$((r + 1))"
    done
    if declare -F bench_round_done >/dev/null; then bench_round_done "$((r + 1))"; fi
  done
}

bench_medians() {
  awk -v nk="$1" -v CONVFMT=%.15g '
    function median(s, n,   a, i, j, t) {
      n = split(s, a, " ")
      for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    NF > nk {
      k = $1; for (i = 2; i <= nk; i++) k = k " " $i
      if (!(k in cnt)) { order[++nkeys] = k; width[k] = NF - nk }
      cnt[k]++
      for (i = nk + 1; i <= NF; i++) vals[k, i - nk] = vals[k, i - nk] " " $i
    }
    END {
      for (o = 1; o <= nkeys; o++) {
        k = order[o]; line = k
        for (c = 1; c <= width[k]; c++) line = line " " median(vals[k, c])
        print line, cnt[k]
      }
    }'
}
