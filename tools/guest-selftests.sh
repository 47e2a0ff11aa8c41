#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside a kprof-vm guest: the kprof kselftests against the given
# kprof.ko, then a final unload, so that the rig's kernel log scan covers
# the module's whole life.  Prints TAP; exits 0 when it ran to the end.
#
# Usage: tools/guest-selftests.sh PATH/TO/kprof.ko [TEST [ARGS...]]
#        tools/guest-selftests.sh PATH/TO/kprof.ko --tests "TEST[:ARG...] ..."
#
# With TEST (a program of selftests/kprof/), only that test runs, its TAP
# lines prefixed as the kselftest runner prefixes them; --tests runs the
# named ones in turn (a ':' separates a test from its arguments).
#
# On a kernel with kmemleak (the debug guest), its records are cleared
# before the first test and scanned twice after the final unload: a new
# report is a failure (TAP, and kmemleak's own "new suspected memory
# leaks" line, which the rig's log scan catches).

set -u

top=$(cd "$(dirname "$0")/.." && pwd)
ko=$(realpath "${1:?usage: guest-selftests.sh KPROF_KO [TEST [ARGS...]]}")
shift
export KPROF_KO=$ko
export KPROFCTL=$top/ctl/kprofctl
# the selftests' seams (kprof_lib.sh's kt_testmod_load), built beside this
# kernel's kprof.ko by tools/build-test-modules.sh whichever kprof.ko runs
export KPROF_TESTMOD=${KPROF_TESTMOD:-$top/build/kmod/$(uname -r)/selftests/kprof/kprof_testmod/kprof_testmod.ko}

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug

kmemleak=/sys/kernel/debug/kmemleak
[ -w "$kmemleak" ] && echo clear > "$kmemleak"

echo "# kernel $(uname -r), $(nproc) CPUs, module $ko"
# run_one N TEST [ARGS...]: one test, its TAP prefixed, "ok N" for it
run_one() {
	local i=$1 test=$2 rc t0=$SECONDS

	shift 2
	echo "# selftests: kprof: $test $*"
	"$top/selftests/kprof/$test" "$@" 2>&1 | sed 's/^/# /'
	rc=${PIPESTATUS[0]}
	echo "# kprof-time: $test $((SECONDS - t0)) s"
	if [ "$rc" = 0 ]; then
		echo "ok $i selftests: kprof: $test $*"
	else
		echo "not ok $i selftests: kprof: $test $* # exit=$rc"
	fi
}
if [ "${1:-}" = --tests ]; then
	i=0
	for t in $2; do
		i=$((i + 1))
		# shellcheck disable=SC2086
		run_one $i ${t//:/ }
	done
elif [ $# -gt 0 ]; then
	run_one 1 "$@"
else
	# the kselftest runner, with the guest seconds each test took
	# ("# kprof-time: TEST N s") after its result line
	make -s -C "$top/selftests/kprof" run_tests \
		KSFT_DIR="$top/build/ksrc/tools/testing/selftests" 2>&1 |
	while IFS= read -r line; do
		case $line in
		"# selftests: "*) t0=$SECONDS ;;
		"ok "*" selftests: "*|"not ok "*" selftests: "*)
			echo "$line"
			name=${line##*: }
			echo "# kprof-time: ${name%% *} $((SECONDS - ${t0:-$SECONDS})) s"
			continue ;;
		esac
		echo "$line"
	done
	[ "${PIPESTATUS[0]}" = 0 ] || echo "# not ok 1 make run_tests"
fi

# The last word: the module must unload cleanly after all of the above
# (a test that left kprof_testmod loaded fails it: kprof.ko is in use).
if grep -q '^kprof ' /proc/modules; then
	if rmmod kprof; then
		echo "# ok 1 final rmmod kprof"
	else
		echo "# not ok 1 final rmmod kprof"
	fi
fi
if [ -w "$kmemleak" ]; then
	# two scans: an object is reported once it looked unreferenced twice
	echo scan > "$kmemleak"
	sleep 1
	echo scan > "$kmemleak"
	leaks=$(grep -c '^unreferenced object' "$kmemleak")
	if [ "$leaks" = 0 ]; then
		echo "# ok 1 kmemleak: no new leak after the final rmmod"
	else
		echo "# not ok 1 kmemleak: $leaks new suspected leaks"
		head -n 60 "$kmemleak" | sed 's/^/#   /'
	fi
fi
# Results travel as TAP; a non-zero status is left to the rig (timeout,
# crashed guest, kernel log splat).
exit 0
