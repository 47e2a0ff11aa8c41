#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build kprof.ko once per test kernel (Debian's generic and PREEMPT_RT 6.1,
# and the debug kernel of tools/debug-kernel/, built first when absent),
# each in build/kmod/<release>/ so that no build clobbers another: their
# vermagic differs.  The build directory mirrors the sources through
# symlinks; kbuild writes the objects beside them.
#
# Usage: tools/build-test-modules.sh [generic|rt|debug|RELEASE]...
# Prints "<release> <path to kprof.ko>" per kernel on stdout.

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)

release_of() {
	local kind=$1 img

	case $kind in
	generic)
		img=$(ls /boot/vmlinuz-*-amd64 2>/dev/null | grep -v -- '-rt-' | sort -V | tail -n 1)
		;;
	rt)
		img=$(ls /boot/vmlinuz-*-rt-amd64 2>/dev/null | sort -V | tail -n 1)
		;;
	debug)
		make -s -C "$("$top/tools/debug-kernel/build.sh")" kernelrelease
		return
		;;
	*)
		echo "$kind"
		return
		;;
	esac
	[ -n "$img" ] || { echo "build-test-modules: no $kind kernel in /boot" >&2; return 1; }
	echo "${img#/boot/vmlinuz-}"
}

[ $# -gt 0 ] || set -- generic rt

for kind in "$@"; do
	rel=$(release_of "$kind")
	kdir=/usr/src/linux-headers-$rel
	[ "$kind" = debug ] && kdir=$("$top/tools/debug-kernel/build.sh")
	[ -d "$kdir" ] || { echo "build-test-modules: $kdir missing (make deps)" >&2; exit 1; }

	out=$top/build/kmod/$rel
	mkdir -p "$out"
	ln -sfn "$top/Kbuild" "$out/Kbuild"
	for d in module include; do
		# Mirror every source file; stale links to removed files go away.
		find "$out/$d" -type l ! -exec test -e {} \; -delete 2>/dev/null || true
		(cd "$top" && find "$d" -type f \( -name '*.c' -o -name '*.h' \)) |
		while read -r f; do
			mkdir -p "$out/$(dirname "$f")"
			ln -sfn "$top/$f" "$out/$f"
		done
	done

	make -s -C "$kdir" M="$out" W=1 modules >&2
	echo "$rel $out/kprof.ko"
done
