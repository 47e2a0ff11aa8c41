#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of `make bench` (see tools/bench/README.rst): in one guest
# booted with `tools/kprof-vm --icount` (one vCPU, guest time = instructions),
# run the workload without a profiler, under `perf record` and under
# `kprofctl record`, system-wide with call chains, at each rate, and write
# one line per run into OUTDIR/results.txt.  Also, in the same boot:
# kprof's aggregate mode (`kprofctl start --mode aggregate`, no reader) at
# the same rates; the cost of a sched:sched_switch sample with call chain
# (perf and kprof) on a context-switch-heavy workload; and the decoding
# speed of `kprofctl report/script/folded` against `perf report/script`.
#
#   kind=info key=value...
#   kind=mem tool=kprof|perf|agg ...
#   kind=run tool=baseline|perf|kprof|agg rate=HZ round=N status=ok|fail
#            seconds=S units=N throughput=UNITS/S samples=N lost=N ...
#   kind=switch tool=baseline|perf|kprof status=ok|fail|skip ...
#   kind=lock tool=baseline|perf|kprof|kprof-agg mode=lockpipe|pipeself ...
#            contended=N (contention events the tool saw)
#   kind=decode tool=perf|kprof cmd=record|report|... samples=N cpu=SEC ...
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
#   --tools "T..."     what runs beside the workload, of: perf (perf record -g),
#                      kprof (kprofctl record -g), kprof-noleaf (the same
#                      with --no-leaf-fixup: no stack copy), agg (kprofctl start -g
#                      --mode aggregate), floor-empty and floor-walk
#                      (kprof_floor.ko: an empty handler; one that only
#                      walks both stacks), bpftrace (profile:hz, stacks
#                      counted in a map), bcc (BCC's profile), three (kprof
#                      record -g beside two detached aggregating sessions
#                      on the same event and rate: what each extra session
#                      costs per event); default all
#                      kprof-stages, agg-stages (the same as kprof and agg
#                      with --stages-ko's module: make bench-stages)
#   --floor PATH       kprof_floor.ko (default: beside --ko's default)
#   --stages-ko PATH   kprof.ko's stage build (module/stages.h), for the
#                      *-stages tools: /sys/kernel/debug/kprof/stages is
#                      read before and after each of their runs
#   --kprofctl PATH    kprofctl to use (default ctl/kprofctl)
#   --switch-seconds S pingpong seconds per tracepoint run (default 2; 0 = skip)
#   --lock-seconds S   lock workload seconds per lock contention run (default 2; 0 = skip)
#   --decode-seconds S recording length for the decoding test (default 10; 0 = skip)
#   --decode-period NS cpu-clock period (-c) of that recording (default 20000)

set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)

ko=$top/build/kmod/$(uname -r)/kprof.ko
seconds=4
rates="99 999 4999"
rounds=1
event=cpu-clock
tools="perf kprof agg three floor-empty floor-walk bpftrace bcc"
floor=$top/build/kmod/$(uname -r)/tools/bench/floor/kprof_floor.ko
stages_ko=
kprofctl=$top/ctl/kprofctl
switch_seconds=2
lock_seconds=2
decode_seconds=10
decode_period=20000

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
	--floor) floor=$2; shift 2 ;;
	--stages-ko) stages_ko=$2; shift 2 ;;
	--kprofctl) kprofctl=$2; shift 2 ;;
	--switch-seconds) switch_seconds=$2; shift 2 ;;
	--lock-seconds) lock_seconds=$2; shift 2 ;;
	--decode-seconds) decode_seconds=$2; shift 2 ;;
	--decode-period) decode_period=$2; shift 2 ;;
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
if [[ $tools == *kprof* || $tools == *agg* ]]; then
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

