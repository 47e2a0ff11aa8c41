#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kprofctl's aggregation mode against the real module: 'kprofctl start'
# aggregates with no reader attached, 'report --live' and 'folded --live'
# read the tables of the running session and name user frames with libelf,
# /sys/kernel/debug/kprof/report works meanwhile, 'stop -o' saves the
# profile for 'report -i', the folded counts add up to the aggregate
# counters, and bad input gets one-line errors.  Prints KTAP; needs
# KPROFCTL and KPROF_KO (tools/guest-selftests.sh sets them).

set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/kprof_lib.sh"
kprofctl=${KPROFCTL:-$here/../../ctl/kprofctl}
hot=$here/progs/hot
debugfs=/sys/kernel/debug/kprof
tmp=$(mktemp -d /tmp/kprof-aggctl.XXXXXX)
victim=
cleanup() {
	[ -n "$victim" ] && kill $victim 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

check() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }
diag() { sed 's/^/# /' "$@"; }

# The top symbol of comm hot's (or $comm's) user frames in 'kprofctl report ARGS'.
top_user_symbol() {
	"$kprofctl" report "$@" --comms "${comm:-hot}" -U --sort symbol >"$tmp/report.out" \
		2>"$tmp/report.err" || return 1
	sed -n 's/^ *[0-9.]*%  *\[\.\] \([^ ]*\).*/\1/p' "$tmp/report.out" | head -n 1
}

# refused DESC PATTERN CMD...: fails, one line on stderr matching PATTERN
refused() {
	local desc=$1 pattern=$2 err rc

	shift 2
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
	if [ $rc != 0 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] &&
	   printf '%s\n' "$err" | grep -qE -- "$pattern"; then
		ok "$desc"
	else
		not_ok "$desc (rc=$rc)"
	fi
	printf '%s\n' "$err" | sed 's/^/# /'
}

echo "TAP version 13"
echo "1..37"

# A freshly loaded module: an earlier test may have left a stopped session.
if grep -q '^kprof ' /proc/modules; then
	"$kprofctl" stop >/dev/null 2>&1
	rmmod kprof || { echo "Bail out! cannot unload kprof"; exit 1; }
fi
insmod "${KPROF_KO:?}" || { echo "Bail out! cannot load ${KPROF_KO}"; exit 1; }
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug 2>/dev/null

# --- no session yet (a freshly loaded module) ---------------------------------
refused "report --live without a session: one line" "no session" "$kprofctl" report --live

# --- start: aggregate, nobody attached ----------------------------------------
# 32K entries a CPU: the session samples the whole guest for two minutes,
# every kprofctl run of this test included (each a process of its own,
# thousands of stacks deep in libelf): the default 8K filled one CPU's
# table once (27,336 samples lost to it), and the gone process's with it.
# The default's capacity is kprof_memory_test.sh's.
if "$kprofctl" start -a -g -e cpu-clock -F 999 --agg-entries 32K >"$tmp/start.out" 2>&1 &&
   grep -qE 'aggregating in the kernel \(32768 entries per CPU on [0-9]+ CPUs?: [0-9]+ [KMG]iB\)' \
	"$tmp/start.out"; then
	ok "start -a -g -e cpu-clock: aggregates, prints the tables' memory"
else
	not_ok "start -a -g -e cpu-clock: aggregates, prints the tables' memory"
fi
diag "$tmp/start.out"
"$kprofctl" status >"$tmp/status.out" 2>&1
check "status: mode aggregate, no reader, nothing streamed" \
	"grep -q '^mode: *aggregate' '$tmp/status.out' && grep -q '^readers: *0 open' '$tmp/status.out' && ! grep -q '^samples:' '$tmp/status.out'"
diag "$tmp/status.out"

# killed after stop -o: they must live until then (the guest clock may jump)
"$hot" 600000 >/dev/null &
victim=$!
"$here/progs/vdso" 600000 &
victim="$victim $!"
sleep 2.5

# --- while it runs --------------------------------------------------------------
sym=$(top_user_symbol --live)
check "report --live: hot_leaf is comm hot's top user symbol" "[ '$sym' = hot_leaf ]"
[ "$sym" = hot_leaf ] || diag "$tmp/report.out" "$tmp/report.err"
check "report --live: no reader left attached" \
	"'$kprofctl' status | grep -q '^readers: *0 open'"

