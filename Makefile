# SPDX-License-Identifier: GPL-2.0
#
# kprof top-level Makefile.  The module itself is described by ./Kbuild;
# this file only forwards to kbuild and drives kprofctl, tests and docs.
#
#   make                 kprof.ko (against KDIR) and ctl/kprofctl
#   make check           deps, builds, checkpatch, host tests, guest selftests
#                        on the generic and PREEMPT_RT 6.1 kernels
#   make check-quick     the same on the generic guest only, without fuzzing, the
#                        browser test and the hostile cases (for iteration)
#   make demo            deps, build, boot a guest and run kprofctl there
#   make test-rig        the QEMU rig's self-test (boots five guests)
#   make bench           kprof (stream, aggregate) vs perf record, bpftrace, BCC
#                        profile and the floor (kprof_floor.ko): overhead, memory,
#                        sched_switch cost, decoding speed; one QEMU -icount guest
#                        (not part of check; see tools/bench/README.rst);
#                        BENCH_SAVE=1 keeps the results in tools/bench/results/
#   make bench-quick     the sampling runs at 999 Hz only, for iteration
#   make bench-stages    the sampling path's cost by stage (kprof.ko's stage
#                        build, KPROF_BENCH_STAGES=y) beside perf and the floor
#   make fuzz            fuzz the data reader and ELF symbolizer (FUZZ_SECONDS, 300)
#   make checkpatch      the kernel's checkpatch.pl --strict on module/ and include/
#   make deps            install the Debian packages kprof needs (idempotent)
#   make install         kprofctl, its man pages and bash completion (PREFIX, /usr/local)
#   make install-systemd the units kprof-exporter.service and kprof-daemon.service
#                        (then: systemctl daemon-reload; systemctl enable --now ...)
#   make dkms            kprof.ko's sources in /usr/src/kprof-VERSION, dkms add, build
#                        and install: rebuilt for every kernel installed later
#                        (DKMS_INSTALL=0: no install; DKMS_KERNELS: these releases)
#   make dkms-src        only the source tree (KPROF_DKMS_SRC, or DESTDIR/usr/src/...)
#   make dkms-remove     dkms remove --all, and the source tree
#   make clean

# Default KDIR: the running kernel's build tree, else Debian 12's own 6.1
# generic headers (tools/kernels.sh names the test kernels by series; never
# "the newest headers", which a 6.12 install would change), said aloud.
ifeq ($(origin KDIR),undefined)
KDIR := $(shell d=/lib/modules/$$(uname -r)/build; [ -d $$d ] && echo $$d)
ifeq ($(KDIR),)
KDIR := $(shell $(CURDIR)/tools/kernels.sh kdir generic-6.1 2>/dev/null)
ifneq ($(KDIR),)
ifeq ($(filter clean help deps check check-quick demo bench bench-quick bench-stages fuzz test-rig,$(MAKECMDGOALS)),)
$(info kprof: no build tree for the running kernel ($(shell uname -r)): building for $(notdir $(KDIR)) (KDIR=... to choose))
endif
endif
endif
endif

BUILD		:= $(CURDIR)/build
KPROF_VERSION	:= $(shell sed -n 's/^kprof-version := //p' $(CURDIR)/Kbuild)
KPROF_NEEDS	:= $(shell sed -n 's/^kprof-needs := //p' $(CURDIR)/Kbuild)
export KPROF_VERSION

# Files taken from Debian's linux-source-6.1 tarball at build time.
KSRC_TAR	?= $(firstword $(wildcard /usr/src/linux-source-6.1.tar.*))
KSRC_DIR	:= $(BUILD)/ksrc
KSRC_FILES	:= scripts/checkpatch.pl scripts/spelling.txt scripts/kernel-doc \
		   scripts/const_structs.checkpatch \
		   tools/testing/selftests/kselftest_harness.h \
		   tools/testing/selftests/kselftest.h \
		   tools/testing/selftests/lib.mk \
		   tools/testing/selftests/kselftest/runner.sh \
		   tools/testing/selftests/kselftest/prefix.pl
KSFT_DIR	:= $(KSRC_DIR)/tools/testing/selftests