# the BPF peers (Debian's bpftrace and bpfcc-tools) and the floor module
bcc_profile=
if [[ $tools == *bcc* ]]; then
	bcc_profile=$(command -v profile-bpfcc || true)
	if [[ -z $bcc_profile ]]; then
		note "no profile-bpfcc in the guest (install bpfcc-tools); skipping bcc"
		emit "kind=skip what=bcc reason=no_profile-bpfcc"
		tools=${tools//bcc/}
	fi
fi
if [[ $tools == *bpftrace* ]] && ! command -v bpftrace >/dev/null; then
	note "no bpftrace in the guest (install bpftrace); skipping bpftrace"
	emit "kind=skip what=bpftrace reason=no_bpftrace"
	tools=${tools//bpftrace/}
fi
if [[ $tools == *floor-* && ! -f $floor ]]; then
	note "$floor missing (tools/build-test-modules.sh builds it); skipping the floor"
	emit "kind=skip what=floor reason=kprof_floor.ko_missing"
	tools=${tools//floor-empty/}
	tools=${tools//floor-walk/}
fi
if [[ $tools == *floor-* || $tools == *bpftrace* || $tools == *bcc* ]] &&
   [[ $event != cpu-clock ]]; then
	# they sample cpu-clock (BCC's profile, bpftrace's profile:hz, the floor)
	note "--event $event: the floor and the BPF peers sample cpu-clock only; skipping them"
	for t in floor-empty floor-walk bpftrace bcc; do
		tools=${tools//$t/}
	done
fi

evopt=()
[[ -z $event ]] || evopt=(-e "$event")

# The workload's line: "workload: seconds=S units=N throughput=T".
parse_workload() {
	sed -n 's/^workload: \(seconds=[^ ]* units=[^ ]* throughput=[^ ]*\)$/\1/p' "$1" | tail -n 1
}

# Its second line: the parent's (the recorder's) CPU time in the timed part.
parse_parent() {
	sed -n 's/^workload: \(parent=[^ ]* parent_cpu_ns=[0-9]*\)$/\1/p' "$1" | tail -n 1
}

# use_ko PATH: kprof.ko from PATH is the one loaded (the default build or
# the stage build); swapped between runs, never during one.
loaded_ko=
use_ko() {
	[[ $loaded_ko == "$1" ]] && return 0
	! lsmod | grep -q '^kprof ' || rmmod kprof
	insmod "$1"
	loaded_ko=$1
}

# stages_snapshot: the stage build's sums, "STAGE NS MARKS" per line
stages_snapshot() {
	grep -v '^#' /sys/kernel/debug/kprof/stages
}

# stages_delta BEFORE AFTER: "stage_S_ns=N stage_S_marks=N ..." between two snapshots
stages_delta() {
	awk 'NR == FNR { ns[$1] = $2; mk[$1] = $3; next }
	     { printf "%sstage_%s_ns=%d stage_%s_marks=%d", n++ ? " " : "", $1, $2 - ns[$1], $1, $3 - mk[$1] }
	     END { print "" }' "$1" "$2"
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

# "[ kprof stop: session 3 stopped: 1095 samples aggregated, 0 lost (0 table
#   full, 0 during reset), 46 of 16384 entries used ]"
parse_agg_stop() {
	sed -n 's/^\[ kprof stop: session [0-9]* stopped: \([0-9]*\) samples aggregated, \([0-9]*\) lost .*, \([0-9]*\) of \([0-9]*\) entries used \]$/samples=\1 lost=\2 agg_used=\3 agg_entries=\4/p' "$1" | tail -n 1
}

# "[ kprof stop: Aggregate balance: 1095 invocations = 1095 aggregated + 0 lost: ok ]"
parse_agg_balance() {
	sed -n 's/^\[ kprof stop: Aggregate balance: .*: \([A-Za-z]*\) \]$/\1/p' "$1" | tail -n 1
}

# bpf_ready PID: the BPF tracer PID has attached and settled: it holds a
# perf event, sleeps, and took no CPU time over the last poll; then one
# idle second more for the work it left to the kernel (RCU callbacks
# freeing the compile's and the verifier's memory).  Its compile, which
# runs before, is not timed.  Both tools print their banner before they
# compile and attach (bpftrace's "Attaching N probes", BCC profile's
# "Sampling at"), so the banner alone is too early; BCC's rounds were
# 0.2 % apart at 99 Hz when timed from the first perf event alone.
bpf_ready() {
	local pid=$1 state fds ticks prev=

	for _ in $(seq 1200); do
		kill -0 "$pid" 2>/dev/null || return 1
		read -r state ticks < <(awk '{ print $3, $14 + $15 }' "/proc/$pid/stat" 2>/dev/null)
		fds=$(find "/proc/$pid/fd" -lname 'anon_inode:\[perf_event\]' 2>/dev/null | wc -l)
		if [[ $state == S && $fds -gt 0 && $ticks == "$prev" ]]; then
			sleep 1
			return 0
		fi
		prev=$ticks
		sleep 0.5
	done
	return 1
}

# peer_run NAME CMD...: the workload under a BPF tracer that runs until
# SIGINT and prints its map then (untimed); the tracer's output goes after
# the workload's log.
peer_run() {
	local name=$1 tmp=$stage/run peer rc=0

	shift
	set -m
	"$@" >"$tmp/$name.peer" 2>&1 &
	peer=$!
	set +m
	if bpf_ready $peer; then
		"$workload" "$seconds" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
	else
		rc=1
		: >"$tmp/$name.out"
		: >"$tmp/$name.err"
	fi
	kill -INT $peer 2>/dev/null
	wait $peer
	local prc=$?
	((rc)) || rc=$prc
	cat "$tmp/$name.peer" >>"$tmp/$name.err"
	rm -f "$tmp/$name.peer"
	return $rc
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
	kprof|kprof-noleaf|agg|three) use_ko "$ko" ;;
	*-stages) use_ko "$stages_ko"; stages_snapshot >"$tmp/$name.stages0" ;;
	esac
	case $tool in
	baseline)
		"$workload" "$seconds" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
		;;
	perf)
		"$perf" record -a -g -F "$rate" "${evopt[@]}" -o "$data" -- \
			"$workload" "$seconds" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
		;;
	kprof|kprof-stages)
		"$kprofctl" record -a -g -F "$rate" "${evopt[@]}" -o "$data" -- \
			"$workload" "$seconds" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
		;;
	kprof-noleaf)
		# the same without the leaf fix-up's stack copy: what it costs
		"$kprofctl" record -a -g --no-leaf-fixup -F "$rate" "${evopt[@]}" -o "$data" -- \
			"$workload" "$seconds" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
		;;
	three)
		# two detached aggregating sessions beside the stream record,
		# all on the same event and rate: three sessions sample each tick
		if "$kprofctl" start -a -g -F "$rate" "${evopt[@]}" --mode aggregate \
			>"$tmp/$name.sessions" 2>&1 &&
		   "$kprofctl" start -a -g -F "$rate" "${evopt[@]}" --mode aggregate \
			>>"$tmp/$name.sessions" 2>&1; then
			"$kprofctl" record -a -g -F "$rate" "${evopt[@]}" -o "$data" -- \
				"$workload" "$seconds" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
		else
			rc=1
			: >"$tmp/$name.out"
			cp "$tmp/$name.sessions" "$tmp/$name.err"
		fi
		"$kprofctl" stop --all >>"$tmp/$name.sessions" 2>&1 || rc=1
		mv "$tmp/$name.sessions" "$out/log/"
		;;
	floor-empty|floor-walk)
		# the module's counter opens at insmod and closes at rmmod
		if insmod "$floor" rate="$rate" mode="${tool#floor-}" 2>"$tmp/$name.err"; then
			"$workload" "$seconds" >"$tmp/$name.out" 2>>"$tmp/$name.err" || rc=$?
			for c in samples kernel_frames user_frames; do
				echo "$c=$(cat /sys/module/kprof_floor/parameters/$c)"
			done >"$tmp/$name.floor"
			rmmod kprof_floor || rc=1
		else
			rc=1
			: >"$tmp/$name.out"
		fi
		;;
	bpftrace)
		peer_run "$name" bpftrace -e "profile:hz:$rate { @[kstack, ustack, comm] = count(); }" ||
			rc=$?
		;;
	bcc)
		peer_run "$name" env PYTHONUNBUFFERED=1 "$bcc_profile" -F "$rate" || rc=$?
		;;
	agg|agg-stages)
		# No reader: start returns, the module counts the stacks.
		if "$kprofctl" start -a -g -F "$rate" "${evopt[@]}" --mode aggregate \
			>"$tmp/$name.err" 2>&1; then
			"$workload" "$seconds" >"$tmp/$name.out" 2>>"$tmp/$name.err" || rc=$?
			# Out of the timed part: the session's table size.
			cat /sys/kernel/debug/kprof/session >"$tmp/$name.session" 2>/dev/null || true
			"$kprofctl" stop >>"$tmp/$name.err" 2>&1 || rc=$?
		else
			rc=1
			: >"$tmp/$name.out"
		fi
		;;
	esac
	# Out of the timed part: the stage sums, and everything to OUTDIR.
	if [[ $tool == *-stages ]]; then
		stages_snapshot >"$tmp/$name.stages1"
		stages_delta "$tmp/$name.stages0" "$tmp/$name.stages1" >"$tmp/$name.stages"
		rm -f "$tmp/$name.stages0" "$tmp/$name.stages1"
		mv "$tmp/$name.stages" "$out/log/"
	fi
	mv "$tmp/$name.out" "$tmp/$name.err" "$out/log/"
	[[ ! -f $tmp/$name.session ]] || mv "$tmp/$name.session" "$out/log/"
	[[ ! -f $tmp/$name.floor ]] || mv "$tmp/$name.floor" "$out/log/"
	if [[ -f $data ]]; then
		bytes=$(stat -c %s "$data")
		mv "$data" "$out/data/"
		data=$out/data/$name.data
	else
		data=-
	fi
	wl=$(parse_workload "$out/log/$name.out")
	if [[ $tool == *runqlat ]]; then
		# histograms: no samples; the waits counted instead
		samples=$(awk -F: '/ -> / { split($2, a, " "); s += a[1] } END { print s + 0 }' \
			"$out/log/$name.out" "$out/log/$name.err")
		lost=0
	elif [[ $tool == floor-* ]]; then
		samples=$(sed -n 's/^samples=//p' "$out/log/$name.floor" 2>/dev/null)
		lost=0
		extra=$(grep -h '_frames=' "$out/log/$name.floor" 2>/dev/null | tr '\n' ' ')
		extra=${extra% }
	elif [[ $tool == bpftrace ]]; then
		# the map's entries end "]: COUNT"
		samples=$(awk '/\]: [0-9]+$/ { s += $NF } END { print s + 0 }' "$out/log/$name.err")
		lost=0
	elif [[ $tool == bcc ]]; then
		# each stack ends with its count alone on a line; stacks it could
		# not store are counted in its warning
		samples=$(awk '/^ +[0-9]+$/ { s += $1 } END { print s + 0 }' "$out/log/$name.err")
		lost=$(sed -n 's/^WARNING: \([0-9]*\) stack traces .*/\1/p' "$out/log/$name.err" | tail -n 1)
		lost=${lost:-0}
	elif [[ $tool != baseline ]]; then
		samples=$(parse_samples "$out/log/$name.err")
		if [[ $tool == kprof || $tool == kprof-noleaf || $tool == kprof-stages ||
		      $tool == three ]]; then
			lost=$(parse_kprof_lost "$out/log/$name.err")
			bal=$(parse_kprof_balance "$out/log/$name.err")
			extra="balance=${bal:--} $(parse_kprof_handler "$out/log/$name.err")"
		elif [[ $tool == agg || $tool == agg-stages ]]; then
			local st
			st=$(parse_agg_stop "$out/log/$name.err")
			samples=$(sed -n 's/.*samples=\([0-9]*\).*/\1/p' <<<"$st")
			lost=$(sed -n 's/.*lost=\([0-9]*\).*/\1/p' <<<"$st")
			bal=$(parse_agg_balance "$out/log/$name.err")
			extra="balance=${bal:--} $(grep -o 'agg_used=[0-9]* agg_entries=[0-9]*' <<<"$st")"
			extra+=" session_agg_entries=$(sed -n 's/^agg_entries: \([0-9]*\)$/\1/p' \
				"$out/log/$name.session" 2>/dev/null)"
		fi
	fi
	local parent
	parent=$(parse_parent "$out/log/$name.out")
	[[ -z $parent ]] || extra+="${extra:+ }$parent"
	[[ ! -f $out/log/$name.stages ]] || extra+="${extra:+ }$(cat "$out/log/$name.stages")"
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
[[ $tools != *bpftrace* ]] ||
	emit "kind=info bpftrace_version=$(bpftrace --version 2>/dev/null | awk '{ print $NF }')"
