#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run each libFuzzer target of ctl/fuzz/ for SECONDS seconds and print one
# TAP line per target ("ok N - fuzz-data: ..." or "not ok N - ..."), then
# the plan.  The corpora live in ctl/.obj/fuzz/corpus-TARGET/ and grow from
# run to run; crash inputs go to ctl/.obj/fuzz/artifacts/.  'make check'
# runs it briefly, 'make -C ctl fuzz' for longer (FUZZ_SECONDS).
#
# usage: fuzz/run.sh SECONDS [TARGET...]
#
# Exit status: 0 when every target ran clean, 1 otherwise.

set -u

secs=${1:-}
case $secs in
''|*[!0-9]*) echo "usage: $0 SECONDS [TARGET...]" >&2; exit 2 ;;
esac
shift
here=$(cd "$(dirname "$0")" && pwd)
ctl=$(dirname "$here")
out=$ctl/.obj/fuzz
targets=${*:-fuzz-data fuzz-elf}

if ! make -s -C "$ctl" fuzz-build > "$ctl/.obj/fuzz-build.log" 2>&1; then
	echo "not ok 1 - fuzz: build the targets (clang, libclang-rt-14-dev)"
	sed 's/^/#   /' "$ctl/.obj/fuzz-build.log" | tail -n 20
	echo "1..1"
	exit 1
fi

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

n=0
failed=0
for t in $targets; do
	n=$((n + 1))
	corpus=$out/corpus-$t
	seeds=$out/seeds/${t#fuzz-}
	log=$out/$t.log
	mkdir -p "$corpus" "$out/artifacts"
	"$out/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-max_len=65536 -print_final_stats=1 \
		-artifact_prefix="$out/artifacts/$t-" \
		"$corpus" "$seeds" > "$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	if [ $rc = 0 ]; then
		echo "ok $n - $t: ${runs:-?} inputs in ${secs}s, no crash, leak or hang"
	else
		failed=$((failed + 1))
		echo "not ok $n - $t: exit $rc (log: $log)"
		grep -E 'ERROR|SUMMARY|Test unit written|==[0-9]+==' "$log" | head -n 20 |
			sed 's/^/#   /'
	fi
done
echo "1..$n"
[ $failed = 0 ]