# relative: checkpatch knows a uapi header by its path, include/uapi/...
CHECKPATCH_FILES := $(wildcard module/*.[ch]) include/uapi/linux/kprof.h

.PHONY: all module ctl clean deps check demo checkpatch selftests ksrc \
	modules-test test-host test-rig bench bench-quick bench-stages fuzz help check-quick \
	install install-systemd dkms dkms-src dkms-remove

all: module ctl

module:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || \
		{ echo "kprof: no kernel headers found; set KDIR or run 'make deps'" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

ctl:
	$(MAKE) -C ctl

deps:
	@$(CURDIR)/tools/deps.sh

# Unpack the few files needed from the tarball, once (xz takes ~20 s).
# (again when this Makefile changes: KSRC_FILES may have grown)
$(KSRC_DIR)/.stamp: $(KSRC_TAR) $(CURDIR)/Makefile
	@test -n "$(KSRC_TAR)" || { echo "kprof: linux-source-6.1 missing; run 'make deps'" >&2; exit 1; }
	@echo "  UNPACK  $(notdir $(KSRC_TAR)) -> build/ksrc"
	@rm -rf $(KSRC_DIR).tmp && mkdir -p $(KSRC_DIR).tmp
	@tar -xf $(KSRC_TAR) -C $(KSRC_DIR).tmp --strip-components=1 \
		$(addprefix linux-source-6.1/,$(KSRC_FILES))
	@rm -rf $(KSRC_DIR) && mv $(KSRC_DIR).tmp $(KSRC_DIR) && touch $@

ksrc: $(KSRC_DIR)/.stamp

checkpatch: ksrc
	cd $(CURDIR) && perl $(KSRC_DIR)/scripts/checkpatch.pl --no-tree --strict --terse \
		--show-types -f $(CHECKPATCH_FILES)

selftests: ksrc
	$(MAKE) -C selftests/kprof KSFT_DIR=$(KSFT_DIR)

# kprof.ko for each test kernel, in its own directory (their vermagic differs).
modules-test:
	@$(CURDIR)/tools/build-test-modules.sh

test-host: ctl
	$(MAKE) -C ctl test

# The QEMU rig's own self-test (five guest boots).
test-rig: deps
	@$(CURDIR)/tools/test-kprof-vm.sh

# Longer fuzzing of the kprof.data reader and the ELF symbolizer.
fuzz: deps
	$(MAKE) -C ctl fuzz

# Not part of check: one -icount guest boot (tools/bench/README.rst).
bench: deps
	@$(CURDIR)/tools/bench/run.sh $(if $(filter 1,$(BENCH_SAVE)),--save)

bench-quick: deps
	@$(CURDIR)/tools/bench/run.sh --quick $(if $(filter 1,$(BENCH_SAVE)),--save)

bench-stages: deps
	@$(CURDIR)/tools/bench/run.sh --stages $(if $(filter 1,$(BENCH_SAVE)),--save)

check: deps
	@$(CURDIR)/tools/check.sh

check-quick: deps
	@KPROF_CHECK_KERNELS=generic KPROF_CHECK_QUICK=1 $(CURDIR)/tools/check.sh

demo: deps
	@$(CURDIR)/tools/demo.sh

# Installing kprofctl (ctl/Makefile: binary, man pages, bash completion)
# and the systemd units of the exporter and the daemon, their ExecStart
# pointed at BINDIR.
PREFIX		?= /usr/local
BINDIR		?= $(PREFIX)/bin
SYSTEMD_UNIT_DIR ?= $(PREFIX)/lib/systemd/system

install:
	$(MAKE) -C ctl install PREFIX=$(PREFIX) BINDIR=$(BINDIR)

SYSTEMD_UNITS	:= kprof-exporter.service kprof-daemon.service

install-systemd:
	install -d $(DESTDIR)$(SYSTEMD_UNIT_DIR)
	for u in $(SYSTEMD_UNITS); do \
		sed 's|^ExecStart=/usr/local/bin/kprofctl |ExecStart=$(BINDIR)/kprofctl |' \
			tools/systemd/$$u > $(DESTDIR)$(SYSTEMD_UNIT_DIR)/$$u && \
		chmod 644 $(DESTDIR)$(SYSTEMD_UNIT_DIR)/$$u || exit 1; \
	done

# DKMS: the module's sources (Kbuild, module/, include/) and a dkms.conf
# (tools/dkms/dkms.conf.in with the version) in KPROF_DKMS_SRC, then dkms
# add (once), build and install.  DKMS_FLAGS goes to every dkms command
# (e.g. --dkmstree DIR --sourcetree DIR, as tools/test-packaging.sh does);
# DKMS_KERNELS lists the releases (default: dkms's, the running kernel).
DKMS		?= dkms
KPROF_DKMS_SRC	?= $(DESTDIR)/usr/src/kprof-$(KPROF_VERSION)
DKMS_FLAGS	?=
DKMS_KERNELS	?=
DKMS_INSTALL	?= 1
DKMS_MV		:= -m kprof -v $(KPROF_VERSION)
DKMS_K		:= $(addprefix -k ,$(DKMS_KERNELS))

dkms-src:
	@test -n "$(KPROF_VERSION)" -a -n "$(KPROF_DKMS_SRC)" -a "$(KPROF_DKMS_SRC)" != / || \
		{ echo "kprof: no version in Kbuild, or KPROF_DKMS_SRC empty" >&2; exit 1; }
	@echo "  STAGE   $(KPROF_DKMS_SRC)"
	@rm -rf $(KPROF_DKMS_SRC).tmp && mkdir -p $(KPROF_DKMS_SRC).tmp
	@cd $(CURDIR) && cp Kbuild LICENSE $(KPROF_DKMS_SRC).tmp/ && \
		find module include -type f -name '*.[ch]' | \
		xargs cp --parents -t $(KPROF_DKMS_SRC).tmp/
	@sed -e 's/@VERSION@/$(KPROF_VERSION)/g' -e 's/@NEEDS@/$(KPROF_NEEDS)/g' \
		tools/dkms/dkms.conf.in > $(KPROF_DKMS_SRC).tmp/dkms.conf
	@rm -rf $(KPROF_DKMS_SRC) && mv $(KPROF_DKMS_SRC).tmp $(KPROF_DKMS_SRC)

dkms: dkms-src
	@command -v $(DKMS) >/dev/null || { echo "kprof: dkms missing; run 'make deps'" >&2; exit 1; }
	@$(DKMS) status $(DKMS_FLAGS) $(DKMS_MV) | grep -q . || \
		$(DKMS) add $(DKMS_FLAGS) $(KPROF_DKMS_SRC)
	$(DKMS) build $(DKMS_FLAGS) $(DKMS_MV) $(DKMS_K) --force
ifeq ($(DKMS_INSTALL),1)
	$(DKMS) install $(DKMS_FLAGS) $(DKMS_MV) $(DKMS_K) --force
endif

dkms-remove:
	-$(DKMS) remove $(DKMS_FLAGS) $(DKMS_MV) --all
	rm -rf $(KPROF_DKMS_SRC)

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	-$(MAKE) -C ctl clean
	-$(MAKE) -C selftests/kprof clean KSFT_DIR=$(KSFT_DIR)
	rm -rf $(BUILD)

help:
	@sed -n 's/^#   //p' $(firstword $(MAKEFILE_LIST))
