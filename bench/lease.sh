#!/usr/bin/env bash
# Measures the claim → complete cycle of package lease against its floor,
# the same number of single-row UPDATE transactions through the same driver
# and pragmas, in one run; prints the medians and their ratio.
#
#   bench/lease.sh [COUNT [CYCLES]]   (default 5 rounds of 2000 cycles each)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-5}
cycles=${2:-2000}

out=$(go test -run '^$' -bench 'ClaimComplete|RawUpdateBaseline' -benchtime "${cycles}x" -count "$count" ./lease)
echo "$out"
echo "$out" |
	awk '
	/^Benchmark/ {
		name = $1; sub(/-[0-9]+$/, "", name)
		n[name]++; v[name, n[name]] = $3
	}
	function median(name,   i, j, k, t, a) {
		k = n[name]
		for (i = 1; i <= k; i++) a[i] = v[name, i]
		for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
	}
	END {
		print ""
		printf "%-10s %18s %18s %7s\n", "workers", "claim+complete", "2x raw UPDATE", "ratio"
		split("1 8", ws, " ")
		for (i = 1; i <= 2; i++) {
			c = median("BenchmarkClaimComplete/workers=" ws[i])
			r = median("BenchmarkRawUpdateBaseline/workers=" ws[i])
			printf "%-10s %15.0f ns %15.0f ns %6.2fx\n", ws[i], c, r, c / r
		}
	}'
