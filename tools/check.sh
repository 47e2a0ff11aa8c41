#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: build everything, run checkpatch, the spec check and the host
# unit tests, then the kselftests in QEMU guests on Debian's generic and
# PREEMPT_RT kernels of 6.1 and 6.12 (the matrix below), each with a kprof.ko
# built for that kernel.
#
# Every step reports TAP-style results; the last line is the summary
# "N passed, N failed, N skipped".  Logs go to build/check/.
#
# Environment (kinds of tools/kernels.sh): KPROF_CHECK_KERNELS (default
# "generic rt-6.12") picks the full guests, KPROF_CHECK_PATHS (default
# "generic-6.12") the module-path ones, KPROF_CHECK_SMOKE (default "rt";
# check-quick: none) the smoke boots; KPROF_CHECK_QUICK=1 (make
# check-quick) leaves out the fuzzing, the browser test, the hostile cases'
# guest boots and the module-path kinds' timed boots.  KPROF_CHECK_LOAD=N
# keeps N host CPUs busy for the whole run (N busy loops at the run's own
# priority, as other guests or builds beside it would): no test may depend
# on an idle host (Documentation/testing.rst, "A busy host").

set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
logs=$top/build/check
mkdir -p "$logs"
cd "$top" || exit 1

load_pids=()
if [ "${KPROF_CHECK_LOAD:-0}" -gt 0 ] 2>/dev/null; then
	for _ in $(seq "$KPROF_CHECK_LOAD"); do
		sh -c 'while :; do :; done' &
		load_pids+=($!)
	done
	trap 'kill "${load_pids[@]}" 2>/dev/null' EXIT
	echo "# KPROF_CHECK_LOAD=$KPROF_CHECK_LOAD: ${#load_pids[@]} busy loops on the host for the whole run"
fi

passed=0
failed=0
skipped=0
failures=()

result() {	# result ok|fail|skip NAME [REASON]
	case $1 in
	ok)	passed=$((passed + 1)); echo "ok - $2" ;;
	skip)	skipped=$((skipped + 1)); echo "ok - $2 # SKIP ${3:-}" ;;
	*)	failed=$((failed + 1)); failures+=("$2"); echo "not ok - $2" ;;
	esac
}

# Count the TAP results in a log.  Top-level lines and kselftest runner
# subtests ("# ok 3 ...") both count; a program that died without any
# result line of its own is counted through its runner line.
count_tap() {	# count_tap LOG PREFIX
	local log=$1 prefix=$2 line name
	local inner_fail=0 after=0
	local -a diag=()

	while IFS= read -r line; do
		case $line in
		"# # "*)
			# the harness's own lines for the running test: kept
			# to show why it failed; a shell test's come after its
			# "not ok" (up to 40 of them shown)
			case $line in *" RUN "*) after=0 ;; esac
			if [ $after -gt 0 ]; then
				printf '#   %s\n' "${line#\# }"
				after=$((after - 1))
				continue
			fi
			case $line in *" RUN "*) diag=() ;; esac
			diag+=("$line")
			[ ${#diag[@]} -le 40 ] || diag=("${diag[@]:1}")
			continue ;;
		esac
		after=0
		case $line in
		"# ok "*"# SKIP"*|"# ok "*"# skip"*)
			diag=(); skipped=$((skipped + 1)); echo "$prefix${line#\# }" ;;
		"# ok "*)
			diag=(); passed=$((passed + 1)) ;;
		"# not ok "*)
			failed=$((failed + 1)); inner_fail=1
			name="$prefix${line#\# }"; failures+=("$name"); echo "$name"
			[ ${#diag[@]} -eq 0 ] || printf '#   %s\n' "${diag[@]#\# }"
			diag=(); after=40 ;;
		"not ok "*)
			# a whole test program failed
			if [ $inner_fail = 0 ]; then
				failed=$((failed + 1)); failures+=("$prefix$line")
			fi
			echo "$prefix$line"; inner_fail=0 ;;
		"ok "*)
			inner_fail=0 ;;
		esac
	done < "$log"
}

# Count a plain TAP log (host unit tests): "ok N - x" / "not ok N - x".
count_plain_tap() {	# count_plain_tap LOG PREFIX
	local line

	while IFS= read -r line; do
		case $line in
		"ok "*"# SKIP"*) skipped=$((skipped + 1)); echo "$2$line" ;;
		"ok "*) passed=$((passed + 1)) ;;
		"not ok "*) failed=$((failed + 1)); failures+=("$2$line"); echo "$2$line" ;;
		esac
	done < "$1"
}

step() {	# step NAME LOG CMD...: one result from a command's exit status
	local name=$1 log=$2

	shift 2
	if "$@" > "$log" 2>&1; then
		result ok "$name"
	else
		result fail "$name"
		tail -n 30 "$log" | sed 's/^/#   /'
	fi
}

