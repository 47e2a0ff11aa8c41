#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The context x event matrix: each kind of probe event fires in each
# context level the sampling path keeps a scratch buffer for, next to
# cpu-clock at 4999 Hz (whose hrtimer samples run at hardirq level and
# nest over the others), with -g system-wide.  Every cell must record
# whole records with the balance, and its probe's samples must carry the
# context in their kernel stacks:
#
#	context	 workload                              stack marker
#	task     1-byte read()s, forks                 do_syscall_64
#	softirq  recv() with a 1 ms SO_RCVTIMEO         __do_softirq or handle_softirqs
#	         (a timer_list timer ends each)
#	hardirq  read()s of 1 MiB (the tick fires)      hrtimer_interrupt
#	NMI      kprof_testmod's nmi: self-NMIs     exc_nmi
#	         whose handler calls
#	         kprof_test_nmi_target()
#
#	events	 a tracepoint of that context; ftrace on a function of it;
#	         kprobes on it: at the entry (ftrace-based), at the next
#	         instruction with optimization off (int3), and with it on
#	         (optimized, when kprobes can: checked in kprobes/list)
#
# cpu-clock samples take the interrupted context's stack: they are checked
# in task context, where the workload runs.  Prints KTAP.

set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/kprof_lib.sh"
kprofctl=${KPROFCTL:-$here/../../ctl/kprofctl}
prog=$here/progs/tp_prog
tmp=$(mktemp -d /tmp/kprof-context.XXXXXX)
tr=/sys/kernel/tracing
opt=/proc/sys/debug/kprobes-optimization
kplist=/sys/kernel/debug/kprobes/list
nmi=$(kt_testmod_param nmi)
cost=/sys/module/kprof/parameters/probe_cost_max_percent
opt_saved=$(cat $opt 2>/dev/null || echo 1)
# x86's NMI duration check (1 ms) reports "INFO: NMI handler ... took too
# long", which the rig counts as a splat; under single-threaded TCG the
# guest clock runs on while other vCPUs take their turn inside a test NMI,
# so a test handler of a few microseconds can measure 1.5 ms, and 234 ms
# when the host compiled beside the guest (a clean-clone make check).
# Raised to 5 s while the test NMIs run, then restored: the handlers' own
# time is kprof's handler_max_ns, which the balances report.
nmi_longest=/sys/kernel/debug/x86/nmi_longest_ns
nmi_longest_saved=
trap 'echo "$opt_saved" > $opt 2>/dev/null; echo 25 > $cost 2>/dev/null;
      [ -n "$nmi_longest_saved" ] && echo "$nmi_longest_saved" > $nmi_longest;
      kt_testmod_unload; rm -rf "$tmp"' EXIT


echo "TAP version 13"
kt_testmod_load
mountpoint -q $tr || mount -t tracefs nodev $tr
mountpoint -q /sys/kernel/debug || mount -t debugfs nodev /sys/kernel/debug
"$kprofctl" stop >/dev/null 2>&1
# samples of every hit: the cost cap is tested elsewhere
echo 100 > $cost
if [ -w $nmi_longest ]; then
	nmi_longest_saved=$(cat $nmi_longest)
	echo 5000000000 > $nmi_longest
fi

# The offset of FUNC's first instruction after its ftrace call: 5, or 9
# behind IBT's endbr64; kprobe_events accepts only instruction boundaries.
next_insn() {
	local f=$1 off

	for off in 5 9; do
		if echo "p:kprof_ctx/probe $f+$off" >> $tr/kprobe_events 2>/dev/null; then
			echo "-:kprof_ctx/probe" >> $tr/kprobe_events
			echo "$off"
			return
		fi
	done
	echo 0
}

