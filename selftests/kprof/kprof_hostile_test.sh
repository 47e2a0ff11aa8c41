#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hostile privileged input, one case per guest boot: each case could take
# the kernel down on an unguarded module, and a crash must not hide the
# next one.  tools/check.sh boots one guest per case; the rig's kernel log
# scan fails the boot on any splat.  Prints KTAP; needs KPROFCTL and
# KPROF_KO (tools/guest-selftests.sh sets them).
#
# Usage: kprof_hostile_test.sh CASE        (kprof_hostile_test.sh --list)
#
#   ftrace-unwinder  -g with an ftrace probe on the ORC unwinder the
#                    sampling path calls: recursion, refused and counted
#   ftrace-self      -g with an ftrace probe on kprof's own functions
#   kprobe-nofault   -g with a kprobe on copy_from_user_nmi(), which the user
#                    chain walk calls: a nested hit, never a torn record
#   corpus           every kernel function the sampling path reaches, as the
#                    function_graph tracer lists them under
#                    perf_swevent_hrtimer() during a -g recording, probed
#                    in turn by ftrace and by kprobe with -g: each records
#                    whole records with the balance, or is refused with a
#                    one-line reason naming the function
#   owner-killed     SIGKILL a recording: its session ends with its socket,
#                    and the next recording starts
#   nested           task-context function-tracing records (ftrace:ksys_read,
#                    ftrace:vfs_read: the callback runs with interrupts on)
#                    at full rate with cpu-clock at 9999 Hz on every CPU:
#                    the hrtimer's samples land inside the ftrace writers'
#                    reserve-commit window, which kprof_testmod's
#                    write_delay_ns widens to 10 us, through kprof.ko's
#                    kprof_ring_reserved tracepoint (under TCG an
#                    interrupt almost never lands in the natural window).
#                    Over a million records the head never goes back, no
#                    record is torn, and the module counts more than 1,000
#                    nested commits.  (Tracepoint and kprobe samples cannot
#                    be interrupted on this kernel: perf_swevent_event()
#                    runs their overflow handler with interrupts off, and
#                    the kprobe handler runs in the int3 trap.)
#   lockdown         raise kernel lockdown at run time: at integrity all
#                    events work; at confidentiality kprobes and function
#                    tracing are refused (as tracefs refuses them, 6.1 puts
#                    both reasons there), counters still work

set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/kprof_lib.sh"
kprofctl=${KPROFCTL:-$here/../../ctl/kprofctl}
tmp=$(mktemp -d /tmp/kprof-hostile.XXXXXX)
trap 'kt_testmod_unload; rm -rf "$tmp"' EXIT
cases="ftrace-unwinder ftrace-self kprobe-nofault corpus nested owner-killed lockdown"

# a counter of "kprofctl status --json": "name":N in the session's stats
stat_of() {
	sed -n "s/.*\"stats\":{[^}]*\"$2\":\([0-9]*\).*/\1/p" "$1"
}

if [ "${1:-}" = --list ]; then
	echo "$cases"
	exit 0
fi
case=${1:?usage: kprof_hostile_test.sh CASE}

echo "TAP version 13"
kt_load
"$kprofctl" stop >/dev/null 2>&1

# record_probe DESC EVENT: record -g with cpu-clock at 4999 Hz and EVENT,
# system-wide, around a program that makes system calls and page faults.
record_probe() {
	local desc=$1 ev=$2 rc

	"$kprofctl" record -e cpu-clock -F 4999 -e "$ev" -g -a -o "$tmp/rec.data" \
		-- "$here/progs/sysread" 3000 >"$tmp/rec.out" 2>"$tmp/rec.err"
	rc=$?
	sed 's/^/# /' "$tmp/rec.err"
	check "$desc: record exits 0 and the balance holds (rc=$rc)" \
		grep -q 'Balance: .* ok' "$tmp/rec.err"
	"$kprofctl" status --json >"$tmp/status.json" 2>&1
	"$kprofctl" report -i "$tmp/rec.data" --stdio >"$tmp/report.out" 2>&1
	rc=$?
	head -n 20 "$tmp/report.out" | sed 's/^/# /'
	check "$desc: every record decodes (report rc=$rc)" [ $rc = 0 ]
	check "$desc: no torn record" \
		bash -c "! grep -q 'corrupt' '$tmp/report.out' '$tmp/rec.err'"
	"$kprofctl" dump -i "$tmp/rec.data" >"$tmp/dump.out" 2>&1
	check "$desc: dump reads every record (rc=$?)" [ $? = 0 ]
}

