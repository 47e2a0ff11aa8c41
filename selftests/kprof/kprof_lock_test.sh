#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lock contention against its peer, in the same guest boot and on the same
# run: progs/lock_prog's writer threads contend one pipe's mutex while
# "kprofctl lock contention -a" and "perf lock record -a" (Debian's perf,
# from the lock:contention_begin/end tracepoints) watch at the same time.
# kprof must find the pipe's mutex under pipe_write()/pipe_read() as the
# top callers, agree with perf lock contention on their contended counts
# within 5 %, keep max >= avg >= min, show the waits in debugfs while it
# runs and balance its counters.  Then bad input.  Prints KTAP.

set -u
set -m

here=$(cd "$(dirname "$0")" && pwd)
. "$here/kprof_lib.sh"
kprofctl=${KPROFCTL:-$here/../../ctl/kprofctl}
prog=$here/progs/lock_prog
dbg=/sys/kernel/debug/kprof
tmp=$(mktemp -d /tmp/kprof-lock.XXXXXX)
pids=
trap 'for p in $pids; do kill -KILL $p 2>/dev/null; done; kt_testmod_unload; rm -rf "$tmp"' EXIT

echo "TAP version 13"
kt_load
kt_mounts
"$kprofctl" stop >/dev/null 2>&1
echo "1..24"

# within_stack FILE FUNC: the contended waits of kprofctl -v's rows whose
# stack holds FUNC
within_stack() {
	awk -v f="$2" '
	/^ +[0-9]+ / { c = $1; seen = 0; next }
	/^\t/ { s = $2; sub(/\+0x[0-9a-f]+$/, "", s); if (s == f && !seen) { n += c; seen = 1 } }
	END { print n + 0 }' "$1"
}

# per_caller FILE: "function contended" per caller function, summed, from
# a perf lock contention table (kprofctl's has the same columns)
per_caller() {
	awk 'NF >= 7 && $1 ~ /^[0-9]+$/ { c = $NF; sub(/\+0x[0-9a-f]+$/, "", c); s[c] += $1 }
	     END { for (k in s) print k, s[k] }' "$1" | sort -k2,2nr
}

"$kprofctl" lock contention -a -v -E 20 >"$tmp/kp.out" 2>"$tmp/kp.err" &
kp=$!
pids="$pids $kp"
wait_for 60 grep -q '^Tracing' "$tmp/kp.err"
# perf starts its command once its events are on: it sees the whole run
perf=
if command -v perf >/dev/null; then
	perf lock record -a -o "$tmp/perf.data" -- "$prog" 4 3 >"$tmp/prog.out" 2>"$tmp/perf-rec.out"
	perf=1
else
	"$prog" 4 3 >"$tmp/prog.out"
fi
# debugfs while the session still runs: the pipe's waits, the lock as the leaf
cp "$dbg/lock" "$tmp/lock.folded"
# (PREEMPT_RT: the pipe's mutex is an rt_mutex)
check "debugfs lock shows pipe waits while it runs ([mutex] leaves)" \
	grep -qE 'pipe_write;.*\[(rt)?mutex ' "$tmp/lock.folded"
kill -INT "$kp"
wait "$kp"
rc=$?
[ -n "$perf" ] && sed 's/^/# perf lock record: /' "$tmp/perf-rec.out" | tail -n 3
grep -v '^	' "$tmp/kp.out" | sed 's/^/# kprof: /' | head -n 14
sed 's/^/# kprof stderr: /' "$tmp/kp.err"
check "lock contention exits 0 (rc=$rc)" [ "$rc" = 0 ]
check "perf lock contention's header" \
	grep -q '^ contended   total wait     max wait     avg wait         type   caller$' "$tmp/kp.out"
per_caller "$tmp/kp.out" > "$tmp/kp.callers"
sed 's/^/# kprof callers: /' "$tmp/kp.callers" | head -n 5
# the first two callers (the rows come by total wait): the pipe's writers and reader
top=$(awk 'NF >= 7 && $1 ~ /^[0-9]+$/ { c = $NF; sub(/\+0x[0-9a-f]+$/, "", c)
	    if (!(c in seen)) { seen[c] = 1; print c } }' "$tmp/kp.out" | head -n 2 | sort | tr '\n' ' ')
check "the two callers that waited longest are pipe_read and pipe_write ($top)" \
	[ "$top" = "pipe_read pipe_write " ]
check "the pipe's waits are on a mutex (rtmutex on PREEMPT_RT)" \
	grep -qE '^ +[0-9]+ .* (rt)?mutex +pipe_(write|read)\+0x' "$tmp/kp.out"
