#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Sampling sessions side by side (ABI 1.10), through kprofctl against the
# real module: a detached aggregating session runs while two streaming
# records and two off-CPU records run at once, each with its own exact
# balance; status lists them all; stop --id stops the one named and its
# saved profile adds up to its own counters; kill -9 of one of two owners
# ends only its session; another user may neither stop nor read a
# session; the module parameter max_sessions is a one-line refusal that
# names the sessions.  Prints KTAP; needs KPROFCTL and KPROF_KO
# (tools/guest-selftests.sh sets them).

set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/kprof_lib.sh"
kprofctl=${KPROFCTL:-$here/../../ctl/kprofctl}
hot=$here/progs/hot
offcpu_prog=$here/progs/offcpu_prog
tmp=$(mktemp -d /tmp/kprof-sessions.XXXXXX)
victims=
cleanup() {
	[ -n "$victims" ] && kill -9 $victims 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

check() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }
diag() { sed 's/^/# /' "$@"; }
# until_true SECONDS EXPR: until the shell expression EXPR holds (every 0.5 s)
until_true() {
	for _ in $(seq $(($1 * 2))); do
		eval "$2" && return 0
		sleep 0.5
	done
	return 1
}

# The ids of the sessions in STATE (running, stopped) that status lists.
ids_in() {
	"$kprofctl" status | awk -v s="$1" '$2 == s && $1 ~ /^[0-9]+$/ && NF >= 9 { print $1 }'
}

echo "TAP version 13"
echo "1..21"

# A freshly loaded module: earlier tests may have left sessions.
if grep -q '^kprof ' /proc/modules; then
	rmmod kprof || { echo "Bail out! cannot unload kprof"; exit 1; }
fi
insmod "${KPROF_KO:?}" || { echo "Bail out! cannot load ${KPROF_KO}"; exit 1; }

# --- a detached aggregating session, then four more beside it ---------------
"$kprofctl" start -a -g -e cpu-clock -F 99 >"$tmp/start.out" 2>&1
detached=$(ids_in running)
check "start -a -g: a detached aggregating session (id ${detached:-none})" \
	"[ '$detached' = 1 ]"

# the programs run until the records are done; each record follows one
# (-p) and ends at SIGINT, as perf record does
"$hot" 600000 >/dev/null & h1=$!
"$hot" 600000 >/dev/null & h2=$!
"$offcpu_prog" spin 600 >/dev/null & o1=$!
"$offcpu_prog" spin 600 >/dev/null & o2=$!
victims="$h1 $h2 $o1 $o2"
"$kprofctl" record -g -F 499 -o "$tmp/a.data" -p "$h1" >"$tmp/a.out" 2>"$tmp/a.err" &
ra=$!
"$kprofctl" record -g -F 499 -o "$tmp/b.data" -p "$h2" >"$tmp/b.out" 2>"$tmp/b.err" &
rb=$!
"$kprofctl" record --off-cpu -F 499 -o "$tmp/c.data" -p "$o1" >"$tmp/c.out" 2>"$tmp/c.err" &
rc=$!
"$kprofctl" record --off-cpu -F 499 -o "$tmp/d.data" -p "$o2" >"$tmp/d.out" 2>"$tmp/d.err" &
rd=$!
until_true 120 '[ "$(ids_in running | wc -l)" -ge 5 ]'
"$kprofctl" status >"$tmp/status.out" 2>&1
check "status lists the five sessions running side by side" \
	"[ \"\$(awk '\$2 == \"running\" && \$1 ~ /^[0-9]+\$/' '$tmp/status.out' | wc -l)\" = 5 ]"
diag "$tmp/status.out"
dbg=/sys/kernel/debug/kprof
if [ -d "$dbg/sessions" ]; then
	# the directories follow the table: each START adds its own just after
	# it answers, a session freed after its record ends loses its own
	table_ids() { "$kprofctl" status | awk '$1 ~ /^[0-9]+$/ && NF >= 9 { print $1 }' | sort -n | tr '\n' ' '; }
	dir_ids() { ls "$dbg/sessions" | sort -n | tr '\n' ' '; }
	until_true 10 '[ "$(table_ids)" = "$(dir_ids)" ]'
	tids=$(table_ids)
	dirs=$(dir_ids)
	first=$(head -n 1 "$dbg/sessions/$detached/stats" 2>&1)
	check "debugfs sessions/: one directory per session on the table ($dirs; table $tids), each its own stats ($first)" \
		"[ '$dirs' = '$tids' ] && [ -n '$dirs' ] && [ '$first' = 'session $detached (running)' ]"
