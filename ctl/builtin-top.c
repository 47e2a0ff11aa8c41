// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl top [-e <events>] [-d <secs>] [<options>]
 *
 * A live view of the running buffers, like 'perf top': a session is
 * started (system-wide unless -p), its records go through the recorder
 * into a temporary kprof.data (or -o FILE, kept), and every -d seconds the
 * records added since the last refresh are read back, resolved and shown
 * as the hottest symbols of that interval.  'q' quits, as does Ctrl-C; the
 * terminal only needs to understand "clear screen".  With --once, or when
 * stdout is not a terminal, one table is printed after -d seconds.
 *
 * On a terminal (or with --tui; not with --stdio), the table is perf
 * top's full-screen view instead (lib/tui.h): the entries of the last
 * interval with their call graphs, counted by report's code, the cursor
 * and the unfolded entries kept across refreshes; q quits.
 *
 * --input FILE reads a recording through the same path instead of the
 * module and prints one table of all of it (or shows it in the
 * full-screen view, until q), which the tests use.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "builtin.h"
#include "lib/data.h"
#include "lib/decode-args.h"
#include "lib/machine.h"
#include "lib/nl.h"
#include "lib/parse-options.h"
#include "lib/proto.h"
#include "lib/recorder.h"
#include "lib/session.h"
#include "lib/sys.h"
#include "lib/tui.h"
#include "lib/util.h"

static const char * const top_usage[] = {
	"kprofctl top [-e <events>] [-d <secs>] [-n <entries>] [<options>]",
	"",
	"Show the hottest functions of the running system, refreshed every -d",
	"seconds (default 2), like 'perf top'.  Press q to quit.  Needs",
	"CAP_PERFMON or CAP_SYS_ADMIN.  On a terminal (or with --tui), a",
	"full-screen view like perf top's: arrows move, Enter unfolds an entry's",
	"call graph, / filters, h helps; --stdio prints the plain table.",
	NULL
};

static volatile sig_atomic_t top_signal;

static void top__sighandler(int sig)
{
	top_signal = sig;
}

struct top_entry {
	const struct kp_dso	*dso;
	const struct kp_sym	*sym;
	uint64_t		addr;
	bool			kernel;
	uint64_t		period;
};

struct top {
	const char		*cmd;
	struct kp_machine	*machine;
	struct kp_resolved	*res;
	struct kp_record_ctx	ctx;
	int			fd;
	uint64_t		off;		/* next record to read */
	unsigned char		*buf;
	size_t			buf_len;
	uint64_t		*samples;	/* offsets into buf of this batch */
	size_t			nr_samples, samples_alloc;
	struct top_entry	*entries;	/* open addressing */
	size_t			mask, used;
	uint64_t		total, kernel, count, lost;
	unsigned int		nr_entries;	/* -n */
	unsigned int		delay_ms;
	bool			tty;
	bool			once;
	uint64_t		last_draw;
	char			title[256];
	bool			quit;
	struct kp_tui		*tui;		/* the full-screen view, or NULL */
	struct report		*rep;		/* its counts of this interval */
	unsigned int		nr_events;
	char			names[KPROF_MAX_EVENTS][KPROF_EVENT_NAME_MAX];
};

/* ---- the histogram of one interval ---- */