case $case in
ftrace-unwinder)
	echo "1..5"
	record_probe "ftrace:unwind_next_frame -g" "ftrace:unwind_next_frame"
	rec=$(stat_of "$tmp/status.json" lost_recursion)
	check "the unwinder's own hits are counted as recursion (lost_recursion=${rec:-none})" \
		[ "${rec:-0}" -gt 0 ]
	;;
ftrace-self)
	echo "1..4"
	record_probe "ftrace:kprof_* -g" "ftrace:kprof_*"
	;;
kprobe-nofault)
	echo "1..5"
	record_probe "kprobe:copy_from_user_nmi -g" "kprobe:copy_from_user_nmi"
	hits=$(grep -c 'kprobe:copy_from_user_nmi' "$tmp/dump.out")
	rec=$(stat_of "$tmp/status.json" lost_recursion)
	echo "# copy_from_user_nmi: $hits records, lost_recursion=${rec:-none}"
	check "copy_from_user_nmi hits are stored or counted (records=$hits, recursion=${rec:-0})" \
		[ $((hits + ${rec:-0})) -gt 0 ]
	;;
nested)
	echo "1..6"
	# one 1-byte read() loop per CPU: every read is two records
	loops=
	for _ in $(seq "$(nproc)"); do
		loops="$loops $here/progs/tp_prog read 160000 &"
	done
	kt_testmod_load
	delay=$(kt_testmod_param write_delay_ns)
	cost=/sys/module/kprof/parameters/probe_cost_max_percent
	echo 10000 > "$delay"
	# every hit recorded: the cost cap (25 % by default) would drop most
	echo 100 > "$cost"
	"$kprofctl" record -e cpu-clock -F 9999 -e ftrace:ksys_read \
		-e ftrace:vfs_read -a -o "$tmp/rec.data" \
		-- sh -c "$loops wait" >"$tmp/rec.out" 2>"$tmp/rec.err"
	rc=$?
	echo 0 > "$delay"
	echo 25 > "$cost"
	kt_testmod_unload

	sed 's/^/# /' "$tmp/rec.err"
	check "nested: record exits 0 and the balance holds (rc=$rc)" \
		grep -q 'Balance: .* ok' "$tmp/rec.err"
	check "nested: the reader never saw a head behind its tail or a torn record" \
		bash -c "! grep -qi 'corrupt\|behind' '$tmp/rec.err'"
	"$kprofctl" status --json >"$tmp/status.json" 2>&1
	nested=$(stat_of "$tmp/status.json" nested)
	"$kprofctl" report -i "$tmp/rec.data" --stdio >"$tmp/report.out" 2>&1
	rc=$?
	grep '^# Samples' "$tmp/report.out" | sed 's/^/# /'
	check "nested: every record decodes (report rc=$rc)" [ $rc = 0 ]
	recs=$(sed -n 's/.*Captured and wrote .*(\([0-9]*\) samples).*/\1/p' "$tmp/rec.err")
	clock=$(sed -n "s/^# Samples: \([0-9]*\) of event 'cpu-clock'.*/\1/p" "$tmp/report.out")
	echo "# ${recs:-?} records (${clock:-?} cpu-clock), nested commits: ${nested:-none}"
	check "nested: over a million records (${recs:-none})" [ "${recs:-0}" -gt 1000000 ]
	check "nested: cpu-clock samples were taken (${clock:-none})" [ "${clock:-0}" -gt 1000 ]
	check "nested: more than 1,000 nested commits counted (${nested:-none})" \
		[ "${nested:-0}" -gt 1000 ]
	;;