else
	skip "debugfs sessions/" "no debugfs"
fi
sleep 2
kill -INT $ra $rb $rc $rd
wait $ra; ea=$?
wait $rb; eb=$?
wait $rc; ec=$?
wait $rd; ed=$?
kill -9 $victims 2>/dev/null
wait $victims 2>/dev/null
victims=
check "two stream records side by side: each exits 0 and balances" \
	"[ $ea = 0 ] && [ $eb = 0 ] && grep -q 'Balance: .* ok' '$tmp/a.err' && grep -q 'Balance: .* ok' '$tmp/b.err'"
diag "$tmp/a.err" "$tmp/b.err"
sa=$("$kprofctl" report -i "$tmp/a.data" --stdio --comms hot --sort symbol 2>/dev/null |
	sed -n 's/^ *[0-9.]*%  *\[\.\] \([^ ]*\).*/\1/p' | head -n 1)
sb=$("$kprofctl" report -i "$tmp/b.data" --stdio --comms hot --sort symbol 2>/dev/null |
	sed -n 's/^ *[0-9.]*%  *\[\.\] \([^ ]*\).*/\1/p' | head -n 1)
check "each record holds its own program's samples: hot_leaf on top in both ($sa, $sb)" \
	"[ '$sa' = hot_leaf ] && [ '$sb' = hot_leaf ]"
check "two off-CPU records side by side: each exits 0 and says what it blocked" \
	"[ $ec = 0 ] && [ $ed = 0 ] && grep -q 'Off-CPU: [0-9.]* ms blocked in [1-9][0-9]* stacks' '$tmp/c.err' && grep -q 'Off-CPU: [0-9.]* ms blocked in [1-9][0-9]* stacks' '$tmp/d.err'"
diag "$tmp/c.err" "$tmp/d.err"
check "the owned sessions ended with their records; the detached one runs on" \
	"[ \"\$(ids_in running)\" = '$detached' ]"

# --- stop --id: that session, its profile adds up to its own counters ---------
"$kprofctl" stop --id "$detached" -o "$tmp/det.kprof" >"$tmp/stop.out" 2>&1
check "stop --id $detached: stops it, its aggregate balance holds" \
	"grep -q 'session $detached stopped' '$tmp/stop.out' && grep -q 'Aggregate balance: .* ok' '$tmp/stop.out'"
diag "$tmp/stop.out"
agg=$(sed -n 's/.*stopped: \([0-9]*\) samples aggregated.*/\1/p' "$tmp/stop.out")
sum=$("$kprofctl" folded -i "$tmp/det.kprof" 2>/dev/null | awk '{ s += $NF } END { print s + 0 }')
check "the saved profile's folded counts add up to its aggregated samples ($sum = ${agg:-?})" \
	"[ -n '$agg' ] && [ '$sum' = '$agg' ] && [ '$sum' -gt 0 ]"

# --- kill -9 of one of two owners: only its session ends ------------------------
# (each follows a program of its own with -p: a command would outlive its
# killed recorder and spin on through the next tests)
"$hot" 600000 >/dev/null & h3=$!
"$hot" 600000 >/dev/null & h4=$!
"$kprofctl" record -e cpu-clock -F 99 -o "$tmp/k1.data" -p "$h3" >/dev/null 2>&1 &
k1=$!
"$kprofctl" record -e cpu-clock -F 99 -o "$tmp/k2.data" -p "$h4" >/dev/null 2>&1 &
k2=$!
victims="$k1 $k2 $h3 $h4"
until_true 30 '[ "$(ids_in running | wc -l)" = 2 ]'
before=$(ids_in running | tr '\n' ' ')
kill -9 "$k1"
wait "$k1" 2>/dev/null
until_true 30 '[ "$(ids_in running | wc -l)" = 1 ]'
after=$(ids_in running | tr '\n' ' ')
check "kill -9 of one of two records: only its session stops (running: $before-> $after)" \
	"[ \"\$(echo $after | wc -w)\" = 1 ] && echo ' $before' | grep -q ' $after'"

