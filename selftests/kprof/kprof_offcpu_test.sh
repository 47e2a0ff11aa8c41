#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Off-CPU time against its peer, in the same guest boot and on the same
# run: progs/offcpu_prog blocks in known places (a pipe read, 5 ms naps,
# a writer's 10 ms sleeps) while BCC's offcputime (Debian's bpfcc-tools)
# and "kprofctl offcpu" trace it at the same time.  kprof must put at
# least 90 % of the blocked time the program measured itself on the right
# user function and kernel path, agree with offcputime within 5 % on each
# of the top stacks, show the stacks in debugfs while it runs and balance
# its counters.  Then bad input.  Prints KTAP.

set -u
# job control: background jobs of a script otherwise start with SIGINT
# ignored, and offcputime (Python) then never sees the Ctrl-C that ends it
set -m

here=$(cd "$(dirname "$0")" && pwd)
. "$here/kprof_lib.sh"
kprofctl=${KPROFCTL:-$here/../../ctl/kprofctl}
prog=$here/progs/offcpu_prog
dbg=/sys/kernel/debug/kprof
tmp=$(mktemp -d /tmp/kprof-offcpu.XXXXXX)
pids=
trap 'for p in $pids; do kill -KILL $p 2>/dev/null; done; rm -rf "$tmp"' EXIT

echo "TAP version 13"
kt_load
kt_mounts
"$kprofctl" stop >/dev/null 2>&1

# sum FILE EGREP...: the values of the folded lines matching all (each
# line ends with ';' for the patterns: ';frame;' matches the last frame too)
sum() {
	local f=$1

	shift
	awk -v pats="$*" '
	BEGIN { np = split(pats, p, " ") }
	{ v = $NF; line = $0; sub(/ [0-9]+$/, ";", line)
	  for (i = 1; i <= np; i++) if (line !~ p[i]) next
	  s += v }
	END { printf "%d\n", s }' "$f"
}

# signature FILE: "comm;kp_functions microseconds" per stack, summed
signature() {
	awk '{ v = $NF; line = $0; sub(/ [0-9]+$/, "", line); n = split(line, f, ";")
	       key = f[1]; for (i = 2; i <= n; i++) if (f[i] ~ /^kp_/) key = key ";" f[i]
	       s[key] += v }
	     END { for (k in s) print k, s[k] }' "$1" | sort -k2,2nr
}

"$prog" 4 >"$tmp/prog.out" &
ppid=$!
pids="$pids $ppid"
sleep 0.5

# bcc_attached TOOL KPROBE PID ERRFILE: true once TOOL (process PID) has its
# kprobe on KPROBE in place; else its last errors, and it is killed
bcc_attached() {
	local t0

	t0=$(date +%s)
	if wait_for 300 grep -q "$2" /sys/kernel/debug/kprobes/list; then
		echo "# $1 attached after $(($(date +%s) - t0)) s"
		sleep 1
		return 0
	fi
	echo "# $1 did not attach:"
	tail -n 5 "$4" | sed 's/^/#   /'
	kill -KILL "$3" 2>/dev/null
	return 1
}

bcc=
# KPROF_BPF_PEERS=0 (tools/check.sh but on generic 6.12): no BCC
if [ "${KPROF_BPF_PEERS:-1}" != 0 ] && command -v offcputime-bpfcc >/dev/null; then
	offcputime-bpfcc -f -p "$ppid" 600 >"$tmp/bcc.folded" 2>"$tmp/bcc.err" &
	bpid=$!
	pids="$pids $bpid"
	# attached once its kprobe on finish_task_switch is in place
	bcc_attached offcputime finish_task_switch "$bpid" "$tmp/bcc.err" && bcc=yes
fi

# offwaketime for the --wakers run below, on a second program that waits:
# it compiles while the first run goes on
"$prog" 2 >"$tmp/pw.out" &
pw=$!
pids="$pids $pw"
bccw=
if [ -n "$bcc" ] && command -v offwaketime-bpfcc >/dev/null; then
	offwaketime-bpfcc -f -p "$pw" 600 >"$tmp/bccw.folded" 2>"$tmp/bccw.err" &
	bwpid=$!
	pids="$pids $bwpid"
	bccw=started
fi

"$kprofctl" offcpu -f -p "$ppid" >"$tmp/kp.folded" 2>"$tmp/kp.err" &
kpid=$!
pids="$pids $kpid"
check "offcpu starts its session" wait_for 60 grep -q 'state: running' "$dbg/status"
kill -USR1 "$ppid"
sleep 2
cat "$dbg/offcpu" >"$tmp/live.folded" 2>&1
check "debugfs offcpu shows the reader's pipe wait while it runs (user;-;kernel)" \
	grep -q '^kp-reader;.*;-;.*pipe_read.* [0-9][0-9]*$' "$tmp/live.folded"
