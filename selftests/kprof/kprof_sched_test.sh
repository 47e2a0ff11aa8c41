#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Scheduler analysis against its peers, in the same guest boot and on the
# same run: "kprofctl sched record" beside "perf record" of the same
# tracepoints, then sched latency, map and timehist against perf sched's;
# "kprofctl sched runqlat" and BCC's runqlat (Debian's
# bpfcc-tools; bpftrace's runqlat.bt when BCC cannot start) trace the
# system at the same time while two CPU hogs and a sleeper share CPU 1;
# both histograms must put the same waits in the same buckets, within one
# bucket, for 90 % of the counts.  Then bad input.  Prints KTAP.

set -u
# job control: background jobs of a script otherwise start with SIGINT
# ignored, and BCC's runqlat (Python) then never sees the Ctrl-C that ends it
set -m

here=$(cd "$(dirname "$0")" && pwd)
. "$here/kprof_lib.sh"
kprofctl=${KPROFCTL:-$here/../../ctl/kprofctl}
prog=$here/progs/tp_prog
tmp=$(mktemp -d /tmp/kprof-sched.XXXXXX)
peer_pid=
trap '[ -n "$peer_pid" ] && kill -KILL $peer_pid 2>/dev/null; rm -rf "$tmp"' EXIT

echo "TAP version 13"
kt_load
kt_mounts
"$kprofctl" stop >/dev/null 2>&1

# start_peer NAME CMD...: start a runqlat peer, wait until it traces
start_peer() {
	local name=$1 i

	shift
	"$@" >"$tmp/peer.out" 2>"$tmp/peer.err" &
	peer_pid=$!
	for i in $(seq 480); do
		if grep -qi 'tracing\|attaching' "$tmp/peer.out" "$tmp/peer.err" 2>/dev/null; then
			echo "# $name traces after $((i / 2)) s"
			sleep 1
			return 0
		fi
		kill -0 $peer_pid 2>/dev/null || break
		sleep 0.5
	done
	echo "# $name did not start:"
	tail -n 5 "$tmp/peer.err" | sed 's/^/#   /'
	kill -KILL $peer_pid 2>/dev/null
	wait $peer_pid 2>/dev/null
	peer_pid=
	return 1
}