# --- another user: neither stop nor read -----------------------------------------
other=$(echo "$after" | tr -d ' ')
if command -v setpriv >/dev/null &&
   setpriv --reuid 65534 --inh-caps +perfmon --ambient-caps +perfmon true 2>/dev/null; then
	err=$(setpriv --reuid 65534 --regid 65534 --clear-groups --inh-caps +perfmon \
		--ambient-caps +perfmon "$kprofctl" stop --id "$other" 2>&1 >/dev/null)
	check "another user's stop --id: refused, one line naming the owner rule" \
		"[ \"\$(printf '%s\n' \"\$err\" | wc -l)\" = 1 ] && printf '%s\n' \"\$err\" | grep -q 'belongs to another user'"
	echo "# $err"
	err=$(setpriv --reuid 65534 --regid 65534 --clear-groups --inh-caps +perfmon \
		--ambient-caps +perfmon "$kprofctl" status --id "$other" 2>&1 >/dev/null)
	check "another user's status --id: refused" \
		"printf '%s\n' \"\$err\" | grep -q 'belongs to another user'"
else
	skip "another user's stop --id" "setpriv cannot grant CAP_PERFMON here"
	skip "another user's status --id" "setpriv cannot grant CAP_PERFMON here"
fi
kill -9 $victims 2>/dev/null
wait $victims 2>/dev/null
victims=

# --- counting sessions side by side (ABI 1.13; one at a time before) -----------
"$kprofctl" stat -e cpu-clock -a -x, -o "$tmp/st1.csv" -- sleep 3 2>"$tmp/st1.err" &
st1=$!
"$kprofctl" stat -e cpu-clock -a -x, -o "$tmp/st2.csv" -- sleep 2 2>"$tmp/st2.err"
rc2=$?
wait "$st1"
rc1=$?
m1=$(awk -F, '$3 == "cpu-clock" { printf "%d", $1 }' "$tmp/st1.csv" 2>/dev/null)
m2=$(awk -F, '$3 == "cpu-clock" { printf "%d", $1 }' "$tmp/st2.csv" 2>/dev/null)
echo "# two stat -a at once: exit $rc1 and $rc2, cpu-clock ${m1:-?} and ${m2:-?} msec"
sed 's/^/# /' "$tmp/st1.err" "$tmp/st2.err"
check "two stat -a at once: both count (cpu-clock ${m1:-?} ms over 3 s, ${m2:-?} ms over 2 s, each at least the run's length)" \
	"[ $rc1 = 0 ] && [ $rc2 = 0 ] && [ \"\${m1:-0}\" -ge 3000 ] && [ \"\${m2:-0}\" -ge 2000 ]"

# --- every kind at once, beside perf record -g ----------------------------------
# A detached aggregating session (-a -g 99 Hz) runs while record -g -p,
# sched record, lock contention, offcpu -p and stat -a run at the same
# time, and perf record -g profiles the same program as record: each
# kprof command balances; the five sampling sessions are listed running
# side by side; record's share of hot_leaf is perf's on the same run,
# within max(2 points, 4 binomial standard errors); the detached session's
# saved profile adds up to its own counters.  Both tools sample hot in user
# mode only (cpu-clock:u): a timer that expires while another profiler's
# handler runs fires as interrupts come back on, in the kernel's exit path
# (exit_to_user_mode_prepare), so each tool's kernel samples measure the
# others' handler time (perf's 3.5 %, kprof's 0.5 % here), not hot.
until_true 30 '[ -z "$(ids_in running)" ]'
"$kprofctl" start -a -g -e cpu-clock -F 99 >"$tmp/mx-start.out" 2>&1
mdet=$(ids_in running)
"$offcpu_prog" spin 600 >/dev/null & mo=$!
victims="$mo"
if command -v perf >/dev/null; then
	HOME=$tmp perf record -g -e cpu-clock:u -F 499 -o "$tmp/mx.pdata" -- "$hot" 60000 \
		>/dev/null 2>"$tmp/mx-perf.err" &
	mperf=$!
	wait_for 90 sh -c "pgrep -x -P $mperf hot >/dev/null"
	mhot=$(pgrep -x -P $mperf hot)
