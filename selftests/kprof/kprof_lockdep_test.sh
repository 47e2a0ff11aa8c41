#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The lockdep report ('kprofctl lock report' of a recording with lockdep's
# lock:lock_acquire/_acquired/_contended/_release) against perf lock report,
# on a kernel with CONFIG_LOCKDEP and CONFIG_LOCK_STAT (the debug guest;
# other kernels have no such tracepoints and this test skips).  A known
# count first: 'lock_prog --loop N' takes its pipe's mutex 2 N times,
# uncontended; kprofctl and perf must both count that lock's acquisitions
# at 2 N (plus its setup and release), the same number, under perf's header.
# Then contention: lock_prog's writer threads on one pipe, where both tools
# must name the pipe's mutex as the most contended lock, with waits; -t
# per thread; --sort with several keys; bad input.  Prints KTAP.

set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/kprof_lib.sh"
kprofctl=${KPROFCTL:-$here/../../ctl/kprofctl}
prog=$here/progs/lock_prog
ev=/sys/kernel/tracing/events/lock
tmp=$(mktemp -d /tmp/kprof-lockdep.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

echo "TAP version 13"
kt_load
kt_mounts
"$kprofctl" stop >/dev/null 2>&1
if [ ! -e "$ev/lock_acquire" ] || [ ! -e "$ev/lock_contended" ]; then
	echo "1..1"
	skip "the lockdep report" "no lock:lock_acquire/lock_contended here (CONFIG_LOCKDEP, CONFIG_LOCK_STAT)"
	exit 0
fi
echo "1..12"

# rows FILE NAME: "acquired contended" of each row named NAME in a lock
# report table (kprofctl's or perf's: "%20s " name, then the counts)
rows() {
	awk -v name="$2" 'NF >= 9 && $1 == name && $2 ~ /^[0-9]+$/ { print $2, $3 }' "$1"
}

# the most acquired row named NAME: its acquired count
max_acquired() {
	rows "$1" "$2" | sort -k1,1nr | awk 'NR == 1 { print $1 }'
}

# all of lockdep's events: every acquisition in the kernel of the command
# (perf keeps them all); the probe cost cap (25 % by default) would drop most
cost=/sys/module/kprof/parameters/probe_cost_max_percent
cost_was=$(cat $cost)
echo 100 > $cost
trap 'echo "$cost_was" > $cost; rm -rf "$tmp"' EXIT

perf=$(command -v perf || true)
N=400
"$kprofctl" lock record --buffer-size 16M -o "$tmp/k1.data" -- "$prog" --loop $N >"$tmp/k1.out" 2>"$tmp/k1.err"
rc=$?
sed 's/^/# kprofctl lock record: /' "$tmp/k1.err"
has_lockdep() {
	[ $rc = 0 ] && "$kprofctl" dump -i "$tmp/k1.data" 2>/dev/null | head -n 40 | grep -q 'lock:lock_acquire'
}
check "lock record on a lockdep kernel takes lockdep's events (rc=$rc)" has_lockdep
"$kprofctl" lock report -i "$tmp/k1.data" -k acquired >"$tmp/kr1.out" 2>"$tmp/kr1.err"
sed 's/^/# kprofctl lock report: /' "$tmp/kr1.out" "$tmp/kr1.err" | head -n 14
kacq=$(max_acquired "$tmp/kr1.out" '&pipe->mutex')
check "the loop's pipe mutex acquired 2 N times and at most 4 more (${kacq:-none}, N $N)" \
	[ "${kacq:-0}" -ge $((2 * N)) -a "${kacq:-0}" -le $((2 * N + 4)) ]
if [ -n "$perf" ]; then
	# perf's rings as large as kprof's (4096 pages, 16 MiB a CPU): with
	# its default (1024 pages) perf loses chunks of this flood when the
	# guest is slow ("Processed ... events and lost 1 chunks!")
	"$perf" lock record -m 4096 -o "$tmp/p1.data" -- "$prog" --loop $N >/dev/null 2>"$tmp/p1.err"
	"$perf" lock report -i "$tmp/p1.data" -k acquired >"$tmp/pr1.out" 2>&1
	sed 's/^/# perf lock report: /' "$tmp/pr1.out" | head -n 14
	pacq=$(max_acquired "$tmp/pr1.out" '&pipe->mutex')
	check "perf lock report counts the same acquisitions (kprof ${kacq:-none}, perf ${pacq:-none})" \
		[ -n "$pacq" -a "$pacq" = "$kacq" ]
	kh=$(grep -m 1 '^ *Name ' "$tmp/kr1.out" | sed 's/ *$//')
	ph=$(grep -m 1 '^ *Name ' "$tmp/pr1.out" | sed 's/ *$//')
	check "the header is perf lock report's, column for column" [ -n "$kh" -a "$kh" = "$ph" ]
	# perf's "%20s " of a name cut to 16 characters and "..."
	cut_as_perf() {
		grep -q -- '\.\.\. ' "$tmp/kr1.out" &&
			! grep -- '\.\.\. ' "$tmp/kr1.out" "$tmp/pr1.out" | cut -d: -f2- |
				grep -vE '^ .{16}\.\.\. '
	}
	check "long names cut as perf cuts them, in the same 20 columns" cut_as_perf
else
	skip "perf lock report counts the same acquisitions" "no perf in this guest"
	skip "the header is perf lock report's" "no perf in this guest"
	skip "long names cut as perf cuts them" "no perf in this guest"
fi

# contention: three writers on one pipe
"$kprofctl" lock record --buffer-size 16M -o "$tmp/k2.data" -- "$prog" 3 0.5 >/dev/null 2>"$tmp/k2.err"
grep -E 'Lost|Balance' "$tmp/k2.err" | sed 's/^/# kprofctl lock record: /'
"$kprofctl" lock report -i "$tmp/k2.data" --sort contended,acquired -E 8 >"$tmp/kr2.out" 2>&1
sed 's/^/# kprofctl lock report --sort contended,acquired: /' "$tmp/kr2.out" | head -n 10
ktop=$(awk 'NF >= 9 && $2 ~ /^[0-9]+$/ { print $1; exit }' "$tmp/kr2.out")
kcont=$(rows "$tmp/kr2.out" '&pipe->mutex' | sort -k2,2nr | awk 'NR == 1 { print $2 }')
check "the most contended lock is the pipe's mutex ($ktop, contended ${kcont:-none})" \
	[ "$ktop" = '&pipe->mutex' -a "${kcont:-0}" -gt 0 ]
check "its waits are timed (total wait > 0)" \
	awk '$1 == "&pipe->mutex" && $3 > 0 && $6 + 0 > 0 { ok = 1 } END { exit !ok }' "$tmp/kr2.out"
check "--sort contended,acquired: rows by contended, then acquired, descending" \
	awk 'NF >= 9 && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ {
		if (n++ && ($3 > c || ($3 == c && $2 > a))) bad = 1; c = $3; a = $2 }
	     END { exit bad || n < 2 }' "$tmp/kr2.out"
