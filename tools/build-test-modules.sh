#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build kprof.ko, and beside it the selftests' kprof_testmod.ko
# (selftests/kprof/kprof_testmod) and make bench's kprof_floor.ko
# (tools/bench/floor), once per test kernel (the kinds of tools/kernels.sh:
# Debian's generic and PREEMPT_RT 6.1 and 6.12, and the debug kernel of
# tools/debug-kernel/, built first when absent),
# each in build/kmod/<release>/ so that no build clobbers another: their
# vermagic differs.  The build directory mirrors the sources through
# symlinks; kbuild writes the objects beside them.
#
# Usage: tools/build-test-modules.sh [KIND|debug|RELEASE]...
# KCFLAGS (make check: -Werror) reaches kbuild; DKMS's build never sets it.
# KPROF_BENCH_STAGES=y: make bench's stage build (module/stages.h), in
# build/kmod-stages/<release>/ instead, kprof.ko alone.
# Prints "<release> <path to kprof.ko>" per kernel on stdout.

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# KCFLAGS is for kprof.ko's build only, not for the debug kernel that
# tools/debug-kernel/build.sh may build first
module_kcflags=${KCFLAGS-}
unset KCFLAGS

# shellcheck source=tools/kernels.sh
. "$top/tools/kernels.sh"

release_of() {
	case $1 in
	debug)
		make -s -C "$("$top/tools/debug-kernel/build.sh")" kernelrelease
		;;
	generic|rt|*-6.1|*-6.12)
		kprof_kernel_release "$1"
		;;
	*)
		echo "$1"
		;;
	esac
}

[ $# -gt 0 ] || set -- generic rt

for kind in "$@"; do
	rel=$(release_of "$kind") || exit 1
	kdir=/usr/src/linux-headers-$rel
	[ "$kind" = debug ] && kdir=$("$top/tools/debug-kernel/build.sh")
	[ -d "$kdir" ] || { echo "build-test-modules: $kdir missing (make deps)" >&2; exit 1; }

	out=$top/build/kmod/$rel
	mods="KPROF_TESTMOD=m KPROF_BENCHMOD=m"
	if [ "${KPROF_BENCH_STAGES:-}" = y ]; then
		out=$top/build/kmod-stages/$rel
		mods="KPROF_BENCH_STAGES=y"
	fi
	mkdir -p "$out"
	ln -sfn "$top/Kbuild" "$out/Kbuild"
	for d in module include selftests/kprof/kprof_testmod tools/bench/floor; do
		# Mirror every source file; stale links to removed files go away.
		find "$out/$d" -type l ! -exec test -e {} \; -delete 2>/dev/null || true
		(cd "$top" && find "$d" -type f \( -name '*.c' -o -name '*.h' -o -name Kbuild \)) |
		while read -r f; do
			mkdir -p "$out/$(dirname "$f")"
			ln -sfn "$top/$f" "$out/$f"
		done
	done
	# (an older tree's module/testseam.o, which kprof.ko no longer has)
	rm -f "$out/module/testseam.o"

	# kprof.ko, and beside it the selftests' kprof_testmod.ko and make
	# bench's kprof_floor.ko
	# shellcheck disable=SC2086 # $mods: make variables, one per word
	KCFLAGS=$module_kcflags make -s -C "$kdir" M="$out" W=1 $mods modules >&2
	echo "$rel $out/kprof.ko"
done
