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
#   make bench           kprof (stream, aggregate) vs perf record: overhead, memory,
#                        sched_switch cost, decoding speed; one QEMU -icount guest
#                        (not part of check; ~12 min; see tools/bench/README.rst)
#   make fuzz            fuzz the data reader and ELF symbolizer (FUZZ_SECONDS, 300)
#   make checkpatch      the kernel's checkpatch.pl --strict on module/ and include/
#   make deps            install the Debian packages kprof needs (idempotent)
#   make clean

# Default KDIR: the running kernel's build tree, else the newest installed
# Debian generic (non-RT) amd64 headers.
KDIR ?= $(shell if [ -d /lib/modules/$$(uname -r)/build ]; then \
		echo /lib/modules/$$(uname -r)/build; \
	else \
		ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | grep -v -- '-rt-' | \
			sort -V | tail -n 1; \
	fi)

BUILD		:= $(CURDIR)/build
KPROF_VERSION	:= $(shell sed -n 's/^kprof-version := //p' $(CURDIR)/Kbuild)
export KPROF_VERSION

# Files taken from Debian's linux-source-6.1 tarball at build time.
KSRC_TAR	?= $(firstword $(wildcard /usr/src/linux-source-6.1.tar.*))
KSRC_DIR	:= $(BUILD)/ksrc
KSRC_FILES	:= scripts/checkpatch.pl scripts/spelling.txt \
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
	modules-test test-host test-rig bench fuzz help check-quick

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
$(KSRC_DIR)/.stamp: $(KSRC_TAR)
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

# Not part of check: one -icount guest boot, about 17 minutes.
bench: deps
	@$(CURDIR)/tools/bench/run.sh

check: deps
	@$(CURDIR)/tools/check.sh

check-quick: deps
	@KPROF_CHECK_KERNELS=generic KPROF_CHECK_QUICK=1 $(CURDIR)/tools/check.sh

demo: deps
	@$(CURDIR)/tools/demo.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	-$(MAKE) -C ctl clean
	-$(MAKE) -C selftests/kprof clean KSFT_DIR=$(KSFT_DIR)
	rm -rf $(BUILD)

help:
	@sed -n 's/^#   //p' $(firstword $(MAKEFILE_LIST))
