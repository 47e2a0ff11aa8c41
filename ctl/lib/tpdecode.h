/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoint records decoded with libtraceevent, as 'perf script' does:
 * one struct tep_handle per recording, one tep_parse_format() per format
 * file of its tracepoint events (those kprof.data stores, else tracefs's).
 *
 *	t = kp_tpdecode__new(&info->session, info->machine, formats);
 *	text = kp_tpdecode__info(t, event, cpu, raw, len);   "irq=19 name=virtio0"
 *	text = kp_tpdecode__fields(t, event, raw, len);      "irq=19 name=virtio0"
 *	kp_tpdecode__delete(t);
 *
 * Formats and records are hostile input: a format is used only when its
 * event's name, id (the event's config), common_type (offset 0, 2 bytes)
 * and fields (within 64 KiB) are as a record of kprof can be; its print
 * format only when every argument reads a bounded part of the record
 * (else kp_tpdecode__info() prints the fields).  Records are decoded from a
 * zero-padded copy, so that libtraceevent, which does not check a
 * record's size, reads within it.
 */
#ifndef KPROFCTL_TPDECODE_H
#define KPROFCTL_TPDECODE_H

#include <stddef.h>
#include <stdint.h>

#include "data.h"
#include "record.h"
#include "session.h"

struct kp_tpdecode;
struct tep_event;

/*
 * For the tracepoint events of @s, recorded on a @machine ("x86_64"; ""
 * for this one): the formats of @stored (NULL: none), else read from
 * tracefs.  An event without a usable format is left undecoded (see
 * kp_tpdecode__why()).  NULL when out of memory.
 */
struct kp_tpdecode *kp_tpdecode__new(const struct kp_session *s, const char *machine,
				     const struct kp_tp_formats *stored);
/* The same for the @nr events of @evs (e.g. those of one -e, for --filter). */
struct kp_tpdecode *kp_tpdecode__new_events(const struct kp_event *evs, unsigned int nr,
					    const char *machine,
					    const struct kp_tp_formats *stored);
void kp_tpdecode__delete(struct kp_tpdecode *t);

/* Why event @event has no format: NULL if it has one, or is no tracepoint. */
const char *kp_tpdecode__why(const struct kp_tpdecode *t, unsigned int event);

/* The parsed format of event @event, or NULL. */
struct tep_event *kp_tpdecode__event(const struct kp_tpdecode *t, unsigned int event);

/*
 * The raw record @raw of @len bytes of event @event, recorded on @cpu, as
 * 'perf script' prints it (tep_print_event(), TEP_PRINT_INFO): its print
 * format applied.  A string valid until the next call, or NULL when the
 * event has no format or the record is not one of it (its common_type).
 */
const char *kp_tpdecode__info(struct kp_tpdecode *t, unsigned int event, unsigned int cpu,
			      const void *raw, uint32_t len);

/*
 * The fields of the record, common_* left out, as "name=value" separated
 * by spaces: integers in decimal, char arrays and __data_loc strings as
 * text (bytes that are not printable or are spaces as '.'), other arrays
 * as hexadecimal bytes ("arr={01,00}").  A field past @len is left out.
 * Valid until the next call; NULL as for kp_tpdecode__info().
 */
const char *kp_tpdecode__fields(struct kp_tpdecode *t, unsigned int event, const void *raw,
				uint32_t len);

#endif /* KPROFCTL_TPDECODE_H */
