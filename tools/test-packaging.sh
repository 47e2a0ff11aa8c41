#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of kprof's packaging (Documentation/packaging.rst), as TAP:
#
#  - DKMS: 'make dkms' stages the sources and runs dkms add and build in a
#    throwaway tree (--dkmstree/--sourcetree/--installtree, a throwaway
#    signing key; the real /var/lib/dkms is not touched) for the generic
#    amd64 kernel of each series, 6.1 and 6.12 (tools/kernels.sh); each
#    module has its kernel's vermagic, and a copy is left in
#    build/dkms/<release>/kprof.ko for the guest tests;
#  - systemd: systemd-analyze verify of tools/systemd/kprof-exporter.service
#    and kprof-daemon.service (ExecStart pointed at ctl/kprofctl) and 'make
#    install-systemd';
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

# The generic amd64 kernels of each series, as tools/kernels.sh names them
# (generic-6.1, generic-6.12): DKMS builds for both.
# shellcheck source=tools/kernels.sh
. "$top/tools/kernels.sh"
dkms_releases() {
	local k

	if [ -n "${KPROF_DKMS_KERNEL:-}" ]; then
		echo "$KPROF_DKMS_KERNEL"
		return
	fi
	for k in generic-6.1 generic-6.12; do
		kprof_kernel_release "$k" 2>/dev/null
	done
}

