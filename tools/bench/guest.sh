#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of `make bench` (see tools/bench/README.rst): in one guest
# booted with `tools/kprof-vm --icount` (one vCPU, guest time = instructions),
# run the workload without a profiler, under `perf record` and under
# `kprofctl record`, system-wide with call chains, at each rate, and write
# one line per run into OUTDIR/results.txt:
#
#   kind=info key=value...
#   kind=mem tool=kprof|perf ...
#   kind=run tool=baseline|perf|kprof rate=HZ round=N status=ok|fail
#            seconds=S units=N throughput=UNITS/S samples=N lost=N ...
#
# "lost=-" means the guest cannot tell cheaply (perf: run.sh counts the
# LOST records of the perf.data file on the host).  Per-run logs are in
# OUTDIR/log/, the data files in OUTDIR/data/.
#
# The runs use copies of the workload and kprofctl and write their data and
# logs on the guest's tmpfs (moved to OUTDIR after each run): waiting for
# the 9p share would leave the vCPU idle, and with -icount sleep=off idle
# guest time leaps ahead by timer deadlines, i.e. by sampling periods, which
# adds idle samples at the edges of a session.
#
# Usage: guest.sh [options] OUTDIR
#   --ko PATH          kprof.ko to load (default: build/kmod/$(uname -r)/kprof.ko)
#   --seconds S        guest seconds per run (default 4)
#   --rates "R..."     sampling rates in Hz (default "99 999 4999")
#   --rounds N         profiled runs per tool and rate (default 1)
#   --event EV         event for both tools (default cpu-clock; "" = tool default)
#   --tools "T..."     profilers to run: perf kprof (default both)
#   --kprofctl PATH    kprofctl to use (default ctl/kprofctl)

set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)

ko=$top/build/kmod/$(uname -r)/kprof.ko
seconds=4
rates="99 999 4999"
rounds=1
event=cpu-clock
tools="perf kprof"
kprofctl=$top/ctl/kprofctl

usage() {
	sed -n 's/^# \{0,1\}//; /^Usage:/,/^$/p' "$0" >&2
	exit 2
}

while (($#)); do
	case $1 in
	--ko) ko=$2; shift 2 ;;
	--seconds) seconds=$2; shift 2 ;;
	--rates) rates=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--event) event=$2; shift 2 ;;
	--tools) tools=$2; shift 2 ;;
	--kprofctl) kprofctl=$2; shift 2 ;;
	-h|--help) usage ;;
	--) shift; break ;;
	-*) echo "guest.sh: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
(($# == 1)) || usage
out=$1

if [[ ${KPROF_VM:-} != 1 ]]; then
	echo "guest.sh: runs inside the benchmark guest (tools/bench/run.sh boots it)" >&2
	exit 2
fi

[[ -x $top/build/bench/workload ]] ||
	{ echo "guest.sh: build/bench/workload missing (run tools/bench/run.sh)" >&2; exit 1; }

stage=/tmp/kprof-bench
rm -rf "$stage"
mkdir -p "$stage/run" "$out/log" "$out/data"
cp "$top/build/bench/workload" "$stage/workload"
workload=$stage/workload
kprofctl_orig=$kprofctl
if [[ $tools == *kprof* ]]; then
	[[ -x $kprofctl ]] || { echo "guest.sh: $kprofctl missing" >&2; exit 1; }
	cp "$kprofctl" "$stage/kprofctl"
	kprofctl=$stage/kprofctl
fi
results=$out/results.txt
: >"$results"

emit() { echo "$*" >>"$results"; }
note() { echo "bench: $*"; }

# Debian's /usr/bin/perf is either perf itself or a wrapper that insists on
# a matching kernel; perf_X.Y is the real binary in the latter case.
perf=
if [[ $tools == *perf* ]]; then
	kver=$(uname -r | cut -d. -f1,2)
	for p in perf "perf_$kver" /usr/bin/perf_"$kver"; do
		if command -v "$p" >/dev/null 2>&1 && "$p" --version >/dev/null 2>&1; then
			perf=$(command -v "$p")
			break
		fi
	done
	if [[ -z $perf ]]; then
		note "no working perf in the guest (install linux-perf); skipping perf"
		tools=${tools//perf/}
	fi
fi

evopt=()
[[ -z $event ]] || evopt=(-e "$event")

# The workload's line: "workload: seconds=S units=N throughput=T".
parse_workload() {
	sed -n 's/^workload: \(seconds=[^ ]* units=[^ ]* throughput=[^ ]*\)$/\1/p' "$1" | tail -n 1
}

# "[ perf record: Captured and wrote 0.123 MB FILE (456 samples) ]"
# "[ kprof record: Captured and wrote 0.123 MB FILE (456 samples) ]"
parse_samples() {
	sed -n 's/^\[ [a-z]* record: Captured and wrote .*(\([0-9][0-9]*\) samples) \]$/\1/p' "$1" |
		tail -n 1
}

# "[ kprof record: Lost 12 samples: 12 buffer full, 0 too big ]"
parse_kprof_lost() {
	sed -n 's/^\[ kprof record: Lost \([0-9][0-9]*\) samples.*/\1/p' "$1" | tail -n 1
}

# "[ kprof record: Balance: 100 invocations = 99 stored + 1 lost: ok ]"
parse_kprof_balance() {
	sed -n 's/^\[ kprof record: Balance: .*: \([A-Za-z]*\) \]$/\1/p' "$1" | tail -n 1
}

# "[ kprof record: Handler: avg 1234 ns, max 5678 ns ]"
parse_kprof_handler() {
	sed -n 's/^\[ kprof record: Handler: avg \([0-9]*\) ns, max \([0-9]*\) ns \]$/avg_ns=\1 max_ns=\2/p' \
		"$1" | tail -n 1
}

# run TOOL RATE ROUND: one workload run, one results line.
run() {
	local tool=$1 rate=$2 round=$3 name rc=0 wl samples=- lost=- bytes=- extra=""
	local data bal tmp=$stage/run

	name=$tool-$rate-r$round
	[[ $tool == baseline ]] && name=baseline-r$round
	data=$tmp/$name.data
	note "$name"
	case $tool in
	baseline)
		"$workload" "$seconds" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
		;;
	perf)
		"$perf" record -a -g -F "$rate" "${evopt[@]}" -o "$data" -- \
			"$workload" "$seconds" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
		;;
	kprof)
		"$kprofctl" record -a -g -F "$rate" "${evopt[@]}" -o "$data" -- \
			"$workload" "$seconds" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
		;;
	esac
	# Out of the timed part: move everything to OUTDIR.
	mv "$tmp/$name.out" "$tmp/$name.err" "$out/log/"
	if [[ -f $data ]]; then
		bytes=$(stat -c %s "$data")
		mv "$data" "$out/data/"
		data=$out/data/$name.data
	else
		data=-
	fi
	wl=$(parse_workload "$out/log/$name.out")
	if [[ $tool != baseline ]]; then
		samples=$(parse_samples "$out/log/$name.err")
		if [[ $tool == kprof ]]; then
			lost=$(parse_kprof_lost "$out/log/$name.err")
			bal=$(parse_kprof_balance "$out/log/$name.err")
			extra="balance=${bal:--} $(parse_kprof_handler "$out/log/$name.err")"
		fi
	fi
	local status=ok
	if ((rc)) || [[ -z $wl ]] || [[ $tool != baseline && -z $samples ]]; then
		status=fail
		note "$name FAILED (exit $rc); last lines of its log:"
		tail -n 5 "$out/log/$name.err" | sed 's/^/    /'
	fi
	emit "kind=run tool=$tool rate=$rate round=$round status=$status exit=$rc" \
		"${wl:-seconds=- units=- throughput=-} samples=${samples:--} lost=${lost:--}" \
		"bytes=$bytes data=${data#"$top"/}${extra:+ $extra}"
	echo "    ${wl:-no result}${samples:+ samples=$samples}${lost:+ lost=$lost}"
}

