/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output files (-o) that kprofctl never destroys: the one owner of the rule.
 *
 * - "-" is standard output.
 * - A regular file, or a name that does not exist yet, is written under a
 *   temporary name in the same directory and renamed into place only when
 *   complete (an existing file's mode kept): a failure leaves what was
 *   there before, and nothing of kprofctl's.
 * - An existing file that is not regular (a device, FIFO, socket, a /proc
 *   or /sys file) is opened and written in place: never created, renamed
 *   over, truncated or unlinked.
 * - A symbolic link is followed and its target handled by the same rule,
 *   so the link stays a link.
 */
#ifndef KPROFCTL_OUTFILE_H
#define KPROFCTL_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "error.h"

struct kp_outfile {
	FILE	*fp;		/* where to write */
	char	*name;		/* the -o name, for messages */
	char	*target;	/* the file renamed onto; NULL: in place or stdout */
	char	*tmp;		/* the temporary name; NULL: in place or stdout */
	bool	is_stdout;
};

/*
 * Open @path for writing as the rule above says; @rw: the stream can be
 * read and sought too ("w+"; in place only for a regular file).
 * Return: 0, or a negative errno with @err naming @path.
 */
int kp_outfile__open(struct kp_outfile *o, const char *path, bool rw, struct kp_err *err);

/*
 * Finish: flush and close (standard output: flush only), then rename the
 * temporary file into place.  Any failure, a stream error before it
 * included, removes the temporary file and nothing else.
 * Return: 0, or a negative errno with @err naming the file.
 */
int kp_outfile__commit(struct kp_outfile *o, struct kp_err *err);

/* Give up: close, and remove the temporary file (only it).  Safe twice. */
void kp_outfile__abort(struct kp_outfile *o);

/*
 * Is @out the file @in (same device and inode, links followed)?  Checked
 * before anything is opened for writing, so that an input is never
 * truncated by its own output.
 */
bool kp_outfile__is_input(const char *out, const char *in);

#endif /* KPROFCTL_OUTFILE_H */
