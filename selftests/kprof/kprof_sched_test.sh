#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Scheduler analysis against its peer, in the same guest boot and on the
# same run: "kprofctl sched runqlat" and BCC's runqlat (Debian's
# bpfcc-tools; bpftrace's runqlat.bt when BCC cannot start) trace the
# system at the same time while two CPU hogs and a sleeper share CPU 1;
# both histograms must put the same waits in the same buckets, within one
# bucket, for 90 % of the counts.  Then bad input.  Prints KTAP.

set -u
# job control: background jobs of a script otherwise start with SIGINT
# ignored, and BCC's runqlat (Python) then never sees the Ctrl-C that ends it
set -m

here=$(cd "$(dirname "$0")" && pwd)
kprofctl=${KPROFCTL:-$here/../../ctl/kprofctl}
prog=$here/progs/tp_prog
tmp=$(mktemp -d /tmp/kprof-sched.XXXXXX)
peer_pid=
trap '[ -n "$peer_pid" ] && kill -KILL $peer_pid 2>/dev/null; rm -rf "$tmp"' EXIT

n=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n $1"; }
check() {
	local desc=$1

	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}
skip() { n=$((n + 1)); echo "ok $n $1 # SKIP $2"; }

echo "TAP version 13"
if ! grep -q '^kprof ' /proc/modules; then
	insmod "${KPROF_KO:?}" || { echo "Bail out! cannot load ${KPROF_KO}"; exit 1; }
fi
mountpoint -q /sys/kernel/debug || mount -t debugfs nodev /sys/kernel/debug
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
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
if command -v runqlat-bpfcc >/dev/null &&
   start_peer "BCC runqlat" env PYTHONUNBUFFERED=1 runqlat-bpfcc; then
	peer="BCC runqlat"
elif command -v bpftrace >/dev/null && [ -r /usr/sbin/runqlat.bt ] &&
     start_peer "bpftrace runqlat.bt" stdbuf -oL bpftrace /usr/sbin/runqlat.bt; then
	peer="bpftrace runqlat.bt"
fi

if [ -n "$peer" ]; then
	"$kprofctl" sched runqlat >"$tmp/kp.out" 2>"$tmp/kp.err" &
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
	taskset -c 1 "$prog" sleep 500 1
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
else
	skip "sched runqlat against a peer" "neither BCC's runqlat nor bpftrace could run here"
fi

# debugfs shows the histogram while a session runs
"$kprofctl" sched runqlat -- "$prog" sleep 40 100 >"$tmp/cmd.out" 2>&1 &
pid=$!
sleep 1.5
grep -A3 runqlat /sys/kernel/debug/kprof/probes > "$tmp/probes" 2>&1
wait $pid
rc=$?
sed 's/^/# /' "$tmp/probes"
check "sched runqlat -- CMD: the command's status, a histogram (rc=$rc)" \
	bash -c "[ $rc = 0 ] && grep -q 'usecs.*distribution' '$tmp/cmd.out'"
check "debugfs probes shows the runqlat histogram while it runs" \
	grep -q 'runqlat - active' "$tmp/probes"

# bad input: one line naming the problem
"$kprofctl" sched runqlat -p 4000000 >"$tmp/bad.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/bad.out"
check "sched runqlat -p 4000000: a one-line error (rc=$rc)" \
	bash -c "[ $rc != 0 ] && [ \$(wc -l < '$tmp/bad.out') = 1 ] && grep -q 'process' '$tmp/bad.out'"
"$kprofctl" sched runqlat 0 >"$tmp/bad.out" 2>&1
check "sched runqlat 0: a one-line error naming the interval" \
	grep -q "invalid interval '0'" "$tmp/bad.out"
"$kprofctl" stop >/dev/null 2>&1
echo "1..$n"
exit 0
