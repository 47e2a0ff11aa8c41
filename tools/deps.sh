#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install everything kprof needs from Debian, idempotently.
# Fast path: when every package is already installed, do nothing.

set -eu

# the test kernels, 6.1 and 6.12, generic and PREEMPT_RT (tools/kernels.sh)
. "$(dirname "$0")/kernels.sh"

PKGS="build-essential pkg-config kmod \
$(kprof_kernel_packages) \
linux-source-6.1 bison flex bc libssl-dev \
qemu-system-x86 busybox-static cpio xz-utils zstd linux-perf \
libnl-3-dev libnl-genl-3-dev libelf-dev libtraceevent-dev libiberty-dev \
clang libclang-rt-14-dev \
perl python3 python3-yaml \
bpfcc-tools bpftrace \
libprotobuf-c-dev protobuf-c-compiler zlib1g-dev golang-go \
libmicrohttpd-dev libcurl4-openssl-dev prometheus \
libxml2-utils chromium \
dkms groff-base libdw-dev libcapstone-dev python3-dev \
libncurses-dev tmux"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing (run as root or install them)" >&2
	exit 1
fi

echo "deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "deps: done"