# guest_results LOG RC NAME: the TAP results of one guest boot, that it ran
# tests at all, and the rig's verdict (exit status, kernel log scan).
guest_results() {
	local log=$1 rc=$2 name=$3

	count_tap "$log" "$name: "
	if ! grep -qE '^# (not )?ok ' "$log"; then
		result fail "$name: the guest ran tests"
	fi
	if [ "$rc" = 0 ]; then
		result ok "$name: guest run completed, kernel log clean"
	else
		result fail "$name: guest run completed, kernel log clean (rc=$rc)"
		grep -A40 'kprof-vm:' "$log" | head -60 | sed 's/^/#   /'
	fi
}

t0=$(date +%s)
quick=${KPROF_CHECK_QUICK:-0}
# where the wall time goes: mark NAME notes the seconds since the last mark
marks=()
t_mark=$t0
mark() {
	local now
	now=$(date +%s)
	marks+=("$1 $((now - t_mark))s")
	t_mark=$now
}

# --- builds -------------------------------------------------------------
echo "# build"
# -Werror here and in every test kernel's module build below, never in
# the Kbuild that DKMS uses (a user's newer compiler must not fail an
# install) nor in the debug kernel's own build: not exported
werror_kcflags="${KCFLAGS:+$KCFLAGS }-Werror"
if KCFLAGS="$werror_kcflags" make module > "$logs/module.log" 2>&1 && ! grep -qE '(warning|error):' "$logs/module.log"; then
	result ok "build: kprof.ko (W=1, -Werror)"
else
	result fail "build: kprof.ko (W=1, -Werror)"
	grep -E '(warning|error):' "$logs/module.log" | head -20 | sed 's/^/#   /'
fi
step "build: kprofctl (-Wall -Wextra -Werror)" "$logs/ctl.log" make ctl
step "build: selftests" "$logs/selftests.log" make selftests

# --- the debug kernel: KASAN, lockdep, kmemleak, fault injection -----------
# Built once per machine outside the clone (tools/debug-kernel/build.sh);
# a named subset of the selftests that reaches every netlink command, event
# type and mode, plus the allocation-failure walk that needs its failslab
# (the shell tests, slow there, run on the other kernels, but for the
# lockdep report, which needs this kernel's lockdep).  2100 CPU seconds:
# beside the other kinds' boots, the clean-clone rehearsal of 2026-12-07
# used 1500 in 30 minutes (the fault walk alone 1029 s, its ftrace START
# 633 s) and was cut in the last test; the fuzzer gets 80 s there (it sent
# 1344 messages in 40 s, under its minimum of 2000).
debug_tests="kprof_load_test kprof_genl_test kprof_dev_test kprof_session_test kprof_agg_test
kprof_count_test kprof_probe_test kprof_fault_test kprof_nlfuzz_test kprof_stress_test
kprof_lockdep_test.sh"
debug_pid=
if [ "$quick" != 1 ] && [ "${KPROF_CHECK_DEBUG:-1}" = 1 ]; then
	tools/debug-kernel/build.sh --print >/dev/null 2>&1 ||
		echo "# building the debug kernel once: about 40 minutes on 2 cores (progress in build/check/kmod-debug.log)"
	if built=$(KCFLAGS="$werror_kcflags" tools/build-test-modules.sh debug 2> "$logs/kmod-debug.log") &&
	   ! grep -qE '(warning|error):' "$logs/kmod-debug.log"; then
		read -r rel ko <<< "$built"
		result ok "debug: the debug kernel and kprof.ko for $rel"
		# One boot: the subset, then a planted KASAN bug that the log scan
		# must catch.  The log up to the plant must be clean.
		# (the plant is kprof_testmod's, built beside kprof.ko)
		testmod=$(dirname "$ko")/selftests/kprof/kprof_testmod/kprof_testmod.ko
		plant="echo 'kprof-check: the planted bug follows' > /dev/kmsg;
			insmod $ko && insmod $testmod &&
			echo kasan > /sys/module/kprof_testmod/parameters/plant_bug;
			rmmod kprof_testmod; rmmod kprof"
		tools/kprof-vm --kernel debug --smp 2 --timeout 2100 --log "$logs/console-debug.log" \
			-- sh -c "env KPROF_FUZZ_SESSIONS=15 KPROF_FUZZ_SECONDS=80 KPROF_FUZZ_MIN=2000 KPROF_STRESS_CYCLES=200 KPROF_STRESS_GROWTH=0 \
				tools/guest-selftests.sh $ko --tests '$(echo $debug_tests)'; $plant" \
			> "$logs/guest-debug.log" 2>&1 &
		debug_pid=$!
	else
		result fail "debug: the debug kernel and kprof.ko"
		tail -n 20 "$logs/kmod-debug.log" | sed 's/^/#   /'
	fi