# the work is done when the program prints its times; it lives on, so that
# offcputime names its frames when it prints
wait_for 120 grep -q read_us "$tmp/prog.out"
kill -INT "$kpid"
wait "$kpid"
kret=$?
check "offcpu stops on Ctrl-C and exits 0" [ "$kret" = 0 ]
if [ -n "$bcc" ]; then
	kill -INT "$bpid"
	wait "$bpid"
fi
kill -TERM "$ppid"
wait "$ppid" 2>/dev/null
sed 's/^/# kprof: /' "$tmp/kp.err"
sed 's/^/# prog: /' "$tmp/prog.out"

read -r _ read_us _ nap_us _ writer_us <"$tmp/prog.out"
read_kp=$(sum "$tmp/kp.folded" '^kp-reader;' ';kp_read_pipe;' ';pipe_read;')
nap_kp=$(sum "$tmp/kp.folded" '^kp-napper;' ';kp_nap;' ';do_nanosleep;')
writer_kp=$(sum "$tmp/kp.folded" '^kp-writer;' ';kp_writer_sleep;' ';do_nanosleep;')
echo "# measured by the program (us): read $read_us nap $nap_us writer $writer_us"
echo "# kprof on those stacks (us):    read $read_kp nap $nap_kp writer $writer_kp"
within() { awk -v a="$1" -v b="$2" -v lo="$3" -v hi="$4" 'BEGIN { exit !(b > 0 && a >= b * lo && a <= b * hi) }'; }
check "the pipe waits: >= 90 % of the measured time on kp_read_pipe and pipe_read" \
	within "${read_kp:-0}" "${read_us:-0}" 0.9 1.05
check "the naps: >= 90 % of the measured time on kp_nap and do_nanosleep" \
	within "${nap_kp:-0}" "${nap_us:-0}" 0.9 1.05
check "the writer's sleeps: >= 90 % on kp_writer_sleep and do_nanosleep" \
	within "${writer_kp:-0}" "${writer_us:-0}" 0.9 1.05
check "folded lines are comm;user frames;kernel frames usecs" \
	grep -q '^kp-napper;.*;kp_nap;.*do_nanosleep;.* [0-9][0-9]*$' "$tmp/kp.folded"

if [ -n "$bcc" ]; then
	signature "$tmp/kp.folded" >"$tmp/kp.sig"
	signature "$tmp/bcc.folded" >"$tmp/bcc.sig"
	echo "# top stacks (comm;program functions us), kprof | offcputime:"
	head -n 4 "$tmp/kp.sig" | while read -r key us; do
		echo "#   $key $us | $(awk -v k="$key" '$1 == k { print $2 }' "$tmp/bcc.sig")"
	done
	# Compared by thread and kernel path: BCC's frame-pointer walk can
	# miss the program's function above a libc leaf (read() has no frame
	# of its own), so its user frames are not a key both tools share; the
	# user frames are checked against the program's own times above.
	bad=0
	for key in "kp-reader pipe_read" "kp-writer do_nanosleep" "kp-napper do_nanosleep"; do
		set -- $key
		k=$(sum "$tmp/kp.folded" "^$1;" ";$2;")
		b=$(sum "$tmp/bcc.folded" "^$1;" ";$2;")
		echo "# $1 in $2 (us): kprof ${k:-none}, offcputime ${b:-none}"
		within "${k:-0}" "${b:-0}" 0.95 1.05 || bad=1
	done
	check "the three blocking paths' off-CPU time (thread and kernel function) within 5 % of BCC offcputime's, same run" [ $bad = 0 ]
elif [ "${KPROF_BPF_PEERS:-1}" = 0 ]; then
	skip "the three stacks against BCC offcputime" "KPROF_BPF_PEERS=0: make check runs the BPF peers in the generic 6.12 boot"
else
	skip "the three stacks against BCC offcputime" "offcputime-bpfcc could not run here"
fi

bal=$(grep 'balance (off-CPU)' "$dbg/stats")
echo "# $bal"
check "off-CPU counters balance once stopped (blocks == done + filtered + lost + open)" \
	grep -q 'balance (off-CPU): blocks [1-9][0-9]* ==' <<<"$bal"

# offwaketime, for --wakers below: attached (its kprobe on try_to_wake_up)
# before the next runs, which its compilation would slow down
if [ -n "$bccw" ]; then
	bccw=
	bcc_attached offwaketime try_to_wake_up "$bwpid" "$tmp/bccw.err" && bccw=yes