[[ $tools != *bcc* ]] ||
	emit "kind=info bcc_version=$(dpkg-query -W -f='${Version}' bpfcc-tools 2>/dev/null)"
if [[ -n $perf ]]; then
	emit "kind=info perf=$perf perf_version=$("$perf" --version | awk '{print $NF}')"
fi

if [[ $tools == *agg* ]] && ! "$kprofctl" start --help 2>&1 | grep -q -- --mode; then
	note "kprofctl start has no --mode (no in-kernel aggregation yet); skipping agg"
	emit "kind=skip what=agg reason=kprofctl_start_has_no_--mode"
	tools=${tools//agg/}
fi
if [[ $tools == *kprof* || $tools == *agg* ]]; then
	if [[ ! -f $ko ]]; then
		note "$ko missing; skipping kprof"
		tools=${tools//kprof/}
		tools=${tools//agg/}
	else
		use_ko "$ko"
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
# Aggregate mode's: agg_entries x 256 bytes per CPU (the default table),
# from debugfs during a throw-away session; the ring it also allocates
# (buffer_size) is reported beside it.
if [[ $tools == *agg* ]]; then
	sess=
	if "$kprofctl" start -a -g "${evopt[@]}" -F 99 --mode aggregate >/dev/null 2>&1; then
		sess=$(cat /sys/kernel/debug/kprof/session 2>/dev/null) || true
		"$kprofctl" stop >/dev/null 2>&1 || true
	fi
	aent=$(sed -n 's/^agg_entries: \([0-9]*\)$/\1/p' <<<"$sess")
	bsize=$(sed -n 's/^buffer_size: \([0-9]*\)$/\1/p' <<<"$sess")
	emit "kind=mem tool=agg agg_entries=${aent:--} entry_bytes=256" \
		"per_cpu_bytes=$(( ${aent:-0} * 256 )) ring_bytes=${bsize:--} cpus=$(nproc)"
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

# ---- tracepoint samples with call chains: sched:sched_switch ----

# traced NAME CMD...: a system-wide tracer that prints "Tracing" once it
# traces (runqlat, kprof's and BCC's) is started, then the pingpong
# workload runs, then SIGINT ends the tracer; its output goes after the
# workload's log.  The tracer's start (BCC: its compile) is not timed.
traced() {
	local name=$1 peer r

	shift
	set -m
	"$@" >"$stage/run/$name.peer" 2>&1 &
	peer=$!
	set +m
	for _ in $(seq 600); do
		grep -q Tracing "$stage/run/$name.peer" && break
		kill -0 $peer 2>/dev/null || break
		sleep 0.5
	done
	"$workload" --pingpong "$switch_seconds" >"$stage/run/$name.out" 2>"$stage/run/$name.err"
	r=$?
	kill -INT $peer
	wait $peer
	cat "$stage/run/$name.peer" >> "$stage/run/$name.err"
	rm -f "$stage/run/$name.peer"
	return $r
}

# switch_run TOOL NAME: the pingpong workload bare or under a profiler.
switch_run() {
	local tool=$1 name=switch-$1 rc=0 data=$stage/run/switch-$1.data wl samples=- lost=- extra=""
	note "$name"
	case $tool in
	baseline)
		"$workload" --pingpong "$switch_seconds" >"$stage/run/$name.out" 2>"$stage/run/$name.err" || rc=$?
		;;
	perf)
		"$perf" record -a -g -e sched:sched_switch -o "$data" -- \
			"$workload" --pingpong "$switch_seconds" >"$stage/run/$name.out" 2>"$stage/run/$name.err" || rc=$?
		;;
	kprof)
		"$kprofctl" record -a -g -e sched:sched_switch -o "$data" -- \
			"$workload" --pingpong "$switch_seconds" >"$stage/run/$name.out" 2>"$stage/run/$name.err" || rc=$?
		;;
	perf-sched)
		# what perf sched record records: switch, stat_runtime, fork, wakeup_new,
		# migrate_task, waking (6.1)
		"$perf" sched record -o "$data" -- \
			"$workload" --pingpong "$switch_seconds" >"$stage/run/$name.out" 2>"$stage/run/$name.err" || rc=$?
		;;
	kprof-sched)
		"$kprofctl" sched record -a -o "$data" -- \
			"$workload" --pingpong "$switch_seconds" >"$stage/run/$name.out" 2>"$stage/run/$name.err" || rc=$?
		;;
	kprof-runqlat)
		traced "$name" "$kprofctl" sched runqlat || rc=$?
		;;
	bcc-runqlat)
		traced "$name" env PYTHONUNBUFFERED=1 "$bcc_runqlat" || rc=$?
		;;
	kprof-offcpu)
		traced "$name" "$kprofctl" offcpu -a || rc=$?
		;;
	bcc-offcputime)
		traced "$name" env PYTHONUNBUFFERED=1 "$bcc_offcputime" || rc=$?
		;;
	esac
	mv "$stage/run/$name.out" "$stage/run/$name.err" "$out/log/"
	# Not kept: the host's lost count would not be needed and they are large.
	rm -f "$data"
	wl=$(parse_workload "$out/log/$name.out")
	if [[ $tool == *runqlat ]]; then
		# histograms: no samples; the waits counted instead
		samples=$(awk -F: '/ -> / { split($2, a, " "); s += a[1] } END { print s + 0 }' \
			"$out/log/$name.out" "$out/log/$name.err")
		lost=0
	elif [[ $tool == *offcpu* ]]; then
		# stacks kept in the kernel: the stacks printed (offcputime's layout)
		samples=$(grep -c '^    -  ' "$out/log/$name.err")
		lost=0
	elif [[ $tool != baseline ]]; then
		samples=$(parse_samples "$out/log/$name.err")
		if [[ $tool == kprof ]]; then
			lost=$(parse_kprof_lost "$out/log/$name.err")
			extra="balance=$(parse_kprof_balance "$out/log/$name.err") $(parse_kprof_handler "$out/log/$name.err")"
		else
			lost=$(sed -n 's/.*Processed [0-9]* events and lost \([0-9]*\) chunks.*/\1/p' "$out/log/$name.err" | tail -n 1)
			[[ -n $lost ]] || lost=0
		fi
	fi
	local status=ok
	if ((rc)) || [[ -z $wl ]] || [[ $tool != baseline && -z $samples ]]; then
		status=fail
		note "$name FAILED (exit $rc); last lines of its log:"
		tail -n 5 "$out/log/$name.err" | sed 's/^/    /'
	fi
	emit "kind=switch tool=$tool status=$status exit=$rc" \
		"${wl:-seconds=- units=- throughput=-} samples=${samples:--} lost=${lost:--}${extra:+ $extra}"
	echo "    ${wl:-no result}${samples:+ samples=$samples}"
}

