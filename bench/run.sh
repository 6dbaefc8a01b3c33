#!/usr/bin/env bash
# Runs the mcpchaos benchmark: builds the programs of bench/cmd into a
# temporary directory, installs Toxiproxy v2.5.0 into a cache directory if
# it is missing, and runs the interleaved rounds. The report (Markdown)
# goes to stdout, progress to stderr. See bench/README.md.
#
# Settings (environment):
#   ROUNDS=5          interleaved rounds (QUICK=1: 1)
#   QUICK=1           a short smoke run; its figures mean nothing
#   WINDOW=3s         measured time of each HTTP load
#   BULK_MIB=1024     MiB moved each way per bulk transfer
#   BIG_MIB=64 BIG_REPS=3  body size and exchanges of the large-body HTTP test
#   IDLE=2000 LIVE=1000  connections of the memory and rule-change tests
#   RAW=file.json     also write every per-round figure and failure there
#   TOXIPROXY=path    use this toxiproxy-server instead of installing one
#   NO_TOXIPROXY=1    leave Toxiproxy out
#   TIMEOUT=1h        give up after this long
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
work=$(mktemp -d "${TMPDIR:-/tmp}/mcpchaos-bench.XXXXXX")
bench_pid=""

# cleanup stops the driver (which stops every program it started; they
# are also tied to it with PDEATHSIG) and removes the build directory.
cleanup() {
	if [[ -n $bench_pid ]] && kill -0 "$bench_pid" 2>/dev/null; then
		kill -TERM "$bench_pid" 2>/dev/null || true
		for _ in $(seq 1 50); do # at most 5 s
			kill -0 "$bench_pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$bench_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "building bench programs into $work" >&2
(cd "$root" && go build -o "$work/" ./bench/cmd/...)

toxi=""
if [[ ${NO_TOXIPROXY:-0} != 1 ]]; then
	toxi=${TOXIPROXY:-}
	if [[ -z $toxi ]]; then
		cache=${XDG_CACHE_HOME:-$HOME/.cache}/mcpchaos-bench/toxiproxy-v2.5.0
		toxi=$cache/server
		if [[ ! -x $toxi ]]; then
			echo "installing Toxiproxy v2.5.0 into $cache" >&2
			mkdir -p "$cache"
			# Outside any module, so the project's go.mod is untouched.
			(cd "$work" && GOBIN="$cache" GOFLAGS='' go install github.com/Shopify/toxiproxy/v2/cmd/server@v2.5.0)
		fi
	fi
fi

# 2,000 proxied connections need more than the usual 1,024 descriptors in
# the driver and the proxies; Go raises its own soft limit to the hard
# limit, but Toxiproxy and the shell may not.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

args=(-bindir "$work" -toxiproxy "$toxi" -timeout "${TIMEOUT:-1h}")
[[ ${QUICK:-0} == 1 ]] && args+=(-quick)
[[ -n ${ROUNDS:-} ]] && args+=(-rounds "$ROUNDS")
[[ -n ${WINDOW:-} ]] && args+=(-window "$WINDOW")
[[ -n ${BULK_MIB:-} ]] && args+=(-bulk-mib "$BULK_MIB")
[[ -n ${BIG_MIB:-} ]] && args+=(-big-mib "$BIG_MIB")
[[ -n ${BIG_REPS:-} ]] && args+=(-big-reps "$BIG_REPS")
[[ -n ${IDLE:-} ]] && args+=(-idle "$IDLE")
[[ -n ${LIVE:-} ]] && args+=(-live "$LIVE")
[[ -n ${RAW:-} ]] && args+=(-raw "$RAW")

echo "nproc=$(nproc) $(go version)" >&2
echo "command: ${ROUNDS:+ROUNDS=$ROUNDS }${QUICK:+QUICK=$QUICK }bench/run.sh" >&2
"$work/bench" "${args[@]}" &
bench_pid=$!
wait "$bench_pid"
