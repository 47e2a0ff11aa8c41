#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Reproduce the QEMU MTTCG livelock that made the rig run single-threaded
# TCG, with a stock kernel and no kprof at all:
#
#   tools/kprof-vm --tcg-thread multi  --timeout 300 -- tools/repro-mttcg-text-poke.sh
#   tools/kprof-vm --tcg-thread single --timeout 300 -- tools/repro-mttcg-text-poke.sh
#
# Each cycle enables and disables a tracepoint (a jump label in
# __schedule), a kprobe event (int3) and the function tracer (ftrace call
# sites) while three shells keep the other vCPUs busy.  Under MTTCG with
# -smp 4 the guest stalls (RCU stall, a vCPU looping in asm_exc_int3 at a
# site text_poke_bp() already restored); single-threaded it completes.
# N cycles (default 300).

T=/sys/kernel/tracing
mount -t tracefs none $T 2>/dev/null
for _ in 1 2 3; do
	(while :; do cat /proc/stat >/dev/null; sleep 0.001; done) &
done
echo 'p:kprof_repro ksys_read' > $T/kprobe_events
i=0
while [ $i -lt "${N:-300}" ]; do
	echo 1 > $T/events/sched/sched_switch/enable
	echo 1 > $T/events/kprobes/kprof_repro/enable
	echo vfs_read > $T/set_ftrace_filter
	echo function > $T/current_tracer
	echo nop > $T/current_tracer
	echo 0 > $T/events/kprobes/kprof_repro/enable
	echo 0 > $T/events/sched/sched_switch/enable
	i=$((i + 1))
	[ $((i % 50)) -eq 0 ] && echo "cycle $i at $(cut -d' ' -f1 /proc/uptime) s"
done
echo > $T/kprobe_events
# shellcheck disable=SC2046  # one PID per word
kill $(jobs -p) 2>/dev/null
echo "done: $i cycles"
