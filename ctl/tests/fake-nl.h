/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fake kprof.ko behind the lib/nl.h API, for the unit tests.  It parses
 * the real requests and answers with real generic netlink replies (built
 * with libnl) or real NLMSG_ERROR messages with extack TLVs, so everything
 * but the socket I/O runs as with the module.
 */
#ifndef KPROFCTL_FAKE_NL_H
#define KPROFCTL_FAKE_NL_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/kprof.h>

#include "lib/proto.h"

struct fake_kprof {
	/* kp_nl__open() */
	bool			loaded;
	int			open_errno;	/* != 0: fail with this errno */
	/* KPROF_CMD_VERSION */
	uint32_t		abi;
	const char		*release;
	const char		*kernel;
	bool			no_abi_check;	/* accept any client ABI */
	bool			refuse_all;	/* EPROTO even without KPROF_A_VERSION_ABI */
	/* KPROF_CMD_STATUS */
	bool			privileged;	/* else EPERM with an extack */
	struct kp_status_info	status;
	/* Break the replies. */
	int			omit_attr;	/* leave this attribute out */
	int			bad_len_attr;	/* send this attribute with 2 extra bytes */
	/* What the module saw. */
	int			nr_requests;
	int			last_cmd;
	bool			saw_abi;
	uint32_t		client_abi;
	bool			saw_client;
	char			client[KPROF_CLIENT_NAME_MAX];
	int			nr_open;	/* sockets open right now */
	/* The clock seen by the commands (kp_clock_ns). */
	uint64_t		now_ns;
};

extern struct fake_kprof fake;

/*
 * Loaded, same ABI, privileged caller, idle, 4 CPUs, loaded 1h 02m 03s
 * ago by a fake clock.  Keeps nr_open.
 */
void fake_kprof__reset(void);

#endif /* KPROFCTL_FAKE_NL_H */