else
	mperf=
	"$hot" 60000 >/dev/null & mhot=$!
fi
victims="$mo $mhot"
"$kprofctl" record -g -e cpu-clock:u -F 499 -p "${mhot:-0}" \
	-o "$tmp/mx-rec.data" >"$tmp/mx-rec.out" 2>"$tmp/mx-rec.err" &
m1=$!
"$kprofctl" sched record -a -o "$tmp/mx-sched.data" >"$tmp/mx-sched.out" 2>"$tmp/mx-sched.err" &
m2=$!
"$kprofctl" lock contention -a >"$tmp/mx-lock.out" 2>"$tmp/mx-lock.err" &
m3=$!
"$kprofctl" offcpu -p "$mo" >"$tmp/mx-off.out" 2>"$tmp/mx-off.err" &
m4=$!
"$kprofctl" stat -a -e cpu-clock >"$tmp/mx-stat.out" 2>"$tmp/mx-stat.err" &
m5=$!
# each runs until SIGINT, as perf's do: none ends before all are up
until_true 120 '[ "$(ids_in running | wc -l)" -ge 5 ] &&
	"$kprofctl" status | grep -qE "^ +c[0-9]+ +running +counting "'
mrun=$(ids_in running | wc -l)
"$kprofctl" status >"$tmp/mx-status.out" 2>&1
sleep 8
kill -INT $m1 $m2 $m3 $m4 $m5
wait $m1; e1=$?
wait $m2; e2=$?
wait $m3; e3=$?
wait $m4; e4=$?
wait $m5; e5=$?
# hot runs until here (perf writes its file when hot ends)
kill "$mhot" 2>/dev/null
[ -n "$mperf" ] && wait $mperf
kill -9 $victims 2>/dev/null
wait $victims 2>/dev/null
victims=
check "all at once: the detached session and record, sched record, lock contention, offcpu listed running side by side ($mrun)" \
	"[ '$mrun' -ge 5 ]"
diag "$tmp/mx-status.out"
check "all at once: record -g -p and sched record exit 0 and balance" \
	"[ $e1 = 0 ] && [ $e2 = 0 ] && grep -q 'Balance: .* ok' '$tmp/mx-rec.err' && grep -q 'Balance: .* ok' '$tmp/mx-sched.err'"
diag "$tmp/mx-rec.err" "$tmp/mx-sched.err"
check "all at once: lock contention and offcpu -p exit 0, their waits balance" \
	"[ $e3 = 0 ] && [ $e4 = 0 ] && ! grep -q 'do not balance' '$tmp/mx-lock.err' '$tmp/mx-off.err' && grep -q 'kp_nap' '$tmp/mx-off.out'"
diag "$tmp/mx-lock.err" "$tmp/mx-off.err"
check "all at once: stat -a counts cpu-clock (exit $e5), status lists it as a counting session of its pid ($m5)" \
	"[ $e5 = 0 ] && cat '$tmp/mx-stat.out' '$tmp/mx-stat.err' | grep -qE '[0-9.,]+ +msec +cpu-clock' &&
	 grep -qE '^ +c[0-9]+ +running +counting +pid $m5 \\(kprofctl\\) ' '$tmp/mx-status.out'"
diag "$tmp/mx-stat.out" "$tmp/mx-stat.err"
# hot_leaf's share of hot's samples: kprofctl's against perf's, same run
share() { awk '$2 == "[.]" && $3 == "hot_leaf" { sub("%", "", $1); print $1; exit }' "$1"; }
"$kprofctl" report -i "$tmp/mx-rec.data" --stdio --no-children --sort sym --comms hot \
	>"$tmp/mx-rec.sym" 2>&1
