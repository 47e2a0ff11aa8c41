/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Collapsed stacks ("folded", the input of flame graphs) of a decoded
 * recording: 'kprofctl folded' and the daemon's folded profiles
 * (lib/collapse.c).  lib/folded.h reads such text back.
 */
#ifndef KPROFCTL_COLLAPSE_H
#define KPROFCTL_COLLAPSE_H

#include <stdbool.h>
#include <stdio.h>

#include "decode.h"

struct kp_collapse_opts {
	const struct kp_filter	*filter;	/* samples and frames kept; NULL: all */
	bool			period;		/* count periods, not samples */
	bool			annotate_kernel;	/* "_[k]" after kernel frames */
	bool			pid;		/* COMM-PID as the first frame */
	bool			tid;		/* COMM-PID/TID as the first frame */
};

/*
 * Collapse the samples of @d and write the lines, sorted, to @fp.  0, or
 * -ENOMEM, or the decoder's negative errno; a write error is @fp's.
 */
int kp_collapse__write(struct kp_decoder *d, const struct kp_collapse_opts *o, FILE *fp);

#endif /* KPROFCTL_COLLAPSE_H */
