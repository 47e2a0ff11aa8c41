#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Self-test of tools/kprof-vm (the QEMU test rig).  Prints TAP and exits
# non-zero when a check fails.  Five guest boots, three of them concurrent
# (which also checks that concurrent runs do not disturb each other):
# about 45 s under TCG.  With --host-only, only the splat scanner's checks
# run (no boot): make check uses that; `make test-rig` runs everything.

# shellcheck disable=SC2016  # ($-expressions are for the guest's shell)

set -uo pipefail

TOOLS=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
ROOT=$(dirname "$TOOLS")
VM=$TOOLS/kprof-vm
GENERIC=$("$TOOLS/kernels.sh" release generic-6.1)
RT=$("$TOOLS/kernels.sh" release rt-6.1)

mkdir -p "$ROOT/build/vm"
T=$(mktemp -d "$ROOT/build/vm/selftest-XXXXXX")  # inside the rw share
trap 'rm -rf "$T"' EXIT

n=0
failed=0
# check DESC COMMAND...: one TAP line from COMMAND's status.
check() {
	local desc=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc"
		failed=$((failed + 1))
	fi
}
# has FILE REGEX: FILE has a line matching REGEX (grep -E).
has() { grep -q -E -e "$2" "$1"; }
# Remove a run directory the rig kept for a post-mortem (tests provoke them).
drop_kept() { sed -n 's/.*run files kept in //p' "$1" | xargs -r rm -rf; }
vm() { "$VM" "$@"; }

# --- The splat scanner (no boot) ------------------------------------------
scan() {  # scan EXPECTED_STATUS LOG_LINES...
	local want=$1 rc=0
	shift
	printf '%s\n' "$@" >"$T/scan.log"
	"$VM" --scan "$T/scan.log" >/dev/null 2>&1 || rc=$?
	[[ $rc == "$want" ]]
}
check "scan: clean log (kmemleak start-up, user-space GP fault) passes" \
	scan 0 '[    0.1] kmemleak: Kernel memory leak detector initialized' \
	'[    1.2] traps: a.out[99] general protection fault ip:401000 sp:7ffe error:0 in a.out[401000+1000]'
check "scan: WARNING splat" scan 126 '[    4.1] WARNING: CPU: 1 PID: 7 at kprof.c:12 f+0x1/0x2'
check "scan: kmemleak leak report" scan 126 'unreferenced object 0xffff888003a1c000 (size 64):'
check "scan: lockdep circular locking" scan 126 'WARNING: possible circular locking dependency detected'
check "scan: hung task" scan 126 'INFO: task kworker/0:1:12 blocked for more than 120 seconds.'
check "scan: RCU stall" scan 126 'rcu: INFO: rcu_sched self-detected stall on CPU'
check "scan: list corruption" scan 126 'list_add corruption. next->prev should be prev'
check "scan: kmemleak's scan summary" scan 126 \
	'[   40.2] kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)'
check "scan: an injected allocation failure's stack dump inside the marked window passes" \
	scan 0 '[    9.0] kprof-vm: fault-injection begin: START stream' \
	'[    9.1] kprof_fault_tes: vmalloc error: size 8192, vm_struct allocation failed' \
	'[    9.1] Call Trace:' '[    9.2] kprof-vm: fault-injection end: START stream'
check "scan: inside the window a KASAN report still fails" \
	scan 126 '[    9.0] kprof-vm: fault-injection begin: START stream' \
	'[    9.1] BUG: KASAN: use-after-free in kprof_session_free+0x1/0x2' '[    9.1] Call Trace:'
check "scan: a stack dump after the window fails" \
	scan 126 '[    9.0] kprof-vm: fault-injection begin: x' '[    9.2] kprof-vm: fault-injection end: x' \
	'[    9.3] Call Trace:'

# --- Kernels by series (tools/kernels.sh; no boot) --------------------------
# A fake /boot with 6.1 and 6.12 images, as after installing a 6.12 image
# beside Debian 12's own: each kind stays in its series.
fakeboot=$T/boot
mkdir -p "$fakeboot"
for r in 6.1.0-9-amd64 6.1.0-57-amd64 6.1.0-57-rt-amd64 6.1.0-57-cloud-amd64 \
	6.12.118+deb12-amd64 6.12.118+deb12-rt-amd64 6.12.119+deb12-amd64; do
	: > "$fakeboot/vmlinuz-$r"
done
kind_is() { [[ $(KPROF_BOOT=$fakeboot "$TOOLS/kernels.sh" release "$1" 2>&1) == "$2" ]]; }
check "kernels: generic is generic-6.1, the newest 6.1 (6.12 and cloud images beside it)" \
	kind_is generic 6.1.0-57-amd64
check "kernels: rt is rt-6.1" kind_is rt 6.1.0-57-rt-amd64
check "kernels: generic-6.12 is the pinned 6.12 build, not a newer one" \
	kind_is generic-6.12 "$(. "$TOOLS/kernels.sh"; echo "$KPROF_K612_ABI")-amd64"
check "kernels: rt-6.12" kind_is rt-6.12 "$(. "$TOOLS/kernels.sh"; echo "$KPROF_K612_ABI")-rt-amd64"
rm -f "$fakeboot/vmlinuz-6.12.118+deb12-rt-amd64"
check "kernels: a missing kind names its package in one line" \
	kind_is rt-6.12 "kernels: no rt-6.12 kernel in $fakeboot (install linux-image-$(. "$TOOLS/kernels.sh"; echo "$KPROF_K612_ABI")-rt-amd64-unsigned: make deps)"
