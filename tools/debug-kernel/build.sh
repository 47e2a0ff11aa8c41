#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once) kprof's debug guest kernel: Debian's linux-source-6.1 with
# x86_64_defconfig plus tools/debug-kernel/debug.config (KASAN, lockdep,
# kmemleak, debug objects, the stall detectors, fault injection).
#
# The build lives outside any clone, in a cache keyed by the hash of the
# fragment, RECIPE below and the source package's version, so every clone
# and every CI run on this machine share it; a fresh machine builds it
# once (about 35 minutes on 2 cores).  Bump RECIPE when a change to this
# script changes what it builds.  Builds of other keys are removed.
#
# Usage: tools/debug-kernel/build.sh [--print]
#   prints the kernel tree (KDIR; the image is KDIR/arch/x86/boot/bzImage)
#   on stdout, building it first when absent.  --print: only print where
#   it would be, exit 1 when it is not built.
# Environment: KPROF_DEBUG_KERNEL_CACHE (default /var/cache/kprof).

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
frag=$here/debug.config
tarball=/usr/src/linux-source-6.1.tar.xz
cache=${KPROF_DEBUG_KERNEL_CACHE:-/var/cache/kprof}

RECIPE=1

log() { echo "debug-kernel: $*" >&2; }

[ -f "$tarball" ] || { log "$tarball missing (make deps)"; exit 1; }
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || stat -c %Y "$tarball")
key=$( { cat "$frag"; echo "recipe $RECIPE"; echo "$srcver"; } | sha256sum | cut -c1-16)
dir=$cache/debug-kernel-$key
kdir=$dir/linux

if [ -f "$dir/.done" ]; then
	echo "$kdir"
	exit 0
fi
[ "${1:-}" = --print ] && { echo "$kdir"; exit 1; }

mkdir -p "$cache"
exec 9> "$cache/.debug-kernel.lock"
if ! flock -n 9; then
	log "another build holds $cache/.debug-kernel.lock; waiting"
	flock 9
fi
if [ -f "$dir/.done" ]; then
	echo "$kdir"
	exit 0
fi

t0=$(date +%s)
for old in "$cache"/debug-kernel-*; do
	[ -d "$old" ] && [ "$old" != "$dir" ] && { log "removing the stale build $old"; rm -rf "$old"; }
done
rm -rf "$dir"
mkdir -p "$dir"
buildlog=$dir/build.log
log "building the debug kernel in $dir (log: $buildlog)"
log "  unpacking $(basename "$tarball")"
tar -xf "$tarball" -C "$dir"
mv "$dir/linux-source-6.1" "$kdir"

cd "$kdir"
make -s x86_64_defconfig >> "$buildlog" 2>&1
scripts/kconfig/merge_config.sh -m .config "$frag" >> "$buildlog" 2>&1
make -s olddefconfig >> "$buildlog" 2>&1

# Every line of the fragment must have survived olddefconfig: a silently
# dropped option would make the debug guest weaker than it claims.
bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		grep -qxF -- "$line" .config || { log "  not taken: $line"; bad=1; } ;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }; opt=${opt%% *}
		! grep -q "^$opt=" .config || { log "  not taken: $line"; bad=1; } ;;
	esac
done < "$frag"
[ "$bad" = 0 ] || { log "the fragment does not apply to this source; see $kdir/.config"; exit 1; }

log "  compiling with $(nproc) jobs (progress every 60 s)"
make -j"$(nproc)" all >> "$buildlog" 2>&1 &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
	sleep 60 &
	wait $! || true
	kill -0 "$pid" 2>/dev/null || break
	log "  $(( ($(date +%s) - t0) / 60 )) min, $(find . -name '*.o' -newer .config | wc -l) objects"
done
if ! wait "$pid"; then
	log "build failed; last lines of $buildlog:"
	tail -n 30 "$buildlog" >&2
	exit 1
fi
touch "$dir/.done"
log "built $(make -s kernelrelease) in $(( ($(date +%s) - t0) / 60 )) min"
echo "$kdir"
