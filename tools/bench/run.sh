#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: kprof's overhead against perf's, in one guest boot.
#
# Builds kprof.ko for Debian's generic 6.1 kernel, kprofctl and the workload,
# boots that kernel under QEMU with -icount (one vCPU; guest time counts
# instructions, so the numbers do not depend on host noise) and runs
# tools/bench/guest.sh there: the workload alone, under `perf record -a -g`,
# under `kprofctl record -a -g` and under `kprofctl start --mode aggregate`,
# at 99, 999 and 4999 Hz; then sched:sched_switch samples with call chains
# on a context-switch-heavy workload (perf and kprof), and the decoding speed
# of kprofctl report/script/folded against perf report/script.  Then prints
# the tables and writes build/bench/results.json.  See tools/bench/README.rst.
#
# Usage: tools/bench/run.sh [--seconds S] [--rounds N] [--rates "R..."]
#                           [--event EV] [--tools "perf kprof agg ..."] [--timeout SEC]
#                           [--kprofctl PATH] [--switch-seconds S] [--lock-seconds S]
#                           [--decode-seconds S] [--decode-period NS]
#                           [--kernel KIND] [--quick] [--stages] [--save]
# Environment: BENCH_SECONDS, BENCH_ROUNDS, BENCH_RATES, BENCH_EVENT,
# BENCH_TOOLS, BENCH_TIMEOUT, BENCH_KPROFCTL, BENCH_SWITCH_SECONDS, BENCH_LOCK_SECONDS,
# BENCH_DECODE_SECONDS, BENCH_DECODE_PERIOD, BENCH_KERNEL give the same
# defaults (make bench BENCH_ROUNDS=1 ...).  --quick: 999 Hz only, the
# sampling runs only (make bench-quick).  --stages (make bench-stages):
# also kprof.ko's stage build (KPROF_BENCH_STAGES=y, module/stages.h) in
# the same boot, stream and aggregate mode at 999 and 4999 Hz beside perf
# and the floor, and the table of the sampling path's cost by stage, in
# guest instructions per sample.  --save: the results also go to
# tools/bench/results/ (KERNEL-KIND_DATE_COMMIT.json and .md), to be
# committed with a change of the sampling path.

set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"

seconds=${BENCH_SECONDS:-4}
rounds=${BENCH_ROUNDS:-2}
rates=${BENCH_RATES:-99 999 4999}
event=${BENCH_EVENT-cpu-clock}
tools=${BENCH_TOOLS:-perf kprof agg three floor-empty floor-walk bpftrace bcc}
kind=${BENCH_KERNEL:-generic-6.1}
save=0
stages=0
timeout=${BENCH_TIMEOUT:-3600}
kprofctl=${BENCH_KPROFCTL:-$top/ctl/kprofctl}
switch_seconds=${BENCH_SWITCH_SECONDS:-2}
lock_seconds=${BENCH_LOCK_SECONDS:-2}
decode_seconds=${BENCH_DECODE_SECONDS:-20}
decode_period=${BENCH_DECODE_PERIOD:-20000}

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
	--switch-seconds) switch_seconds=$2; shift 2 ;;
	--lock-seconds) lock_seconds=$2; shift 2 ;;
	--decode-seconds) decode_seconds=$2; shift 2 ;;
	--decode-period) decode_period=$2; shift 2 ;;
	--kernel) kind=$2; shift 2 ;;
	--quick) rates=999; switch_seconds=0; lock_seconds=0; decode_seconds=0; shift ;;
	--stages) stages=1; rates=${BENCH_RATES:-999 4999}; switch_seconds=0; lock_seconds=0
		decode_seconds=0; tools=${BENCH_TOOLS:-perf kprof agg floor-empty floor-walk}
		tools="$tools kprof-stages agg-stages"; shift ;;
	--save) save=1; shift ;;
	-h|--help) usage ;;
	*) echo "bench: unknown argument $1" >&2; usage ;;
	esac
done

