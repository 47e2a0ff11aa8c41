#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of `make demo`: load kprof.ko and show what kprofctl and
# debugfs say about it.

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
ko=${1:?usage: guest-demo.sh KPROF_KO}
kprofctl=$top/ctl/kprofctl

run() {
	echo
	echo "guest# $*"
	"$@"
}

run uname -r
run insmod "$ko"
run "$kprofctl" version
run "$kprofctl" status
run cat /sys/kernel/debug/kprof/status
run ls -l /dev/kprof
echo
echo "guest# setpriv --reuid=nobody --regid=nogroup --clear-groups $kprofctl status"
setpriv --reuid=nobody --regid=nogroup --clear-groups "$kprofctl" status || true
run rmmod kprof
echo
echo "guest# $kprofctl status"
"$kprofctl" status || true
