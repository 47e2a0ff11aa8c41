#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of kprof's packaging (Documentation/packaging.rst), as TAP:
#
#  - DKMS: 'make dkms' stages the sources and runs dkms add and build in a
#    throwaway tree (--dkmstree/--sourcetree/--installtree, a throwaway
#    signing key; the real /var/lib/dkms is not touched) for the generic
#    6.1 amd64 kernel that tools/build-test-modules.sh builds for; the
#    module has that kernel's vermagic, and a copy is left in
#    build/dkms/<release>/kprof.ko for the guest tests;
#  - systemd: systemd-analyze verify of tools/systemd/kprof-exporter.service
#    (ExecStart pointed at ctl/kprofctl) and 'make install-systemd';
#  - man pages: 'make -C ctl man' writes one page per command, each lists
#    the command's options and passes groff -ww with no warning;
#  - bash completion: ctl/completion/kprofctl.bash completes commands,
#    subcommands and options from kprofctl itself.
#
# Usage: tools/test-packaging.sh
# KPROF_DKMS_KERNEL=RELEASE picks the kernel of the DKMS build.
# Exits 1 when a test failed.

set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
ctl=$top/ctl
version=$(sed -n 's/^kprof-version := //p' "$top/Kbuild")
tmp=$(mktemp -d /tmp/kprof-packaging.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

n=0
failed=0

pass() { n=$((n + 1)); echo "ok $n - $*"; }
fail() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
diag() { sed 's/^/# /'; }
# check DESCRIPTION COMMAND...: ok when the command succeeds
check() {
	local desc=$1

	shift
	if "$@"; then pass "$desc"; else fail "$desc"; fi
}

# --- kprofctl and its man pages -----------------------------------------

if make -s -C "$ctl" >"$tmp/ctl.log" 2>&1 && make -s -C "$ctl" man >>"$tmp/ctl.log" 2>&1; then
	pass "kprofctl and its man pages build (make -C ctl man)"
else
	fail "kprofctl and its man pages build (make -C ctl man)"
	diag <"$tmp/ctl.log"
	echo "1..$n"
	exit 1
fi
kprofctl=$ctl/kprofctl
man=$ctl/.obj/man

# --- DKMS ----------------------------------------------------------------

# The generic (non-RT) amd64 kernel, as tools/build-test-modules.sh picks it.
generic_release() {
	local img

	img=$(printf '%s\n' /boot/vmlinuz-*-amd64 | grep -v -- '-rt-' | sort -V | tail -n 1)
	if [ -e "$img" ]; then
		echo "${img#/boot/vmlinuz-}"
		return
	fi
	img=$(printf '%s\n' /usr/src/linux-headers-*-amd64 | grep -v -- '-rt-' | sort -V | tail -n 1)
	[ -e "$img" ] && echo "${img#/usr/src/linux-headers-}"
}

test_dkms() {
	local rel=${KPROF_DKMS_KERNEL:-$(generic_release)} kdir ko vermagic out
	local d=$tmp/dkms real_before real_after flags

	if ! command -v dkms >/dev/null; then
		skip "dkms" "dkms not installed (make deps)"
		return
	fi
	kdir=/lib/modules/$rel/build
	[ -d "$kdir" ] || kdir=/usr/src/linux-headers-$rel
	if [ -z "$rel" ] || [ ! -d "$kdir" ]; then
		skip "dkms" "no kernel headers for '${rel}' (make deps)"
		return
	fi

	real_before=$(ls -laR --time-style=full-iso /var/lib/dkms 2>&1)
	mkdir -p "$d/tree" "$d/src" "$d/install" "$d/tmp"
	flags="--dkmstree $d/tree --sourcetree $d/src --installtree $d/install"
	[ "$kdir" = "/lib/modules/$rel/build" ] || flags="$flags --kernelsourcedir $kdir"
	# dkms signs with /var/lib/dkms/mok.key unless told (framework.conf's
	# variables come from the environment when it sets none).
	if TMPDIR=$d/tmp mok_signing_key=$d/mok.key mok_certificate=$d/mok.pub \
	   make -s -C "$top" dkms KPROF_DKMS_SRC="$d/src/kprof-$version" \
		DKMS_FLAGS="$flags" DKMS_KERNELS="$rel" DKMS_INSTALL=0 >"$d/log" 2>&1; then
		pass "make dkms: dkms add and build for $rel in a throwaway tree"
	else
		fail "make dkms: dkms add and build for $rel in a throwaway tree"
		diag <"$d/log"
		tail -n 30 "$d/tree/kprof/$version/build/make.log" 2>/dev/null | diag
	fi

	check "dkms.conf of the staged tree has version $version" \
		grep -qx "PACKAGE_VERSION=\"$version\"" "$d/src/kprof-$version/dkms.conf"
	check "dkms status: kprof/$version built for $rel" \
		bash -c "dkms status $flags -m kprof -v $version | grep -q '^kprof/$version, $rel, x86_64: built'"

	ko=$(find "$d/tree/kprof/$version/$rel" -path '*/module/kprof.ko*' 2>/dev/null | head -n 1)
	if [ -z "$ko" ]; then
		fail "kprof.ko in the DKMS tree"
	else
		pass "kprof.ko in the DKMS tree"
		vermagic=$(modinfo -F vermagic "$ko")
		check "vermagic '$vermagic' is $rel's" test "${vermagic%% *}" = "$rel"
		check "MODULE_VERSION is $version" test "$(modinfo -F version "$ko")" = "$version"
		out=$top/build/dkms/$rel
		mkdir -p "$out" && cp "$ko" "$out/kprof.ko"
		check "copy left in build/dkms/$rel/kprof.ko" cmp -s "$ko" "$out/kprof.ko"
	fi

	check "make dkms-remove: nothing left in the throwaway tree" bash -c \
		"make -s -C '$top' dkms-remove KPROF_DKMS_SRC='$d/src/kprof-$version' \
			DKMS_FLAGS='$flags' >'$d/remove.log' 2>&1 &&
		 [ -z \"\$(dkms status $flags -m kprof)\" ] && [ ! -e '$d/src/kprof-$version' ]"

	real_after=$(ls -laR --time-style=full-iso /var/lib/dkms 2>&1)
	check "the real /var/lib/dkms is untouched" test "$real_before" = "$real_after"
}

# --- systemd -------------------------------------------------------------

test_systemd() {
	local unit=$top/tools/systemd/kprof-exporter.service d=$tmp/systemd out

	mkdir -p "$d/unit" "$d/man/man1"
	if ! command -v systemd-analyze >/dev/null; then
		skip "systemd-analyze verify kprof-exporter.service" "systemd-analyze missing"
	else
		# ExecStart must exist, Documentation= must be a page man finds.
		sed "s|^ExecStart=/usr/local/bin/kprofctl |ExecStart=$kprofctl |" "$unit" \
			>"$d/unit/kprof-exporter.service"
		cp "$man"/*.1 "$d/man/man1/"
		if out=$(cd "$d" && MANPATH=$d/man systemd-analyze verify \
			 "$d/unit/kprof-exporter.service" 2>&1) && [ -z "$out" ]; then
			pass "systemd-analyze verify kprof-exporter.service: no complaint"
		else
			fail "systemd-analyze verify kprof-exporter.service: no complaint"
			echo "$out" | diag
		fi
	fi

	make -s -C "$top" install-systemd DESTDIR="$d/root" PREFIX=/usr >"$d/log" 2>&1
	check "make install-systemd PREFIX=/usr: the unit runs /usr/bin/kprofctl exporter" \
		grep -q '^ExecStart=/usr/bin/kprofctl exporter ' \
		"$d/root/usr/lib/systemd/system/kprof-exporter.service"
	# The unit's command line is one kprofctl takes.
	check "the unit's ExecStart is a kprofctl command (exporter)" \
		bash -c "'$kprofctl' \$(sed -n 's|^ExecStart=[^ ]* \\([a-z]*\\).*|\\1|p' '$unit') --help >/dev/null"
}

# --- man pages -----------------------------------------------------------

test_man() {
	local cmds page err c missing="" opt noopt=""

	cmds=$("$kprofctl" --list-cmds)
	# and the command list of 'kprofctl --help', the table the pages name
	cmds="$cmds $("$kprofctl" --help | sed -n '/^Commands:/,/^$/s/^    \([a-z]\+\) .*/\1/p')"
	for c in $(echo "$cmds" | tr ' ' '\n' | sort -u); do
		[ -f "$man/kprofctl-$c.1" ] || missing="$missing $c"
	done
	check "a page for every command of --list-cmds and --help${missing:+ (missing:$missing)}" \
		test -z "$missing"

	for page in "$man"/kprofctl.1 "$man"/kprofctl-*.1; do
		err=$(groff -ww -z -man "$page" 2>&1)
		if [ -z "$err" ]; then
			pass "groff -ww -man $(basename "$page"): no warning"
		else
			fail "groff -ww -man $(basename "$page"): no warning"
			echo "$err" | diag
		fi
	done

	for c in $("$kprofctl" --list-cmds); do
		for opt in $("$kprofctl" "$c" --list-opts); do
			opt=${opt%=}
			grep -qF "\\fB${opt//-/\\-}\\fR" "$man/kprofctl-$c.1" || noopt="$noopt $c:$opt"
		done
	done
	check "each page lists its command's --list-opts${noopt:+ (missing:$noopt)}" test -z "$noopt"
	check "kprofctl-record.1 names the command" \
		grep -q '^kprofctl\\-record \\- Sample a command' "$man/kprofctl-record.1"
}

# --- bash completion -----------------------------------------------------

# complete WORDS...: COMPREPLY for the last word, one a line, by the
# kprofctl found in PATH (ctl/ first), as an interactive bash would run it.
complete_words() {
	PATH=$ctl:$PATH bash -c '
		. "$1" || exit 1
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		_kprofctl
		printf "%s\n" "${COMPREPLY[@]}"' _ "$ctl/completion/kprofctl.bash" "$@"
}

# expect DESCRIPTION WANT WORDS...: WANT is among the completions
expect() {
	local desc=$1 want=$2 got

	shift 2
	got=$(complete_words "$@" 2>&1)
	if printf '%s\n' "$got" | grep -qxF -- "$want"; then
		pass "completion: $desc"
	else
		fail "completion: $desc"
		echo "got: $got" | diag
	fi
}

test_completion() {
	local d=$tmp/inst got

	check "completion script: bash -n" bash -n "$ctl/completion/kprofctl.bash"
	expect "kprofctl rec -> record" record kprofctl rec
	got=$(complete_words kprofctl rec | wc -l)
	check "kprofctl rec: record only (got $got)" test "$got" = 1
	expect "kprofctl '' -> every command (help)" help kprofctl ""
	expect "kprofctl --debug st -> status" status kprofctl --debug st
	expect "kprofctl --de -> --debug" --debug kprofctl --de
	expect "kprofctl record --fre -> --freq=" --freq= kprofctl record --fre
	expect "kprofctl record -a --no-i -> --no-inherit" --no-inherit kprofctl record -a --no-i
	expect "kprofctl sched ti -> timehist" timehist kprofctl sched ti
	expect "kprofctl sched latency --so -> --sort=" --sort= kprofctl sched latency --so
	expect "kprofctl lock con -> contention" contention kprofctl lock con
	expect "kprofctl help ver -> version" version kprofctl help ver
	expect "kprofctl exporter --l -> --listen=" --listen= kprofctl exporter --l
	expect "./ctl/kprofctl st -> stat (the binary typed)" stat "$kprofctl" st
	got=$(complete_words kprofctl record -o "" | wc -w)
	check "kprofctl record -o '': no option names, file names instead" test "$got" = 0

	make -s -C "$ctl" install DESTDIR="$d" PREFIX=/usr >"$tmp/install.log" 2>&1
	check "make -C ctl install: binary, completion and man pages" \
		test -x "$d/usr/bin/kprofctl" -a \
		-f "$d/usr/share/bash-completion/completions/kprofctl" -a \
		-f "$d/usr/share/man/man1/kprofctl-record.1"
}

test_dkms
test_systemd
test_man
test_completion

echo "1..$n"
[ "$failed" -eq 0 ] || { echo "# $failed of $n failed"; exit 1; }
