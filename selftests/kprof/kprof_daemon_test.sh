#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kprofctl daemon against the real module: 2 s intervals of a system-wide
# -g session while hot runs, in three formats; SIGTERM saves the last
# interval.  Each interval's profile decodes alone, starts where the one
# before ended (the kernel's swap times), its files agree (folded counts =
# kprof samples) and are named by their UTC times and sequence; the
# intervals hold every sample the session aggregated; --keep leaves the
# newest; --upload delivers each interval once, in order, through a
# receiver's 503s; a second daemon on the directory is refused; a directory
# it cannot write is reported and sampling goes on.  Prints KTAP; needs
# KPROFCTL and KPROF_KO (tools/guest-selftests.sh sets them).

set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/kprof_lib.sh"
kprofctl=${KPROFCTL:-$here/../../ctl/kprofctl}
hot=$here/progs/hot
tmp=$(mktemp -d /tmp/kprof-daemon.XXXXXX)
victims=
cleanup() {
	[ -n "$victims" ] && kill -9 $victims 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

check() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }
diag() { sed 's/^/# /' "$@"; }

# daemon_for SECONDS ERR CMD...: run the daemon command CMD (kprofctl daemon
# ..., or it under setpriv) with its stderr in ERR, SECONDS after its session
# started SIGTERM it; its exit status in rc
daemon_for() {
	local secs=$1 err=$2 dp

	shift 2
	"$@" 2>"$err" &
	dp=$!
	victims="$victims $dp"
	wait_for 60 sh -c "grep -q 'session .* aggregating' '$err'"
	sleep "$secs"
	kill -TERM $dp
	wait $dp
	rc=$?
	victims=${victims% $dp}
}

echo "TAP version 13"
echo "1..21"

if grep -q '^kprof ' /proc/modules; then
	rmmod kprof || { echo "Bail out! cannot unload kprof"; exit 1; }
fi
insmod "${KPROF_KO:?}" || { echo "Bail out! cannot load ${KPROF_KO}"; exit 1; }

# --- four intervals or more, then SIGTERM -------------------------------------
d=$tmp/profiles
"$hot" 600000 >/dev/null & h=$!
victims=$h
"$kprofctl" daemon -a -g -F 199 -e cpu-clock --interval 2s --output-dir "$d" \
	--format kprof,pprof,folded -v 2>"$tmp/daemon.err" &
dpid=$!
victims="$h $dpid"
# the session is up when status lists it
wait_for 60 sh -c "'$kprofctl' status 2>/dev/null | grep -qE '^ +[0-9]+ +running +aggregate +pid $dpid '"
refused_err=$("$kprofctl" daemon -a -e cpu-clock --interval 2s --output-dir "$d" 2>&1 >/dev/null)
refused_rc=$?
wait_for 60 sh -c "[ \$(ls '$d' | grep -c '\\.kprof\$') -ge 4 ]"
"$kprofctl" status >"$tmp/status.out" 2>&1
kill -TERM $dpid
wait $dpid
rc=$?
kill -9 $h 2>/dev/null
wait $h 2>/dev/null
victims=
diag "$tmp/daemon.err"
check "daemon: runs until SIGTERM, exits 0, its balance ok" \
	"[ $rc = 0 ] && grep -q 'Aggregate balance: .* ok' '$tmp/daemon.err'"
check "status names the daemon under its session, with what it saved" \
	"grep -qE '^session [0-9]+: kprofctl daemon \\(pid $dpid\\), 2 s intervals into $d \\(kprof,pprof,folded\\): [4-9][0-9]* saved, 0 not saved, 0 removed; last [0-9]+: ' '$tmp/status.out'"
diag "$tmp/status.out"
check "a second daemon on the directory: refused in one line naming the first, pid $dpid (exit $refused_rc: $refused_err)" \
	"[ $refused_rc != 0 ] && [ \"\$(printf '%s\n' \"\$refused_err\" | wc -l)\" = 1 ] && printf '%s' \"\$refused_err\" | grep -q \"another daemon (pid $dpid)\""

n_kprof=$(ls "$d" | grep -c '\.kprof$')
n_pprof=$(ls "$d" | grep -c '\.pb\.gz$')
n_folded=$(ls "$d" | grep -c '\.folded$')
check "one file per format per interval ($n_kprof kprof, $n_pprof pprof, $n_folded folded), no temporary left" \
	"[ $n_kprof -ge 5 ] && [ $n_kprof = $n_pprof ] && [ $n_kprof = $n_folded ] && [ -z \"\$(ls -A '$d' | grep -v '^kprof-' | grep -v '^.kprof-daemon.lock\$')\" ]"
ls -l "$d" | diag

