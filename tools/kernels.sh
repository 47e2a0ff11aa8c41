#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The test kernels by series: the one place that names them.
#
#   generic-6.1   Debian 12's kernel (linux-image-amd64), the newest 6.1 in /boot
#   rt-6.1        its PREEMPT_RT build (linux-image-rt-amd64)
#   generic-6.12  the 6.12 LTS build pinned below (bookworm's backport)
#   rt-6.12       its PREEMPT_RT build
#   debug         6.1 with KASAN, lockdep, kmemleak (tools/debug-kernel/)
#
# "generic" and "rt" are the 6.1 kinds (what they meant before 6.12 was
# installed beside them).  A kind resolves to an exact release of the same
# series, never to "the newest kernel": installing a 6.12 image must not
# turn a 6.1 run into a 6.12 one.
#
# Sourced (POSIX sh) by tools/deps.sh, tools/kprof-vm, tools/check.sh and
# tools/build-test-modules.sh; run as a command:
#   tools/kernels.sh packages         the Debian packages of every kind
#   tools/kernels.sh release KIND     KIND's release (e.g. 6.1.0-57-amd64)
#   tools/kernels.sh kinds            the kinds, one per line
#   tools/kernels.sh kdir KIND        KIND's headers (for kbuild)

# The 6.12 build Debian 12 carries (linux-image-6.12.*+deb12-*): pinned, so
# that every machine tests the same one.
KPROF_K612_ABI=6.12.118+deb12

KPROF_KINDS="generic-6.1 rt-6.1 generic-6.12 rt-6.12"

# kprof_kernel_packages: the packages tools/deps.sh installs for the kinds
kprof_kernel_packages() {
	echo "linux-headers-amd64 linux-image-amd64" \
	     "linux-headers-rt-amd64 linux-image-rt-amd64" \
	     "linux-image-$KPROF_K612_ABI-amd64-unsigned linux-headers-$KPROF_K612_ABI-amd64" \
	     "linux-image-$KPROF_K612_ABI-rt-amd64-unsigned linux-headers-$KPROF_K612_ABI-rt-amd64"
}

# kprof_kernel_kind KIND: the canonical name of KIND (generic -> generic-6.1)
kprof_kernel_kind() {
	case $1 in
	generic) echo generic-6.1 ;;
	rt) echo rt-6.1 ;;
	*) echo "$1" ;;
	esac
}

# _kk_newest DIR PATTERN [EXCLUDED_SUFFIX...]: the newest release with an
# image DIR/vmlinuz-PATTERN whose name ends in none of the suffixes
_kk_newest() {
	_kn_dir=$1
	_kn_pat=$2
	shift 2
	for _kn_f in "$_kn_dir"/vmlinuz-$_kn_pat; do
		[ -e "$_kn_f" ] || continue
		_kn_skip=
		for _kn_x in "$@"; do
			case $_kn_f in *"$_kn_x") _kn_skip=1 ;; esac
		done
		[ -n "$_kn_skip" ] || echo "${_kn_f##*/vmlinuz-}"
	done | sort -V | tail -n 1
}

# kprof_kernel_release KIND: the release of KIND's image in ${KPROF_BOOT:-/boot};
# non-zero with a message naming the package when it is not installed
kprof_kernel_release() {
	_kk_boot=${KPROF_BOOT:-/boot}
	_kk_pkg=
	case $(kprof_kernel_kind "$1") in
	generic-6.1)
		# the newest 6.1.0-N-amd64 (Debian's ABI number grows with updates)
		_kk_rel=$(_kk_newest "$_kk_boot" 6.1.*-amd64 -rt-amd64 -cloud-amd64)
		_kk_pkg=linux-image-amd64 ;;
	rt-6.1)
		_kk_rel=$(_kk_newest "$_kk_boot" 6.1.*-rt-amd64)
		_kk_pkg=linux-image-rt-amd64 ;;
	generic-6.12)
		_kk_rel=$KPROF_K612_ABI-amd64
		[ -e "$_kk_boot/vmlinuz-$_kk_rel" ] || _kk_rel=
		_kk_pkg=linux-image-$KPROF_K612_ABI-amd64-unsigned ;;
	rt-6.12)
		_kk_rel=$KPROF_K612_ABI-rt-amd64
		[ -e "$_kk_boot/vmlinuz-$_kk_rel" ] || _kk_rel=
		_kk_pkg=linux-image-$KPROF_K612_ABI-rt-amd64-unsigned ;;
	*)
		echo "kernels: unknown kind '$1' (known: $KPROF_KINDS, generic, rt, debug)" >&2
		return 2 ;;
	esac
	if [ -z "$_kk_rel" ]; then
		echo "kernels: no $(kprof_kernel_kind "$1") kernel in $_kk_boot (install $_kk_pkg: make deps)" >&2
		return 1
	fi
	echo "$_kk_rel"
}

# kprof_kernel_series RELEASE: its major.minor (6.1, 6.12)
kprof_kernel_series() {
	echo "$1" | sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p'
}

if [ "${0##*/}" = kernels.sh ]; then
	case ${1:-} in
	packages) kprof_kernel_packages ;;
	kinds) for _k in $KPROF_KINDS; do echo "$_k"; done ;;
	release) [ $# = 2 ] || { echo "usage: $0 release KIND" >&2; exit 2; }
		kprof_kernel_release "$2" ;;
	kdir) [ $# = 2 ] || { echo "usage: $0 kdir KIND" >&2; exit 2; }
		_r=$(kprof_kernel_release "$2") || exit
		echo "/usr/src/linux-headers-$_r" ;;
	*) echo "usage: $0 packages | kinds | release KIND | kdir KIND" >&2; exit 2 ;;
	esac
fi
