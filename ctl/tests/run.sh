#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run the kprofctl unit tests (TAP producers) and a smoke test of the
# binary.  Prints one summary line per test program, the full TAP output of
# a failing one (of all with V=1), and fails if anything failed.
#
# usage: tests/run.sh KPROFCTL TEST...

set -u

kprofctl=$1
shift

# the build-id cache of what the tests record: never the user's
KPROF_BUILDID_DIR=$(mktemp -d /tmp/kprofctl-buildid.XXXXXX)
export KPROF_BUILDID_DIR
trap 'rm -rf "$KPROF_BUILDID_DIR"' EXIT

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

total=0
failed=0
bad=""

for t in "$@"; do
	name=$(basename "$t")
	out=$("$t" 2>&1)
	rc=$?
	plan=$(printf '%s\n' "$out" | sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p')
	nok=$(printf '%s\n' "$out" | grep -c '^not ok ')
	total=$((total + ${plan:-0}))
	failed=$((failed + nok))
	if [ "$rc" != 0 ] || [ -z "$plan" ] || [ "$nok" != 0 ]; then
		bad="$bad $name"
		printf '%s\n' "$out" | sed "s|^|$name: |"
		echo "  FAIL    $name: $nok of ${plan:-?} failed, exit $rc"
	else
		[ "${V:-0}" = 1 ] && printf '%s\n' "$out" | sed "s|^|$name: |"
		echo "  PASS    $name: $plan"
	fi
done

# Smoke test of the real binary: usage of every command, no module needed.
n=0
for args in "--help" "help status" "status --help" "version --help" "help help" \
	    "record --help" "start --help" "stop --help" "dump --help" "list --help" "list"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	if ! "$kprofctl" $args >/dev/null 2>&1; then
		echo "  FAIL    smoke: kprofctl $args"
		failed=$((failed + 1))
		bad="$bad smoke"
	fi
done
total=$((total + n))
echo "  PASS    smoke: $n"

if [ -n "$bad" ]; then
	echo "kprofctl tests: FAILED: $failed of $total checks failed in:$bad"
	exit 1
fi
echo "kprofctl tests: all $total checks passed"