check "kernels: an unknown kind is refused" \
	kind_is generic-5.10 "kernels: unknown kind 'generic-5.10' (known: generic-6.1 rt-6.1 generic-6.12 rt-6.12, generic, rt, debug)"

# A module built for one kernel, handed to a guest of another: refused
# before the boot, in one line (a real kprof.ko of the 6.1 series, when
# built; kbuild leaves them in build/kmod/RELEASE/).
other=
for k in generic-6.12 rt-6.1 generic-6.1; do
	rel=$("$TOOLS/kernels.sh" release "$k" 2>/dev/null) || continue
	[[ $rel != "$GENERIC" ]] && { other=$k; break; }
done
ko=$ROOT/build/kmod/$GENERIC/kprof.ko
if [[ -n $other && -f $ko ]]; then
	rc=0
	"$VM" --kernel "$other" -- sh -c "insmod $ko" >"$T/vm.out" 2>"$T/vm.err" || rc=$?
	check "vermagic: a $GENERIC module is refused by a $other guest before the boot (rc 125, one line)" \
		eval '[[ $rc == 125 && $(wc -l < "$T/vm.err") == 1 ]] &&
			has "$T/vm.err" "kprof.ko was built for $GENERIC, not for the guest.s .*refusing to boot"'
else
	n=$((n + 1))
	echo "ok $n - vermagic: a module of another kernel is refused # SKIP no second kernel or no $ko"
fi

finish() {
	echo "1..$n"
	if ((failed)); then
		trap - EXIT
		echo "# $failed of $n checks failed; outputs kept in $T" >&2
		exit 1
	fi
	exit 0
}
[[ ${1:-} == --host-only ]] && finish

# --- Boot 1: generic kernel, many checks in one guest ------------------------
rc=0
(cd "$TOOLS" && vm --log "$T/1.log" -- sh -c '
	echo "release=$(uname -r)"
	echo "cwd=$(pwd)"
	echo hello >"$1/rw-file"
	touch /usr/kprof-vm-ro-test 2>/dev/null || echo "ro=refused"
	echo "python=$(python3 -c "print(1)")"
	echo "nobody=$(id -u nobody)"
	echo "setpriv=$(setpriv --reuid=nobody --regid=nogroup --clear-groups id -u)"
	shift
	printf "arg=<%s>\n" "$@"
	exit 7' sh "$T" 'a b' "c'd" '$HOME' '' >"$T/1.out" 2>"$T/1.err") || rc=$?
check "boot 1: exit status 7 comes back" test "$rc" = 7
check "boot 1: uname -r is $GENERIC" has "$T/1.out" "^release=$GENERIC\$"
check "boot 1: runs in the host cwd" has "$T/1.out" "^cwd=$TOOLS\$"
check "boot 1: write to the rw share reaches the host" test "$(cat "$T/rw-file" 2>/dev/null)" = hello
check "boot 1: host root is read-only" has "$T/1.out" '^ro=refused$'
check "boot 1: host python3 runs" has "$T/1.out" '^python=1$'
check "boot 1: user nobody exists" has "$T/1.out" '^nobody=65534$'
check "boot 1: setpriv drops to nobody" has "$T/1.out" '^setpriv=65534$'
check "boot 1: arguments are passed verbatim" \
	test "$(grep '^arg=' "$T/1.out" | tr '\n' '|')" = "arg=<a b>|arg=<c'd>|arg=<\$HOME>|arg=<>|"
check "boot 1: --log FILE keeps the console" has "$T/1.log" '^release='
check "boot 1: no splat reported" test ! -s "$T/1.err"

# --- Boots 2-4, concurrently: rt kernel, splat, timeout ------------------------
vm --kernel rt -- uname -r >"$T/2.out" 2>"$T/2.err" &
p2=$!
vm -- sh -c 'echo "WARNING: CPU: 0 PID: 1 at fake" >/dev/kmsg' >"$T/3.out" 2>"$T/3.err" &
p3=$!
start=$SECONDS
vm --timeout 5 --log "$T/4.log" -- sleep 100 >"$T/4.out" 2>"$T/4.err" &
p4=$!
rc4=0; wait $p4 || rc4=$?
t4=$((SECONDS - start))
rc2=0; wait $p2 || rc2=$?
rc3=0; wait $p3 || rc3=$?
drop_kept "$T/3.err"
drop_kept "$T/4.err"
check "boot 2: --kernel rt runs $RT, exit 0" \
	test "$rc2 $(tr -d '\r' <"$T/2.out")" = "0 $RT"
check "boot 3: a WARNING in the kernel log fails the run (126)" test "$rc3" = 126
check "boot 3: the splat is printed" has "$T/3.err" '^kprof-vm: kernel log has a splat:'
check "boot 3: ... with the WARNING line" has "$T/3.err" 'WARNING: CPU: 0 PID: 1 at fake'
check "boot 4: --timeout 5 exits 124" test "$rc4" = 124
check "boot 4: ... promptly (${t4} s)" test "$t4" -lt 20
check "boot 4: ... with a message" has "$T/4.err" 'timeout'
check "boot 4: --log FILE written" test -f "$T/4.log"

# --- Boot 5: instruction counting -----------------------------------------------
rc=0
vm --icount -- sh -c 'test "$(nproc)" = 1' >"$T/5.out" 2>"$T/5.err" || rc=$?
check "boot 5: --icount runs a single-CPU guest" test "$rc" = 0

finish