fi
# -K: kernel frames only; --state S: sleeping only; -m/-M: the 5 ms naps,
# not the 10 ms reads and sleeps
"$prog" 1 >"$tmp/p2.out" &
p2=$!
pids="$pids $p2"
sleep 0.3
"$kprofctl" offcpu -K --state S -m 4000 -M 7000 -f -p "$p2" >"$tmp/kk.folded" 2>"$tmp/kk.err" &
k2=$!
wait_for 60 grep -q 'state: running' "$dbg/status"
kill -USR1 "$p2"
wait_for 60 grep -q read_us "$tmp/p2.out"
kill -INT "$k2"
wait "$k2"
kill -TERM "$p2"
wait "$p2" 2>/dev/null
check "-K: kernel frames, no user frames" \
	bash -c "grep -q '^kp-napper;.*do_nanosleep' '$tmp/kk.folded' && ! grep -q 'kp_' '$tmp/kk.folded'"
nap_k=$(sum "$tmp/kk.folded" '^kp-napper;' ';do_nanosleep;')
long_k=$(( $(sum "$tmp/kk.folded" '^kp-reader;' ';pipe_read;') + $(sum "$tmp/kk.folded" '^kp-writer;') ))
echo "# -m 4000 -M 7000: naps $nap_k us, reads and writer sleeps $long_k us"
# A busy host delays the reader's wakeups, and the reads after a late one
# are shorter and fall in the window (8 % of the naps' time with two busy
# loops on the host, 2026-12-07); without -M the reads and the writer's
# sleeps, blocked all the time as the napper is, would be twice the naps.
check "--state S -m 4000 -M 7000: the 5 ms naps, not (under half of them) the 10 ms reads and sleeps" \
	awk -v n="$nap_k" -v l="$long_k" 'BEGIN { exit !(n > 0 && l * 2 < n) }' ||
	sed 's/^/# /' "$tmp/kk.folded"

# --wakers: each block with its waker's stack, against offwaketime on the
# same run (attached above)
"$kprofctl" offcpu --wakers -f -p "$pw" >"$tmp/kw.folded" 2>"$tmp/kw.err" &
kw=$!
pids="$pids $kw"
wait_for 60 grep -q 'state: running' "$dbg/status"
kill -USR1 "$pw"
wait_for 120 grep -q read_us "$tmp/pw.out"
cat "$dbg/wakers" >"$tmp/kw.live" 2>&1
kill -INT "$kw"
wait "$kw"
kret=$?
if [ "$bccw" = yes ]; then
	kill -INT "$bwpid"
	wait "$bwpid"
fi
kill -TERM "$pw"
wait "$pw" 2>/dev/null
sed 's/^/# kprof --wakers: /' "$tmp/kw.err"
read -r _ wread_us _ <"$tmp/pw.out"
# the reader's pipe waits, woken by the writer from its own kp_write_pipe()
woken='^kp-reader;.*;kp_read_pipe;.*;pipe_read;.*;--;.*;pipe_write;.*;kp_write_pipe;.*;kp-writer;$'
kw_us=$(sum "$tmp/kw.folded" "$woken")
echo "# pipe waits measured by the program: $wread_us us; kprof, woken by kp_write_pipe: $kw_us us"
check "offcpu --wakers exits 0" [ "$kret" = 0 ]
check "offcpu --wakers: >= 90 % of the reader's pipe waits on the writer's kp_write_pipe and pipe_write" \
	within "${kw_us:-0}" "${wread_us:-0}" 0.9 1.05
check "debugfs wakers: the same pairs, waker after '--', while the session runs" \
	grep -q '^kp-reader;.*pipe_read;.*;--;.*pipe_write;.*;kp-writer [0-9][0-9]*$' "$tmp/kw.live"