# [vdso] frames: the live profile carries this kernel's vDSO image
"$kprofctl" report --live --stdio --comms vdso -U --sort dso,symbol >"$tmp/vdso.out" 2>&1
if grep -qE '\[vdso\] +\[\.\] +(__vdso_)?clock_gettime' "$tmp/vdso.out"; then
	ok "report --live: clock_gettime in [vdso] is named"
else
	not_ok "report --live: clock_gettime in [vdso] is named"
	head -n 20 "$tmp/vdso.out" | diag
fi

if [ -r "$debugfs/report" ]; then
	cat "$debugfs/report" >"$tmp/debugfs.out" 2>&1
	check "cat $debugfs/report with no reader: hot's frames are there" \
		"grep -q '^# kprof report: session' '$tmp/debugfs.out' && grep -qE '^ +[0-9.]+% +[0-9]+  hot ' '$tmp/debugfs.out'"
	head -n 12 "$tmp/debugfs.out" | diag
else
	skip "cat $debugfs/report with no reader" "no debugfs"
fi

"$kprofctl" folded --live >"$tmp/folded.out" 2>"$tmp/folded.err"
check "folded --live: hot's stacks end in hot_leaf under main" \
	"grep -qE '^hot;.*main;.*hot_outer;hot_middle;hot_leaf(;|\$| )' '$tmp/folded.out'"
[ -s "$tmp/folded.err" ] && diag "$tmp/folded.err"

if "$kprofctl" flamegraph --live -o "$tmp/live.svg" >/dev/null 2>"$tmp/flame.err" &&
   grep -q 'hot_leaf' "$tmp/live.svg"; then
	ok "flamegraph --live: an SVG with hot_leaf"
else
	not_ok "flamegraph --live: an SVG with hot_leaf"
	diag "$tmp/flame.err"
fi

# --- a process that is gone: the module kept its mappings -----------------------
# (a copy of hot under another name, run to completion while the session runs)
cp "$hot" "$tmp/gone"
"$tmp/gone" 1500 >/dev/null
sleep 0.5	# the work item names the kept mappings
"$kprofctl" status --json >"$tmp/st-gone.json" 2>&1
kept=$(sed -n 's/.*"kept_maps":{"kept":\([0-9]*\),"procs":\([0-9]*\).*/\1 \2/p' "$tmp/st-gone.json")
check "status: the exited process's mappings are kept (kept, procs: ${kept:-none})" \
	"[ -n '$kept' ] && [ \$(echo $kept | cut -d' ' -f2) -ge 1 ]"
"$kprofctl" status | grep '^kept maps' | diag
if [ -r "$debugfs/report" ]; then
	cat "$debugfs/report" >"$tmp/debugfs-gone.out" 2>&1
	check "debugfs report: the gone process's frames read dso+0xOFFSET, not [unknown]" \
		"grep -qE ' gone +\[\.\] $tmp/gone\+0x[0-9a-f]+' '$tmp/debugfs-gone.out'"
	grep -E ' gone ' "$tmp/debugfs-gone.out" | head -n 5 | diag
else
	skip "debugfs report: the gone process's frames" "no debugfs"
fi
sym=$(comm=gone top_user_symbol --live)
check "report --live: the gone process's top user symbol is hot_leaf ($sym)" \
	"[ '$sym' = hot_leaf ]"
[ "$sym" = hot_leaf ] || diag "$tmp/report.out" "$tmp/report.err"
"$kprofctl" folded --live >"$tmp/folded-gone.out" 2>&1
check "folded --live: the gone process's stacks are named" \
	"grep -qE '^gone;.*main;.*hot_outer;hot_middle;hot_leaf(;|\$| )' '$tmp/folded-gone.out'"

# --- kptr_restrict=2: no kernel address leaves the module ----------------------
kptr=$(cat /proc/sys/kernel/kptr_restrict)
echo 2 > /proc/sys/kernel/kptr_restrict
cat "$debugfs/folded" >"$tmp/folded-kptr.out" 2>&1
"$kprofctl" folded --live >"$tmp/live-kptr.out" 2>&1
echo "$kptr" > /proc/sys/kernel/kptr_restrict
check "kptr_restrict=2: debugfs folded has kernel names, no kernel address" \
	"grep -q '_\[k\]' '$tmp/folded-kptr.out' && ! grep -qi '0xffffffff' '$tmp/folded-kptr.out'"