# kprof's probe cost cap off for every tracepoint run, so that no event is
# dropped to make kprof look cheap (perf drops none of its own)
cap=/sys/module/kprof/parameters/probe_cost_max_percent
cap_was=
cap_off() {
	if [[ -w $cap ]]; then
		cap_was=$(cat $cap)
		echo 100 > $cap
	fi
}
cap_restore() {
	[[ -z $cap_was ]] || echo "$cap_was" > $cap
}

if [[ $switch_seconds != 0 ]]; then
	cap_off
	"$workload" --pingpong 0.5 >/dev/null
	switch_run baseline
	[[ -z $perf ]] || switch_run perf
	if [[ $tools == *kprof* ]]; then
		if "$kprofctl" record -e sched:sched_switch -o "$stage/run/tp-probe.data" -- true \
			>"$out/log/switch-kprof-probe.err" 2>&1; then
			switch_run kprof
		else
			note "kprofctl record -e sched:sched_switch unsupported; skipping the kprof tracepoint row"
			tail -n 3 "$out/log/switch-kprof-probe.err" | sed 's/^/    /'
			emit "kind=switch tool=kprof status=skip reason=kprofctl_record_-e_sched:sched_switch_unsupported"
		fi
		rm -f "$stage/run/tp-probe.data"
	fi
	# scheduler analysis: sched record against perf sched record, runqlat
	# against BCC's
	if [[ $tools == *kprof* ]]; then
		[[ -z $perf ]] || switch_run perf-sched
		switch_run kprof-sched
		switch_run kprof-runqlat
		bcc_runqlat=$(command -v runqlat-bpfcc || true)
		if [[ -n $bcc_runqlat ]]; then
			switch_run bcc-runqlat
		else
			emit "kind=switch tool=bcc-runqlat status=skip reason=no_runqlat-bpfcc"
		fi
		# off-CPU time by stack against BCC's offcputime
		switch_run kprof-offcpu
		bcc_offcputime=$(command -v offcputime-bpfcc || true)
		if [[ -n $bcc_offcputime ]]; then
			switch_run bcc-offcputime
		else
			emit "kind=switch tool=bcc-offcputime status=skip reason=no_offcputime-bpfcc"
		fi
	fi
	switch_run baseline
	cap_restore
