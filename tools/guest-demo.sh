#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of `make demo`: load kprof.ko, show what kprofctl and
# debugfs say about it, and record a program with known hot functions.

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
ko=${1:?usage: guest-demo.sh KPROF_KO}
kprofctl=$top/ctl/kprofctl
out=$top/build/demo
mkdir -p "$out"

run() {
	echo
	echo "guest# $*"
	"$@"
}

run uname -r
run insmod "$ko"
run "$kprofctl" version
run "$kprofctl" status
run ls -l /dev/kprof
echo
echo "guest# setpriv --reuid=nobody --regid=nogroup --clear-groups $kprofctl status"
setpriv --reuid=nobody --regid=nogroup --clear-groups "$kprofctl" status || true

run "$kprofctl" record -g -F 999 -o "$out/kprof.data" -- \
	"$top/selftests/kprof/progs/hot" 2000
echo
echo "guest# $kprofctl report -i $out/kprof.data --stdio --percent-limit 2"
"$kprofctl" report -i "$out/kprof.data" --stdio --percent-limit 2 | head -30
run "$kprofctl" flamegraph -i "$out/kprof.data" -o "$out/flamegraph.svg" \
	--title "kprof demo: selftests/kprof/progs/hot"
run cat /sys/kernel/debug/kprof/stats
run rmmod kprof
echo
echo "guest# $kprofctl status"
"$kprofctl" status || true
echo
echo "The recording is build/demo/kprof.data ('ctl/kprofctl report -i build/demo/kprof.data')."
echo "The flame graph is build/demo/flamegraph.svg: open it in a web browser."