if [ "$bccw" = yes ]; then
	# offwaketime leaves out each side's innermost user frame (kp_read_pipe,
	# kp_write_pipe; their callers are lost to the frame-pointer walk as
	# well): compare on the frames both keep
	pair='^kp-reader;.*;main;.*;pipe_read;.*;--;.*;pipe_write;.*;start_thread;.*;?kp-writer;$'
	kpair=$(sum "$tmp/kw.folded" "$pair")
	# when offwaketime's stack map fails a capture it still counts the
	# time, under "[Missed Kernel Stack]" in place of the waker's kernel
	# frames, or "[Missed User Stack]" in place of its user frames (seen
	# on 6.12): that is the same pair
	bpair=$(sum "$tmp/bccw.folded" \
		'^kp-reader;.*;main;.*;pipe_read;.*;--;(.*;pipe_write;.*|[[]Missed.Kernel.Stack[]]);(start_thread;.*;?|[[]Missed.User.Stack[]];)kp-writer;$')
	echo "# reader woken by writer (us): kprof $kpair, offwaketime $bpair"
	# the numbers are in the test's name, so that a failure's one line says them
	check "--wakers: the reader's time woken by the writer within 5 % of BCC offwaketime's, same run (kprof ${kpair:-0} us, offwaketime ${bpair:-0} us)" \
		within "${kpair:-0}" "${bpair:-0}" 0.95 1.05
	if ! within "${kpair:-0}" "${bpair:-0}" 0.95 1.05; then
		for f in kw bccw; do
			echo "# $f: $(wc -l <"$tmp/$f.folded") lines, the reader's largest:"
			grep '^kp-reader' "$tmp/$f.folded" | sort -k2 -n | tail -n 4 | cut -c1-900 |
				sed "s/^/# $f: /"
		done
		sed 's/^/# offwaketime: /' "$tmp/bccw.err" | tail -n 5
		grep -i 'waker' "$dbg/stats" | sed 's/^/# /'
	fi
elif [ "${KPROF_BPF_PEERS:-1}" = 0 ]; then
	skip "--wakers against BCC offwaketime" "KPROF_BPF_PEERS=0: make check runs the BPF peers in the generic 6.12 boot"
else
	skip "--wakers against BCC offwaketime" "offwaketime-bpfcc could not run here"
fi
bal=$(grep 'balance (waker)' "$dbg/stats")
echo "# $bal"
check "waker counters balance once stopped (wakes == done + filtered + lost + open)" \
	grep -q 'balance (waker): wakes [1-9][0-9]* ==' <<<"$bal"

# record --off-cpu: a program half spinning, half sleeping, in one recording
"$kprofctl" record --off-cpu -F 999 -o "$tmp/oc.data" -- "$prog" spin 3 \
	>"$tmp/oc.out" 2>"$tmp/oc.err"
rc=$?
sed 's/^/# /' "$tmp/oc.out" "$tmp/oc.err"
check "record --off-cpu exits 0 and says what it blocked" \
	bash -c "[ $rc = 0 ] && grep -q 'Off-CPU: [0-9.]* ms blocked in [1-9][0-9]* stacks' '$tmp/oc.err'"
"$kprofctl" report -i "$tmp/oc.data" --comms kp-spinner >"$tmp/oc.report" 2>&1
wall=$(grep '^# Wall-clock time' "$tmp/oc.report")
echo "$wall"
on=$(sed -n 's/.*on-CPU [0-9.]* ms (\([0-9.]*\)%).*/\1/p' <<<"$wall")
off=$(sed -n 's/.*off-CPU [0-9.]* ms (\([0-9.]*\)%).*/\1/p' <<<"$wall")
read -r _ spin_us _ nap_us <"$tmp/oc.out"
# the program spins as long as it napped, but on a busy host its spins are
# preempted: the shares it measured itself are the reference, not 50 %
share=$(awk -v a="${spin_us:-0}" -v b="${nap_us:-0}" 'BEGIN { if (a + b) printf "%.1f", 100 * a / (a + b) }')
check "report: the on-CPU and off-CPU shares of the wall-clock time within 5 points of the program's own (on-CPU ${on:-?} %, program ${share:-?} %)" \
	awk -v a="${on:-0}" -v b="${off:-0}" -v p="${share:-0}" \
	'BEGIN { exit !(a - p <= 5 && p - a <= 5 && a + b >= 99.8 && a + b <= 100.2) }'
"$kprofctl" folded -i "$tmp/oc.data" >"$tmp/oc.folded" 2>&1
check "folded: one graph, the naps under [off-cpu] (kp_nap, do_nanosleep), the spin beside" \
	bash -c "grep -q '^kp-spinner;\[off-cpu\];.*;kp_nap;.*do_nanosleep' '$tmp/oc.folded' &&
		 grep -v '\[off-cpu\]' '$tmp/oc.folded' | grep -q '^kp-spinner;.*;kp_spin'"
spin_ns=$(grep -v 'off-cpu' "$tmp/oc.folded" | sum - '^kp-spinner;')
nap_ns=$(sum "$tmp/oc.folded" '^kp-spinner;\[off-cpu\];' ';kp_nap;')
echo "# program: spin $spin_us us, naps $nap_us us; folded (ns): spin $spin_ns, naps $nap_ns"
check "folded weighs both in time (ns): on-CPU and kp_nap within 15 % of the program's own times" \
	bash -c "$(declare -f within); within $((spin_ns / 1000)) ${spin_us:-0} 0.85 1.1 &&
		 within $((nap_ns / 1000)) ${nap_us:-0} 0.9 1.1"
