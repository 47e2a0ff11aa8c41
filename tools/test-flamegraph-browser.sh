#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The flame graph's end-to-end test: xmllint, frame widths, a 1M-line input,
# and the zoom and search of the SVG driven in headless Chromium (skipped
# with "# SKIP" when chromium is not installed).  Prints TAP; exit 1 on a
# failure.  See ctl/tests/flamegraph-browser.py.
#
# usage: tools/test-flamegraph-browser.sh [KPROFCTL]	(default ctl/kprofctl)

top=$(cd "$(dirname "$0")/.." && pwd)
exec /usr/bin/python3 "$top/ctl/tests/flamegraph-browser.py" "$@"
