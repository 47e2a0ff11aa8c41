// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_testmod - what kprof's selftests need in the kernel and kprof.ko
 * must not carry: module parameters that make rare timings certain and
 * prove the rig's detectors work.  Built beside kprof.ko by the rig
 * (tools/build-test-modules.sh), never by DKMS; loaded by the tests that
 * use it (kprof_lib.sh's kt_testmod) and unloaded before kprof.ko.  Only
 * root can write the parameters.
 *
 *	write_delay_ns		a ring write from task context waits this
 *				long between reserving its space and copying
 *				the record, with interrupts enabled, so that
 *				the samples of a timer event nest inside the
 *				window (kprof_hostile_test.sh nested): a probe
 *				on kprof.ko's kprof_ring_reserved tracepoint,
 *				attached while the delay is not 0.
 *				At most 100000 (0.1 ms).
 *	plant_bug		writing "kasan" reads one byte past a
 *				kmalloc()ed buffer, once: a KASAN report the
 *				debug guest's log scan must catch
 *				(tools/check.sh, the debug kernel).  Other
 *				values are refused.
 *	nmi			writing N sends N NMIs to the writing CPU, one
 *				at a time; this module's NMI handler claims
 *				each and calls kprof_test_nmi_target(), a
 *				function the context matrix test probes
 *				(kprof_context_test.sh): with no PMU in the
 *				test guests, nothing else puts a probe in NMI
 *				context.  At most 10000.
 *	lock			writing "mutex,N,H,I" or "spin,N,H,I" runs N
 *				kernel threads (at most 16) that each take
 *				kprof_test_mutex (or kprof_test_spinlock) I
 *				times (at most 100000) and hold it H us (at
 *				most 10000 spinning; the mutex up to 5000000,
 *				asleep beyond 10000: a wait that spans
 *				intervals), trying it first: each failed
 *				trylock is counted.  The write returns when all
 *				are done; reading gives "<kind> <failed
 *				trylocks> <acquisitions>" of the last run, the
 *				lock test's (kprof_lock_test.sh) known truth.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <asm/apic.h>
#include <asm/nmi.h>

#include "kprof_testmod.h"
#include "tracepoints.h"

static unsigned int kprof_test_write_delay_ns;
static DEFINE_MUTEX(kprof_test_delay_lock);
static bool kprof_test_delay_attached;

/* kprof_ring_reserved: widen a task-context write's reserve-commit window */
static void kprof_test_write_delay(void *data, unsigned int cpu, u32 len)
{
	unsigned int ns = READ_ONCE(kprof_test_write_delay_ns);
	u64 end;

	if (!ns || !in_task())
		return;
	/* a clock loop, not ndelay(): TCG's MWAITX makes delays short */
	end = ktime_get_mono_fast_ns() + ns;
	while (ktime_get_mono_fast_ns() < end)
		cpu_relax();
}

static int kprof_test_delay_set(const char *val, const struct kernel_param *kp)
{
	unsigned int ns;
	int ret = kstrtouint(val, 0, &ns);

	if (ret)
		return ret;
	if (ns > 100000)
		return -ERANGE;
	mutex_lock(&kprof_test_delay_lock);
	WRITE_ONCE(kprof_test_write_delay_ns, ns);
	if (ns && !kprof_test_delay_attached) {
		ret = register_trace_kprof_ring_reserved(kprof_test_write_delay, NULL);
		kprof_test_delay_attached = !ret;
	} else if (!ns && kprof_test_delay_attached) {
		unregister_trace_kprof_ring_reserved(kprof_test_write_delay, NULL);
		tracepoint_synchronize_unregister();
		kprof_test_delay_attached = false;
	}
	mutex_unlock(&kprof_test_delay_lock);
	return ret;
}

static const struct kernel_param_ops kprof_test_delay_ops = {
	.set	= kprof_test_delay_set,
	.get	= param_get_uint,
};
module_param_cb(write_delay_ns, &kprof_test_delay_ops, &kprof_test_write_delay_ns, 0600);
MODULE_PARM_DESC(write_delay_ns,
		 "ns a task-context ring write of kprof's waits inside its reserve-commit window");

static noinline u8 kprof_test_read_past(const u8 *buf, size_t i)
{
	return READ_ONCE(buf[i]);
}

/*
 * 13 bytes from kmalloc-16: the byte read lies inside the slab object, past
 * the requested size, so generic KASAN reports it from the kmalloc redzone
 * of this object whatever its neighbours are (slab-out-of-bounds).
 */
static int kprof_test_plant_set(const char *val, const struct kernel_param *kp)
{
	size_t n = 13;
	u8 *buf;

	if (!sysfs_streq(val, "kasan"))
		return -EINVAL;
	buf = kmalloc(n, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	pr_info("plant_bug: reading one byte past an %zu-byte buffer\n", n);
	pr_info("plant_bug: read 0x%02x\n", kprof_test_read_past(buf, n));
	kfree(buf);
	return 0;
}

static const struct kernel_param_ops kprof_test_plant_ops = {
	.set	= kprof_test_plant_set,
};
module_param_cb(plant_bug, &kprof_test_plant_ops, NULL, 0200);
MODULE_PARM_DESC(plant_bug, "\"kasan\" plants an out-of-bounds read");

static atomic_t kprof_test_nmi_pending = ATOMIC_INIT(0);
static atomic_t kprof_test_nmi_seen = ATOMIC_INIT(0);
static DEFINE_MUTEX(kprof_test_nmi_lock);
static bool kprof_test_nmi_registered;

static unsigned long kprof_test_nmi_last_ip;

/*
 * Called in NMI context for each test NMI: what the context test probes.
 * Its first instructions after the ftrace call are plain moves, so that
 * kprobes can optimize a probe there.
 */
noinline void kprof_test_nmi_target(unsigned long ip)
{
	WRITE_ONCE(kprof_test_nmi_last_ip, ip);
	atomic_inc(&kprof_test_nmi_seen);
}

static int kprof_test_nmi_handler(unsigned int cmd, struct pt_regs *regs)
{
	if (!atomic_add_unless(&kprof_test_nmi_pending, -1, 0))
		return NMI_DONE;
	kprof_test_nmi_target(instruction_pointer(regs));
	return NMI_HANDLED;
}

/* One NMI to this CPU, and wait (1 ms at most) until it has been handled. */
static int kprof_test_nmi_one(void)
{
	int seen = atomic_read(&kprof_test_nmi_seen);
	unsigned int us;

	atomic_inc(&kprof_test_nmi_pending);
	preempt_disable();
	apic->send_IPI_mask(cpumask_of(smp_processor_id()), NMI_VECTOR);
	for (us = 0; us < 1000 && atomic_read(&kprof_test_nmi_seen) == seen; us++)
		udelay(1);
	preempt_enable();
	if (atomic_read(&kprof_test_nmi_seen) != seen)
		return 0;
	atomic_add_unless(&kprof_test_nmi_pending, -1, 0);
	return -ETIMEDOUT;
}

static int kprof_test_nmi_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n, i;
	int ret = kstrtouint(val, 0, &n);

	if (ret)
		return ret;
	if (n > 10000)
		return -ERANGE;
	mutex_lock(&kprof_test_nmi_lock);
	if (!kprof_test_nmi_registered) {
		ret = register_nmi_handler(NMI_LOCAL, kprof_test_nmi_handler, 0, "kprof_test");
		kprof_test_nmi_registered = !ret;
	}
	for (i = 0; !ret && i < n; i++) {
		ret = kprof_test_nmi_one();
		cond_resched();
	}
	mutex_unlock(&kprof_test_nmi_lock);
	return ret;
}

static const struct kernel_param_ops kprof_test_nmi_ops = {
	.set	= kprof_test_nmi_set,
};
module_param_cb(nmi, &kprof_test_nmi_ops, NULL, 0200);
MODULE_PARM_DESC(nmi, "N NMIs to this CPU, each calling kprof_test_nmi_target()");

/* the locks the lock parameter's threads contend (global: kallsyms names them) */
static DEFINE_MUTEX(kprof_test_mutex);
static DEFINE_SPINLOCK(kprof_test_spinlock);
/* one lock run at a time */
static DEFINE_MUTEX(kprof_test_lock_run);

/**
 * struct kprof_test_lock - one run of the lock parameter
 * @spin: the spinlock, else the mutex
 * @hold_ns: how long each holds it
 * @iters: acquisitions per thread
 * @failed: failed trylocks, all threads
 * @left: threads still running
 * @done: the last thread is done
 */
struct kprof_test_lock {
	bool spin;
	u64 hold_ns;
	unsigned int iters;
	atomic_t failed;
	atomic_t left;
	struct completion done;
};

static struct {
	bool spin;
	unsigned int failed;
	unsigned int acquired;
} kprof_test_lock_last;

/* Hold for @ns: a clock loop, as kprof_test_write_delay() (TCG's delays are short). */
static void kprof_test_hold(u64 ns)
{
	u64 end = ktime_get_mono_fast_ns() + ns;

	while (ktime_get_mono_fast_ns() < end)
		cpu_relax();
}

static int kprof_test_lock_fn(void *arg)
{
	struct kprof_test_lock *t = arg;
	unsigned int i;

	for (i = 0; i < t->iters; i++) {
		if (t->spin) {
			if (!spin_trylock(&kprof_test_spinlock)) {
				atomic_inc(&t->failed);
				spin_lock(&kprof_test_spinlock);
			}
			kprof_test_hold(t->hold_ns);
			spin_unlock(&kprof_test_spinlock);
		} else {
			if (!mutex_trylock(&kprof_test_mutex)) {
				atomic_inc(&t->failed);
				mutex_lock(&kprof_test_mutex);
			}
			if (t->hold_ns > 10 * NSEC_PER_MSEC)
				msleep(div_u64(t->hold_ns, NSEC_PER_MSEC));
			else
				kprof_test_hold(t->hold_ns);
			mutex_unlock(&kprof_test_mutex);
		}
		cond_resched();
	}
	if (atomic_dec_and_test(&t->left))
		complete(&t->done);
	return 0;
}

static int kprof_test_lock_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n, hold_us, iters, i, started = 0;
	struct kprof_test_lock *t;
	bool spin = str_has_prefix(val, "spin,");
	int ret = 0;

	if ((!spin && !str_has_prefix(val, "mutex,")) ||
	    sscanf(val + (spin ? 5 : 6), "%u,%u,%u", &n, &hold_us, &iters) != 3)
		return -EINVAL;
	if (!n || n > 16 || hold_us > (spin ? 10000 : 5000000) || !iters || iters > 100000)
		return -ERANGE;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->spin = spin;
	t->hold_ns = (u64)hold_us * NSEC_PER_USEC;
	t->iters = iters;
	init_completion(&t->done);
	/* one reference per thread, and ours until all are started */
	atomic_set(&t->left, n + 1);
	mutex_lock(&kprof_test_lock_run);
	for (i = 0; i < n; i++) {
		struct task_struct *k = kthread_run(kprof_test_lock_fn, t, "kprof-lock/%u", i);

		if (IS_ERR(k)) {
			ret = PTR_ERR(k);
			atomic_sub(n - i, &t->left);
			break;
		}
		started++;
	}
	if (atomic_dec_and_test(&t->left))
		complete(&t->done);
	wait_for_completion(&t->done);
	kprof_test_lock_last.spin = t->spin;
	kprof_test_lock_last.failed = atomic_read(&t->failed);
	kprof_test_lock_last.acquired = started * iters;
	mutex_unlock(&kprof_test_lock_run);
	kfree(t);
	return ret;
}

static int kprof_test_lock_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s %u %u\n", kprof_test_lock_last.spin ? "spin" : "mutex",
			  kprof_test_lock_last.failed, kprof_test_lock_last.acquired);
}

static const struct kernel_param_ops kprof_test_lock_ops = {
	.set	= kprof_test_lock_set,
	.get	= kprof_test_lock_get,
};
module_param_cb(lock, &kprof_test_lock_ops, NULL, 0600);
MODULE_PARM_DESC(lock,
		 "\"mutex|spin,N,H,I\": N threads take a lock I times for H us");

static int __init kprof_testmod_init(void)
{
	return 0;
}

/* The tracepoint probe and the NMI handler go, if a test attached them. */
static void __exit kprof_testmod_exit(void)
{
	if (kprof_test_delay_attached) {
		unregister_trace_kprof_ring_reserved(kprof_test_write_delay, NULL);
		tracepoint_synchronize_unregister();
	}
	if (kprof_test_nmi_registered)
		unregister_nmi_handler(NMI_LOCAL, "kprof_test");
}

module_init(kprof_testmod_init);
module_exit(kprof_testmod_exit);

MODULE_DESCRIPTION("kprof's selftest seams: never installed");
MODULE_LICENSE("GPL");
