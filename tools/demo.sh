#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: build kprof.ko for Debian's 6.1 kernel and kprofctl, boot that
# kernel in QEMU, load the module and drive it with kprofctl.

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

echo "==> building kprofctl, the demo workload and kprof.ko for the guest kernel"
make -s ctl
make -s selftests >/dev/null
read -r rel ko <<< "$(tools/build-test-modules.sh generic)"
echo "    kprof.ko for $rel: ${ko#"$top"/}"

echo "==> booting $rel under QEMU (TCG, ~10 s) and running the demo there"
exec tools/kprof-vm --kernel generic --timeout 300 -- tools/guest-demo.sh "$ko"