# rows FILE: "row count" per histogram row (row i: [2^(i-1), 2^i - 1]),
# from BCC's "low -> high : count |**|" or bpftrace's "[lo, hi) count |@@|"
rows() {
	awk '
	function row_of(lo,   r) { r = 1; while (2 ^ r <= lo) r++; return r }
	/ -> / && /\|/ { split($0, a, ":"); split(a[1], r, "->"); c = a[2]; sub(/\|.*/, "", c);
		print row_of(r[1] + 0), c + 0; next }
	/^\[[0-9]/ { s = $0; sub(/\|.*/, "", s); comma = index(s, ",");
		gsub(/[][(),]/, " ", s); split(s, f, " ");
		print row_of(f[1] + 0), (comma ? f[3] : f[2]) + 0 }' "$1"
}

peer=
# kprof per process (-P): its total is the sum of the processes'
# histograms, and the sleeper's own must hold its 500 wakeups.  (BCC's
# runqlat -P printed 17 processes of about 30 here, without the workload's,
# so the peer runs without -P.)
# KPROF_BPF_PEERS=0 (tools/check.sh but on generic 6.12): the BPF peers, whose
# comparison does not depend on the kernel's preemption model, run on the
# generic 6.12 guest only
if [ "${KPROF_BPF_PEERS:-1}" = 0 ]; then
	:
elif command -v runqlat-bpfcc >/dev/null &&
   start_peer "BCC runqlat" env PYTHONUNBUFFERED=1 runqlat-bpfcc; then
	peer="BCC runqlat"
elif command -v bpftrace >/dev/null && [ -r /usr/sbin/runqlat.bt ] &&
     start_peer "bpftrace runqlat.bt" stdbuf -oL bpftrace /usr/sbin/runqlat.bt; then
	peer="bpftrace runqlat.bt"
fi

if [ -n "$peer" ]; then
	"$kprofctl" sched runqlat -P >"$tmp/kp.out" 2>"$tmp/kp.err" &
	kp_pid=$!
	for _ in $(seq 50); do
		grep -q Tracing "$tmp/kp.err" && break
		sleep 0.1
	done
	# two hogs and a sleeper on CPU 1: each of the sleeper's wakeups waits
	hogs=
	for _ in 1 2; do
		taskset -c 1 "$prog" read 300000 &
		hogs="$hogs $!"
	done
	taskset -c 1 "$prog" sleep 500 1 &
	sleeper=$!
	wait $sleeper
	kill $hogs 2>/dev/null
	wait $hogs 2>/dev/null
	sleep 0.5
	kill -INT $kp_pid $peer_pid
	wait $kp_pid
	kp_rc=$?
	for _ in $(seq 60); do
		kill -0 $peer_pid 2>/dev/null || break
		sleep 0.5
	done
	wait $peer_pid 2>/dev/null
	peer_pid=
	sed 's/^/# kprof: /' "$tmp/kp.out"
	sed 's/^/# peer:  /' "$tmp/peer.out"
	check "sched runqlat: exits 0 on SIGINT (rc=$kp_rc)" [ "$kp_rc" = 0 ]
	rows "$tmp/kp.out" > "$tmp/kp.rows"
	rows "$tmp/peer.out" > "$tmp/peer.rows"
	kt=$(awk '{ s += $2 } END { print s + 0 }' "$tmp/kp.rows")
	pt=$(awk '{ s += $2 } END { print s + 0 }' "$tmp/peer.rows")
	check "both histograms have waits (kprof $kt, $peer $pt)" \
		bash -c "[ $kt -gt 300 ] && [ $pt -gt 300 ]"
	check "the same number of waits within a factor of 2 (kprof $kt, $peer $pt)" \
		bash -c "[ $((kt * 2)) -ge $pt ] && [ $((pt * 2)) -ge $kt ]"
	# greedy matching of the normalised histograms, one bucket of slack
	match=$(awk -v kt="$kt" -v pt="$pt" '
		FNR == NR { p[$1] += $2 / kt; if ($1 > max) max = $1; next }
		{ q[$1] += $2 / pt; if ($1 > max) max = $1 }
		END {
			for (b = 0; b <= max + 1; b++) {
				need = p[b] + 0
				for (j = b - 1; j <= b + 1 && need > 0; j++) {
					take = (q[j] + 0 < need) ? q[j] + 0 : need
					need -= take; q[j] -= take; m += take
				}
			}
			printf "%d\n", m * 100 + 0.5
		}' "$tmp/kp.rows" "$tmp/peer.rows")
	check "kprof and $peer: $match % of the waits in the same bucket, within one (>= 90 %)" \
		[ "$match" -ge 90 ]
	# the sleeper's own histogram: a wait for each of its 500 wakeups, and
	# more when a hog's tick preempts it (about a fifth more here)
	ks=$(awk -v want="pid = $sleeper" '/^pid = / { on = ($0 == want); next }
		on && / -> / { split($0, a, ":"); s += a[2] } END { print s + 0 }' "$tmp/kp.out")
	check "runqlat -P: the sleeper (pid $sleeper) has its own histogram, a wait per wakeup at least (500 <= $ks <= 1000)" \
		bash -c "[ $ks -ge 500 ] && [ $ks -le 1000 ]"
elif [ "${KPROF_BPF_PEERS:-1}" = 0 ]; then
	skip "sched runqlat against a peer" "KPROF_BPF_PEERS=0: make check runs the BPF peers in the generic 6.12 boot"
else
	skip "sched runqlat against a peer" "neither BCC's runqlat nor bpftrace could run here"
fi

# debugfs shows the histograms while a session runs, per thread with -L;
# --live reads them from another kprofctl
"$kprofctl" sched runqlat -L -- "$prog" sleep 40 100 >"$tmp/cmd.out" 2>&1 &
pid=$!
sleep 1.5
grep -A3 runqlat /sys/kernel/debug/kprof/probes > "$tmp/probes" 2>&1
cat /sys/kernel/debug/kprof/runqlat > "$tmp/rqfile" 2>&1
"$kprofctl" sched runqlat --live 1 1 > "$tmp/live.out" 2>&1
live_rc=$?
wait $pid
rc=$?
sed 's/^/# runqlat file: /' "$tmp/rqfile" | head -n 30
sed 's/^/# --live: /' "$tmp/live.out" | head -n 20
check "debugfs runqlat: the histogram and one per thread (tid = N) while it runs" \
	bash -c "grep -q '^event 0: [0-9]* waits' '$tmp/rqfile' && grep -q '^tid = [0-9]' '$tmp/rqfile' &&
		 grep -q 'usecs *: count *distribution' '$tmp/rqfile'"
check "sched runqlat --live 1 1: one interval of the running session, per thread (rc=$live_rc)" \
	bash -c "[ $live_rc = 0 ] && grep -q '^tid = [0-9]' '$tmp/live.out'"
# the session ended with its command: freed, its histograms with it
"$kprofctl" sched runqlat --live > "$tmp/live.out" 2>&1
live_rc=$?
sed 's/^/# --live after: /' "$tmp/live.out"
check "sched runqlat --live after the session ended with its command: a one-line error (rc=$live_rc)" \
	bash -c "[ $live_rc != 0 ] && [ \$(wc -l < '$tmp/live.out') = 1 ] && grep -q 'no session' '$tmp/live.out'"
"$kprofctl" status > "$tmp/status.out" 2>&1
check "status still reports the ended session's final counters (stopped)" \
	grep -q '^state: *stopped' "$tmp/status.out"
sed 's/^/# /' "$tmp/probes"
check "sched runqlat -L -- CMD: the command's status, a histogram per thread (rc=$rc)" \
	bash -c "[ $rc = 0 ] && grep -q 'usecs.*distribution' '$tmp/cmd.out' && grep -q '^tid = ' '$tmp/cmd.out'"
check "debugfs probes shows the runqlat histogram while it runs" \
	grep -q 'runqlat - active' "$tmp/probes"

# --- sched record | latency | map | timehist, beside perf on the same run ---
# perf records what perf sched latency reads (6.1's 'perf sched record'
# takes sched_waking, which its latency does not read), kprof its own
# 'sched record -g'; both trace the whole system while kp-ping and kp-pong
# (nice 19) pass a byte 150 times beside kp-hog (nice 0), all three on
# CPU 1: the pair waits for the hog's slices.  The probe cost cap is off
# for the comparison: under TCG the -g stacks of every switch cost more
# than its 25 %, and each event it drops is one perf has.
sp=$here/progs/sched_prog
cap=/sys/module/kprof/parameters/probe_cost_max_percent
cap_was=$(cat $cap)
echo 100 > $cap
rm -f "$tmp/perf.ctl" "$tmp/perf.ack"
mkfifo "$tmp/perf.ctl" "$tmp/perf.ack"
# started disabled, enabled through its control FIFO once it is up (the ack)
perf record -q -a -c 1 -m 2048 -D -1 --control "fifo:$tmp/perf.ctl,$tmp/perf.ack" \
	-e sched:sched_switch -e sched:sched_wakeup \
	-e sched:sched_wakeup_new -e sched:sched_migrate_task -e sched:sched_stat_runtime \
	-o "$tmp/perf.data" >"$tmp/perf.rec" 2>&1 &
perf_pid=$!
exec {perf_ctl}>"$tmp/perf.ctl" {perf_ack}<"$tmp/perf.ack"
echo enable >&$perf_ctl
read -r -t 120 -u $perf_ack perf_ok
echo "# perf record enabled: ${perf_ok:-no ack}"
"$kprofctl" sched record -a -g -v --buffer-size 8M -o "$tmp/kp.data" >"$tmp/kp.rec" 2>&1 &
kpr_pid=$!
for _ in $(seq 100); do
	grep -q 'started' "$tmp/kp.rec" && break
	sleep 0.1
done
sleep 1
taskset -c 1 "$sp" hog 600000 &
hog=$!
taskset -c 1 nice -n 19 "$sp" pingpong 150
pp_rc=$?
kill $hog
wait $hog
sleep 0.5
kill -INT $kpr_pid $perf_pid
wait $kpr_pid
kpr_rc=$?
wait $perf_pid
perf_rc=$?
exec {perf_ctl}>&- {perf_ack}<&-
echo "$cap_was" > $cap
grep -E 'Lost|Balance|Handler' "$tmp/kp.rec" | sed 's/^/# sched record: /'
# perf record ends with 130 after SIGINT under job control
check "sched record -a -g and perf record beside it: both end cleanly (kprof $kpr_rc, perf $perf_rc, workload $pp_rc)" \
	bash -c "[ $kpr_rc = 0 ] && { [ $perf_rc = 0 ] || [ $perf_rc = 130 ]; } && [ $pp_rc = 0 ]"

perf sched latency -i "$tmp/perf.data" >"$tmp/perf.lat" 2>"$tmp/perf.lat.err"
"$kprofctl" sched latency -i "$tmp/kp.data" >"$tmp/kp.lat" 2>&1
grep -E 'Task|kp-|TOTAL|INFO' "$tmp/perf.lat" | sed 's/^/# perf:  /'
grep -E 'Task|kp-|TOTAL|INFO' "$tmp/kp.lat" | sed 's/^/# kprof: /'
"$kprofctl" script -i "$tmp/kp.data" >"$tmp/kp.script" 2>/dev/null
# lat_field FILE COMM N: field N ('|'-separated) of COMM's row, numbers only
lat_field() {
	awk -F'|' -v c="$2" -v n="$3" '
		{ name = $1; sub(/^ +/, "", name); sub(/:.*/, "", name) }
		name == c { v = $n; gsub(/[^0-9.]/, "", v); print v; exit }' "$1"
}
for c in kp-ping kp-pong kp-hog; do
	check "sched latency: $c listed by kprof and perf" \
		bash -c "[ -n '$(lat_field "$tmp/kp.lat" $c 3)' ] && [ -n '$(lat_field "$tmp/perf.lat" $c 3)' ]"
done
for c in kp-ping kp-pong; do
	ks=$(lat_field "$tmp/kp.lat" $c 3); ps=$(lat_field "$tmp/perf.lat" $c 3)
	km=$(lat_field "$tmp/kp.lat" $c 5); pm=$(lat_field "$tmp/perf.lat" $c 5)
	# perf 6.1 leaves out the waits after a preemption (R+): kprof's count
	# is perf's plus those
	# the row's thread, under every name it had (taskset, nice, sched_prog)
	tid=$(awk -v c="$c" '$1 ~ "^" c ":[0-9]+$" { sub(/.*:/, "", $1); print $1; exit }' "$tmp/kp.lat")
	pre=$(grep -c "prev_pid=${tid:-x} .*prev_state=R+" "$tmp/kp.script")
	echo "# $c ($tid): $(grep -c "prev_pid=${tid:-x} " "$tmp/kp.script") switch-outs recorded, $pre preempted (R+)"
	check "sched latency: $c switches, kprof $ks = perf $ps + $pre preempted, within 2" \
		awk -v k="${ks:-0}" -v p="${ps:--99}" -v r="$pre" 'BEGIN { d = k - p - r; exit !(d <= 2 && d >= -2) }'
	if [ "$pre" = 0 ]; then
		check "sched latency: $c max delay, kprof $km ms, perf $pm ms, within 1 %" \
			awk -v k="${km:-0}" -v p="${pm:--1}" 'BEGIN { d = k - p; if (d < 0) d = -d; exit !(d <= p / 100 + 0.002) }'
	else
		check "sched latency: $c max delay, kprof $km ms >= perf $pm ms (it also counts $pre preemption waits)" \
			awk -v k="${km:-0}" -v p="${pm:--1}" 'BEGIN { exit !(k >= p * 0.99 - 0.002) }'
	fi
done

# the worst delays of the pair: the task that ran instead is the hog, in hog_spin()
"$kprofctl" sched latency -i "$tmp/kp.data" --stacks 20 >"$tmp/kp.stacks" 2>&1
awk '/^  kp-p(ing|ong):[0-9]+  delay/ { p = 1 } p { print } p && /^$/ { exit }' \
	"$tmp/kp.stacks" >"$tmp/kp.worst"
sed 's/^/# /' "$tmp/kp.worst" | head -n 40
[ -s "$tmp/kp.worst" ] || head -n 60 "$tmp/kp.stacks" | sed 's/^/# stacks: /'
# What the mechanism guarantees whatever else the host runs: the task named
# did run on that CPU during the delay (its switch-in and switch-out there,
# in the same recording, overlap the delay), and its stack is the one it
# was switched out with (kp-hog's is in hog_spin()).  Which task took the
# longest slice is the scheduler's business, not asserted.
read -r wcpu wfrom wto < <(awk '/^  kp-p(ing|ong):[0-9]+  delay/ {
	c = $7; sub(/,/, "", c); print c, $9, $12; exit }' "$tmp/kp.worst")
itid=$(awk '/ran instead \(the longest of the wait\)/ { t = $8; sub(/,$/, "", t);
	n = split(t, f, ":"); print f[n]; exit }' "$tmp/kp.worst")
icomm=$(awk '/ran instead \(the longest of the wait\)/ { t = $8; sub(/:[0-9]+,$/, "", t);
	print t; exit }' "$tmp/kp.worst")
# ran_on CPU FROM TO TID: TID ran on CPU for a while within [FROM, TO]
ran_on() {
	awk -v cpu="$1" -v s="$2" -v e="$3" -v tid="$4" '
		/sched:sched_switch:/ {
			if (!match($0, /\[[0-9]+\] +[0-9.]+:/)) next
			f = substr($0, RSTART + 1, RLENGTH - 2); split(f, g, /\] +/)
			if (g[1] + 0 != cpu) next
			t = g[2] + 0
			np = $0; sub(/.*next_pid=/, "", np); sub(/ .*/, "", np)
			if (cur == tid && since <= e && t >= s) ok = 1
			cur = np; since = t
		}
		END { if (cur == tid && since <= e) ok = 1; exit !ok }' "$tmp/kp.script"
}
echo "# the worst delay: CPU ${wcpu:-?} from ${wfrom:-?} s to ${wto:-?} s; ran instead: ${icomm:-?}:${itid:-?}"
check "sched latency --stacks: the task named as running instead ($icomm:$itid) ran on CPU $wcpu during the delay" \
	ran_on "${wcpu:--1}" "${wfrom:-0}" "${wto:-0}" "${itid:--1}"
# kp-hog's own stack: through hog_spin(), also when it was switched out in
# the clock_gettime() it calls (a syscall in a TCG guest, where preemption
# comes at its exit), whose frameless libc wrapper hides hog_spin() from a
# frame-pointer walk: the leaf fix-up finds it (issue 42)
check "sched latency --stacks: its stack is the one it was switched out with${icomm:+ ($icomm)}" \
	bash -c "sed -n '/ran instead/,\$p' '$tmp/kp.worst' | sed -n '2p' | grep -q '[0-9a-f]' &&
		 { [ '$icomm' != kp-hog ] || sed -n '/ran instead/,\$p' '$tmp/kp.worst' | grep -q 'hog_spin'; }"

# map: the same tasks get shortnames in the same order, the same number of
# switches to each (the shortnames differ: the recordings start apart)
perf sched map -i "$tmp/perf.data" >"$tmp/perf.map" 2>/dev/null
"$kprofctl" sched map -i "$tmp/kp.data" >"$tmp/kp.map" 2>&1
# map_count FILE: "comm lines" for the kp- tasks (by their last name), in
# the order their threads got a shortname, and the lines switching to each
map_count() {
	awk '
		{ i = index($0, "*"); if (!i) next; sn = substr($0, i + 1, 2)
		  if (match($0, /[A-Z.][0-9 ] => [^ ]+/)) {
			a = substr($0, RSTART, RLENGTH); split(a, f, " => ")
			n2 = split(f[2], g, ":"); tid = g[n2]; name = substr(f[2], 1, length(f[2]) - length(tid) - 1)
			s = substr(a, 1, 2)
			if (!(s in tid_of)) order[++n] = s
			tid_of[s] = tid; comm[s] = name
		  }
		  lines[sn]++ }
		END { for (j = 1; j <= n; j++) if (comm[order[j]] ~ /^kp-/)
			print comm[order[j]], lines[order[j]] + 0 }' "$1"
}
map_count "$tmp/perf.map" >"$tmp/perf.mapc"
map_count "$tmp/kp.map" >"$tmp/kp.mapc"
sed 's/^/# perf map:  /' "$tmp/perf.mapc"
sed 's/^/# kprof map: /' "$tmp/kp.mapc"
check "sched map: the kp- tasks' threads get shortnames in the same order as perf's" \
	bash -c "[ -s '$tmp/kp.mapc' ] && [ \"\$(cut -d' ' -f1 '$tmp/kp.mapc')\" = \"\$(cut -d' ' -f1 '$tmp/perf.mapc')\" ]"
check "sched map: as many lines switching to each kp- task as perf's, within 2" \
	awk 'FNR == NR { p[$1] = $2; next } { d = $2 - p[$1]; if (d > 2 || d < -2 || !($1 in p)) bad = 1 }
	     END { exit bad }' "$tmp/perf.mapc" "$tmp/kp.mapc"

# timehist: as many switch-out lines of each kp- task as perf's
perf sched timehist -i "$tmp/perf.data" >"$tmp/perf.th" 2>/dev/null
"$kprofctl" sched timehist -i "$tmp/kp.data" >"$tmp/kp.th" 2>&1
for c in kp-ping kp-pong kp-hog; do
	kt=$(awk -v c="$c" 'index($3, c "[") == 1' "$tmp/kp.th" | wc -l)
	pt=$(awk -v c="$c" 'index($3, c "[") == 1' "$tmp/perf.th" | wc -l)
	check "sched timehist: $c switch-out lines, kprof $kt, perf $pt, within 2" \
		bash -c "[ $kt -gt 0 ] && [ \$(( $kt - $pt )) -le 2 ] && [ \$(( $pt - $kt )) -le 2 ]"
done
"$kprofctl" sched timehist -i "$tmp/kp.data" -s >"$tmp/kp.ths" 2>&1
check "sched timehist -s: the runtime summary with the kp- tasks and idle stats" \
	bash -c "grep -q 'Runtime summary' '$tmp/kp.ths' && grep -q 'kp-ping\[' '$tmp/kp.ths' &&
		 grep -q 'Idle stats:' '$tmp/kp.ths'"

# bad input: one line naming the problem
"$kprofctl" sched runqlat -p 4000000 >"$tmp/bad.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/bad.out"
check "sched runqlat -p 4000000: a one-line error (rc=$rc)" \
	bash -c "[ $rc != 0 ] && [ \$(wc -l < '$tmp/bad.out') = 1 ] && grep -q 'process' '$tmp/bad.out'"
"$kprofctl" sched record -p 4000000 -o "$tmp/bad.data" >"$tmp/bad.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/bad.out"
check "sched record -p 4000000: a one-line error (rc=$rc)" \
	bash -c "[ $rc != 0 ] && [ \$(wc -l < '$tmp/bad.out') = 1 ]"
"$kprofctl" sched runqlat -P -L >"$tmp/bad.out" 2>&1
check "sched runqlat -P -L: refused in one line" grep -q "mutually exclusive" "$tmp/bad.out"
"$kprofctl" sched runqlat 0 >"$tmp/bad.out" 2>&1
check "sched runqlat 0: a one-line error naming the interval" \
	grep -q "invalid interval '0'" "$tmp/bad.out"
"$kprofctl" stop >/dev/null 2>&1
echo "1..$n"
[ "$failed" = 0 ]
