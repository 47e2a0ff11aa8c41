#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kprofctl record for production use, against the real module: the
# build-id cache (a recorded binary replaced by another still names its
# frames; without the cache it is refused, not misread), and --switch-output: 20 switches on
# SIGUSR2 of a 999 Hz -a -g recording with two busy programs beside it;
# the samples of all the files add up to what the module stored, with
# nothing lost; every file decodes alone (each one names the hot program's
# functions from its own re-synthesized side-band); then rotation by size
# with --switch-max-files, and by time.  Prints KTAP; needs KPROFCTL and
# KPROF_KO (tools/guest-selftests.sh sets them).

set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/kprof_lib.sh"
kprofctl=${KPROFCTL:-$here/../../ctl/kprofctl}
tmp=$(mktemp -d /tmp/kprof-switch.XXXXXX)
hot_pids=
cleanup() {
	[ -n "$hot_pids" ] && kill $hot_pids 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

nr_files() { local f n=0; for f in "$1"/kprof.data.*; do [ -e "$f" ] && n=$((n + 1)); done; echo $n; }
# has_files DIR N: at least N finished files in DIR (for wait_for)
has_files() { [ "$(nr_files "$1")" -ge "$2" ]; }
# stored ERRFILE: the module's stored count, from record's Balance line
stored() { sed -n 's/.*Balance: [0-9]* invocations = \([0-9]*\) stored + \([0-9]*\) lost.*/\1 \2/p' "$1"; }

echo "TAP version 13"
echo "1..16"

kt_load
"$kprofctl" stop >/dev/null 2>&1

# Two busy programs started before the recording: only the synthesized
# side-band of each file can name them.
"$here/progs/hot" 600000 >/dev/null & hot_pids="$hot_pids $!"
"$here/progs/hot" 600000 >/dev/null & hot_pids="$hot_pids $!"

# --- 20 switches on SIGUSR2 ---------------------------------------------------
d=$tmp/sig
mkdir "$d"
"$kprofctl" record -a -g -F 999 -e cpu-clock -o "$d/kprof.data" --switch-output \
	>"$tmp/sig.out" 2>"$tmp/sig.err" &
rec=$!
wait_for 60 test -s "$d/kprof.data"
switched=0
for i in $(seq 20); do
	sleep 0.3
	kill -USR2 $rec
	# one switch at a time: signals sent faster than a switch would merge
	wait_for 60 has_files "$d" "$i" && switched=$i
done
sleep 0.3
kill -INT $rec
wait $rec
rc=$?
nf=$(nr_files "$d")
if [ $rc = 0 ] && [ "$switched" = 20 ] && [ "$nf" = 21 ]; then
	ok "switch-output: 20 SIGUSR2, 21 files"
else
	not_ok "switch-output: 20 SIGUSR2, 21 files (rc=$rc, switched $switched, $nf files)"
	sed 's/^/# /' "$tmp/sig.err"
fi
check "switch-output: no kprof.data left, the last file renamed too" test ! -e "$d/kprof.data"

read -r st lost <<< "$(stored "$tmp/sig.err")"
total=0 alone=0 named=0 with_hot=0
for f in "$d"/kprof.data.*; do
	# one report a file: it decodes alone, its sample count, and hot's
	# hottest user symbol named from this file's own side-band
	"$kprofctl" report -i "$f" --stdio >"$tmp/report" 2>&1 && alone=$((alone + 1))
	c=$(sed -n 's/^# Samples: \([0-9]*\) .*/\1/p' "$tmp/report" | head -1)
	total=$((total + ${c:-0}))
	top=$(kt_top_user "$tmp/report" hot)
	if [ -n "$top" ]; then
		with_hot=$((with_hot + 1))
		if [ "$top" = hot_leaf ]; then
			named=$((named + 1))
		else
			echo "# $f: hot's top user symbol is '$top'"
			head -15 "$tmp/report" | sed 's/^/#   /'
		fi
	fi
done
if [ -n "${st:-}" ] && [ "$total" = "$st" ] && [ "$total" -gt 0 ]; then
	ok "switch-output: the 21 files hold $total samples, the module stored $st"
else
	not_ok "switch-output: the 21 files hold $total samples, the module stored ${st:-?}"
fi
check "switch-output: nothing lost ($lost)" test "${lost:-1}" = 0
check "switch-output: the Balance line is ok, no WARNING" \
	sh -c "grep -q 'Balance: .* ok' '$tmp/sig.err' && ! grep -q WARNING '$tmp/sig.err'"
check "switch-output: every file decodes alone ($alone of $nf)" test "$alone" = "$nf"
if [ "$with_hot" -ge 15 ] && [ "$named" = "$with_hot" ]; then
	ok "switch-output: in each of $with_hot files with hot's samples, hot_leaf is its top user symbol"
else
	not_ok "switch-output: hot_leaf names hot's top user symbol in $named of $with_hot files"
fi
dumps=$(grep -c '^\[ kprof record: Dump ' "$tmp/sig.err")
check "switch-output: a Dump line per switch ($dumps)" test "$dumps" = 20

# --- by size, the newest 3 kept ------------------------------------------------
d=$tmp/size
mkdir "$d"
"$kprofctl" record -a -g -F 999 -e cpu-clock -o "$d/kprof.data" --switch-output=256K \
	--switch-max-files 3 -- sleep 6 >"$tmp/size.out" 2>"$tmp/size.err"
rc=$?
dumps=$(grep -c '^\[ kprof record: Dump ' "$tmp/size.err")
nf=$(nr_files "$d")
if [ $rc = 0 ] && [ "$dumps" -ge 3 ] && [ "$nf" = 3 ]; then
	ok "switch-output=256K --switch-max-files 3: $dumps switches, 3 files kept"
else
	not_ok "switch-output=256K --switch-max-files 3: $dumps switches, $nf files kept (rc=$rc)"
	sed 's/^/# /' "$tmp/size.err"
fi
big=0
for f in "$d"/kprof.data.*; do
	# a file ends at the first wake-up past 256 KiB: never far past it
	s=$(stat -c %s "$f")
	[ "$s" -gt $((4 * 1024 * 1024)) ] && big=$((big + 1))
done
check "switch-output=256K: no file grows past the buffer's 4 MiB beyond its size" test "$big" = 0
check "switch-output=256K: the session balances (the last file's samples_before)" \
	sh -c "grep -q 'Balance: .* ok' '$tmp/size.err' && ! grep -q WARNING '$tmp/size.err'"

# --- by time --------------------------------------------------------------------
d=$tmp/time
mkdir "$d"
"$kprofctl" record -e cpu-clock -F 999 -g -o "$d/kprof.data" --switch-output=1s -- \
	"$here/progs/hot" 3500 >"$tmp/time.out" 2>"$tmp/time.err"
rc=$?
nf=$(nr_files "$d")
if [ $rc = 0 ] && [ "$nf" -ge 3 ] && grep -q 'Balance: .* ok' "$tmp/time.err" &&
   ! grep -q WARNING "$tmp/time.err"; then
	ok "switch-output=1s: a 3.5 s command in $nf files, balanced"
else
	not_ok "switch-output=1s: a 3.5 s command in $nf files (rc=$rc)"
	sed 's/^/# /' "$tmp/time.err"
fi

# --- the build-id cache: the binary replaced after the recording -------------
export KPROF_BUILDID_DIR=$tmp/bidcache
mkdir "$tmp/bin"
cp "$here/progs/hot" "$tmp/bin/hot"
"$kprofctl" record -e cpu-clock -F 999 -g -o "$tmp/bid.data" -- "$tmp/bin/hot" 800 \
	>/dev/null 2>"$tmp/bid.err"
id=$(readelf -n "$tmp/bin/hot" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
if "$kprofctl" dump -i "$tmp/bid.data" | grep -q ": BUILD_ID .*build_id=$id filename=$tmp/bin/hot\$"; then
	ok "build-id: the recording names hot's build-id ($id)"
else
	not_ok "build-id: the recording names hot's build-id ($id)"
	sed 's/^/# /' "$tmp/bid.err"
fi
check "build-id: record added hot to the cache" \
	sh -c "'$kprofctl' buildid-cache -l | grep -qx '$id $tmp/bin/hot'"
cp "$here/progs/sysread" "$tmp/bin/hot.new" && mv "$tmp/bin/hot.new" "$tmp/bin/hot"
"$kprofctl" report -i "$tmp/bid.data" --stdio --comms hot >"$tmp/bid.report" 2>&1
top=$(kt_top_user "$tmp/bid.report" hot)
if [ "$top" = hot_leaf ]; then
	ok "build-id: hot replaced by another program: report names hot_leaf from the cache"
else
	not_ok "build-id: hot replaced by another program: report names hot_leaf from the cache (top: '$top')"
	head -20 "$tmp/bid.report" | sed 's/^/# /'
fi
KPROF_BUILDID_DIR=$tmp/nocache "$kprofctl" report -i "$tmp/bid.data" --stdio --comms hot \
	>"$tmp/bid2.report" 2>&1
if grep -q "warning: '$tmp/bin/hot' is not the file recorded" "$tmp/bid2.report" &&
   ! grep -q hot_leaf "$tmp/bid2.report"; then
	ok "build-id: without the cache, the other program is refused with a warning, not misread"
else
	not_ok "build-id: without the cache, the other program is refused with a warning, not misread"
	head -20 "$tmp/bid2.report" | sed 's/^/# /'
fi

"$kprofctl" status >/dev/null 2>&1
[ "$failed" = 0 ]