# ---- what is being measured ----

emit "kind=info kernel=$(uname -r) ncpus=$(nproc) seconds=$seconds rounds=$rounds" \
	"event=${event:-default} rates=${rates// /,}"
emit "kind=info cmdline=$(tr ' ' ',' </proc/cmdline)"
emit "kind=info perf_event_max_sample_rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)" \
	"perf_cpu_time_max_percent=$(cat /proc/sys/kernel/perf_cpu_time_max_percent)"
if [[ -n $perf ]]; then
	emit "kind=info perf=$perf perf_version=$("$perf" --version | awk '{print $NF}')"
fi

if [[ $tools == *kprof* ]]; then
	if [[ ! -f $ko ]]; then
		note "$ko missing; skipping kprof"
		tools=${tools//kprof/}
	else
		lsmod | grep -q '^kprof ' || insmod "$ko"
		# "kprof.ko 0.1.0 (ABI 1.0) on RELEASE"
		emit "kind=info kprof_ko=${ko#"$top"/} kprofctl=${kprofctl_orig#"$top"/} kprof_version=$("$kprofctl" version 2>/dev/null |
			sed -n 's/^kprof\.ko \([^ ]*\) .*/\1/p' | head -n 1)"
	fi
fi

# Perf's kernel memory for the sample buffers: "mmap size NB" per CPU.
# Measured with a throw-away session, not during a timed run.
if [[ -n $perf ]]; then
	mmap=$("$perf" record -v -a -g "${evopt[@]}" -F 99 -o /tmp/mmap-probe.data -- true 2>&1 |
		sed -n 's/^mmap size \([0-9]*\)B$/\1/p' | head -n 1) || true
	emit "kind=mem tool=perf per_cpu_bytes=${mmap:--} cpus=$(nproc)" \
		"mlock_kb=$(cat /proc/sys/kernel/perf_event_mlock_kb)"
	rm -f /tmp/mmap-probe.data
fi
# kprof's: buffer_size (data bytes) and mmap_stride (the mapping per CPU)
# of a session, read from debugfs while a throw-away session runs.
if [[ $tools == *kprof* ]]; then
	sess=$("$kprofctl" record -a -g "${evopt[@]}" -F 99 -o /tmp/mem-probe.data -- \
		cat /sys/kernel/debug/kprof/session 2>/dev/null) || true
	bsize=$(sed -n 's/^buffer_size: \([0-9]*\)$/\1/p' <<<"$sess")
	stride=$(sed -n 's/^mmap_stride: \([0-9]*\)$/\1/p' <<<"$sess")
	emit "kind=mem tool=kprof per_cpu_bytes=${bsize:--} mmap_stride=${stride:--} cpus=$(nproc)"
	rm -f /tmp/mem-probe.data
fi

# ---- the runs ----

# A warm-up run, not counted: pages in the workload and its libraries.
"$workload" 1 >/dev/null

base=0
run baseline 0 $((++base))
for rate in $rates; do
	for ((r = 1; r <= rounds; r++)); do
		for tool in $tools; do
			run "$tool" "$rate" "$r"
		done
	done
	run baseline 0 $((++base))
done

if lsmod | grep -q '^kprof '; then
	rmmod kprof || note "rmmod kprof failed"
fi
rm -rf "$stage"
if grep -q 'status=fail' "$results"; then
	note "some runs failed; see $out/log/"
	exit 1
fi
note "done: $results"