fi

# ---- lock contention: cost per contention event, and the fast path ----

# lock_run TOOL MODE: `workload --MODE` (lockpipe: a contended pipe mutex;
# pipeself: the same mutex uncontended) bare, under `perf lock record`
# (perf's child, as perf lock record runs it), under `kprofctl lock record`
# (a stream of contention_begin/_end) or `kprofctl lock contention`
# (aggregated in the kernel).  contended= is the number of contentions the
# tool saw: the sum of the contended column of perf lock contention -i
# (perf) and kprofctl lock report (kprof) on the recording, of kprofctl lock
# contention's table (kprof-agg).
lock_run() {
	local tool=$1 mode=$2 name=lock-$1-$2 rc=0 data=$stage/run/lock.data wl contended=-
	note "$name"
	local -a cmd=("$workload" "--$mode" "$lock_seconds")
	case $tool in
	baseline) "${cmd[@]}" ;;
	perf) "$perf" lock record -a -o "$data" -- "${cmd[@]}" ;;
	kprof) "$kprofctl" lock record -a -o "$data" -- "${cmd[@]}" ;;
	kprof-agg) "$kprofctl" lock contention -a -E 1000 -- "${cmd[@]}" ;;
	esac >"$stage/run/$name.out" 2>"$stage/run/$name.err" || rc=$?
	mv "$stage/run/$name.out" "$stage/run/$name.err" "$out/log/"
	wl=$(parse_workload "$out/log/$name.out")
	# the recordings' contentions, from their own reports (untimed): a
	# mutex's wait is two begins (spin, sleep) and one end
	case $tool in
	perf) "$perf" lock contention -i "$data" -E 1000 >"$out/log/$name.rep" 2>&1 || rc=$? ;;
	kprof) "$kprofctl" lock report -i "$data" -E 1000 >"$out/log/$name.rep" 2>&1 || rc=$? ;;
	kprof-agg) cp "$out/log/$name.out" "$out/log/$name.rep" ;;
	esac
	rm -f "$data"
	# "   contended   total wait ..." rows: the first column
	[[ $tool == baseline ]] ||
		contended=$(awk '/^ +[0-9]+ +[0-9.]+ [mun]?s / { s += $1 } END { print s + 0 }' \
			"$out/log/$name.rep")
	local status=ok
	if ((rc)) || [[ -z $wl ]] || [[ -z $contended ]]; then
		status=fail
		note "$name FAILED (exit $rc); last lines of its log:"
		tail -n 5 "$out/log/$name.err" | sed 's/^/    /'
	fi
	emit "kind=lock tool=$tool mode=$mode status=$status exit=$rc" \
		"${wl:-seconds=- units=- throughput=-} contended=${contended:--}"
	echo "    ${wl:-no result} contended=$contended"
}

