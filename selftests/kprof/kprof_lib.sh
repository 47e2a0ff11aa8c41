# SPDX-License-Identifier: GPL-2.0
#
# Sourced by kprof's shell selftests: the KTAP counters, check and
# wait_for, and the guest's setup, one copy.  (kprof_aggctl_test.sh and
# kprof_tp_test.sh keep their own check(): its arguments differ.)

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n $1"; }
skip() { n=$((n + 1)); echo "ok $n $1 # SKIP $2"; }

# check DESC CMD...: ok DESC when CMD succeeds, else not ok
check() {
	local desc=$1

	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

# wait_for SECONDS CMD...: until CMD succeeds (every 0.5 s); false on timeout
wait_for() {
	local i

	for i in $(seq $(($1 * 2))); do
		"${@:2}" && return 0
		sleep 0.5
	done
	return 1
}

# kt_top_user REPORT COMM: COMM's hottest user symbol in REPORT, the output of
# 'kprofctl report --stdio' (its first "[.]" row of that command)
kt_top_user() { awk -v c="$2" '$2 == c && $4 == "[.]" { print $5; exit }' "$1"; }

# kt_load: kprof.ko ($KPROF_KO) loaded unless it is; Bail out! when it cannot be
kt_load() {
	if ! grep -q '^kprof ' /proc/modules; then
		insmod "${KPROF_KO:?}" || { echo "Bail out! cannot load ${KPROF_KO}"; exit 1; }
	fi
}

# kt_testmod_load: kprof.ko, then the selftests' module (kprof_testmod.ko,
# $KPROF_TESTMOD: the seams kprof.ko does not carry), unless loaded;
# Bail out! when it cannot be.  kt_testmod_unload removes it again: call
# it from the test's EXIT trap, since kprof.ko cannot unload beneath it.
# kt_testmod_param NAME: the path of one of its parameters.
kt_testmod_load() {
	kt_load
	if ! grep -q '^kprof_testmod ' /proc/modules; then
		insmod "${KPROF_TESTMOD:?}" ||
			{ echo "Bail out! cannot load ${KPROF_TESTMOD}"; exit 1; }
	fi
}
kt_testmod_unload() {
	if grep -qs '^kprof_testmod ' /proc/modules; then
		rmmod kprof_testmod
	fi
}
kt_testmod_param() { echo "/sys/module/kprof_testmod/parameters/$1"; }

# kt_mounts: debugfs and tracefs, where the guest may not have them yet
kt_mounts() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs nodev /sys/kernel/debug
	mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
}
