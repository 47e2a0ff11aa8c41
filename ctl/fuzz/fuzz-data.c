// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: kprof.data bytes through the validating reader and
 * the decoder (side-band, time order, symbol resolution against nothing).
 * It must never crash, leak or hang; an error is a fine answer.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/decode.h"

static int count(struct kp_decoder *d, const struct kp_resolved *s, void *arg)
{
	(void)d;
	*(uint64_t *)arg += s->nr_frames + (s->comm[0] == '\0');
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_decode_opts opts = {
		.machine = {
			.kallsyms = "/nonexistent/kallsyms",
			.symfs = "/nonexistent",
			.debug_dir = "/nonexistent",
			.cmd = "fuzz",
		},
		.time_order = size & 1,
	};
	struct kp_decoder d;
	struct kp_err err;
	uint64_t n = 0;
	char path[64];
	int fd;

	fd = memfd_create("kprof.data", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!kp_decoder__open(&d, path, &opts, &err)) {
		if (size & 2)
			kp_decoder__for_each_stack(&d, size & 4 ? KP_STACK_TID : KP_STACK_CPU, count,
						   &n);
		else
			kp_decoder__for_each(&d, count, &n);
		kp_decoder__close(&d);
	}
	close(fd);
	return 0;
}
