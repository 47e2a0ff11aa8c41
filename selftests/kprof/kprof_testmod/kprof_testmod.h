/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof_testmod - the functions kprof's selftests find by name.
 */
#ifndef _KPROF_TESTMOD_H
#define _KPROF_TESTMOD_H

/* called in NMI context for each test NMI: the context test probes it */
void kprof_test_nmi_target(unsigned long ip);

#endif /* _KPROF_TESTMOD_H */