if [[ $lock_seconds != 0 && $tools == *kprof* ]]; then
	cap_off
	"$workload" --lockpipe 0.5 >/dev/null
	for mode in lockpipe pipeself; do
		lock_run baseline $mode
		[[ -z $perf ]] || lock_run perf $mode
		lock_run kprof $mode
		lock_run kprof-agg $mode
		lock_run baseline $mode
	done
	cap_restore
fi

# ---- decoding speed: report, script, folded against perf report/script ----

# decode TOOL CMD SAMPLES ARGS...: time one decoding command (its CPU time,
# user + sys: with -icount that is instructions; wall time would include the
# leaps of guest time while the vCPU waits for the 9p share).
decode() {
	local tool=$1 cmd=$2 samples=$3 t rc=0
	shift 3
	note "decode $tool $cmd"
	t=$( { TIMEFORMAT='%3R %3U %3S'; time "$@" >/dev/null 2>"$out/log/decode-$tool-$cmd.err"; } 2>&1 ) || rc=$?
	t=$(tail -n 1 <<<"$t")
	read -r real user sys <<<"$t"
	local status=ok
	((rc == 0)) || status=fail
	emit "kind=decode tool=$tool cmd=$cmd status=$status exit=$rc samples=$samples" \
		"real=${real:--} user=${user:--} sys=${sys:--}"
	echo "    ${samples} samples: real ${real:-?} s, cpu ${user:-?}+${sys:-?} s"
}