k=$(share "$tmp/mx-rec.sym")
nk=$(sed -n "s/^# Samples: \([0-9]*\) .*/\1/p" "$tmp/mx-rec.sym" | head -n 1)
if [ -n "$mperf" ]; then
	HOME=$tmp perf report -i "$tmp/mx.pdata" --stdio --no-children -g none --sort sym \
		--comms hot >"$tmp/mx-perf.sym" 2>/dev/null
	p=$(share "$tmp/mx-perf.sym")
	np=$(HOME=$tmp perf script -i "$tmp/mx.pdata" --comms hot -G -F tid 2>/dev/null | grep -c .)
	# the standard error of the difference of two shares of p
	tol=$(awk -v p="${p:-0}" -v a="${nk:-1}" -v b="${np:-1}" 'BEGIN { q = p / 100; a = a > 0 ? a : 1; b = b > 0 ? b : 1; se = 100 * sqrt(q * (1 - q) * (1 / a + 1 / b)); t = 4 * se; printf "%.2f", (t > 2 ? t : 2) }')
	check "all at once: hot_leaf ${k:-?} % of record's ${nk:-?} samples, perf record -g ${p:-?} % of ${np:-?} (within $tol points)" \
		"[ -n '$k' ] && [ -n '$p' ] && awk -v k='$k' -v p='$p' -v t='$tol' 'BEGIN { d = k - p; exit !(d <= t && d >= -t) }'"
	{ grep -m 6 '%' "$tmp/mx-rec.sym" | sed 's/^/kprof: /'; grep -m 6 '%' "$tmp/mx-perf.sym" | sed 's/^/perf: /'; } | diag
else
	skip "all at once: hot_leaf's share against perf record's" "no perf here"
fi
"$kprofctl" stop --id "${mdet:-0}" -o "$tmp/mx-det.kprof" >"$tmp/mx-stop.out" 2>&1
agg=$(sed -n 's/.*stopped: \([0-9]*\) samples aggregated.*/\1/p' "$tmp/mx-stop.out")
sum=$("$kprofctl" folded -i "$tmp/mx-det.kprof" 2>/dev/null | awk '{ s += $NF } END { print s + 0 }')
check "all at once: the detached session balances, its folded counts add up to its aggregated samples ($sum = ${agg:-?})" \
	"grep -q 'Aggregate balance: .* ok' '$tmp/mx-stop.out' && [ -n '$agg' ] && [ '$sum' = '$agg' ] && [ '$sum' -gt 0 ]"
diag "$tmp/mx-stop.out"

# --- max_sessions: one line that names who holds them ----------------------------
param=/sys/module/kprof/parameters/max_sessions
old=$(cat "$param")
until_true 30 '[ -z "$(ids_in running)" ]'
echo 2 >"$param"
"$kprofctl" start -a -e cpu-clock -F 99 >/dev/null 2>&1
"$kprofctl" start -a -e cpu-clock -F 99 >/dev/null 2>&1
err=$("$kprofctl" start -a -e cpu-clock -F 99 2>&1 >/dev/null)
echo "$old" >"$param"
check "a third session over max_sessions=2: refused in one line naming both" \
	"[ \"\$(printf '%s\n' \"\$err\" | wc -l)\" = 1 ] && printf '%s\n' \"\$err\" | grep -qE 'max_sessions parameter allows \(2\): [0-9]+ \(running, detached, uid 0\), [0-9]+ \(running, detached'"
echo "# $err"
# status names the session it details in its statistics request: with
# two aggregating sessions the most recent is an aggregating one (a request
# without an id was refused, and status printed nothing)
"$kprofctl" status >"$tmp/two.out" 2>&1; s1=$?
"$kprofctl" status -v >"$tmp/two-v.out" 2>&1; s2=$?
check "status and status -v with two aggregating sessions: exit $s1 and $s2, both listed" \
	"[ $s1 = 0 ] && [ $s2 = 0 ] && [ \"\$(awk '\$2 == \"running\" && \$3 == \"aggregate\"' '$tmp/two.out' | wc -l)\" = 2 ]"
diag "$tmp/two.out"
for id in $(ids_in running); do
	"$kprofctl" stop --id "$id" >/dev/null 2>&1
done

[ $failed = 0 ]