owner-killed)
	echo "1..4"
	"$kprofctl" record -e cpu-clock -F 999 -g -a -o "$tmp/killed.data" -- sleep 60 \
		>"$tmp/killed.out" 2>&1 &
	pid=$!
	# its own session: an earlier case's stopped one names its owner too
	for _ in $(seq 300); do
		"$kprofctl" status >"$tmp/st1" 2>&1
		grep -q "^owner: *pid $pid " "$tmp/st1" && break
		sleep 0.1
	done
	sed 's/^/# /' "$tmp/st1"
	check "a running record's session names its owner" grep -q "^owner: *pid $pid " "$tmp/st1"
	kill -KILL $pid
	wait $pid 2>/dev/null
	state=
	for _ in $(seq 50); do
		state=$("$kprofctl" status --json | sed -n 's/^{"state":"\([a-z]*\)".*/\1/p')
		[ "$state" != running ] && break
		sleep 0.1
	done
	check "SIGKILLed record: its session stopped (state=$state)" [ "$state" = stopped ]
	"$kprofctl" record -e cpu-clock -F 999 -o "$tmp/next.data" -- sleep 0.2 \
		>"$tmp/next.out" 2>&1
	rc=$?
	sed 's/^/# /' "$tmp/next.out"
	check "the next record starts and balances (rc=$rc)" grep -q 'Balance: .* ok' "$tmp/next.out"
	"$kprofctl" start -a -F 99 -o "$tmp/detached.data" >"$tmp/start.out" 2>&1
	"$kprofctl" status >"$tmp/st2" 2>&1
	"$kprofctl" stop >/dev/null 2>&1
	sed 's/^/# /' "$tmp/st2"
	check "a started session is detached: it outlives kprofctl start" \
		grep -q '^owner: *none (detached' "$tmp/st2"
	;;