# decode_record TOOL: record the workload at the decode period; prints samples.
decode_record() {
	local tool=$1 data=$stage/run/decode-$1.data rc=0 samples
	note "decode $tool record (-c $decode_period, $decode_seconds s)"
	if [[ $tool == perf ]]; then
		"$perf" record -a -g -c "$decode_period" -e cpu-clock -o "$data" -- \
			"$workload" "$decode_seconds" >"$out/log/decode-$tool-record.out" 2>"$out/log/decode-$tool-record.err" || rc=$?
	else
		"$kprofctl" record -a -g -c "$decode_period" -e cpu-clock -o "$data" -- \
			"$workload" "$decode_seconds" >"$out/log/decode-$tool-record.out" 2>"$out/log/decode-$tool-record.err" || rc=$?
	fi
	samples=$(parse_samples "$out/log/decode-$tool-record.err")
	emit "kind=decode tool=$tool cmd=record status=$( ((rc == 0)) && [[ -n $samples ]] && echo ok || echo fail)" \
		"exit=$rc samples=${samples:--} bytes=$(stat -c %s "$data" 2>/dev/null || echo -)" \
		"period=$decode_period seconds=$decode_seconds"
	echo "    samples=${samples:--}"
}

if [[ $decode_seconds != 0 ]]; then
	if [[ $tools == *kprof* ]] && "$kprofctl" report --help >/dev/null 2>&1; then
		[[ -f $top/build/DECODE_DONE ]] || emit "kind=info decode_note=DECODE_DONE_absent:_kprofctl_decoding_may_be_unfinished"
		f=$stage/run/decode-kprof.data
		decode_record kprof
		n=$(sed -n 's/^kind=decode tool=kprof cmd=record .* samples=\([0-9]*\) .*/\1/p' "$results" | tail -n 1)
		if [[ -f $f && -n $n ]]; then
			decode kprof report "$n" "$kprofctl" report -i "$f"
			decode kprof report-g "$n" "$kprofctl" report -g -i "$f"
			decode kprof script "$n" "$kprofctl" script -i "$f"
			decode kprof folded "$n" "$kprofctl" folded -i "$f"
		fi
		rm -f "$f"
	else
		note "kprofctl report missing; skipping the decoding test"
		emit "kind=skip what=decode reason=kprofctl_report_missing"
	fi
	if [[ -n $perf ]] && grep -q '^kind=decode tool=kprof' "$results"; then
		f=$stage/run/decode-perf.data
		decode_record perf
		n=$(sed -n 's/^kind=decode tool=perf cmd=record .* samples=\([0-9]*\) .*/\1/p' "$results" | tail -n 1)
		if [[ -f $f && -n $n ]]; then
			decode perf report "$n" "$perf" report --stdio -i "$f"
			decode perf script "$n" "$perf" script -i "$f"
		fi
		rm -f "$f"
	fi
fi

if lsmod | grep -q '^kprof '; then
	rmmod kprof || note "rmmod kprof failed"
fi
rm -rf "$stage"
if grep -q 'status=fail' "$results"; then
	note "some runs failed; see $out/log/"
	exit 1
fi
note "done: $results"