if ! within $((spin_ns / 1000)) "${spin_us:-0}" 0.85 1.1; then
	# what the on-CPU weight is made of: samples by period (a late clock
	# timer's sample weighs the expiries it missed), and time outside kp_spin
	"$kprofctl" script -i "$tmp/oc.data" -F comm,period 2>/dev/null |
		awk '$1 == "kp-spinner" { n++; w += $2; if ($2 > 1500000) { l++; lw += $2; if ($2 > mx) mx = $2 } }
		     END { printf "# kp-spinner samples: %d weighing %d ns; %d over 1.5 ms weighing %d ns (largest %d)\n", n, w, l, lw, mx }'
	grep -v 'off-cpu' "$tmp/oc.folded" | grep '^kp-spinner;' | grep -v ';kp_spin' |
		sort -k2 -n | tail -n 5 | cut -c1-300 | sed 's/^/# outside kp_spin: /'
fi
check "folded --no-off-cpu: the samples only; --off-cpu-only: the blocks only" \
	bash -c "! '$kprofctl' folded -i '$tmp/oc.data' --no-off-cpu | grep -q 'off-cpu' &&
		 ! '$kprofctl' folded -i '$tmp/oc.data' --off-cpu-only | grep -vq ';\[off-cpu\];'"
check "flamegraph --colors io draws both" \
	bash -c "'$kprofctl' flamegraph -i '$tmp/oc.data' --colors io -o '$tmp/oc.svg' 2>/dev/null &&
		 grep -q 'off-cpu' '$tmp/oc.svg' && grep -q 'kp_spin' '$tmp/oc.svg'"
out=$("$kprofctl" record --off-cpu -e page-faults -o "$tmp/x.data" -- true 2>&1)
check "record --off-cpu refuses an event that does not weigh time" \
	grep -q "event 'page-faults' is not cpu-clock or task-clock" <<<"$out"
out=$("$kprofctl" record --off-cpu -C 0 -o "$tmp/x.data" -- true 2>&1)
check "record --off-cpu refuses -C" grep -q "not -C 0" <<<"$out"

# start --off-cpu: no reader; debugfs offcpu while it runs, then stop -o
"$prog" 2 >"$tmp/p3.out" &
p3=$!
pids="$pids $p3"
sleep 0.3
"$kprofctl" start --off-cpu -F 99 -p "$p3" >"$tmp/st.err" 2>&1
kill -USR1 "$p3"
wait_for 60 grep -q read_us "$tmp/p3.out"
cat "$dbg/offcpu" >"$tmp/st.live" 2>&1
"$kprofctl" stop -o "$tmp/st.data" >>"$tmp/st.err" 2>&1
kill -TERM "$p3"
wait "$p3" 2>/dev/null
sed 's/^/# start: /' "$tmp/st.err"
check "start --off-cpu: debugfs offcpu has the blocked stacks while the session runs" \
	grep -q '^kp-napper;.*;-;.*do_nanosleep.* [1-9][0-9]*$' "$tmp/st.live"
"$kprofctl" folded -i "$tmp/st.data" >"$tmp/st.folded" 2>&1
check "stop -o: the aggregated profile holds the off-CPU stacks under [off-cpu]" \
	grep -q '^kp-napper;\[off-cpu\];.*;kp_nap;.*do_nanosleep' "$tmp/st.folded"

# bad input: one line naming the value, exit 2 (usage) or 1
bad_input() {
	local desc=$1 want=$2 pat=$3 out code

	shift 3
	out=$("$kprofctl" offcpu "$@" 2>&1 >/dev/null)
	code=$?
	if [ "$code" = "$want" ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q -- "$pat" <<<"$out"; then
		ok "$desc"
	else
		not_ok "$desc (exit $code: $out)"
	fi
}
bad_input "--min-block above --max-block" 2 "min-block 500 is above --max-block 100" \
	--min-block 500 --max-block 100 1
bad_input "an unknown --state" 2 "unknown --state 'X'" --state S,X 1
bad_input "a bad --min-block" 2 "bad --min-block 'ten'" --min-block ten 1
bad_input "-K with -U" 2 "mutually exclusive" -K -U 1
bad_input "no such pid" 2 "999999" -p 999999 1

dmesg | grep -E 'BUG:|WARNING:|Oops|sleeping function called from invalid context' &&
	not_ok "kernel log clean" || ok "kernel log clean"
echo "1..$n"
[ "$failed" = 0 ]