check "kptr_restrict=2: AGG_DUMP sends no kernel address (folded --live)" \
	"[ -s '$tmp/live-kptr.out' ] && ! grep -qi 'ffffffff' '$tmp/live-kptr.out'"
grep '_\[k\]' "$tmp/live-kptr.out" | head -n 3 | diag

# --- stop -o while hot still runs, so that its mappings are saved --------------
"$kprofctl" stop -o "$tmp/agg.data" >"$tmp/stop.out" 2>&1
rc=$?
kill $victim 2>/dev/null
wait $victim 2>/dev/null
victim=
check "stop -o: exit 0, the aggregate balance holds, the file written" \
	"[ $rc = 0 ] && grep -q 'Aggregate balance: .* ok' '$tmp/stop.out' && grep -q 'Wrote .*agg.data' '$tmp/stop.out'"
diag "$tmp/stop.out"
check "dump: a valid version 4 file (AGG records, the vDSO image)" \
	"'$kprofctl' dump -i '$tmp/agg.data' >'$tmp/dump.out' 2>&1 && grep -q '^# version: 4' '$tmp/dump.out' && grep -q '^# vdso: [0-9]* bytes' '$tmp/dump.out' && grep -q ': AGG misc=' '$tmp/dump.out' && grep -q '^# end: .* records\$' '$tmp/dump.out'"

sym=$(top_user_symbol -i "$tmp/agg.data")
check "report -i the saved profile: the same top symbol, hot gone" "[ '$sym' = hot_leaf ]"
[ "$sym" = hot_leaf ] || diag "$tmp/report.out" "$tmp/report.err"
sym=$(comm=gone top_user_symbol -i "$tmp/agg.data")
check "report -i the saved profile: the process gone before stop is named too ($sym)" \
	"[ '$sym' = hot_leaf ]"
check "stop -o: the gone process was written with its kept mappings" \
	"grep -qE 'gone, [1-9][0-9]* of them with kept mappings' '$tmp/stop.out'"

# --- the counts: saved, the session is freed; its counters still answer ----------
"$kprofctl" folded --live >"$tmp/folded2.out" 2>"$tmp/folded2.err"
rc=$?
"$kprofctl" status --json >"$tmp/st-freed.json" 2>&1
agg_samples=$(sed -n 's/.*"stats":{[^}]*"agg_samples":\([0-9]*\).*/\1/p' "$tmp/st-freed.json")
mem=$(sed -n 's/.*"memory":\([0-9]*\),"memory_budget".*/\1/p' "$tmp/st-freed.json")
check "stop -o freed the saved tables: folded --live finds no session (rc=$rc), status counts no memory (${mem:-?} B)" \
	"[ $rc != 0 ] && grep -q 'no session' '$tmp/folded2.err' && [ '${mem:-x}' = 0 ]"
diag "$tmp/folded2.err"
check "status still reports the freed session's aggregated samples (${agg_samples:-none})" \
	"[ -n '$agg_samples' ] && [ '$agg_samples' -gt 0 ]"
