# SPDX-License-Identifier: GPL-2.0
#
# Sourced by kprof's shell selftests: the KTAP counters and the guest's
# setup, one copy.  The tests keep their own check() (its arguments differ).

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n $1"; }
skip() { n=$((n + 1)); echo "ok $n $1 # SKIP $2"; }

# kt_load: kprof.ko ($KPROF_KO) loaded unless it is; Bail out! when it cannot be
kt_load() {
	if ! grep -q '^kprof ' /proc/modules; then
		insmod "${KPROF_KO:?}" || { echo "Bail out! cannot load ${KPROF_KO}"; exit 1; }
	fi
}

# kt_mounts: debugfs and tracefs, where the guest may not have them yet
kt_mounts() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs nodev /sys/kernel/debug
	mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
}