corpus)
	# The kernel functions kprof's sampling path reaches, listed by the
	# function_graph tracer under perf_swevent_hrtimer() (cpu-clock's timer,
	# which calls kprof_overflow(); kprof's own code is notrace and not
	# listed, the kernel functions it calls are), during
	# a cpu-clock -g recording; then each probed by ftrace and by kprobe,
	# with -g and cpu-clock at 4999 Hz.  Each must record whole records with
	# the balance (its own hits inside the path counted as recursion), or
	# be refused with a one-line reason naming the function.
	tr=/sys/kernel/tracing
	mountpoint -q $tr || mount -t tracefs nodev $tr
	echo nop > $tr/current_tracer
	echo perf_swevent_hrtimer > $tr/set_graph_function
	echo 8 > $tr/max_graph_depth
	echo function_graph > $tr/current_tracer
	"$kprofctl" record -e cpu-clock -F 999 -g -a -o "$tmp/graph.data" \
		-- "$here/progs/sysread" 300 >/dev/null 2>&1
	echo 0 > $tr/tracing_on
	sed -n 's/.*| *\([A-Za-z_][A-Za-z0-9_.]*\)() *[{;].*/\1/p' $tr/trace |
		grep -v '^perf_swevent_hrtimer$' | sort -u > "$tmp/corpus"
	echo nop > $tr/current_tracer
	echo > $tr/set_graph_function
	echo 1 > $tr/tracing_on
	nfunc=$(wc -l < "$tmp/corpus")
	echo "1..$((2 * nfunc + 2))"
	echo "# the sampling path reaches $nfunc traceable functions:" $(cat "$tmp/corpus")
	check "function_graph lists the functions under kprof's handler ($nfunc)" [ "$nfunc" -gt 5 ]
	check "the list holds the unwinder (unwind_next_frame)" grep -qx unwind_next_frame "$tmp/corpus"
	# probe_one KIND FUNC: one TAP line
	probe_one() {
		local ev=$1:$2 rc out
		"$kprofctl" record -e cpu-clock -F 4999 -e "$ev" -g -a -o "$tmp/c.data" \
			-- "$here/progs/sysread" 150 >"$tmp/c.out" 2>"$tmp/c.err"
		rc=$?
		if [ $rc != 0 ]; then
			out=$(grep -v '^\[ kprof' "$tmp/c.err" | head -n 3)
			if [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
			   printf '%s' "$out" | grep -q "$2"; then
				ok "$ev -g: refused: $out"
			else
				not_ok "$ev -g: failed without a one-line reason naming $2 (rc=$rc)"
				sed 's/^/# /' "$tmp/c.err"
			fi
			return
		fi
		"$kprofctl" report -i "$tmp/c.data" --stdio >"$tmp/c.rep" 2>&1
		rc=$?
		if grep -q 'Balance: .* ok' "$tmp/c.err" && [ $rc = 0 ] &&
		   ! grep -q corrupt "$tmp/c.rep" "$tmp/c.err"; then
			ok "$ev -g: recorded, balance ok, every record decodes ($(sed -n \
				's/.*kprof record: Lost \(.*\) ]$/lost \1/p' "$tmp/c.err"))"
		else
			not_ok "$ev -g: recorded, balance ok, every record decodes (report rc=$rc)"
			sed 's/^/# /' "$tmp/c.err"
			head -n 5 "$tmp/c.rep" | sed 's/^/# /'
		fi
	}
	while read -r f; do
		probe_one ftrace "$f"
		probe_one kprobe "$f"
	done < "$tmp/corpus"
	;;
lockdown)
	echo "1..6"
	lock=/sys/kernel/security/lockdown
	mountpoint -q /sys/kernel/security || mount -t securityfs none /sys/kernel/security
	sed 's/^/# lockdown: /' "$lock"
	# record_refused DESC EVENT PATTERN: refused with a one-line message
	record_refused() {
		"$kprofctl" record -e "$2" -o "$tmp/l.data" -- true >"$tmp/l.out" 2>&1
		local rc=$?
		sed 's/^/# /' "$tmp/l.out"
		check "$1 (rc=$rc)" bash -c "[ $rc != 0 ] && grep -q '$3' '$tmp/l.out'"
	}
	record_works() {
		"$kprofctl" record -e "$2" -o "$tmp/l.data" -- "$here/progs/tp_prog" read 100 \
			>"$tmp/l.out" 2>&1
		local rc=$?
		sed 's/^/# /' "$tmp/l.out"
		check "$1 (rc=$rc)" bash -c "[ $rc = 0 ] && grep -q 'Balance: .* ok' '$tmp/l.out'"
	}
	echo integrity > "$lock"
	record_works "integrity: a kprobe still works, as kprobe_events does" kprobe:ksys_read
	record_works "integrity: function tracing still works" ftrace:ksys_read
	record_works "integrity: cpu-clock still works" cpu-clock
	echo confidentiality > "$lock"
	sed 's/^/# lockdown: /' "$lock"
	record_refused "confidentiality: function tracing is refused, naming lockdown" \
		ftrace:ksys_read 'function tracing refused: kernel locked down (event .ftrace:ksys_read.)$'
	record_refused "confidentiality: a kprobe is refused, naming lockdown" kprobe:ksys_read \
		'kprobes refused: kernel locked down (event .kprobe:ksys_read.)$'
	record_works "confidentiality: cpu-clock still works" cpu-clock
	;;
*)
	echo "Bail out! unknown case $case (one of: $cases)"
	exit 1
	;;
esac
"$kprofctl" stop >/dev/null 2>&1
[ "$failed" = 0 ]