# max >= avg on every row (the times in one unit: convert)
check "max wait >= avg wait on every row" awk '
	function ns(v, u) { return u == "ns" ? v : u == "us" ? v * 1e3 : u == "ms" ? v * 1e6 : v * 1e9 }
	NF >= 9 && $1 ~ /^[0-9]+$/ { if (ns($6, $7) + 0.01 * ns($6, $7) < ns($8, $9)) bad = 1 }
	END { exit bad }' "$tmp/kp.out"
check "no wait lost and the counters balance" [ ! -s "$tmp/kp.err" -o -z "$(grep -v '^Tracing' "$tmp/kp.err")" ]

[ -n "$perf" ] && [ -s "$tmp/perf.data" ] &&
	perf lock contention -i "$tmp/perf.data" -E 20 >"$tmp/perf.out" 2>&1
if grep -q 'evsel not found' "$tmp/perf.out" 2>/dev/null; then
	# a lockdep kernel (the debug guest): perf lock record takes lockdep's
	# tracepoints instead, which its contention command does not read
	sed 's/^/# perf: /' "$tmp/perf.out" | head -n 3
	skip "perf lock record took lockdep's events (a lockdep kernel): no comparison"
	skip "perf lock record took lockdep's events (a lockdep kernel): no comparison"
elif [ -n "$perf" ] && [ -s "$tmp/perf.data" ]; then
	# perf lock prints its table on stderr
	sed 's/^/# perf: /' "$tmp/perf.out" | head -n 14
	per_caller "$tmp/perf.out" > "$tmp/perf.callers"
	# perf's caller skips the first 3 frames before it looks for one
	# outside the lock functions (its --stack-skip): on generic 6.1 that
	# is pipe_write's caller, vfs_write (on RT, pipe_write).  kprof's
	# caller is the first frame outside them after one inside (pipe_write):
	# compare perf's two top callers with the kprof rows whose stacks hold
	# them.
	for f in $(head -n 2 "$tmp/perf.callers" | awk '{ print $1 }'); do
		k=$(within_stack "$tmp/kp.out" "$f")
		p=$(awk -v f=$f '$1 == f { print $2 }' "$tmp/perf.callers")
		check "perf lock's caller $f: contended within 5 % (kprof $k, perf ${p:-0})" \
			awk -v k="$k" -v p="${p:-0}" 'BEGIN { exit !(p > 0 && k >= 0.95 * p && k <= 1.05 * p) }'
	done
else
	skip "perf lock record did not run: no comparison"
	skip "perf lock record did not run: no comparison"
fi

# BCC's klockstat (kprobes or fentry on mutex_lock/mutex_unlock: the time in
# mutex_lock of every acquisition, contended or not) on the same run: the
# same top caller as kprof's by total wait.  On the generic guest only
# (KPROF_BPF_PEERS=0 but on the generic 6.12 boot of make check).
kls=
why="klockstat-bpfcc could not run here"
[ "${KPROF_BPF_PEERS:-1}" = 0 ] && why="KPROF_BPF_PEERS=0: make check runs the BPF peers in the generic 6.12 boot"
command -v klockstat-bpfcc >/dev/null || why="klockstat-bpfcc is not installed"
if [ "${KPROF_BPF_PEERS:-1}" != 0 ] && command -v klockstat-bpfcc >/dev/null; then
	PYTHONUNBUFFERED=1 klockstat-bpfcc -n 5 -s 2 >"$tmp/kls.out" 2>"$tmp/kls.err" &
	kls=$!
	pids="$pids $kls"
	t0=$(date +%s)
	if wait_for 300 grep -q '^Tracing' "$tmp/kls.out"; then
		echo "# klockstat attached after $(($(date +%s) - t0)) s"
	else
		echo "# klockstat did not attach:"
		tail -n 5 "$tmp/kls.err" | sed 's/^/#   /'
		kill -KILL "$kls" 2>/dev/null
		kls=
	fi
