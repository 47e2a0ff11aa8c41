#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: kprof's overhead against perf's, in one guest boot.
#
# Builds kprof.ko for Debian's generic 6.1 kernel, kprofctl and the workload,
# boots that kernel under QEMU with -icount (one vCPU; guest time counts
# instructions, so the numbers do not depend on host noise) and runs
# tools/bench/guest.sh there: the workload alone, under `perf record -a -g`
# and under `kprofctl record -a -g`, at 99, 999 and 4999 Hz.  Then prints
# the table and writes build/bench/results.json.  See tools/bench/README.rst.
#
# Usage: tools/bench/run.sh [--seconds S] [--rounds N] [--rates "R..."]
#                           [--event EV] [--tools "perf kprof"] [--timeout SEC]
#                           [--kprofctl PATH]
# Environment: BENCH_SECONDS, BENCH_ROUNDS, BENCH_RATES, BENCH_EVENT,
# BENCH_TOOLS, BENCH_TIMEOUT, BENCH_KPROFCTL give the same defaults
# (make bench BENCH_ROUNDS=1 ...).

set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"

seconds=${BENCH_SECONDS:-4}
rounds=${BENCH_ROUNDS:-2}
rates=${BENCH_RATES:-99 999 4999}
event=${BENCH_EVENT-cpu-clock}
tools=${BENCH_TOOLS:-perf kprof}
timeout=${BENCH_TIMEOUT:-1500}
kprofctl=${BENCH_KPROFCTL:-$top/ctl/kprofctl}

usage() {
	sed -n 's/^# \{0,1\}//; /^Usage:/,/^$/p' "$0" >&2
	exit 2
}

while (($#)); do
	case $1 in
	--seconds) seconds=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--rates) rates=$2; shift 2 ;;
	--event) event=$2; shift 2 ;;
	--tools) tools=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--kprofctl) kprofctl=$2; shift 2 ;;
	-h|--help) usage ;;
	*) echo "bench: unknown argument $1" >&2; usage ;;
	esac
done

[[ $seconds =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "bench: bad --seconds $seconds" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "bench: bad --rounds $rounds" >&2; exit 2; }
[[ $rates =~ ^[0-9\ ]+$ && -n ${rates// /} ]] || { echo "bench: bad --rates '$rates'" >&2; exit 2; }

bench=$top/build/bench
out=$bench/out
json=$bench/results.json

echo "==> dependencies"
tools/deps.sh
command -v perf >/dev/null || { echo "bench: perf missing (apt-get install linux-perf)" >&2; exit 1; }

echo "==> building kprof.ko, kprofctl and the workload"
read -r rel ko <<<"$(tools/build-test-modules.sh generic)"
make -s ctl
mkdir -p "$bench"
# Frame pointers everywhere, leaf functions included, for -g call chains.
gcc -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
	-Wall -Wextra -Werror -o "$bench/workload" tools/bench/workload.c

rm -rf "$out"
mkdir -p "$out"
nruns=$(( $(wc -w <<<"$rates") * ($(wc -w <<<"$tools") * rounds + 1) + 1 ))
echo "==> booting $rel under QEMU -icount (one vCPU): $nruns runs of $seconds guest s"
echo "    (about $(( (nruns * seconds * 7 / 2 + 30) / 60 + 1 )) min; console log in build/bench/console.log)"
vm=(tools/kprof-vm --kernel generic --icount --timeout "$timeout" --log "$bench/console.log")
guest=(tools/bench/guest.sh --ko "$ko" --seconds "$seconds" --rounds "$rounds"
	--rates "$rates" --event "$event" --tools "$tools" --kprofctl "$(readlink -f "$kprofctl")"
	"$out")
start=$SECONDS
vmrc=0
"${vm[@]}" -- "${guest[@]}" || vmrc=$?
elapsed=$((SECONDS - start))
echo "==> guest finished in $elapsed s (exit $vmrc)"

# Perf's lost samples, from its data files (natively: much faster than in
# the guest).  PERF_RECORD_LOST carries what the ring buffer dropped;
# PERF_RECORD_LOST_SAMPLES (perf >= 6.0 writes them at the end from the
# counters' PERF_FORMAT_LOST) counts the same drops again, so take the
# larger total, not the sum.
: >"$out/host.txt"
for f in "$out"/data/perf-*.data; do
	[[ -f $f ]] || continue
	perf report -D -i "$f" 2>/dev/null | awk -v data="${f#"$top"/}" '
		/PERF_RECORD_LOST_SAMPLES/ { if (match($0, /lost[a-z ]*: *[0-9]+/)) {
			s = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", s); ls += s } next }
		/PERF_RECORD_LOST/ { if (match($0, /lost[a-z ]*: *[0-9]+/)) {
			s = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", s); lr += s } next }
		/PERF_RECORD_THROTTLE/ { th++ }
		END { printf "kind=perf-lost data=%s lost=%d lost_records=%d lost_samples=%d throttle=%d\n",
			data, (lr > ls ? lr : ls), lr, ls, th }' >>"$out/host.txt"
done

rprc=0
tools/bench/report.py "$out" "$json" \
	--meta "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
	--meta "kernel=$rel" \
	--meta "host=$(uname -n) $(uname -r) $(nproc) CPUs" \
	--meta "qemu=$(qemu-system-x86_64 --version | head -n 1)" \
	--meta "qemu_args=-accel tcg -smp 1 -icount shift=0,sleep=off (tools/kprof-vm --icount)" \
	--meta "command=${vm[*]} -- ${guest[*]}" \
	--meta "host_seconds=$elapsed" \
	--meta "vm_exit=$vmrc" || rprc=$?

if ((vmrc)); then
	echo "bench: the guest run failed (exit $vmrc; 124 timeout, 125 crash, 126 kernel splat)" >&2
	exit "$vmrc"
fi
exit "$rprc"