static int top__account(struct top *t, const struct kp_resolved *s)
{
	const struct kp_frame *f = &s->frames[0];
	struct top_entry *e;
	size_t i, j;
	uint64_t h;

	if ((!t->entries || (t->used + 1) * 2 > t->mask + 1)) {
		size_t size = t->mask ? (t->mask + 1) * 2 : 1024;
		struct top_entry *n = calloc(size, sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (i = 0; t->entries && i <= t->mask; i++) {
			e = &t->entries[i];
			if (!e->period)
				continue;
			h = (uintptr_t)e->sym ^ e->addr ^ (uintptr_t)e->dso;
			for (j = (h * 0x9e3779b97f4a7c15ULL >> 20) & (size - 1); n[j].period;
			     j = (j + 1) & (size - 1))
				;
			n[j] = *e;
		}
		free(t->entries);
		t->entries = n;
		t->mask = size - 1;
	}
	h = (uintptr_t)f->sym ^ (f->sym ? 0 : f->dso_addr) ^ (uintptr_t)f->dso;
	for (i = (h * 0x9e3779b97f4a7c15ULL >> 20) & t->mask; t->entries[i].period;
	     i = (i + 1) & t->mask) {
		e = &t->entries[i];
		if (e->sym == f->sym && e->dso == f->dso && (f->sym || e->addr == f->dso_addr))
			break;
	}
	e = &t->entries[i];
	if (!e->period) {
		e->dso = f->dso;
		e->sym = f->sym;
		e->addr = f->sym ? 0 : f->dso_addr;
		e->kernel = f->kernel;
		t->used++;
	}
	e->period += s->rec->period ? s->rec->period : 1;
	t->total += s->rec->period ? s->rec->period : 1;
	t->kernel += f->kernel ? (s->rec->period ? s->rec->period : 1) : 0;
	t->count += s->count;
	return 0;
}

static int entry__cmp(const void *a, const void *b)
{
	const struct top_entry *x = *(struct top_entry * const *)a;
	const struct top_entry *y = *(struct top_entry * const *)b;

	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	if (x->sym && y->sym)
		return strcmp(x->sym->name, y->sym->name);
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void top__draw(struct top *t, uint64_t interval_ns)
{
	struct top_entry **list = NULL;
	unsigned int n = 0, i, shown;
	char sym[64];
	size_t k;

	if (t->used)
		list = malloc(t->used * sizeof(*list));
	for (k = 0; list && k <= t->mask; k++)
		if (t->entries[k].period)
			list[n++] = &t->entries[k];
	if (list)
		qsort(list, n, sizeof(*list), entry__cmp);
	if (t->tty)
		fputs("\033[H\033[2J", stdout);
	if (interval_ns)
		printf("   kprofctl top: %.0f samples/s", t->count * 1e9 / interval_ns);
	else
		printf("   kprofctl top: %" PRIu64 " samples", t->count);
	printf("  kernel: %.1f%%  lost: %" PRIu64 "%s%s\n",
	       t->total ? 100.0 * t->kernel / t->total : 0.0, t->lost, t->title[0] ? "  " : "",
	       t->title);
	printf("%.79s\n", "----------------------------------------------------------------------------------------------------");
	printf("%9s  %-20s  %s\n", "Overhead", "Shared Object", "Symbol");
	shown = n < t->nr_entries ? n : t->nr_entries;
	for (i = 0; i < shown; i++) {
		const struct top_entry *e = list[i];

		if (!e->sym)
			snprintf(sym, sizeof(sym), "0x%016" PRIx64, e->addr);
		printf("%8.2f%%  %-20s  [%c] %s\n", 100.0 * e->period / t->total,
		       e->dso ? e->dso->short_name : KP_UNKNOWN, e->kernel ? 'k' : '.',
		       e->sym ? e->sym->name : sym);
	}
	if (!n)
		printf("   (no samples)\n");
	if (t->tty && !t->once)
		printf("\nPress 'q' to quit.\n");
	fflush(stdout);
	free(list);
	memset(t->entries, 0, t->entries ? (t->mask + 1) * sizeof(*t->entries) : 0);
	t->used = 0;
	t->total = t->kernel = t->count = 0;
}

/* ---- reading the records added since the last time ---- */

static int top__read(struct top *t)
{
	struct stat st;
	size_t len, pos = 0, i;
	ssize_t n;
	int ret;

	if (fstat(t->fd, &st))
		return -errno;
	if ((uint64_t)st.st_size <= t->off)
		return 0;
	len = st.st_size - t->off;
	if (len > t->buf_len) {
		unsigned char *b = realloc(t->buf, len);

		if (!b)
			return -ENOMEM;
		t->buf = b;
		t->buf_len = len;
	}
	n = pread(t->fd, t->buf, len, t->off);
	if (n < 0)
		return -errno;
	len = n;
	t->nr_samples = 0;
	/* whole records only: the writer may have flushed half of one */
	while (len - pos >= sizeof(struct kprof_record_header)) {
		const struct kprof_record_header *h = (const void *)(t->buf + pos);
		char why[192];

		if (h->size < sizeof(*h) || h->size % 8)
			return -EBADMSG;
		if (h->size > len - pos)
			break;
		if (kp_record__check(h, &t->ctx, why, sizeof(why)))
			return -EBADMSG;
		if (h->type == KPROF_RECORD_SAMPLE) {
			if (t->nr_samples == t->samples_alloc) {
				size_t a = t->samples_alloc ? t->samples_alloc * 2 : 1024;
				uint64_t *s = realloc(t->samples, a * sizeof(*s));

				if (!s)
					return -ENOMEM;
				t->samples = s;
				t->samples_alloc = a;
			}
			t->samples[t->nr_samples++] = pos;
		} else if (h->type == KPROF_RECORD_LOST) {
			t->lost += ((const struct kp_rec_lost *)h)->lost;
		} else {
			ret = kp_machine__add(t->machine, h);
			if (ret)
				return ret;
		}
		pos += h->size;
	}
	t->off += pos;
	ret = kp_machine__prepare(t->machine);
	if (ret)
		return ret;
	for (i = 0; i < t->nr_samples; i++) {
		/* the full-screen view's call graphs need the whole chains */
		kp_machine__resolve(t->machine, (const void *)(t->buf + t->samples[i]), t->res,
				    t->rep ? 0 : 1);
		ret = top__account(t, t->res);
		if (!ret && t->rep)
			ret = report__top_add(t->rep, t->res);
		if (ret)
			return ret;
	}
	return 0;
}

/* The full-screen view of what was counted since the last refresh: 0 or -ENOMEM. */
static int top__show(struct top *t, uint64_t interval_ns)
{
	struct kp_tui_view views[KPROF_MAX_EVENTS];
	const char *names[KPROF_MAX_EVENTS];
	struct report *fresh;
	char more[128];
	unsigned int i;
	int nr;

	for (i = 0; i < t->nr_events; i++)
		names[i] = t->names[i];
	if (interval_ns)
		snprintf(more, sizeof(more), ", %.0f samples/s, lost: %" PRIu64,
			 t->count * 1e9 / interval_ns, t->lost);
	else
		snprintf(more, sizeof(more), ", lost: %" PRIu64, t->lost);
	nr = report__top_views(t->rep, names, t->nr_events, more, views);
	if (nr < 0)
		return nr;
	kp_tui__set_views(t->tui, views, nr);
	/* the next interval's counts */
	fresh = report__top_new();
	if (!fresh)
		return -ENOMEM;
	report__top_delete(t->rep);
	t->rep = fresh;
	memset(t->entries, 0, t->entries ? (t->mask + 1) * sizeof(*t->entries) : 0);
	t->used = 0;
	t->total = t->kernel = t->count = 0;
	return 0;
}

/* 'q' on the terminal? */
static bool top__key_quit(struct top *t)
{
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	char c;

	if (!t->tty)
		return false;
	while (poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLIN)) {
		if (read(STDIN_FILENO, &c, 1) != 1)
			return false;
		if (c == 'q' || c == 'Q')
			return true;
	}
	return false;
}

static bool top__done(struct kp_recorder *r, void *arg)
{
	struct top *t = arg;
	uint64_t now = kp_clock_ns();
	struct kp_err err;
	int ret;

	if (t->tui ? kp_tui__poll(t->tui, 0) : top__key_quit(t)) {
		t->quit = true;
		return true;
	}
	if (now - t->last_draw < t->delay_ms * 1000000ULL)
		return false;
	if (kp_data_writer__flush(r->w, &err)) {
		kp_err__print(&err, t->cmd);
		t->quit = true;
		return true;
	}
	ret = top__read(t);
	if (ret) {
		kp_error(t->cmd, "cannot read the records back: %s", strerror(-ret));
		t->quit = true;
		return true;
	}
	if (t->tui)
		ret = top__show(t, now - t->last_draw);
	else
		top__draw(t, now - t->last_draw);
	if (ret) {
		kp_error(t->cmd, "%s", strerror(-ret));
		t->quit = true;
		return true;
	}
	t->last_draw = now;
	if (t->once) {
		t->quit = true;
		return true;
	}
	return false;
}

static int top__init(struct top *t, const char *path, const struct kp_machine_opts *mopts,
		     struct kp_err *err)
{
	const struct kp_data_info *info;
	uint32_t vdso_size;
	struct kp_data *d;
	unsigned int i;
	void *vdso;

	d = kp_data__open(path, err);
	if (!d)
		return -EIO;
	info = kp_data__info(d);
	t->nr_events = info->session.nr_events < KPROF_MAX_EVENTS ? info->session.nr_events :
		       KPROF_MAX_EVENTS;
	for (i = 0; i < t->nr_events; i++)
		snprintf(t->names[i], sizeof(t->names[i]), "%s", info->session.events[i].name);
	t->off = info->header_size;
	t->ctx.nr_events = info->session.nr_events;
	t->ctx.max_depth = info->session.stack_depth;
	t->ctx.file_types = true;
	t->fd = open(path, O_RDONLY | O_CLOEXEC);
	t->machine = kp_machine__new(mopts);
	/* the vDSO image the recorder stored names [vdso] frames */
	vdso = kp_data__take_vdso(d, &vdso_size);
	if (t->machine)
		kp_machine__set_vdso(t->machine, vdso, vdso_size);
	else
		free(vdso);
	kp_data__close(d);
	t->res = malloc(sizeof(*t->res));
	if (t->fd < 0 || !t->machine || !t->res) {
		kp_err__set(err, errno ? errno : ENOMEM, "cannot read '%s': %s", path,
			    strerror(errno ? errno : ENOMEM));
		return -EIO;
	}
	return 0;
}

static void top__exit(struct top *t)
{
	kp_tui__close(t->tui);
	t->tui = NULL;
	report__top_delete(t->rep);
	if (t->fd >= 0)
		close(t->fd);
	kp_machine__delete(t->machine);
	free(t->res);
	free(t->buf);
	free(t->samples);
	free(t->entries);
}

static const struct kp_tui_ops top_tui_ops = {
	.help = "kprofctl top: the entries of the last -d seconds, as 'kprofctl report -g\n"
		"--sort dso,symbol' counts them; refreshed every -d seconds.\n",
};

/* Read @path through the live path, as one interval. */
static int top__replay(struct top *t, const char *path, const struct kp_machine_opts *mopts)
{
	struct kp_err err;
	int ret;

	if (top__init(t, path, mopts, &err)) {
		kp_err__print(&err, t->cmd);
		return KP_EXIT_FAILURE;
	}
	ret = top__read(t);
	if (ret) {
		kp_error(t->cmd, "'%s': %s", path, ret == -EBADMSG ? "corrupt record" :
			 strerror(-ret));
		return KP_EXIT_FAILURE;
	}
	if (!t->rep) {
		top__draw(t, 0);
		return KP_EXIT_OK;
	}
	/* the full-screen view of all of it, until q */
	t->tui = kp_tui__open(&top_tui_ops);
	if (!t->tui) {
		kp_error(t->cmd, "no terminal for the full-screen view (TERM=%s)",
			 getenv("TERM") ? getenv("TERM") : "");
		return KP_EXIT_FAILURE;
	}
	ret = top__show(t, 0);
	while (!ret && !kp_tui__poll(t->tui, -1))
		;
	kp_tui__close(t->tui);
	t->tui = NULL;
	if (ret) {
		kp_error(t->cmd, "%s", strerror(-ret));
		return KP_EXIT_FAILURE;
	}
	return KP_EXIT_OK;
}

int cmd_top(int argc, const char **argv)
{
	const char *cmd = argv[0], *input = NULL;
	struct kp_session_opts opts = { 0 };
	struct kp_machine_opts mopts = { .cmd = argv[0], .proc_root = true };
	struct top t = { .cmd = argv[0], .fd = -1, .nr_entries = 30 };
	unsigned int delay = 2;
	bool stdio_ = false, tui_ = false;
	const struct option options[] = {
		KP_SESSION_OPTIONS(&opts),
		OPT_UINTEGER('d', "delay", &delay, "secs", "refresh every secs seconds (default 2)"),
		OPT_UINTEGER('n', "entries", &t.nr_entries, "n", "show n entries (default 30)"),
		OPT_BOOLEAN(0, "once", &t.once, "print one table and exit"),
		OPT_BOOLEAN(0, "stdio", &stdio_, "the plain table, not the full-screen view"),
		OPT_BOOLEAN(0, "tui", &tui_, "the full-screen view even when not on a terminal"),
		KP_DECODE_SYMBOL_FILE_OPTIONS(&mopts),
		OPT_STRING(0, "input", &input, "file", "read a recording instead"),
		OPT_END()
	};
	struct kp_recorder r = { .cmd = cmd };
	struct sigaction sa, old_int, old_term;
	struct termios tio, saved_tio;
	char tmp[] = "/tmp/kprof-top.XXXXXX";
	bool tmp_made = false, raw = false, want_tui;
	struct kp_err err;
	int ret = KP_EXIT_FAILURE, fd, loop;

	memset(&r.rings, 0, sizeof(r.rings));
	r.rings.fd = -1;
	kp_join_cmdline(r.cmdline, sizeof(r.cmdline), argc, argv);
	argc = parse_options(argc, argv, options, top_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (parse_options_max_args(cmd, argc, argv, 0))
		return KP_EXIT_USAGE;
	mopts.no_leaf_fixup = opts.no_leaf_fixup;
	if (!delay || delay > 3600) {
		kp_error(cmd, "bad --delay value '%u' (1 to 3600 seconds)", delay);
		return KP_EXIT_USAGE;
	}
	if (!t.nr_entries) {
		kp_error(cmd, "bad --entries value '0'");
		return KP_EXIT_USAGE;
	}
	if (stdio_ && tui_) {
		kp_error(cmd, "--stdio and --tui exclude each other");
		return KP_EXIT_USAGE;
	}
	t.delay_ms = delay * 1000;
	t.tty = isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
	if (!t.tty && !tui_)
		t.once = true;
	/* the full-screen view: counted by report's code as well */
	want_tui = !t.once && kp_tui__wanted(tui_, stdio_);
	if (input) {
		if (want_tui) {
			t.rep = report__top_new();
			if (!t.rep) {
				kp_error(cmd, "%s", strerror(ENOMEM));
				return KP_EXIT_FAILURE;
			}
		}
		t.tty = false;
		ret = top__replay(&t, input, &mopts);
		top__exit(&t);
		return ret;
	}

	if (opts.off_cpu) {
		kp_error(cmd, "top shows what is on the CPU: no --off-cpu (see 'kprofctl offcpu')");
		top__exit(&t);
		return KP_EXIT_USAGE;
	}
	if (kp_session__from_opts(&r.session, &r.target, &opts, false, kp_sys__has_hw_pmu(), cmd,
				  &err)) {
		kp_err__print(&err, cmd);
		return KP_EXIT_USAGE;
	}
	if (opts.output) {
		r.output = opts.output;
	} else {
		fd = mkstemp(tmp);
		if (fd < 0) {
			kp_error(cmd, "cannot create '%s': %s", tmp, strerror(errno));
			return KP_EXIT_FAILURE;
		}
		close(fd);
		tmp_made = true;
		r.output = tmp;
	}
	snprintf(t.title, sizeof(t.title), "[%s%s]", r.session.events[0].name,
		 r.session.nr_events > 1 ? ",..." : "");

	r.nl = kp_nl__open(&err);
	if (!r.nl || kp_nl__hello(r.nl, &r.ver, &err))
		goto out_err;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = top__sighandler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	top_signal = 0;

	r.owned = true;
	if (kp_recorder__start(&r, &err))
		goto out_restore;
	if (kp_data_writer__flush(r.w, &err) || top__init(&t, r.output, &mopts, &err))
		goto out_restore;
	if (want_tui) {
		t.rep = report__top_new();
		t.tui = t.rep ? kp_tui__open(&top_tui_ops) : NULL;
		if (!t.tui) {
			kp_err__set(&err, ENOTTY, "no terminal for the full-screen view (TERM=%s)",
				    getenv("TERM") ? getenv("TERM") : "");
			goto out_restore;
		}
		/* the status line and column names until the first refresh */
		if (top__show(&t, 0)) {
			kp_err__set(&err, ENOMEM, "%s", strerror(ENOMEM));
			goto out_restore;
		}
	} else if (t.tty && !tcgetattr(STDIN_FILENO, &saved_tio)) {
		tio = saved_tio;
		tio.c_lflag &= ~(ICANON | ECHO);
		tio.c_cc[VMIN] = 0;
		tio.c_cc[VTIME] = 0;
		raw = !tcsetattr(STDIN_FILENO, TCSANOW, &tio);
	}
	t.last_draw = kp_clock_ns();
	loop = kp_recorder__loop(&r, &top_signal, top__done, &t, 100, &err);
	/* the terminal back before anything more is said */
	kp_tui__close(t.tui);
	t.tui = NULL;
	if (loop)
		goto out_restore;
	if (kp_recorder__finish(&r, &err))
		goto out_restore;
	ret = KP_EXIT_OK;
	goto out_quiet;

out_restore:
	kp_tui__close(t.tui);
	t.tui = NULL;
	kp_err__print(&err, cmd);
	ret = KP_EXIT_FAILURE;
out_quiet:
	if (raw)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	goto out;
out_err:
	kp_err__print(&err, cmd);
	ret = KP_EXIT_FAILURE;
out:
	kp_recorder__exit(&r);
	kp_nl__delete(r.nl);
	top__exit(&t);
	if (tmp_made)
		unlink(tmp);
	return ret;
}
