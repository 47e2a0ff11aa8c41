#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside a kprof-vm guest, with no kprof.ko: the kernel facilities
# kprof's runs use, exercised by the kernel's own interfaces, so that a
# test kernel is known to boot and run them clean under the rig's kernel
# log scan before kprof's runs on it are judged (issue 35's baseline boot;
# make check runs it on each 6.12 kind).  Prints TAP; exits 0 when every
# step ran.
#
# Usage: tools/guest-baseline.sh

set -u

T=/sys/kernel/tracing
n=0
failed=0
step() {	# step NAME CMD...
	local name=$1

	shift
	n=$((n + 1))
	if "$@" >/tmp/baseline.out 2>&1; then
		echo "ok $n - $name"
	else
		failed=$((failed + 1))
		echo "not ok $n - $name"
		sed 's/^/#   /' /tmp/baseline.out | tail -n 5
	fi
}

echo "# kernel $(uname -r), $(nproc) CPUs, no kprof.ko"
step "no kprof module is loaded" sh -c '! grep -q "^kprof " /proc/modules'
mountpoint -q $T || mount -t tracefs none $T
# tracepoints kprof hooks (sched, lock contention), on and off
step "tracepoints sched_switch, sched_wakeup, lock contention on and off" sh -c "
	for e in sched/sched_switch sched/sched_wakeup lock/contention_begin lock/contention_end; do
		[ -e $T/events/\$e/enable ] || continue
		echo 1 > $T/events/\$e/enable || exit 1
	done
	sleep 0.3
	for e in sched/sched_switch sched/sched_wakeup lock/contention_begin lock/contention_end; do
		[ -e $T/events/\$e/enable ] && echo 0 > $T/events/\$e/enable
	done
	echo > $T/trace"
# a kprobe and a kretprobe event, as kprof's probe and latency events
step "kprobe and kretprobe events on ksys_read" sh -c "
	echo 'p:kp_base ksys_read' >> $T/kprobe_events &&
	echo 'r:kp_base_ret ksys_read' >> $T/kprobe_events &&
	echo 1 > $T/events/kprobes/enable && cat /proc/version > /dev/null && sleep 0.2 &&
	echo 0 > $T/events/kprobes/enable && echo > $T/kprobe_events"
# the function tracer on one function, as kprof's ftrace probes
step "function tracer on vfs_read" sh -c "
	echo vfs_read > $T/set_ftrace_filter && echo function > $T/current_tracer &&
	cat /proc/version > /dev/null && sleep 0.2 &&
	echo nop > $T/current_tracer && echo > $T/set_ftrace_filter"
# perf's own sampling with call chains (cpu-clock: the guest has no PMU)
perf=$(command -v perf)
kver=$(uname -r | cut -d. -f1,2)
for p in perf "perf_$kver" /usr/bin/perf_6.1; do
	if command -v "$p" >/dev/null && "$p" --version >/dev/null 2>&1; then
		perf=$(command -v "$p")
		break
	fi
done
if [ -n "$perf" ]; then
	step "perf record -a -g -e cpu-clock -F 999 (system-wide call chains)" \
		"$perf" record -q -a -g -e cpu-clock -F 999 -o /tmp/baseline.data -- sleep 1
	step "perf stat -e cpu-clock,task-clock,context-switches" \
		"$perf" stat -e cpu-clock,task-clock,context-switches -- sleep 0.2
else
	n=$((n + 1))
	echo "ok $n - perf record and stat # SKIP no working perf"
fi
echo "1..$n"
[ "$failed" = 0 ]