fi
if [ -n "$kls" ]; then
	"$kprofctl" lock contention -a -v -E 5 >"$tmp/kk.out" 2>"$tmp/kk.err" &
	kk=$!
	pids="$pids $kk"
	wait_for 60 grep -q '^Tracing' "$tmp/kk.err"
	"$prog" 4 2 >/dev/null
	# kprofctl first: it names frames while klockstat's BPF is still loaded
	grep -c '\[bpf\]' /proc/kallsyms | sed 's/^/# [bpf] symbols in kallsyms: /'
	kill -INT "$kk"
	wait "$kk"
	kill -INT "$kls"
	wait "$kls"
	sed 's/^/# klockstat: /' "$tmp/kls.out" | head -n 12
	grep -v '^	' "$tmp/kk.out" | sed 's/^/# kprof: /' | head -n 6
	# klockstat's caller is stack[1], the lock caller's caller (vfs_write
	# for pipe_write), as perf's: it must be in the stack of kprof's top row
	# by total wait.  klockstat's rows are sorted by max spin: its top
	# caller is the one with the most total spin, summed over its rows
	bt=$(awk '/Avg Spin/ { on = 1; next } on && NF < 5 { exit }
		  on { c = $1; gsub(/^b.|.$/, "", c); sub(/\+0x[0-9a-f]+$/, "", c); t[c] += $NF }
		  END { for (c in t) if (t[c] > best) { best = t[c]; top = c }; print top }' "$tmp/kls.out")
	top_stack=$(awk '/^ +[0-9]+ / { if (++rows > 1) exit; next }
			 rows == 1 && /^\t/ { s = $2; sub(/\+0x[0-9a-f]+$/, "", s); print s }' "$tmp/kk.out" |
		    tr '\n' ' ')
	echo "# kprof's top row's stack: $top_stack"
	check "klockstat's top caller by time in mutex_lock ($bt) is in kprof's top row's stack" \
		[ -n "$bt" -a -n "$(printf ' %s ' "$top_stack" | grep -F " $bt ")" ]
else
	skip "the top caller against BCC klockstat" "$why"
fi

# -t: one row per thread, the writers among them
"$kprofctl" lock contention -t -E 5 -- "$prog" 4 1 >"$tmp/t.out" 2>"$tmp/t.err"
check "-t: rows per thread (pid comm), the writers among them" grep -qE '^ +[0-9]+ .* [0-9]+   kp-writer$' "$tmp/t.out"

# the known truth: kprof_testmod's lock parameter runs N kernel threads that
# take kprof_test_mutex, hold it H us, and count their failed trylocks
# (each a slow path, one contention_begin; qspinlock's first waiter spins
# as "pending" without the tracepoint, so spinlocks are not counted this
# way).  Its row (caller kprof_test_lock_fn): contended within 10 % of the
# failed trylocks, max wait >= H, avg wait >= 0.5 H.  (N - 1) H bounds the
# average only where a waiter runs as soon as the lock is free: under TCG
# the guest's two vCPUs take turns, and a woken waiter waits for its
# vCPU's turn (milliseconds), so that bound is not checked here.
kt_testmod_load
seam=$(kt_testmod_param lock)
"$kprofctl" lock contention -a -E 30 >"$tmp/tl.out" 2>"$tmp/tl.err" &
tl=$!
pids="$pids $tl"
wait_for 60 grep -q '^Tracing' "$tmp/tl.err"
echo mutex,4,1000,50 > "$seam"
read -r kind tl_failed acquired < "$seam"
cp "$dbg/lock" "$tmp/tl.folded"
kill -INT "$tl"
wait "$tl"
grep 'kprof_test_lock_fn' "$tmp/tl.out" | sed 's/^/# test_lock: /'
echo "# test_lock: $kind: $tl_failed failed trylocks of $acquired acquisitions"
row=$(grep -E ' (rt)?mutex +kprof_test_lock_fn\+0x' "$tmp/tl.out" | head -n 1)
check "test_lock: the test mutex's row, caller kprof_test_lock_fn" [ -n "$row" ]
# ns VALUE UNIT
ns() { awk -v v="$1" -v u="$2" 'BEGIN { printf "%d\n", u == "ns" ? v : u == "us" ? v * 1e3 : u == "ms" ? v * 1e6 : v * 1e9 }'; }
set -- $row
check "test_lock: contended within 10 % of the threads' failed trylocks (kprof ${1:-0}, module $tl_failed)" \
	awk -v k="${1:-0}" -v f="$tl_failed" 'BEGIN { exit !(f > 0 && k >= 0.9 * f && k <= 1.1 * f) }'
max=$(ns "${4:-0}" "${5:-ns}")
avg=$(ns "${6:-0}" "${7:-ns}")
check "test_lock: max wait >= the hold time (max ${max} ns, H 1000000 ns)" [ "$max" -ge 1000000 ]
check "test_lock: avg wait >= 0.5 H (avg ${avg} ns)" [ "$avg" -ge 500000 ]
grep 'kprof_test_lock_fn' "$tmp/tl.folded" | head -n 2 | sed 's/^/# debugfs lock: /'
check "test_lock: debugfs names the static mutex, the leaf of kprof_test_lock_fn's waits" \
	grep -qE 'kprof_test_lock_fn( \[kprof_testmod\])?;.*\[(rt)?mutex kprof_test_mutex' "$tmp/tl.folded"

# the recorded form: each begin and end with its stack, matched afterwards
"$kprofctl" lock record -a -o "$tmp/lock.data" -- "$prog" 4 1 >"$tmp/rec.out" 2>"$tmp/rec.err"
check "lock record -a -- prog exits 0" [ $? = 0 ]
"$kprofctl" lock report -i "$tmp/lock.data" -E 6 >"$tmp/rep.out" 2>"$tmp/rep.err"
sed 's/^/# lock report: /' "$tmp/rep.out" "$tmp/rep.err" | head -n 10
top=$(awk 'NF >= 7 && $1 ~ /^[0-9]+$/ { c = $NF; sub(/\+0x[0-9a-f]+$/, "", c)
	    if (!(c in seen)) { seen[c] = 1; print c } }' "$tmp/rep.out" | head -n 2 | sort | tr '\n' ' ')
check "lock report: the pipe's mutex under pipe_read and pipe_write ($top)" \
	[ "$top" = "pipe_read pipe_write " ]
# -a -- CMD: every thread, as perf lock contention -a -- CMD, until it exits
"$kprofctl" lock contention -a -E 6 -- "$prog" 4 1 >"$tmp/ac.out" 2>"$tmp/ac.err"
rc=$?
sed 's/^/# lock contention -a -- prog: /' "$tmp/ac.out" "$tmp/ac.err" | head -n 6
check "lock contention -a -- prog: ends with it, exit 0, the pipe's waits (rc=$rc)" \
	[ $rc = 0 -a -n "$(grep -E ' (rt)?mutex +pipe_(read|write)\+0x' "$tmp/ac.out")" ]
# -l: per lock address, a static lock named by kallsyms
"$kprofctl" lock record -a -o "$tmp/tl.data" -- sh -c "echo mutex,4,1000,20 > $seam" \
	>/dev/null 2>"$tmp/tlrec.err"
"$kprofctl" lock report -i "$tmp/tl.data" -l -E 5 >"$tmp/tlrep.out" 2>&1
sed 's/^/# lock report -l: /' "$tmp/tlrep.out" | head -n 6
check "lock report -l: the test mutex's row names kprof_test_mutex" \
	grep -qE '^ +[0-9]+ .* 0x[0-9a-f]+ +(rt)?mutex +kprof_test_mutex$' "$tmp/tlrep.out"
# lockdep's table (kprof_lockdep_test.sh on the debug kernel) needs its events
if [ -e /sys/kernel/tracing/events/lock/lock_acquire ]; then
	skip "lock report -k acquired without lockdep events" "this kernel has lockdep"
else
	out=$("$kprofctl" lock report -i "$tmp/lock.data" -k acquired 2>&1 >/dev/null)
	check "lock report -k acquired of a recording without lockdep events: one line saying what it needs ($out)" \
		[ "$(printf '%s\n' "$out" | wc -l)" = 1 -a -n "$(printf '%s' "$out" | grep 'CONFIG_LOCKDEP')" ]
fi
"$kprofctl" record -e cpu-clock -a -o "$tmp/cpu.data" -- sleep 0.2 >/dev/null 2>&1
out=$("$kprofctl" lock report -i "$tmp/cpu.data" 2>&1 >/dev/null)
check "lock report of a recording without lock events: one line saying so ($out)" \
	[ "$(printf '%s\n' "$out" | wc -l)" = 1 -a -n "$(printf '%s' "$out" | grep 'no lock:contention_begin events')" ]

# bad input: one line each, naming the bad value
bad() {
	local want=$1 out

	shift
	out=$("$kprofctl" lock contention "$@" 2>&1 >/dev/null)
	[ $? != 0 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
		printf '%s' "$out" | grep -q -- "$want"
}
bad_inputs() {
	bad "'bogus'" -k bogus -a 1 && bad "'0'" -E 0 -a 1 && bad "mutually exclusive" -t -l -a 1 &&
		bad "'x'" -a 1 x
}
check "bad input: unknown sort key, -E 0, -t with -l, a stray argument: one line each" bad_inputs

dmesg | grep -E 'BUG:|WARNING:|Oops|sleeping function called from invalid context' &&
	not_ok "kernel log clean" || ok "kernel log clean"
[ "$failed" = 0 ]