test_dkms() {
	local rel=$1 kdir ko vermagic out
	local d=$tmp/dkms-$1 real_before real_after flags

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

	check "dkms.conf's BUILD_EXCLUSIVE_CONFIG is Kbuild's kprof-needs ($rel)" \
		grep -qx "BUILD_EXCLUSIVE_CONFIG=\"$(sed -n 's/^kprof-needs := //p' "$top/Kbuild")\"" \
		"$d/src/kprof-$version/dkms.conf"
	check "dkms.conf of the staged tree has version $version ($rel)" \
		grep -qx "PACKAGE_VERSION=\"$version\"" "$d/src/kprof-$version/dkms.conf"
	check "dkms status: kprof/$version built for $rel" \
		bash -c "dkms status $flags -m kprof -v $version | grep -q '^kprof/$version, $rel, x86_64: built'"

	ko=$(find "$d/tree/kprof/$version/$rel" -path '*/module/kprof.ko*' 2>/dev/null | head -n 1)
	if [ -z "$ko" ]; then
		fail "kprof.ko in the DKMS tree ($rel)"
	else
		pass "kprof.ko in the DKMS tree ($rel)"
		vermagic=$(modinfo -F vermagic "$ko")
		check "vermagic '$vermagic' is $rel's" test "${vermagic%% *}" = "$rel"
		check "MODULE_VERSION is $version ($rel)" test "$(modinfo -F version "$ko")" = "$version"
		out=$top/build/dkms/$rel
		mkdir -p "$out"
		# (6.12's DKMS compresses the module as its kernel does: .ko.xz)
		case $ko in
		*.ko.xz) xz -dc "$ko" > "$out/kprof.ko" ;;
		*.ko.zst) zstd -qdc "$ko" > "$out/kprof.ko" ;;
		*.ko.gz) gzip -dc "$ko" > "$out/kprof.ko" ;;
		*) cp "$ko" "$out/kprof.ko" ;;
		esac
		check "an uncompressed copy left in build/dkms/$rel/kprof.ko (${ko##*/})" \
			bash -c "[ \"\$(head -c 4 '$out/kprof.ko' | od -An -c | tr -d ' ')\" = '177ELF' ] &&
				 [ \"\$(modinfo -F vermagic '$out/kprof.ko' | cut -d' ' -f1)\" = '$rel' ]"
		# the shipped module carries no test seam (they live in the
		# selftests' kprof_testmod.ko, which DKMS does not build)
		local params tsyms others
		params=$(modinfo -p "$out/kprof.ko" | cut -d: -f1 | tr '\n' ' ')
		check "modinfo -p: no test parameter in the DKMS-built kprof.ko ($rel: ${params% })" \
			bash -c "[ -n '$params' ] && ! echo '$params' | grep -qi test"
		tsyms=$(nm "$out/kprof.ko" | grep -ci test)
		check "nm: no test symbol in the DKMS-built kprof.ko ($rel: $tsyms)" test "$tsyms" = 0
		# nor make bench's stage clock (module/stages.h), nor its file
		tsyms=$(nm "$out/kprof.ko" | grep -c kprof_stage)
		check "nm: no stage clock in the DKMS-built kprof.ko ($rel: $tsyms)" test "$tsyms" = 0
		others=$(find "$d/tree/kprof/$version" -name '*.ko*' ! -name 'kprof.ko*' | wc -l)
		check "DKMS builds kprof.ko alone, no kprof_testmod ($rel: $others others)" \
			test "$others" = 0
	fi

	check "make dkms-remove: nothing left in the throwaway tree ($rel)" bash -c \
		"make -s -C '$top' dkms-remove KPROF_DKMS_SRC='$d/src/kprof-$version' \
			DKMS_FLAGS='$flags' >'$d/remove.log' 2>&1 &&
		 [ -z \"\$(dkms status $flags -m kprof)\" ] && [ ! -e '$d/src/kprof-$version' ]"

	real_after=$(ls -laR --time-style=full-iso /var/lib/dkms 2>&1)
	check "the real /var/lib/dkms is untouched ($rel)" test "$real_before" = "$real_after"
}

# --- systemd -------------------------------------------------------------

test_systemd() {
	local unit d=$tmp/systemd out u cmd

	mkdir -p "$d/unit" "$d/man/man1"
	cp "$man"/*.1 "$d/man/man1/"
	make -s -C "$top" install-systemd DESTDIR="$d/root" PREFIX=/usr >"$d/log" 2>&1
	for u in kprof-exporter kprof-daemon; do
		unit=$top/tools/systemd/$u.service
		cmd=${u#kprof-}
		if ! command -v systemd-analyze >/dev/null; then
			skip "systemd-analyze verify $u.service" "systemd-analyze missing"
		else
			# ExecStart must exist, Documentation= must be a page man finds.
			sed "s|^ExecStart=/usr/local/bin/kprofctl |ExecStart=$kprofctl |" "$unit" \
				>"$d/unit/$u.service"
			if out=$(cd "$d" && MANPATH=$d/man systemd-analyze verify \
				 "$d/unit/$u.service" 2>&1) && [ -z "$out" ]; then
				pass "systemd-analyze verify $u.service: no complaint"
			else
				fail "systemd-analyze verify $u.service: no complaint"
				echo "$out" | diag
			fi
		fi
		check "make install-systemd PREFIX=/usr: $u.service runs /usr/bin/kprofctl $cmd" \
			grep -q "^ExecStart=/usr/bin/kprofctl $cmd " \
			"$d/root/usr/lib/systemd/system/$u.service"
		# The unit's command line is one kprofctl takes.
		check "$u.service's ExecStart is a kprofctl command ($cmd)" \
			bash -c "'$kprofctl' \$(sed -n 's|^ExecStart=[^ ]* \\([a-z]*\\).*|\\1|p' '$unit') --help >/dev/null"
	done
}

# --- man pages -----------------------------------------------------------

# --- what the module needs of the kernel --------------------------------

# Kbuild refuses a kernel without each of kprof-needs (with one set off, or
# a "!" one on), naming it; with all of them it has nothing to say.
test_kbuild_needs() {
	local needs c o name args out what

	needs=$(sed -n 's/^kprof-needs := //p' "$top/Kbuild")
	check "Kbuild's kprof-needs lists CONFIG_PERF_EVENTS and !CONFIG_UNWINDER_GUESS" \
		bash -c "[[ ' $needs ' == *' CONFIG_PERF_EVENTS '* && ' $needs ' == *' !CONFIG_UNWINDER_GUESS '* ]]"
	for c in $needs; do
		name=${c#!}
		args="CONFIG_X86_64=y CONFIG_DEBUG_FS=y VERSION=6 PATCHLEVEL=1"
		for o in $needs; do
			[[ $o == '!'* ]] || args="$args $o=y"
		done
		if [[ $c == '!'* ]]; then
			args="$args $name=y"
		else
			args="$args $name="
		fi
		# shellcheck disable=SC2086
		out=$(make -s -C "$top" -f Kbuild $args 2>&1)
		if [[ $c == '!'* ]]; then what="with $name"; else what="without $name"; fi
		check "Kbuild refuses a kernel $what: '$(echo "$out" | head -n 1)'" \
			grep -q "kprof needs $name" <<< "$out"
	done
	args="CONFIG_X86_64=y CONFIG_DEBUG_FS=y VERSION=6 PATCHLEVEL=1"
	for o in $needs; do
		[[ $o == '!'* ]] || args="$args $o=y"
	done
	# shellcheck disable=SC2086
	out=$(make -s -C "$top" -f Kbuild $args 2>&1)
	check "Kbuild accepts a kernel with all of them" bash -c "! grep -q 'kprof needs' <<< '$out'"
}

# --- what to install ------------------------------------------------------

# README's install line names every package ctl/Makefile's hint names (the
# hint is what a build without them prints), and tools/deps.sh installs them.
test_install_line() {
	local hint readme deps p missing= missing_deps=

	hint=$(sed -n 's/.*cannot find $(PKGS); install \([^)]*\)).*/\1/p' "$ctl/Makefile")
	readme=$(sed -n '/sudo apt-get install build-essential/,/^    make /p' "$top/README.md" |
		tr -d '\\' | tr -s ' \n' '  ')
	deps=$(sed -n '/^PKGS="/,/"$/p' "$top/tools/deps.sh" | tr -d '\\"' | tr -s ' \n' '  ')
	for p in $hint; do
		case " $readme " in *" $p "*) ;; *) missing="$missing $p" ;; esac
		case " $deps " in *" $p "*) ;; *) missing_deps="$missing_deps $p" ;; esac
	done
	check "ctl/Makefile's hint names packages ($(echo "$hint" | wc -w))" test -n "$hint"
	check "README's install line names every package of ctl/Makefile's hint${missing:+ (missing:$missing)}" \
		test -z "$missing"
	check "tools/deps.sh installs every package of ctl/Makefile's hint${missing_deps:+ (missing:$missing_deps)}" \
		test -z "$missing_deps"
}

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

rels=$(dkms_releases)
[ -n "$rels" ] || skip "dkms" "no generic kernel of either series (make deps)"
for rel in $rels; do
	test_dkms "$rel"
done
test_kbuild_needs
test_install_line
test_systemd
test_man
test_completion

echo "1..$n"
[ "$failed" -eq 0 ] || { echo "# $failed of $n failed"; exit 1; }
