#!/usr/bin/env bash
# The load lane: runs a command (by default the suite, go test ./...) beside
# HOGS busy loops (default 6) and, unless NOBUILD is set, a loop of
# go build -a std with a cache of its own, as a busy CI runner or a laptop
# compiling something else would. It prints the load average before, during
# (each minute) and after, and exits with the command's status. The command
# runs in the repository's root (mutate -C DIR reaches another module).
#
#   bench/load.sh                    # go test ./... beside 6 hogs and a build loop
#   HOGS=6 bench/load.sh go test -count=1 -run 'TestScripts/stall_load$' ./cmd/mutate/...
#   GOCACHE=$(mktemp -d) bench/load.sh   # with an empty build cache
#   HOGS=16 bench/load.sh go tool mutate -C DIR run -generate -pkg . -no-cache
#
# Nothing of the suite may depend on how fast the machine is: this lane
# shows it (docs/internals.md, "Load").
set -u
cd "$(dirname "$0")/.."
hogs=${HOGS:-6}
[ $# -gt 0 ] || set -- go test ./...

pids=()
stop() {
	for pid in "${pids[@]}"; do
		kill "$pid" 2>/dev/null
	done
	[ -n "${group:-}" ] && kill -- "-$group" 2>/dev/null
	wait 2>/dev/null
	[ -n "${build_cache:-}" ] && rm -rf "$build_cache"
}
trap stop EXIT

echo "load.sh: load average before: $(cut -d' ' -f1-3 /proc/loadavg), on $(nproc) CPUs"
for _ in $(seq "$hogs"); do
	yes >/dev/null &
	pids+=($!)
done
if [ -z "${NOBUILD:-}" ]; then
	build_cache=$(mktemp -d)
	# A session of its own, killed whole: a build it has started ends with
	# it, not a minute later.
	setsid bash -c 'while :; do GOCACHE="$1" go build -a std >/dev/null 2>&1; done' _ "$build_cache" &
	group=$!
fi
(while sleep 60; do echo "load.sh: load average: $(cut -d' ' -f1-3 /proc/loadavg)"; done) &
pids+=($!)

what="$hogs busy loops"
[ -z "${NOBUILD:-}" ] && what="$what and a go build -a std loop"
echo "load.sh: $what; running: $*"
start=$SECONDS
"$@"
status=$?
echo "load.sh: exit $status after $((SECONDS - start)) s; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
exit "$status"