[[ $seconds =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "bench: bad --seconds $seconds" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "bench: bad --rounds $rounds" >&2; exit 2; }
[[ $switch_seconds =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "bench: bad --switch-seconds $switch_seconds" >&2; exit 2; }
[[ $lock_seconds =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "bench: bad --lock-seconds $lock_seconds" >&2; exit 2; }
[[ $decode_seconds =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "bench: bad --decode-seconds $decode_seconds" >&2; exit 2; }
[[ $decode_period =~ ^[1-9][0-9]*$ ]] || { echo "bench: bad --decode-period $decode_period" >&2; exit 2; }
[[ $rates =~ ^[0-9\ ]+$ && -n ${rates// /} ]] || { echo "bench: bad --rates '$rates'" >&2; exit 2; }

bench=$top/build/bench
out=$bench/out
json=$bench/results.json

echo "==> dependencies"
tools/deps.sh
command -v perf >/dev/null || { echo "bench: perf missing (apt-get install linux-perf)" >&2; exit 1; }

echo "==> building kprof.ko, kprofctl and the workload"
read -r rel ko <<<"$(tools/build-test-modules.sh "$kind")"
floor=$(dirname "$ko")/tools/bench/floor/kprof_floor.ko
stages_opt=()
if ((stages)); then
	read -r _ stages_ko <<<"$(KPROF_BENCH_STAGES=y tools/build-test-modules.sh "$kind")"
	stages_opt=(--stages-ko "$stages_ko")
fi
make -s ctl
mkdir -p "$bench"
# Frame pointers everywhere, leaf functions included, for -g call chains.
gcc -O2 -g -pthread -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
	-Wall -Wextra -Werror -o "$bench/workload" tools/bench/workload.c

rm -rf "$out"
mkdir -p "$out"
nruns=$(( $(wc -w <<<"$rates") * ($(wc -w <<<"$tools") * rounds + 1) + 1 ))
# Host seconds: about 3 per guest second of the overhead runs; the decoding
# test about 20 per recorded second at the default period (perf report and
# perf script dominate).
est=$(awk -v n="$nruns" -v s="$seconds" -v sw="$switch_seconds" -v lk="$lock_seconds" -v d="$decode_seconds" \
	-v p="$decode_period" 'BEGIN { printf "%d", (n * s + 10 * sw + 10 * lk) * 3.5 + 60 + d * 20 * 20000 / p }')
echo "==> booting $rel under QEMU -icount (one vCPU): $nruns runs of $seconds guest s,"
echo "    tracepoint runs of $switch_seconds s, decoding test of $decode_seconds s at -c $decode_period"
echo "    (about $(( est / 60 + 1 )) min on an idle host, several times that on a loaded one;"
echo "    console log in build/bench/console.log)"
# More memory than the default: the decoding test keeps its recording
# (about 120 MB per million samples) on the guest's tmpfs.
vm=(tools/kprof-vm --kernel "$kind" --icount --mem 2048 --timeout "$timeout" --log "$bench/console.log")
guest=(tools/bench/guest.sh --ko "$ko" --floor "$floor" "${stages_opt[@]}" --seconds "$seconds" --rounds "$rounds"
	--rates "$rates" --event "$event" --tools "$tools" --kprofctl "$(readlink -f "$kprofctl")"
	--switch-seconds "$switch_seconds" --lock-seconds "$lock_seconds" --decode-seconds "$decode_seconds"
	--decode-period "$decode_period" "$out")
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
tools/bench/report.py "$out" "$json" --markdown "$bench/results.md" \
	--meta "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
	--meta "kernel=$rel" \
	--meta "host=$(uname -n) $(uname -r) $(nproc) CPUs" \
	--meta "qemu=$(qemu-system-x86_64 --version | head -n 1)" \
	--meta "qemu_args=-accel tcg -smp 1 -icount shift=0,sleep=off (tools/kprof-vm --icount)" \
	--meta "command=${vm[*]} -- ${guest[*]}" \
	--meta "host_seconds=$elapsed" \
	--meta "vm_exit=$vmrc" \
	--meta "kernel_kind=$kind" \
	--meta "commit=$(git rev-parse --short=12 HEAD 2>/dev/null)$(git diff --quiet HEAD -- module include Kbuild 2>/dev/null || echo -dirty)" || rprc=$?

if ((save)); then
	name=$kind-$(date -u +%Y%m%d)-$(git rev-parse --short=12 HEAD)
	git diff --quiet HEAD -- module include Kbuild || name=$name-dirty
	mkdir -p tools/bench/results
	cp "$json" "tools/bench/results/$name.json"
	cp "$bench/results.md" "tools/bench/results/$name.md"
	echo "==> saved tools/bench/results/$name.{json,md}"
fi

if ((vmrc)); then
	echo "bench: the guest run failed (exit $vmrc; 124 timeout, 125 crash, 126 kernel splat)" >&2
	exit "$vmrc"
fi
exit "$rprc"
