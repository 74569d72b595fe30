#!/bin/sh
# Per-operator micro-benchmarks (exec/ops_bench_test.go, 1M rows, ns a
# row): runs them on this tree into bench/results/ops-<commit>.txt, and on
# the commit before (BASE, default HEAD~) in a throwaway worktree unless
# its file is already there, then prints the two side by side (the
# fastest of COUNT runs of each).
#   BENCH=Filter BENCHTIME=5x COUNT=1 BASE=<commit> bench/opsbench.sh
set -eu
cd "$(git rev-parse --show-toplevel)"
BENCH=${BENCH:-.}
BENCHTIME=${BENCHTIME:-3x}
COUNT=${COUNT:-1}
GO=${GO:-go}
head=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- . || head=$head-dirty
base=$(git rev-parse --short "${BASE:-HEAD~}")
mkdir -p bench/results
run() {
	(cd "$1" && $GO test -run '^$' -bench "$BENCH" -benchtime "$BENCHTIME" -count "$COUNT" ./exec/)
}
now=bench/results/ops-$head.txt
run . | tee "$now"
prev=bench/results/ops-$base.txt
if [ ! -s "$prev" ]; then
	wt=$(mktemp -d)
	git worktree add -q --detach "$wt" "$base"
	# An older commit has no benchmarks of its own: they use only the
	# operators' constructors, so this tree's run there.
	[ -f "$wt/exec/ops_bench_test.go" ] || cp exec/ops_bench_test.go "$wt/exec/"
	run "$wt" >"$prev" || echo "benchmarks failed on $base" >&2
	git worktree remove --force "$wt"
fi
echo
echo "ns/row: $base (before) and $head (now)"
awk -v base="$base" -v now="$head" '
	/^Benchmark/ {
		name = $1; sub(/-[0-9]+$/, "", name)
		for (i = 2; i < NF; i++) if ($(i + 1) == "ns/row") v = $i
		# With COUNT > 1 the fastest run stands: the machine is shared.
		if (FILENAME == ARGV[1]) { if (!(name in old) || v < old[name]) old[name] = v }
		else { if (!(name in cur)) order[++n] = name; if (!(name in cur) || v < cur[name]) cur[name] = v }
	}
	END {
		printf "%-48s %12s %12s %8s\n", "benchmark", base, now, "ratio"
		for (i = 1; i <= n; i++) {
			k = order[i]
			if (k in old && old[k] > 0) printf "%-48s %12.2f %12.2f %7.2fx\n", k, old[k], cur[k], old[k] / cur[k]
			else printf "%-48s %12s %12.2f %8s\n", k, "-", cur[k], "-"
		}
	}' "$prev" "$now"
