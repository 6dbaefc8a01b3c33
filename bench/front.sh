#!/usr/bin/env bash
# Measures what an MCP front costs a tool call: builds mcpchaos and
# bench/cmd/frontbench into a temporary directory and runs the interleaved
# rounds (bench/README.md, "MCP front"). The report (Markdown) goes to
# stdout, per-round figures to stderr.
#
# Settings (environment):
#   ROUNDS=5        interleaved rounds
#   CALLS=2000      sequential calls per target and round
#   WORKERS=8 PER_WORKER=500  concurrent callers and their calls
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
work=$(mktemp -d "${TMPDIR:-/tmp}/mcpchaos-frontbench.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "building into $work" >&2
(cd "$root" && go build -o "$work/" ./cmd/mcpchaos ./bench/cmd/frontbench)
echo "nproc=$(nproc) $(go version)" >&2
"$work/frontbench" -mcpchaos "$work/mcpchaos" -rounds "${ROUNDS:-5}" -calls "${CALLS:-2000}" \
	-workers "${WORKERS:-8}" -per-worker "${PER_WORKER:-500}"