fi

mark builds
# --- static checks ------------------------------------------------------
echo "# static checks"
make -s ksrc > "$logs/ksrc.log" 2>&1
# compat.h holds the one test of the kernel's version (KPROF_LINUX_AT_LEAST):
# checkpatch's objection to LINUX_VERSION_CODE is for in-tree code, and
# applies to every other file
for f in module/*.[ch] selftests/kprof/kprof_testmod/*.[ch] tools/bench/floor/*.c include/uapi/linux/kprof.h; do
	ignore=
	[ "$f" = module/compat.h ] && ignore="--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON"
	# shellcheck disable=SC2086
	out=$(perl build/ksrc/scripts/checkpatch.pl --no-tree --strict --terse \
		--show-types $ignore -f "$f" 2>&1)
	if [ -z "$out" ]; then
		result ok "checkpatch --strict: $f"
	else
		result fail "checkpatch --strict: $f"
		echo "$out" | sed 's/^/#   /'
	fi
done
version_tests=$(grep -ln 'LINUX_VERSION_CODE\|KERNEL_VERSION(' module/*.[ch] | grep -v '^module/compat.h$')
if [ -z "$version_tests" ]; then
	result ok "kernel versions tested only in module/compat.h's seams"
else
	result fail "kernel versions tested only in module/compat.h's seams"
	echo "#   also in: $version_tests"
fi
step "netlink spec matches uapi header and genl.c" "$logs/spec.log" \
	/usr/bin/python3 tools/check-spec.py
step "module headers: each declares only its own .c file's functions" "$logs/headers.log" \
	/usr/bin/python3 tools/check-headers.py
# the module's shape (Documentation/kprof.rst, "Layers"), on the objects
# 'make module' built: no call or include circle, netlink only in genl.c,
# perf counters only in target.c; and the check itself catches three
# planted violations
step "module graph: no circles, netlink and perf counters each in one file" \
	"$logs/module-graph.log" /usr/bin/python3 tools/check-module-graph.py
step "module graph: the check reports planted violations" "$logs/module-graph-selftest.log" \
	/usr/bin/python3 tools/check-module-graph.py --selftest
kdoc=$(perl build/ksrc/scripts/kernel-doc -none module/*.[ch] include/uapi/linux/kprof.h 2>&1)
if [ -z "$kdoc" ]; then
	result ok "kernel-doc -none: module/ and the uapi header"
else
	result fail "kernel-doc -none: module/ and the uapi header"
	echo "$kdoc" | head -20 | sed 's/^/#   /'
fi

mark static
# --- host unit tests ------------------------------------------------------
echo "# host unit tests"
make -s -C ctl test > "$logs/ctl-test.log" 2>&1
ctl_rc=$?
# one result per test program ("  PASS    test-json: 31" / "  FAIL    ...")
while read -r verdict name _; do
	case $verdict in
	PASS) result ok "ctl: ${name%:}" ;;
	FAIL) result fail "ctl: ${name%:}" ;;
	esac
done < "$logs/ctl-test.log"
if [ $ctl_rc != 0 ] && ! grep -q '^  FAIL' "$logs/ctl-test.log"; then
	result fail "ctl: unit tests build and run"
	tail -n 20 "$logs/ctl-test.log" | sed 's/^/#   /'
fi
if [ "$quick" = 1 ]; then
	# no fuzzing, but the targets must still link (their sources are a subset of lib/)
	step "fuzz: build the targets (clang, libclang-rt-14-dev)" "$logs/fuzz-build.log" \
		make -s -C ctl fuzz-build
else
	# fuzzing the data reader and the ELF symbolizer, briefly (make fuzz: longer)
	ctl/fuzz/run.sh 15 > "$logs/fuzz.log" 2>&1
	count_plain_tap "$logs/fuzz.log" "fuzz: "
	if ! grep -qE '^(not )?ok ' "$logs/fuzz.log"; then
		result fail "fuzz: targets built and ran"
		tail -n 20 "$logs/fuzz.log" | sed 's/^/#   /'
	fi

	# the flame graph SVG: well-formed, and its search and zoom in headless Chromium
	tools/test-flamegraph-browser.sh > "$logs/flame-browser.log" 2>&1
	count_plain_tap "$logs/flame-browser.log" "flamegraph: "
	if ! grep -qE '^(not )?ok ' "$logs/flame-browser.log"; then
		result fail "flamegraph: browser test ran"
		tail -n 20 "$logs/flame-browser.log" | sed 's/^/#   /'
	fi
fi
# DKMS (its module, in build/dkms/RELEASE/, runs the hostile boot below),
# the systemd unit, the man pages, the bash completion
rm -rf build/dkms
tools/test-packaging.sh > "$logs/packaging.log" 2>&1
count_plain_tap "$logs/packaging.log" "packaging: "
if ! grep -qE '^(not )?ok ' "$logs/packaging.log"; then
	result fail "packaging: tests ran"
	tail -n 20 "$logs/packaging.log" | sed 's/^/#   /'
fi

mark host-tests
# --- guest selftests ------------------------------------------------------
# The matrix (Documentation/testing.rst, "The test matrix"): every module
# path runs on the generic 6.1 and 6.12 kernels and on one PREEMPT_RT
# kernel, 6.12's; kprofctl's decoding and its comparisons with perf and
# Prometheus, the same on every kernel, on generic 6.1 only.
#  - full kinds (KPROF_CHECK_KERNELS, default "generic rt-6.12"): the whole
#    list in an untimed and a timed boot, and the hostile boots; on RT
#    without the decoding tests, the BPF peers and the corpus;
#  - module-path kinds (KPROF_CHECK_PATHS, default "generic-6.12"): every
#    test of a module path (the decoding tests left out), in an untimed and
#    a timed boot, the BPF peers included, and the hostile corpus;
#  - smoke kinds (KPROF_CHECK_SMOKE, default "rt", the 6.1 PREEMPT_RT
#    patch set): load, sessions, aggregation, counting and nested ring
#    writers, in one boot.
# make check-quick: the generic 6.1 kernel's boots, and the module-path
# kinds' untimed boot beside them.
declare -A guest_pid guest_rel
rm -f "$logs"/guest-*-untimed.* "$logs"/guest-*-timed.* "$logs"/smoke-*.* "$logs"/hostile-*.* \
	"$logs"/baseline-*.*
full_kinds=${KPROF_CHECK_KERNELS:-generic rt-6.12}
paths_kinds=${KPROF_CHECK_PATHS-generic-6.12}
if [ "$quick" = 1 ]; then
	smoke_kinds=${KPROF_CHECK_SMOKE-}
else
	smoke_kinds=${KPROF_CHECK_SMOKE-rt}
fi
smoke_tests="kprof_load_test kprof_session_test kprof_agg_test kprof_count_test
kprof_hostile_test.sh:nested"
for kind in $full_kinds $paths_kinds $smoke_kinds; do
	[ -z "${guest_rel[$kind]+set}" ] || continue
	guest_rel[$kind]=
	if ! built=$(KCFLAGS="$werror_kcflags" tools/build-test-modules.sh "$kind" \
			2> "$logs/kmod-$kind.log") ||
	   grep -qE '(warning|error):' "$logs/kmod-$kind.log"; then
		result fail "$kind: build kprof.ko for the guest kernel"
		tail -n 20 "$logs/kmod-$kind.log" | sed 's/^/#   /'
		continue
	fi
	read -r rel _ <<< "$built"
	result ok "$kind: build kprof.ko for $rel"
	guest_rel[$kind]=$rel
done
# the rig's own checks that need no boot (kinds by series, the vermagic
# refusal with a module built above)
if [ -x tools/test-kprof-vm.sh ]; then
	tools/test-kprof-vm.sh --host-only > "$logs/rig-host.log" 2>&1
	count_plain_tap "$logs/rig-host.log" "rig: "
fi
# in_list WORD LIST: whether WORD is one of LIST's words
in_list() {
	case " ${2//$'\n'/ } " in *" $1 "*) return 0 ;; esac
	return 1
}
# kind_ko KIND [dkms]: the kprof.ko a boot of KIND loads (with dkms, the one
# 'make dkms' built for that kernel where there is one: test-packaging.sh
# builds it for the generic kernel of each series)
kind_ko() {
	local ko=$top/build/dkms/${guest_rel[$1]}/kprof.ko

	[ "${2:-}" = dkms ] && [ -f "$ko" ] && { echo "$ko"; return; }
	echo "$top/build/kmod/${guest_rel[$1]}/kprof.ko"
}
# kind_env KIND: the environment of KIND's test boots.  PREEMPT_RT: 150
# stress cycles instead of 500 (their leak bound is per cycle count).  The
# BPF peers (BCC's runqlat, offcputime, offwaketime and klockstat;
# bpftrace's runqlat.bt where BCC cannot start) run in one boot only, a
# module-path kind's timed boot (generic 6.12), where there is one (not in
# check-quick); else in generic 6.1's.
kind_env() {
	case $1 in
	rt*) echo "KPROF_STRESS_CYCLES=150 KPROF_BPF_PEERS=0" ;;
	*)
		if [ "$quick" != 1 ] && [ -n "$pkinds" ] && ! in_list "$1" "$pkinds"; then
			echo "KPROF_BPF_PEERS=0"
		fi ;;
	esac
}
# smoke_run KIND: KIND's smoke boot; smoke_results KIND: its results
smoke_run() {
	local kind=$1 ko

	[ -n "${guest_rel[$kind]:-}" ] || return 0
	ko=$(kind_ko "$kind" dkms)
	echo "$ko" > "$logs/smoke-$kind.ko"
	tools/kprof-vm --kernel "$kind" --timeout 600 --log "$logs/console-$kind-smoke.log" \
		-- sh -c "env $(kind_env "$kind") tools/guest-selftests.sh $ko --tests '$(echo $smoke_tests)'" \
		> "$logs/smoke-$kind.log" 2>&1
	echo $? > "$logs/smoke-$kind.rc"
}
smoke_results() {
	local kind=$1

	[ -n "${guest_rel[$kind]:-}" ] || return 0
	echo "# guest: $kind kernel (${guest_rel[$kind]}), smoke tests ($(cat "$logs/smoke-$kind.ko" 2>/dev/null))"
	guest_results "$logs/smoke-$kind.log" "$(cat "$logs/smoke-$kind.rc" 2>/dev/null)" "$kind (smoke)"
}
# Hostile input that could crash an unguarded module: one guest boot per
# such case, so that one crash cannot hide another (kprof_hostile_test.sh);
# the cases that cannot crash share one boot, in --list order (lockdown,
# which cannot be lowered again, last).  Each full kind runs them all but
# the corpus (66 probe runs, about 2 minutes), which runs on the first
# module-path kind (generic 6.12: the generic 6.1 kernel where there is
# none): its targets are the kernel's own functions, and the sampling
# path's code is the same on RT.
crash_cases=" ftrace-unwinder ftrace-self kprobe-nofault corpus "
corpus_kind=generic
for kind in $paths_kinds; do
	[ -n "${guest_rel[$kind]:-}" ] && { corpus_kind=$kind; break; }
done
# hostile_cases KIND crash|rest: the cases of KIND's hostile boots
hostile_cases() {
	local c

	for c in $(selftests/kprof/kprof_hostile_test.sh --list); do
		if [ "${crash_cases/ $c /}" = "$crash_cases" ]; then
			[ "$2" = rest ] && in_list "$1" "$full_kinds" && echo "$c"
		elif [ "$2" = crash ]; then
			if [ "$c" = corpus ]; then
				[ "$1" = "$corpus_kind" ] && echo "$c"
			else
				in_list "$1" "$full_kinds" && echo "$c"
			fi
		fi
	done
}
# hostile_run KIND: its hostile boots, one after the other; each boot's
# log and exit status into build/check/ (hostile_results reads them)
hostile_run() {
	local kind=$1 ko c rest

	ko=$(kind_ko "$kind")
	for c in $(hostile_cases "$kind" crash); do
		tools/kprof-vm --kernel "$kind" --timeout 600 --log "$logs/console-$kind-$c.log" \
			-- tools/guest-selftests.sh "$ko" kprof_hostile_test.sh "$c" \
			> "$logs/hostile-$kind-$c.log" 2>&1
		echo $? > "$logs/hostile-$kind-$c.rc"
	done
	rest=$(hostile_cases "$kind" rest | sed 's/^/kprof_hostile_test.sh:/' | tr '\n' ' ')
	[ -n "$rest" ] || return 0
	ko=$(kind_ko "$kind" dkms)
	echo "$ko" > "$logs/hostile-$kind-rest.ko"
	tools/kprof-vm --kernel "$kind" --timeout 400 --log "$logs/console-$kind-rest.log" \
		-- tools/guest-selftests.sh "$ko" --tests "${rest% }" > "$logs/hostile-$kind-rest.log" 2>&1
	echo $? > "$logs/hostile-$kind-rest.rc"
}
# hostile_results KIND: the results of hostile_run KIND
hostile_results() {
	local kind=$1 c rest ko what="the cases that cannot crash"

	for c in $(hostile_cases "$kind" crash); do
		echo "# hostile: $kind kernel, $c"
		guest_results "$logs/hostile-$kind-$c.log" "$(cat "$logs/hostile-$kind-$c.rc" 2>/dev/null)" \
			"$kind: hostile $c"
	done
	rest=$(hostile_cases "$kind" rest | tr '\n' ' ')
	[ -n "$rest" ] || return 0
	ko=$(cat "$logs/hostile-$kind-rest.ko" 2>/dev/null)
	[ "$ko" = "$top/build/dkms/${guest_rel[$kind]}/kprof.ko" ] &&
		what="$what, with the kprof.ko DKMS built"
	echo "# hostile: $kind kernel, ${rest% } ($ko)"
	guest_results "$logs/hostile-$kind-rest.log" "$(cat "$logs/hostile-$kind-rest.rc" 2>/dev/null)" \
		"$kind: hostile ($what)"
}

# Each kernel's tests in two boots.  The untimed ones (nothing in them
# compares a duration or a sample rate with the guest's clock) boot beside
# the other lanes' guests; the timed ones (off-CPU and scheduler times
# against the programs' own clocks and BCC's, stat's counts and rates,
# record's and lock's rates, the probe cost cap's share of the time) boot
# last, two at a time, never beside the long untimed boots.  Each asserts
# what the mechanism guarantees on a busy host (KPROF_CHECK_LOAD=2
# check-quick, two busy loops beside its guests, passes them), so a second
# TCG guest on the other core is less than they are made to stand.
timed_tests="kprof_probe_test kprof_record_test.sh kprof_stat_test.sh kprof_sched_test.sh kprof_offcpu_test.sh kprof_lock_test.sh"
all_tests=$(make -s --no-print-directory -C selftests/kprof list-tests KSFT_DIR="$top/build/ksrc/tools/testing/selftests")
# kprofctl's decoding, its recording and rotation, its daemon, its exporter, and its
# comparisons with perf and Prometheus: the same on every kernel, so on
# generic 6.1 only (the module's paths under them, rings, side-band,
# aggregation and counting sessions, run everywhere in the session, dev,
# agg and count tests)
decoding_tests="kprof_exporter_test.sh kprof_record_test.sh kprof_switch_test.sh kprof_stat_test.sh kprof_aggctl_test.sh kprof_daemon_test.sh"
# The untimed tests that boot apart, in the hostile boots' lane (make
# check; in check-quick they stay in the untimed boot): record
# --switch-output under load, the longest, and the daemon's (2 minutes of
# intervals), so that generic 6.1's untimed boot stays within its CPU
# limit and about even with rt-6.12's chain beside it.
lane_tests="kprof_switch_test.sh kprof_daemon_test.sh"
# tests_of KIND timed|untimed|lane: that boot's list
tests_of() {
	local t out=''

	for t in $all_tests; do
		if in_list "$t" "$decoding_tests"; then
			in_list "$1" "$full_kinds" || continue
			case $1 in rt*) continue ;; esac
		fi
		if in_list "$t" "$timed_tests"; then
			[ "$2" = timed ] || continue
		elif [ "$quick" != 1 ] && in_list "$t" "$lane_tests"; then
			[ "$2" = lane ] || continue
		else
			[ "$2" = untimed ] || continue
		fi
		out="$out $t"
	done
	echo "${out# }"
}
# guest_boot KIND PART [THEN]: boot KIND's kernel on PART's tests, in the
# background; its exit status into build/check/guest-KIND-PART.rc, then
# the command THEN, if any, in the same background job.  A module-path
# kind's untimed boot loads the module DKMS built for it, where there is one.
# One untimed boot reports 64 possible CPUs of which 4 are online (as a
# cloud VM sized for CPU hotplug does), so that every test there runs
# with memory for the CPUs that are up, not the possible ones (issue 38).
possible_kind=${KPROF_CHECK_POSSIBLE-generic}
guest_boot() {
	local kind=$1 part=$2 then=${3:-} ko cpu=840 append=()

	# check-quick's untimed boot keeps the switch test too: under
	# KPROF_CHECK_LOAD=2 generic 6.1's ran out of 840 CPU seconds (2026-12-07)
	[ "$quick" = 1 ] && [ "$part" = untimed ] && cpu=1200
	ko=$(kind_ko "$kind")
	[ "$part" = untimed ] && in_list "$kind" "$paths_kinds" && ko=$(kind_ko "$kind" dkms)
	echo "$ko" > "$logs/guest-$kind-$part.ko"
	[ "$part" = untimed ] && [ "$kind" = "$possible_kind" ] && append=(--append possible_cpus=64)
	(
		tools/kprof-vm --kernel "$kind" --timeout "$cpu" "${append[@]}" \
			--log "$logs/console-$kind-$part.log" \
			-- sh -c "env $(kind_env "$kind") tools/guest-selftests.sh $ko --tests '$(tests_of "$kind" "$part")'" \
			> "$logs/guest-$kind-$part.log" 2>&1
		echo $? > "$logs/guest-$kind-$part.rc"
		[ -z "$then" ] || $then
	) &
	guest_pid[$kind-$part]=$!
}
# guest_boot_results KIND PART: its results
guest_boot_results() {
	echo "# guest: $1 kernel (${guest_rel[$1]}), $2 tests ($(cat "$logs/guest-$1-$2.ko"))"
	guest_results "$logs/guest-$1-$2.log" "$(cat "$logs/guest-$1-$2.rc")" "$1 ($2)"
}
kinds=
for kind in $full_kinds; do
	[ -n "${guest_rel[$kind]:-}" ] && kinds="$kinds $kind"
done
pkinds=
for kind in $paths_kinds; do
	[ -n "${guest_rel[$kind]:-}" ] && ! in_list "$kind" "$kinds" && pkinds="$pkinds $kind"
done

# baseline_run KIND: KIND's kernel without kprof (tools/guest-baseline.sh:
# tracepoints, kprobes, the function tracer, perf's sampling), clean under
# the log scan, before kprof's runs on it are judged; each 6.12 kind (no
# allowlist: none is needed on either).  baseline_results KIND: its results.
baseline_run() {
	tools/kprof-vm --kernel "$1" --timeout 300 --log "$logs/console-$1-baseline.log" \
		-- tools/guest-baseline.sh > "$logs/baseline-$1.log" 2>&1
	echo $? > "$logs/baseline-$1.rc"
}
baseline_results() {
	local kind=$1 rc

	rc=$(cat "$logs/baseline-$kind.rc" 2>/dev/null)
	echo "# baseline: $kind kernel (${guest_rel[$kind]}) without kprof"
	count_plain_tap "$logs/baseline-$kind.log" "$kind baseline: "
	if [ "$rc" = 0 ]; then
		result ok "$kind: baseline boot without kprof ran, kernel log clean"
	else
		result fail "$kind: baseline boot without kprof ran, kernel log clean (rc=$rc)"
		grep -A40 'kprof-vm:' "$logs/baseline-$kind.log" | head -60 | sed 's/^/#   /'
	fi
}
baseline_kinds=
for kind in $kinds $pkinds; do
	case $kind in *-6.12) baseline_kinds="$baseline_kinds $kind" ;; esac
done

# Beside the debug guest (started above), which runs beside the host tests
# and these, two lanes: the 6.12 kinds' baseline boots, each full kind's
# hostile boots, then the generic full kind's lane boot (lane_tests); and
# each module-path kind's corpus and untimed boots.
if [ "$quick" != 1 ]; then
	(
		for kind in $pkinds; do
			hostile_run "$kind"
			guest_boot "$kind" untimed
			wait "${guest_pid[$kind-untimed]}"
		done
	) &
	lane_pid=$!
	for kind in $baseline_kinds; do baseline_run "$kind"; done
	for kind in $kinds; do
		hostile_run "$kind"
		hostile_results "$kind"
		if [ -n "$(tests_of "$kind" lane)" ]; then
			guest_boot "$kind" lane
			wait "${guest_pid[$kind-lane]}"
		fi
	done
	wait "$lane_pid"
	for kind in $baseline_kinds; do baseline_results "$kind"; done
	for kind in $pkinds; do
		hostile_results "$kind"
		guest_pid[$kind-untimed]=lane
	done
	mark hostile-boots+module-paths
fi

# --- the debug guest's results (it ran beside the host tests and the hostile boots)
if [ -n "$debug_pid" ]; then
	echo "# guest: debug kernel (KASAN, lockdep, kmemleak, fault injection)"
	wait "$debug_pid"
	rc=$?
	mark debug-guest-rest
	count_tap "$logs/guest-debug.log" "debug: "
	grep -qE '^# (not )?ok ' "$logs/guest-debug.log" ||
		result fail "debug: the guest ran tests"
	# the guest's whole dmesg is kept (the run had a splat); else the console
	kept=$(sed -n 's/.*run files kept in \(.*\)$/\1/p' "$logs/guest-debug.log" | tail -n 1)
	klog=$logs/console-debug.log
	[ -n "$kept" ] && [ -s "$kept/dmesg" ] && cp "$kept/dmesg" "$logs/dmesg-debug.log" &&
		klog=$logs/dmesg-debug.log && rm -rf "$kept"
	sed '/kprof-check: the planted bug follows/q' "$klog" > "$logs/console-debug-tests.log"
	if grep -q 'kprof-check: the planted bug follows' "$logs/console-debug-tests.log" &&
	   tools/kprof-vm --scan "$logs/console-debug-tests.log" > "$logs/debug-scan.log" 2>&1; then
		result ok "debug: guest run completed, kernel log clean up to the planted bug"
	else
		result fail "debug: guest run completed, kernel log clean up to the planted bug (rc=$rc)"
		head -n 60 "$logs/debug-scan.log" | sed 's/^/#   /'
	fi
	# the report after the marker, in the guest's dmesg or on the console
	planted() {
		sed '1,/kprof-check: the planted bug follows/d' "$1" |
			grep -a -m 1 'BUG: KASAN: [a-z-]* in kprof_test_read_past'
	}
	if [ $rc = 126 ] && { planted "$klog" || planted "$logs/console-debug.log"; } >/dev/null; then
		result ok "debug: the log scan fails a run with a planted KASAN report"
	else
		result fail "debug: the log scan fails a run with a planted KASAN report (rc=$rc)"
		echo "#   $klog after the marker:"
		sed '1,/kprof-check: the planted bug follows/d' "$klog" | head -n 12 | sed 's/^/#   /'
		tail -n 12 "$logs/guest-debug.log" | sed 's/^/#   /'
	fi

fi


# The untimed boots of the full kinds side by side (the smoke boots in the
# first RT kind's job, after its untimed boot; in check-quick, the
# module-path kinds' untimed boots beside them), then every timed boot
# alone.
late_jobs() {
	for kind in $smoke_kinds; do smoke_run "$kind"; done
}
smoke_late=
for kind in $kinds; do
	case $kind in rt*) [ -z "$smoke_late" ] && smoke_late=$kind ;; esac
done
early_smoke=
[ -z "$smoke_late" ] && [ -n "$smoke_kinds" ] && early_smoke=1
side_pid=
if [ "$quick" = 1 ] || [ -n "$early_smoke" ]; then
	(
		if [ "$quick" = 1 ]; then
			for kind in $pkinds; do
				guest_boot "$kind" untimed
				wait "${guest_pid[$kind-untimed]}"
			done
		fi
		[ -z "$early_smoke" ] || for kind in $smoke_kinds; do smoke_run "$kind"; done
	) &
	side_pid=$!
fi
for kind in $kinds; do
	if [ "$kind" = "$smoke_late" ]; then
		guest_boot "$kind" untimed late_jobs
	else
		guest_boot "$kind" untimed
	fi
done
for kind in $kinds; do
	wait "${guest_pid[$kind-untimed]}"
	if [ "$kind" = "$smoke_late" ]; then
		mark "untimed-$kind+smoke"
		for k in $smoke_kinds; do smoke_results "$k"; done
	else
		mark "untimed-$kind"
	fi
done
if [ -n "$side_pid" ]; then
	wait "$side_pid"
	mark "side-boots"
	# (the module-path kinds' untimed boots of check-quick, for the results)
	if [ "$quick" = 1 ]; then
		for kind in $pkinds; do guest_pid[$kind-untimed]=side; done
	fi
	[ -z "$early_smoke" ] || for kind in $smoke_kinds; do smoke_results "$kind"; done
fi
# The timed boots in two lanes, side by side: the first full kind's alone,
# the others one after the other beside it (make check: generic 6.1's,
# about as long as rt-6.12's and generic 6.12's together).
timed_kinds=$kinds
[ "$quick" = 1 ] || timed_kinds="$kinds $pkinds"
timed_first=$(echo $timed_kinds | cut -d' ' -f1)
timed_rest=$(echo $timed_kinds | cut -s -d' ' -f2-)
[ -z "$timed_first" ] || guest_boot "$timed_first" timed
(
	for kind in $timed_rest; do
		guest_boot "$kind" timed
		wait "${guest_pid[$kind-timed]}"
	done
) &
timed_lane=$!
[ -z "$timed_first" ] || wait "${guest_pid[$timed_first-timed]}"
wait "$timed_lane"
for kind in $timed_rest; do guest_pid[$kind-timed]=lane; done
mark "timed-boots"
for kind in $kinds $pkinds; do
	for part in lane untimed timed; do
		[ -n "${guest_pid[$kind-$part]:-}" ] || continue
		guest_boot_results "$kind" "$part"
	done
done

# where the guest time went: the slowest tests of each boot
for f in "$logs"/guest-*.log "$logs"/smoke-*.log; do
	[ -f "$f" ] || continue
	slow=$(sed -n 's/^# kprof-time: \([^ ]*\) \([0-9]*\) s$/\2 \1/p' "$f" | sort -rn | head -n 4 |
		awk '{ printf "%s%s %ss", n++ ? ", " : "", $2, $1 }')
	[ -z "$slow" ] || echo "# $(basename "$f" .log): $slow"
done
total=$(( $(date +%s) - t0 ))
echo "# wall time by phase: $(printf "%s, " "${marks[@]}" | sed "s/, $//")"
echo "# make check took $total s ($((total / 60)) min; the budget: 40 min warm)"
echo "# logs in build/check/"
if [ ${#failures[@]} -gt 0 ]; then
	echo "# failed:"
	printf '#   %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
