#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside a kprof-vm guest: the kprof kselftests against the given
# kprof.ko, then a final unload, so that the rig's kernel log scan covers
# the module's whole life.  Prints TAP; exits 0 when it ran to the end.
#
# Usage: tools/guest-selftests.sh PATH/TO/kprof.ko [TEST [ARGS...]]
#
# With TEST (a program of selftests/kprof/), only that test runs, its TAP
# lines prefixed as the kselftest runner prefixes them.

set -u

top=$(cd "$(dirname "$0")/.." && pwd)
ko=$(realpath "${1:?usage: guest-selftests.sh KPROF_KO [TEST [ARGS...]]}")
shift
export KPROF_KO=$ko
export KPROFCTL=$top/ctl/kprofctl

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug

echo "# kernel $(uname -r), $(nproc) CPUs, module $ko"
if [ $# -gt 0 ]; then
	test=$1
	shift
	echo "# selftests: kprof: $test $*"
	"$top/selftests/kprof/$test" "$@" 2>&1 | sed 's/^/# /'
	rc=${PIPESTATUS[0]}
	if [ "$rc" = 0 ]; then
		echo "ok 1 selftests: kprof: $test $*"
	else
		echo "not ok 1 selftests: kprof: $test $* # exit=$rc"
	fi
elif ! make -s -C "$top/selftests/kprof" run_tests \
	KSFT_DIR="$top/build/ksrc/tools/testing/selftests"; then
	echo "# not ok 1 make run_tests"
fi

# The last word: the module must unload cleanly after all of the above.
if grep -q '^kprof ' /proc/modules; then
	if rmmod kprof; then
		echo "# ok 1 final rmmod kprof"
	else
		echo "# not ok 1 final rmmod kprof"
	fi
fi
# Results travel as TAP; a non-zero status is left to the rig (timeout,
# crashed guest, kernel log splat).
exit 0