if [ -n "$perf" ]; then
	"$perf" lock record -m 4096 -o "$tmp/p2.data" -- "$prog" 3 0.5 >/dev/null 2>"$tmp/p2.err"
	"$perf" lock report -i "$tmp/p2.data" -k contended -E 8 >"$tmp/pr2.out" 2>&1
	sed 's/^/# perf lock report -k contended: /' "$tmp/pr2.out" | head -n 10
	ptop=$(awk 'NF >= 9 && $2 ~ /^[0-9]+$/ { print $1; exit }' "$tmp/pr2.out")
	check "perf lock report's most contended lock is the same ($ptop)" [ "$ptop" = "$ktop" ]
else
	skip "perf lock report's most contended lock is the same" "no perf in this guest"
fi
"$kprofctl" lock report -i "$tmp/k2.data" -t -k acquired >"$tmp/kt.out" 2>&1
sed 's/^/# kprofctl lock report -t: /' "$tmp/kt.out"
# the writers' rows carry the process's name (kp-writer is set after they start)
nthr=$(grep -cE '^ +(lock_prog|kp-writer) +[0-9]+ ' "$tmp/kt.out")
check "-t: one row per thread, the program's four among them ($nthr)" [ "$nthr" -ge 4 ]

# bad input: one line each, naming the bad value
bad() {
	local want=$1 out

	shift
	out=$("$kprofctl" lock report -i "$tmp/k1.data" "$@" 2>&1 >/dev/null)
	[ $? != 0 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
		printf '%s' "$out" | grep -q -- "$want"
}
bad_inputs() {
	bad "'bogus'" --sort acquired,bogus && bad "mutually exclusive" -k acquired --sort contended
}
check "bad input: unknown sort key, -k with --sort: one line each" bad_inputs

dmesg | grep -E 'BUG:|WARNING:|Oops|sleeping function called from invalid context' &&
	not_ok "kernel log clean" || ok "kernel log clean"
[ "$failed" = 0 ]