file_sum=$("$kprofctl" dump --json -i "$tmp/agg.data" |
	sed -n 's/.*"type":"AGG".*"count":\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
check "the AGG counts of the file add up to agg_samples too ($file_sum)" \
	"[ '$file_sum' = '$agg_samples' ]"

# --- a streaming session: --live refuses it -----------------------------------
"$kprofctl" start -a --events cpu-clock -F 99 --mode stream -o "$tmp/stream.data" >/dev/null 2>&1
refused "report --live on a streaming session: one line" "does not aggregate" \
	"$kprofctl" report --live
"$kprofctl" stop >/dev/null 2>&1

# --- one session in both modes: the stream and the tables name the same stacks ---
# A shell that burns CPU in itself, then execs a copy of hot (its frames
# before the exec are the shell's image, after it hot's), and the drainer
# (a kprofctl process sampled too, which exits after the stop, before
# stop -o reads the tables): every sample the stream holds, the tables hold
# on the same stack, named (the module keeps the mappings of what exec'd
# and, at the stop, of everything still alive).
cp "$hot" "$tmp/execd"
if "$kprofctl" start --mode both -a -g -e cpu-clock -F 999 -o "$tmp/both.data" \
	>"$tmp/both-start.out" 2>&1; then
	sh -c 'i=0; while [ $i -lt 40000 ]; do i=$((i + 1)); done; exec "$0" 1500' \
		"$tmp/execd" >/dev/null
	"$kprofctl" stop -o "$tmp/both-agg.data" >"$tmp/both-stop.out" 2>&1
	rc=$?
else
	rc=start
fi
diag "$tmp/both-start.out" "$tmp/both-stop.out"
# the stream's chains as recorded: its samples carry the stack copy of the
# leaf fix-up, the tables not yet (Documentation/sampling.rst)
"$kprofctl" folded -i "$tmp/both.data" --no-leaf-fixup >"$tmp/both-stream.folded" \
	2>"$tmp/both-stream.err"
"$kprofctl" folded -i "$tmp/both-agg.data" >"$tmp/both-agg.folded" 2>"$tmp/both-agg.err"
# both_diff: "stream_total tables_total differing", differing = the samples
# whose frames one side has more of than the other.  The frames only: the
# task names differ by design (the stream names pid 0 "swapper" and a
# kworker as /proc does, "kworker/u8:1-events"; the tables as the task was
# called, "swapper/1", "kworker/u8:1"), and a sample at an exec's
# perf_event_comm() may have the new name in the tables and the old one in
# the stream, whose COMM is dated there.
#
# One exception, counted apart: a sample inside execve past its point of
# no return (load_elf_binary: the old address space freed, the user
# registers still the old image's).  The stream names its user frame from
# the old image's mappings; the tables only when the module kept them, and
# it keeps an image only of a process sampled before (a child that a
# shell forked and that is sampled first after that point has none kept,
# which a busy host makes more likely: seen 2 of 10444 under
# KPROF_CHECK_LOAD=2).
both_diff() {
	awk '{ n = $NF; $NF = ""; k = $0; sub(/^[^;]*/, "", k)
	       x = index(k, ";bprm_execve;load_elf_binary") ? 1 : 0 }
	     FNR == NR { a[k] += n; ta += n; ax[k] = x; next }
	     { b[k] += n; tb += n; bx[k] = x }
	     END { for (k in a) { d = a[k] - b[k]; if (d > 0) { if (ax[k]) ex += d; else diff += d } }
		   for (k in b) { d = b[k] - a[k]; if (d > 0) { if (bx[k]) ex += d; else diff += d } }
		   print ta + 0, tb + 0, diff / 2, ex / 2 }' "$tmp/both-stream.folded" "$tmp/both-agg.folded"
}
read -r ta tb differ inexec <<<"$(both_diff)"
check "start --mode both, stop -o: the stream and the tables hold the same samples ($ta, $tb) on the same frames ($differ differ; $inexec more inside an exec's load_elf_binary)" \
	"[ '$rc' = 0 ] && [ '${ta:-0}' -gt 0 ] && [ '$ta' = '$tb' ] && [ '$differ' = 0 ] && [ \$(( ${inexec%.*} * 1000 )) -le '$ta' ]"
if [ "${differ:-x}" != 0 ]; then
	awk '{ n = $NF; $NF = ""; sub(/^[^;]*/, ""); print $0 "|" n }' "$tmp/both-stream.folded" |
		sort >"$tmp/s.sorted"
	awk '{ n = $NF; $NF = ""; sub(/^[^;]*/, ""); print $0 "|" n }' "$tmp/both-agg.folded" |
		sort >"$tmp/t.sorted"
	diff "$tmp/s.sorted" "$tmp/t.sorted" | head -n 20 | cut -c1-240 | diag
fi
check "start --mode both: the shell's frames before its exec are not named from hot's image, hot's after it are" \
	"grep -q '^sh;' '$tmp/both-agg.folded' && ! grep '^sh;' '$tmp/both-agg.folded' | grep -q 'hot_' && grep -qE '^execd;.*main;.*hot_outer;hot_middle;hot_leaf' '$tmp/both-agg.folded'"
