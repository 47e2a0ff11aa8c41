#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Decoding throughput: 'kprofctl report', 'report -g', 'script' and
# 'folded' on a recording of N generated deep-stack samples (.obj/kp-gen),
# in samples per second.  With PERF_DATA=perf.data, perf report and perf
# script run on that file too, for comparison per sample.
#
# usage: tests/bench-decode.sh [N]

set -eu

n=${1:-1000000}
here=$(cd "$(dirname "$0")/.." && pwd)
dir=$here/.obj/bench
kp=$here/kprofctl
mkdir -p "$dir"

if [ ! -s "$dir/kprof.data" ] || [ "$(cat "$dir/n" 2>/dev/null)" != "$n" ]; then
	rm -rf "$dir/root"
	"$here/.obj/kp-gen" "$dir" "$n"
	echo "$n" > "$dir/n"
fi
args="-i $dir/kprof.data --symfs $dir/root --kallsyms $dir/root/kallsyms"
echo "# $n samples, $(du -m "$dir/kprof.data" | cut -f1) MiB"

rate() {	# rate NAME SAMPLES CMD...
	local name=$1 samples=$2 t
	shift 2
	t=$( { TIMEFORMAT='%R %U %S'; time "$@" > /dev/null 2>&1; } 2>&1 )
	echo "$t" | awk -v n="$samples" -v name="$name" '{
		cpu = $2 + $3
		printf "%-22s %7.2f s CPU %7.2f s wall %10.0f samples/s\n", name, cpu, $1,
			(cpu > 0 ? n / cpu : 0) }'
}

# shellcheck disable=SC2086
{
	rate "kprofctl report" "$n" "$kp" report $args
	rate "kprofctl report -g" "$n" "$kp" report -g $args
	rate "kprofctl script" "$n" "$kp" script $args
	rate "kprofctl folded" "$n" "$kp" folded $args
}
if [ -n "${PERF_DATA:-}" ]; then
	pn=$(perf report -i "$PERF_DATA" --stdio --header-only 2>/dev/null |
		sed -n 's/^# Samples: \([0-9]*\).*/\1/p' | head -n 1)
	pn=$(perf script -i "$PERF_DATA" -F ip 2>/dev/null | grep -c . || true)
	rate "perf report" "$pn" perf report -i "$PERF_DATA" --stdio --no-children
	rate "perf report -g" "$pn" perf report -i "$PERF_DATA" --stdio -g
	rate "perf script" "$pn" perf script -i "$PERF_DATA"
fi