# each interval: decodes alone, starts where the one before ended, its
# folded counts are its kprof samples, its name says its sequence
sum=0
prev=
joined=yes
agree=yes
decoded=0
names=yes
i=0
for f in $(ls "$d"/*.kprof | sort -t- -k4); do
	i=$((i + 1))
	base=${f%.kprof}
	cnt=$("$kprofctl" dump --json -i "$f" |
		sed -n 's/.*"type":"AGG".*"count":\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
	sum=$((sum + cnt))
	fsum=$(awk '{ s += $NF } END { print s + 0 }' "$base.folded")
	[ "$fsum" = "$cnt" ] || agree="no: $(basename "$base"): folded $fsum, kprof $cnt"
	"$kprofctl" report -i "$f" --stdio >/dev/null 2>&1 && gzip -t "$base.pb.gz" &&
		decoded=$((decoded + 1))
	start=$("$kprofctl" dump -i "$f" 2>/dev/null | sed -n 's/^# start_time: //p')
	[ -z "$prev" ] || [ "$start" = "$prev" ] || joined="no: $(basename "$f") starts at $start, not $prev"
	prev=$("$kprofctl" dump -i "$f" 2>/dev/null | sed -n 's/^# end_time: //p')
	case $(basename "$f") in
	kprof-[0-9]*T[0-9]*Z-[0-9]*T[0-9]*Z-$(printf '%06d' $i).kprof) ;;
	*) names="no: $(basename "$f") is not interval $i" ;;
	esac
done
agg=$(sed -n 's/.*Aggregate balance: [0-9]* invocations = \([0-9]*\) aggregated.*/\1/p' "$tmp/daemon.err")
check "the intervals hold every sample the session aggregated ($sum = ${agg:-?})" \
	"[ -n '$agg' ] && [ '$sum' = '$agg' ] && [ $sum -gt 0 ] && grep -q 'Intervals: .* all of them: ok' '$tmp/daemon.err'"
check "each interval decodes alone: report -i, and its pprof is whole gzip ($decoded of $i)" "[ $decoded = $i ]"
check "each interval starts where the one before ended ($joined)" "[ '$joined' = yes ]"
check "each interval's folded counts are its kprof samples ($agree)" "[ '$agree' = yes ]"
check "names: kprof-START-END-SEQ, the sequence 1, 2, ... ($names)" "[ '$names' = yes ]"
# the middle intervals are about 2 s (the first and last are partial)
lens=$(for f in $(ls "$d"/*.kprof | sort -t- -k4); do
	"$kprofctl" dump -i "$f" 2>/dev/null |
		awk '/^# start_time:/ { s = $3 } /^# end_time:/ { printf "%.2f\n", ($3 - s) / 1e9 }'
done | sed '1d;$d' | tr '\n' ' ')
check "the middle intervals last the 2 s interval (${lens})" \
	"[ -n '$lens' ] && echo '$lens' | awk '{ for (i = 1; i <= NF; i++) if (\$i < 1.5 || \$i > 2.5) exit 1 }'"
top=$("$kprofctl" report -i "$(ls "$d"/*.kprof | sort -t- -k4 | sed -n 2p)" --stdio --comms hot -U \
	--sort symbol 2>/dev/null | sed -n 's/^ *[0-9.]*%  *\[\.\] \([^ ]*\).*/\1/p' | head -n 1)
check "an interval's profile names hot's frames: hot_leaf on top ($top)" "[ '$top' = hot_leaf ]"

# --- --keep 2: only the newest two intervals stay ---------------------------
k=$tmp/keep
daemon_for 5 "$tmp/keep.err" "$kprofctl" daemon -a -F 99 -e cpu-clock --interval 1s \
	--output-dir "$k" --keep 2 --format folded
kept=$(ls "$k" | grep -c '\.folded$')
last=$(ls "$k" | grep '\.folded$' | sort -t- -k4 | tail -n 1 | sed 's/.*-\([0-9]*\)\.folded$/\1/')
check "--keep 2: two intervals left, the newest among them (exit $rc, $kept left, last $last)" \
	"[ $rc = 0 ] && [ $kept = 2 ] && [ \"\${last:-0}\" -ge 4 ] && grep -q 'removed by retention' '$tmp/keep.err'"
diag "$tmp/keep.err"

# --- short-lived processes: named interval after interval (issue 39) -------
# a hot of 100 ms started every 200 ms or so, under 1 s intervals: the
# mappings the module keeps of each are let go once the intervals that
# name them were read, so the share of hot's samples with an unnamed
# frame does not grow from the second interval to the last full one
u=$tmp/unk
(
	# until killed once the daemon ended (at most a minute)
	stop=$(($(date +%s) + 60))
	while [ "$(date +%s)" -lt $stop ]; do
		"$hot" 100 >/dev/null
		sleep 0.1
	done
) &
lp=$!
victims=$lp
daemon_for 11 "$tmp/unk.err" "$kprofctl" daemon -a -F 499 -e cpu-clock --interval 1s \
	--output-dir "$u" --format folded
kill $lp 2>/dev/null
wait $lp 2>/dev/null
victims=
pkill -x hot 2>/dev/null
# unknown_share FILE: "U T", T samples of comm hot, U of them with [unknown]
unknown_share() {
	awk '/^hot;/ { t += $NF; if (index($0, "[unknown]")) u += $NF }
		END { printf "%d %d\n", u, t }' "$1" 2>/dev/null
}
files=$(ls "$u" | grep '\.folded$' | sort -t- -k4)
second=$(echo "$files" | sed -n 2p)
lastfull=$(echo "$files" | tail -n 2 | head -n 1)
read -r u2 t2 < <(unknown_share "$u/$second")
read -r ul tl < <(unknown_share "$u/$lastfull")
# (+ 1 point, or 4 binomial standard errors of the two shares when more)
check "short-lived processes under 1 s intervals: [unknown] in hot's samples of the last full interval ($ul of $tl) at most the second's ($u2 of $t2) + max(1 point, 4 standard errors) (exit $rc, $(echo "$files" | wc -l) intervals)" \
	"[ $rc = 0 ] && [ \"\${t2:-0}\" -ge 20 ] && [ \"\${tl:-0}\" -ge 20 ] &&
	 awk -v a=$ul -v b=$tl -v c=$u2 -v d=$t2 'BEGIN { p = a / b; q = c / d
		se = sqrt(p * (1 - p) / b + q * (1 - q) / d); t = 4 * se; if (t < 0.01) t = 0.01
		exit !(p <= q + t) }'"
diag "$tmp/unk.err"

# --- --off-cpu: the blocked time beside the samples, per interval -----------
"$here/progs/offcpu_prog" spin 600 >/dev/null & op=$!
victims=$op
o=$tmp/off
daemon_for 4 "$tmp/off.err" "$kprofctl" daemon -p $op -F 199 -e cpu-clock --off-cpu \
	--interval 1s --output-dir "$o" --format folded,kprof
kill -9 $op 2>/dev/null
wait $op 2>/dev/null
victims=
# the middle intervals: kp_nap's blocked ns and kp_spin's, both there
mid=$(ls "$o" | grep '\.folded$' | sort -t- -k4 | sed -n 2p)
nap=$(grep '\[off-cpu\].*kp_nap' "$o/$mid" 2>/dev/null | awk '{ s += $NF } END { print s + 0 }')
spin=$(grep -v '\[off-cpu\]' "$o/$mid" 2>/dev/null | grep 'kp_spin' | awk '{ s += $NF } END { print s + 0 }')
check "--off-cpu: an interval holds kp_nap's off-CPU time and kp_spin's samples (exit $rc; $mid: $nap ns blocked in kp_nap, $spin ns in kp_spin)" \
	"[ $rc = 0 ] && [ -n '$mid' ] && [ '$nap' -gt 100000000 ] && [ '$spin' -gt 100000000 ]"
diag "$tmp/off.err"

# --- --upload: each interval once, in order, through the server's 503s -----
# The receiver (pyroscope_rx.py) checks Pyroscope's /ingest parameters and
# answers 503 to the first three: the sender backs off (1, 2, 4 s) while
# intervals spool behind them, and SIGTERM's last delivery sends the rest.
rx=$tmp/rx
python3 "$here/pyroscope_rx.py" "$rx.port" "$rx.log" --fail 3 &
rxpid=$!
victims=$rxpid
wait_for 30 test -s "$rx.port"
port=$(cat "$rx.port" 2>/dev/null)
u=$tmp/up
daemon_for 6 "$tmp/up.err" "$kprofctl" daemon -a -F 99 -e cpu-clock --interval 1s \
	--output-dir "$u" --format folded --upload "http://127.0.0.1:${port:-1}" \
	--tag env=kprof-test --upload-timeout 5s
kill $rxpid 2>/dev/null
wait $rxpid 2>/dev/null
victims=
diag "$tmp/up.err" "$rx.log"
# the intervals' starts, from the names; what arrived with 200, in order
starts=$(ls "$u" | grep '\.folded$' | sort -t- -k4 | sed 's/^kprof-\([0-9T]*Z\)-.*/\1/' |
	while read -r t; do date -u -d "$(echo "$t" | sed 's/^\(....\)\(..\)\(..\)T\(..\)\(..\)\(..\)Z$/\1-\2-\3 \4:\5:\6/')" +%s; done | tr '\n' ' ')
got=$(python3 -c '
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
print(" ".join(str(r["from"]) for r in recs if r["status"] == 200))' "$rx.log" 2>/dev/null)
check "--upload: every interval arrived once, in order (exit $rc; intervals from $starts; arrived $got)" \
	"[ $rc = 0 ] && [ -n '$starts' ] && [ '$starts' = '$got ' ]"
read -r n503 nbad name rate <<<"$(python3 -c '
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
ok = [r for r in recs if r["status"] == 200]
print(sum(r["status"] == 503 for r in recs), sum(bool(r["bad"]) for r in recs),
      ok[0]["name"] if ok else "-", ok[0]["rate"] if ok else 0)' "$rx.log" 2>/dev/null)"
check "--upload: the server's three 503s retried, no request malformed ($n503 503s, $nbad bad)" \
	"[ '$n503' = 3 ] && [ '$nbad' = 0 ]"
want="kprof{env=kprof-test,hostname=$(uname -n),kernel=$(uname -r)}"
check "--upload: named $want at 99 Hz ($name, $rate)" "[ '$name' = '$want' ] && [ '$rate' = 99 ]"
check "--upload: nothing left in the spool or the outbox" \
	"[ -z \"\$(ls '$u/.spool' | grep '\\.pprof\$')\" ] && [ -z \"\$(ls -A '$u/.spool/.outbox')\" ]"

# --- the unit's capability set: another user's process named ---------------
# kprof-daemon.service runs as root with only CapabilityBoundingSet's
# capabilities: under exactly those (setpriv), a process of another user
# has its frames named; without CAP_SYS_PTRACE its maps cannot be read
# and its user frames are not (what the unit needs it for).
unit=$here/../../tools/systemd/kprof-daemon.service
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit" 2>/dev/null | tr 'A-Z' 'a-z' |
	sed 's/cap_//g; s/^/+/; s/ /,+/g')
# unit_top SET DIR: hot_leaf's samples in the second interval of a daemon
# under bounding set SET following nobody's hot
unit_top() {
	setpriv --reuid 65534 --regid 65534 --clear-groups "$hot" 600000 >/dev/null &
	local hp=$! mid
	victims=$hp
	daemon_for 3 "$2.err" setpriv --bounding-set "-all,$1" --inh-caps -all "$kprofctl" \
		daemon -p $hp -F 199 -e cpu-clock --interval 1s --output-dir "$2" --format folded
	kill -9 $hp 2>/dev/null
	wait $hp 2>/dev/null
	victims=
	mid=$(ls "$2" 2>/dev/null | grep '\.folded$' | sort -t- -k4 | sed -n 2p)
	grep 'hot_leaf' "$2/$mid" 2>/dev/null | awk '{ s += $NF } END { print s + 0 }'
}
if [ -n "$caps" ] && command -v setpriv >/dev/null; then
	with=$(unit_top "$caps" "$tmp/caps")
	without=$(unit_top "$(echo "$caps" | sed 's/,*+sys_ptrace//; s/^,//')" "$tmp/noptrace")
	check "the unit's capabilities ($caps): another user's hot_leaf named (samples $with)" \
		"[ '$with' -gt 0 ]"
	diag "$tmp/caps.err"
	check "without CAP_SYS_PTRACE: its maps unread, hot_leaf not named (samples $without)" \
		"[ '$without' = 0 ] && ls '$tmp/noptrace' | grep -q '\\.folded\$'"
	diag "$tmp/noptrace.err"
else
	skip "the unit's capability set" "no setpriv or no CapabilityBoundingSet in $unit"
	skip "without CAP_SYS_PTRACE" "no setpriv"
fi

# --- a directory it cannot write: reported, sampling goes on ------------------
# (as another user with CAP_PERFMON: root writes a read-only directory)
ro=$tmp/ro
chmod 0755 "$tmp"
mkdir -p "$ro"
: >"$ro/.kprof-daemon.lock"
chmod 0666 "$ro/.kprof-daemon.lock"
chmod 0555 "$ro"
if command -v setpriv >/dev/null &&
   setpriv --reuid 65534 --inh-caps +perfmon --ambient-caps +perfmon true 2>/dev/null; then
	daemon_for 3 "$tmp/ro.err" setpriv --reuid 65534 --regid 65534 --clear-groups \
		--inh-caps +perfmon --ambient-caps +perfmon "$kprofctl" daemon -a -F 99 \
		-e cpu-clock --interval 1s --output-dir "$ro" --format kprof
	check "an unwritable directory: the failure reported once, the session runs on and stops with its balance (exit $rc)" \
		"[ $rc = 0 ] && [ \"\$(grep -c 'not saved: ' '$tmp/ro.err')\" = 1 ] && grep -q 'Aggregate balance: .* ok' '$tmp/ro.err' && grep -q ' [1-9][0-9]* not saved,' '$tmp/ro.err' && [ -z \"\$(ls '$ro')\" ]"
	diag "$tmp/ro.err"
else
	skip "an unwritable directory" "setpriv cannot give another user CAP_PERFMON here"
fi

[ $failed = 0 ]