grep -E '^(sh|execd);' "$tmp/both-agg.folded" | sort -k2 -n | tail -n 4 | cut -c1-200 | diag

# --- intervals: start --intervals, rotate -o each interval (kprof.ko ABI 1.15) ----
# Three intervals of hot, each saved by a rotation while the session goes
# on, and the last by stop -o (which closes it with a swap after the
# stop): the four files hold every sample the session counted, each has
# hot's stacks named, and each starts where the one before it ended.
"$kprofctl" start --intervals -a -g -e cpu-clock -F 999 >"$tmp/iv-start.out" 2>&1
rc=$?
for i in 1 2 3; do
	"$hot" 400 >/dev/null
	"$kprofctl" rotate -o "$tmp/iv$i.data" >"$tmp/iv$i.out" 2>&1 || rc="rotate $i"
done
"$kprofctl" stop -o "$tmp/iv4.data" >"$tmp/iv-stop.out" 2>&1 || rc=stop
diag "$tmp/iv-start.out" "$tmp/iv1.out" "$tmp/iv-stop.out"
"$kprofctl" status --json >"$tmp/iv-st.json" 2>&1
iv_samples=$(sed -n 's/.*"stats":{[^}]*"agg_samples":\([0-9]*\).*/\1/p' "$tmp/iv-st.json")
iv_sum=0
iv_hot=0
iv_prev=
iv_joined=yes
for i in 1 2 3 4; do
	cnt=$("$kprofctl" dump --json -i "$tmp/iv$i.data" |
		sed -n 's/.*"type":"AGG".*"count":\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
	iv_sum=$((iv_sum + cnt))
	[ $i = 4 ] || [ "$(top_user_symbol -i "$tmp/iv$i.data")" != hot_leaf ] || iv_hot=$((iv_hot + 1))
	start=$("$kprofctl" dump -i "$tmp/iv$i.data" 2>/dev/null | sed -n 's/^# start_time: //p')
	[ -z "$iv_prev" ] || [ "$start" = "$iv_prev" ] || iv_joined="no: interval $i starts at $start, not $iv_prev"
	iv_prev=$("$kprofctl" dump -i "$tmp/iv$i.data" 2>/dev/null | sed -n 's/^# end_time: //p')
done
check "start --intervals, rotate -o thrice, stop -o: the files hold the session's samples (${iv_samples:-?} = $iv_sum)" \
	"[ '$rc' = 0 ] && [ -n '$iv_samples' ] && [ '$iv_samples' -gt 0 ] && [ '$iv_sum' = '$iv_samples' ]"
check "rotate -o: each interval's file has hot's stacks, hot_leaf on top ($iv_hot of 3)" "[ $iv_hot = 3 ]"
check "rotate -o: each interval starts where the one before ended ($iv_joined)" "[ '$iv_joined' = yes ]"
check "start --intervals: says it aggregates in intervals, with two halves of tables" \
	"grep -q 'in intervals (.*two halves' '$tmp/iv-start.out'"
"$kprofctl" start -a -e cpu-clock -F 99 >/dev/null 2>&1
refused "rotate of a session started without --intervals: one line" "not started with --intervals" \
	"$kprofctl" rotate -o "$tmp/none.data"
"$kprofctl" stop >/dev/null 2>&1
refused "rotate without -o: one line" "-o/--output is needed" "$kprofctl" rotate
refused "start --intervals of a stream: one line" "needs an aggregating session" \
	"$kprofctl" start --intervals --mode stream -e cpu-clock -o "$tmp/s.data"

# --- bad input -------------------------------------------------------------------
refused "bad input: --agg-entries not a power of two" "'1000'.*power of two" \
	"$kprofctl" start --agg-entries 1000
refused "bad input: --agg-entries above 4M" "'8M'.*maximum" "$kprofctl" start --agg-entries 8M
refused "bad input: an unknown mode" "'aggregated'" "$kprofctl" start --mode aggregated
refused "bad input: record cannot aggregate only" "aggregate" \
	"$kprofctl" record --mode aggregate -- true

[ $failed = 0 ]