# cell CONTEXT EVENT MARKER WORKLOAD [KPROBE-MODE]: one recording, three
# TAP lines (recording, context, kprobe mode when given).
cell() {
	local ctx=$1 ev=$2 marker=$3 work=$4 mode=${5:-} rc counts total inctx

	"$kprofctl" record -e cpu-clock -F 4999 -e "$ev" -g -a -o "$tmp/m.data" \
		-- sh -c "sleep 0.5; cat $kplist > $tmp/kpl 2>/dev/null; $work" \
		>"$tmp/m.out" 2>"$tmp/m.err"
	rc=$?
	"$kprofctl" report -i "$tmp/m.data" --stdio >"$tmp/m.rep" 2>&1
	local rrc=$?
	if [ $rc = 0 ] && [ $rrc = 0 ] && grep -q 'Balance: .* ok' "$tmp/m.err" &&
	   ! grep -q corrupt "$tmp/m.err" "$tmp/m.rep"; then
		ok "$ctx x $ev: recorded, balanced, every record decodes"
	else
		not_ok "$ctx x $ev: recorded, balanced, every record decodes (rc=$rc)"
		sed 's/^/# /' "$tmp/m.err" | head -n 20
	fi
	"$kprofctl" script -i "$tmp/m.data" >"$tmp/m.txt" 2>/dev/null
	# samples of EV, and how many have MARKER among their frames
	counts=$(awk -v ev=" $ev:" -v mk="$marker" '
		/^[^\t]/ { if (in_ev) { t++; if (hit) h++ } in_ev = index($0, ev) > 0; hit = 0; next }
		/^\t/ && in_ev && $0 ~ mk { hit = 1 }
		END { if (in_ev) { t++; if (hit) h++ } print t + 0, h + 0 }' "$tmp/m.txt")
	read -r total inctx <<< "$counts"
	if [ "$inctx" -gt 0 ]; then
		ok "$ctx x $ev: $inctx of $total samples in $ctx context ($marker)"
	else
		not_ok "$ctx x $ev: $inctx of $total samples in $ctx context ($marker)"
		grep -A8 " $ev:" "$tmp/m.txt" | head -n 20 | sed 's/^/# /'
	fi
	[ -n "$mode" ] || return 0
	local f=${ev#kprobe:}
	f=${f%%+*}
	# a probe inside the function: each sample's ip (its first kernel
	# frame) is the probed instruction, not the byte after the int3
	if [ "$ev" != "kprobe:$f" ]; then
		local at first
		at=$(printf '%s+0x%x' "$f" "${ev##*+}")
		first=$(awk -v ev=" $ev:" '
			/^[^\t]/ { want = index($0, ev) > 0; next }
			/^\t/ && want { print $2; want = 0 }' "$tmp/m.txt" | sort | uniq -c |
			sort -rn | awk '{ printf "%s%s x%s", sep, $2, $1; sep = ", " }')
		if [ -n "$first" ] && [ "$first" = "$at x${first##* x}" ]; then
			ok "$ev: every sample's ip is the probed instruction ($at)"
		else
			not_ok "$ev: every sample's ip is the probed instruction ($at)"
			echo "# first frames: ${first:-none}"
		fi
	fi
	local line
	line=$(grep " $f+" "$tmp/kpl" 2>/dev/null | head -n 1)
	[ -n "$line" ] || line=$(grep " $f\b" "$tmp/kpl" 2>/dev/null | head -n 1)
	echo "# kprobes/list: ${line:-(not listed)}"
	case $mode in
	ftrace)	 if [[ $line == *"[FTRACE]"* ]]; then ok "$ev: an ftrace-based kprobe"
		 else not_ok "$ev: an ftrace-based kprobe"; fi ;;
	int3)	 if [ -n "$line" ] && [[ $line != *"[FTRACE]"* && $line != *"[OPTIMIZED]"* ]]; then
			ok "$ev: an int3 kprobe (optimization off)"
		 else not_ok "$ev: an int3 kprobe (optimization off)"; fi ;;
	opt)	 if [[ $line == *"[OPTIMIZED]"* ]]; then ok "$ev: an optimized kprobe"
		 else skip "$ev: an optimized kprobe" "kprobes did not optimize this site"; fi ;;
	esac
}

# kprobes at FUNC: entry, next instruction int3, next instruction optimized
kprobes() {
	local ctx=$1 f=$2 marker=$3 work=$4 off

	cell "$ctx" "kprobe:$f" "$marker" "$work" ftrace
	off=$(next_insn "$f")
	if [ "$off" = 0 ]; then
		skip "$ctx x kprobe:$f+N" "no instruction boundary at +5 or +9"
		return
	fi
	echo 0 > $opt
	cell "$ctx" "kprobe:$f+$off" "$marker" "$work" int3
	echo 1 > $opt
	cell "$ctx" "kprobe:$f+$off" "$marker" "$work" opt
}


# task
work="$prog read 20000"
cell task cpu-clock do_syscall_64 "$prog read 200000"
# (not sys_enter: syscall tracepoints carry the user registers, no kernel stack)
cell task sched:sched_process_fork do_syscall_64 "for i in 1 2 3 4 5 6 7 8 9 10; do /bin/true; done"
cell task ftrace:ksys_read do_syscall_64 "$work"
kprobes task ksys_read do_syscall_64 "$work"
# softirq
work="$prog rcvtimeo 200"
cell softirq timer:timer_expire_entry "__do_softirq|handle_softirqs" "$work"
cell softirq ftrace:process_timeout "__do_softirq|handle_softirqs" "$work"
# (process_timeout tail-calls wake_up_process: no room to optimize a probe)
kprobes softirq run_timer_softirq "__do_softirq|handle_softirqs" "$work"
# hardirq
work="$here/progs/sysread 400"
cell hardirq timer:hrtimer_expire_entry hrtimer_interrupt "$work"
# the tick's hrtimer callback: tick_sched_timer on 6.1, tick_nohz_handler
# since 6.9, where the two were merged (6.1's tick_nohz_handler is the
# low-resolution tick, not called in high-resolution mode)
tick=tick_sched_timer
grep -q ' t tick_sched_timer$' /proc/kallsyms || tick=tick_nohz_handler
cell hardirq "ftrace:$tick" hrtimer_interrupt "$work"
kprobes hardirq "$tick" hrtimer_interrupt "$work"
# NMI
work="echo 300 > $nmi"
cell NMI nmi:nmi_handler exc_nmi "$work"
cell NMI ftrace:kprof_test_nmi_target exc_nmi "$work"
kprobes NMI kprof_test_nmi_target exc_nmi "$work"
"$kprofctl" stop >/dev/null 2>&1
echo "1..$n"
[ "$failed" = 0 ]
