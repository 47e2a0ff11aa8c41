#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Throttling, on the kernel the guest runs: kprof reads a throttle from
# the perf core's private state (kernel/events/core.c's MAX_INTERRUPTS in
# hw.interrupts, module/compat.h's kprof_perf_event_throttled()), which
# only a run on each kernel can check.  kernel.perf_event_max_sample_rate
# is lowered to 100 (one interrupt per tick at HZ >= 100) and cpu-clock
# sampled every 100 us (-c 100000) while a program spins: the perf core
# must throttle the event, and kprof must say so in every place it can
# (THROTTLE records, the recorder's summary, the module's counter), as
# perf does on the same kernel (its PERF_RECORD_THROTTLE records).  At the
# default limit and 1 kHz, a tenth of that at most.  Prints KTAP.

set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/kprof_lib.sh"
kprofctl=${KPROFCTL:-$here/../../ctl/kprofctl}
spin=$here/progs/stat_spin
tmp=$(mktemp -d /tmp/kprof-throttle.XXXXXX)
rate=/proc/sys/kernel/perf_event_max_sample_rate
rate_saved=$(cat $rate)
trap 'echo "$rate_saved" > $rate; rm -rf "$tmp"' EXIT

echo "TAP version 13"
echo "1..9"
kt_load
"$kprofctl" stop >/dev/null 2>&1

# record NAME ARGS...: kprofctl record of the spinning program, all CPUs
record() {
	local name=$1

	shift
	"$kprofctl" record -a "$@" -o "$tmp/$name.data" -- "$spin" 1000 \
		>"$tmp/$name.out" 2>"$tmp/$name.err"
}

# the limit lowered: throttled
echo 100 > $rate
echo "# perf_event_max_sample_rate $(cat $rate) (was $rate_saved), HZ $(getconf CLK_TCK) ticks/s for times(2)"
record low -e cpu-clock -c 100000
rc=$?
sed 's/^/# /' "$tmp/low.err"
check "kprofctl record at 10 kHz under a limit of 100/s: exit 0, balance ok (rc=$rc)" \
	grep -q 'Balance: .* ok' "$tmp/low.err"
summary=$(sed -n 's/.*Throttled \([0-9]*\) times.*/\1/p' "$tmp/low.err")
"$kprofctl" dump -i "$tmp/low.data" >"$tmp/low.dump" 2>&1
records=$(grep -c 'THROTTLE' "$tmp/low.dump")
check "the perf core throttled the event: THROTTLE records in the file ($records)" \
	[ "$records" -gt 0 ]
check "the recorder's summary counts the same throttles (${summary:-none} = $records)" \
	[ "${summary:-0}" = "$records" ]
"$kprofctl" report -i "$tmp/low.data" --stdio >"$tmp/low.rep" 2>&1
check "the recording decodes (report)" grep -q "cpu-clock" "$tmp/low.rep"

# perf on the same kernel, the same settings: the kernel throttles for it too
perf=$(command -v perf)
if [ -n "$perf" ] && "$perf" --version >/dev/null 2>&1; then
	"$perf" record -a -e cpu-clock -c 100000 -o "$tmp/perf.data" -- "$spin" 1000 \
		>"$tmp/perf.out" 2>&1
	prc=$?
	pthrottles=$("$perf" report -D -i "$tmp/perf.data" 2>/dev/null | grep -c 'PERF_RECORD_THROTTLE')
	echo "# perf record (rc=$prc): $pthrottles PERF_RECORD_THROTTLE records"
	check "perf record under the same limit is throttled too ($pthrottles THROTTLE records)" \
		[ "$prc" = 0 ] && [ "$pthrottles" -gt 0 ]
else
	skip "perf record under the same limit is throttled too" "no working perf in the guest"
fi

# a frequency above the limit is refused by the perf core, in one line
"$kprofctl" record -a -e cpu-clock -F 1000 -o "$tmp/f.data" -- true >"$tmp/f.out" 2>"$tmp/f.err"
rc=$?
sed 's/^/# /' "$tmp/f.err"
check "-F 1000 above a limit of 100: refused (rc=$rc) in one line" \
	[ $rc != 0 ] && [ "$(wc -l < "$tmp/f.err")" = 1 ]

# the default limit, 1 kHz: seldom throttled.  Not never: a CPU idle with
# its tick stopped (NOHZ) takes the timer's samples with no tick to reset
# hw.interrupts, so 400 of them (100000/s at HZ 250) without a tick throttle
# the event there, on perf's runs as on kprof's.
echo "$rate_saved" > $rate
record norm -e cpu-clock -c 1000000
rc=$?
check "kprofctl record at 1 kHz under the default limit: exit 0, balance ok (rc=$rc)" \
	grep -q 'Balance: .* ok' "$tmp/norm.err"
"$kprofctl" dump -i "$tmp/norm.data" >"$tmp/norm.dump" 2>&1
nrecords=$(grep -c 'THROTTLE' "$tmp/norm.dump")
nsummary=$(sed -n 's/.*Throttled \([0-9]*\) times.*/\1/p' "$tmp/norm.err")
check "at the default limit the summary and the file agree too (${nsummary:-0} = $nrecords)" \
	[ "${nsummary:-0}" = "$nrecords" ]
check "at the default limit, a tenth of the throttles at 100/s at most ($nrecords against $records)" \
	[ $((nrecords * 10)) -le "$records" ]
echo "# $failed failed"
[ "$failed" = 0 ]
