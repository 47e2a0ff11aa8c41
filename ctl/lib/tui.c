// SPDX-License-Identifier: GPL-2.0
/*
 * The full-screen browser (lib/tui.h), on ncurses.
 *
 * What is on the screen is a list of lines built from the current view:
 * each row that passes the filter, then, when it is unfolded, the lines
 * of its call graph.  The cursor moves over those lines; Enter on any of
 * them folds or unfolds the row they belong to.  The annotate and help
 * screens are a pager over a text, until q or Esc.
 */
#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui.h"

/*
 * Has the terminal gone (end of file, hangup)?  getch() gives ERR then at
 * once, whatever the timeout: a caller that took ERR for "no key yet"
 * would spin on it.  A blocking getch() (@blocking) has no other reason
 * to give ERR; a timed one is asked of poll(2).
 */
static bool tui__input_ended(bool blocking)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };

	if (blocking)
		return true;
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR | POLLNVAL));
}

#define KEY_ESC		27
#define KEY_CTRL_C	3	/* raw mode: Ctrl-C is a key, that quits */
#define FILTER_MAX	128

struct tui_line {
	size_t		row;		/* of the view */
	const char	*s;
	int		len;
};

struct kp_tui {
	struct kp_tui_ops	ops;
	SCREEN			*scr;
	struct kp_tui_view	*views;
	size_t			nr_views, cur;
	struct tui_line		*lines;
	size_t			nr_lines, lines_alloc;
	size_t			sel, top;	/* lines: the cursor's, the first shown */
	char			filter[FILTER_MAX];
	char			msg[256];	/* once, on the bottom line */
};

static const char tui_help[] =
	"Keys of the browser\n"
	"\n"
	"  UP, DOWN, k, j     move the cursor\n"
	"  PGUP, PGDN         a screen up, down\n"
	"  HOME, END          the first, the last line\n"
	"  ENTER, +           unfold or fold the call graph of the entry\n"
	"  E, C               unfold, fold every entry\n"
	"  /                  show only the entries whose symbol contains a\n"
	"                     string (ESC or an empty one: all of them)\n"
	"  a                  annotate the symbol of the entry\n"
	"  TAB, SHIFT-TAB     the next, the previous event\n"
	"  h, ?               this screen\n"
	"  q, ESC             leave this screen; q (or Ctrl-C) on the entries quits\n";

/* ---- views ---- */

int kp_tui_view__title(struct kp_tui_view *v, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	free(v->title);
	v->title = s;
	return 0;
}

static char *dup_or_null(const char *s, bool *failed)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*failed = true;
	return d;
}

int kp_tui_view__add(struct kp_tui_view *v, const char *text, const char *key,
		     const char *symbol, const char *graph)
{
	struct kp_tui_row *r;
	bool failed = false;

	if (v->nr_rows == v->alloc) {
		size_t a = v->alloc ? v->alloc * 2 : 64;
		struct kp_tui_row *n = realloc(v->rows, a * sizeof(*n));

		if (!n)
			return -ENOMEM;
		v->rows = n;
		v->alloc = a;
	}
	r = &v->rows[v->nr_rows];
	memset(r, 0, sizeof(*r));
	r->text = dup_or_null(text, &failed);
	r->key = dup_or_null(key ? key : text, &failed);
	r->symbol = dup_or_null(symbol, &failed);
	r->graph = dup_or_null(graph && *graph ? graph : NULL, &failed);
	v->nr_rows++;
	return failed ? -ENOMEM : 0;
}

void kp_tui_view__exit(struct kp_tui_view *v)
{
	size_t i;

	for (i = 0; i < v->nr_rows; i++) {
		free(v->rows[i].text);
		free(v->rows[i].key);
		free(v->rows[i].symbol);
		free(v->rows[i].graph);
	}
	free(v->rows);
	free(v->title);
	free(v->header);
	memset(v, 0, sizeof(*v));
}

/* ---- the lines on the screen ---- */

static struct kp_tui_view *tui__view(struct kp_tui *t)
{
	return t->nr_views ? &t->views[t->cur] : NULL;
}

static bool tui__passes(const struct kp_tui *t, const struct kp_tui_row *r)
{
	if (!t->filter[0])
		return true;
	return strstr(r->symbol ? r->symbol : r->text, t->filter) != NULL;
}

static int tui__line(struct kp_tui *t, size_t row, const char *s, int len)
{
	if (t->nr_lines == t->lines_alloc) {
		size_t a = t->lines_alloc ? t->lines_alloc * 2 : 256;
		struct tui_line *n = realloc(t->lines, a * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->lines = n;
		t->lines_alloc = a;
	}
	t->lines[t->nr_lines].row = row;
	t->lines[t->nr_lines].s = s;
	t->lines[t->nr_lines].len = len;
	t->nr_lines++;
	return 0;
}

static void tui__build(struct kp_tui *t)
{
	struct kp_tui_view *v = tui__view(t);
	size_t i;

	t->nr_lines = 0;
	for (i = 0; v && i < v->nr_rows; i++) {
		const struct kp_tui_row *r = &v->rows[i];
		const char *s, *nl;

		if (!tui__passes(t, r))
			continue;
		if (tui__line(t, i, r->text, strlen(r->text)))
			break;
		if (!r->unfolded || !r->graph)
			continue;
		for (s = r->graph; *s; s = nl + 1) {
			nl = strchr(s, '\n');
			if (!nl)
				nl = s + strlen(s) - 1;
			if (tui__line(t, i, s, nl - s + (*nl != '\n')))
				break;
		}
	}
	if (t->sel >= t->nr_lines)
		t->sel = t->nr_lines ? t->nr_lines - 1 : 0;
}

/* The index of the line of row @row itself (not of its graph). */
static size_t tui__row_line(const struct kp_tui *t, size_t row)
{
	size_t i;

	for (i = 0; i < t->nr_lines; i++)
		if (t->lines[i].row == row)
			return i;
	return 0;
}

static int tui__body_height(void)
{
	return LINES > 3 ? LINES - 3 : 1;
}

static void tui__bar(int y, const char *s)
{
	attron(A_REVERSE);
	mvhline(y, 0, ' ', COLS);
	mvaddnstr(y, 0, s, COLS);
	attroff(A_REVERSE);
}

static void tui__draw(struct kp_tui *t)
{
	struct kp_tui_view *v = tui__view(t);
	int h = tui__body_height(), y;
	char bottom[512];

	tui__build(t);
	if (t->sel < t->top)
		t->top = t->sel;
	if (t->sel >= t->top + h)
		t->top = t->sel - h + 1;
	if (t->top + h > t->nr_lines)
		t->top = t->nr_lines > (size_t)h ? t->nr_lines - h : 0;
	erase();
	tui__bar(0, v && v->title ? v->title : "");
	if (v && v->header) {
		attron(A_BOLD);
		mvaddnstr(1, 0, v->header, COLS);
		attroff(A_BOLD);
	}
	for (y = 0; y < h && t->top + y < t->nr_lines; y++) {
		const struct tui_line *l = &t->lines[t->top + y];
		const struct kp_tui_row *r = &v->rows[l->row];
		bool own = l->s == r->text;

		if (t->top + y == t->sel)
			attron(A_REVERSE);
		mvhline(2 + y, 0, ' ', COLS);
		mvaddnstr(2 + y, 0, l->s, l->len < COLS ? l->len : COLS);
		/* the fold mark, where the row's text has a blank */
		if (own && r->graph && l->s[0] == ' ')
			mvaddch(2 + y, 0, r->unfolded ? '-' : '+');
		if (t->top + y == t->sel)
			attroff(A_REVERSE);
	}
	if (t->msg[0])
		snprintf(bottom, sizeof(bottom), "%s", t->msg);
	else if (!t->nr_lines && v && v->nr_rows)
		snprintf(bottom, sizeof(bottom), "No entry has a symbol with '%s' (ESC: all)",
			 t->filter);
	else if (t->filter[0])
		snprintf(bottom, sizeof(bottom), "Filter: '%s' (%zu lines)  ESC: all  h: help  q: quit",
			 t->filter, t->nr_lines);
	else
		snprintf(bottom, sizeof(bottom), "Press 'h' or '?' for help on key bindings, 'q' to quit");
	t->msg[0] = '\0';
	tui__bar(LINES - 1, bottom);
	refresh();
}

/* ---- the pager: annotate, help ---- */

static void pager(const char *title, const char *text)
{
	const char **lines = NULL;
	size_t nr = 0, alloc = 0, top = 0, i;
	const char *s, *nl;
	char bottom[128];
	int h, ch;

	for (s = text; *s; s = nl + 1) {
		if (nr == alloc) {
			const char **n;

			alloc = alloc ? alloc * 2 : 256;
			n = realloc(lines, alloc * sizeof(*n));
			if (!n)
				break;
			lines = n;
		}
		lines[nr++] = s;
		nl = strchr(s, '\n');
		if (!nl)
			break;
	}
	timeout(-1);
	for (;;) {
		h = LINES > 2 ? LINES - 2 : 1;
		if (nr > (size_t)h && top > nr - h)
			top = nr - h;
		if (nr <= (size_t)h)
			top = 0;
		erase();
		tui__bar(0, title);
		for (i = 0; i < (size_t)h && top + i < nr; i++) {
			const char *e = strchr(lines[top + i], '\n');
			int len = e ? e - lines[top + i] : (int)strlen(lines[top + i]);

			move(1 + i, 0);
			addnstr(lines[top + i], len);
		}
		snprintf(bottom, sizeof(bottom), "Lines %zu-%zu of %zu  UP/DOWN/PGUP/PGDN/HOME/END  q, ESC: back",
			 nr ? top + 1 : 0, top + i, nr);
		tui__bar(LINES - 1, bottom);
		refresh();
		ch = getch();
		if (ch == ERR)
			ch = 'q';	/* end of input: back */
		switch (ch) {
		case 'q':
		case 'Q':
		case KEY_ESC:
		case KEY_CTRL_C:
		case KEY_LEFT:
			free(lines);
			return;
		case KEY_UP:
		case 'k':
			if (top)
				top--;
			break;
		case KEY_DOWN:
		case 'j':
		case '\n':
		case KEY_ENTER:
			if (top + h < nr)
				top++;
			break;
		case KEY_PPAGE:
			top = top > (size_t)h ? top - h : 0;
			break;
		case KEY_NPAGE:
		case ' ':
			if (top + h < nr)
				top += h;
			break;
		case KEY_HOME:
		case 'g':
			top = 0;
			break;
		case KEY_END:
		case 'G':
			top = nr > (size_t)h ? nr - h : 0;
			break;
		default:
			break;
		}
	}
}

static void tui__help(struct kp_tui *t)
{
	char *text;

	if (asprintf(&text, "%s%s%s", tui_help, t->ops.help ? "\n" : "",
		     t->ops.help ? t->ops.help : "") < 0)
		return;
	pager("Help", text);
	free(text);
}

static void tui__annotate(struct kp_tui *t)
{
	struct kp_tui_view *v = tui__view(t);
	const struct kp_tui_row *r;
	char title[512], *text;

	if (!t->nr_lines || !t->ops.annotate) {
		snprintf(t->msg, sizeof(t->msg), "Nothing to annotate here");
		return;
	}
	r = &v->rows[t->lines[t->sel].row];
	if (!r->symbol) {
		snprintf(t->msg, sizeof(t->msg), "This entry has no symbol to annotate");
		return;
	}
	snprintf(t->msg, sizeof(t->msg), "Annotating %s...", r->symbol);
	tui__draw(t);
	text = t->ops.annotate(t->ops.arg, r->symbol);
	if (!text) {
		snprintf(t->msg, sizeof(t->msg), "Cannot annotate %s", r->symbol);
		return;
	}
	snprintf(title, sizeof(title), "Annotate %s", r->symbol);
	pager(title, text);
	free(text);
}

/* '/': read the filter on the bottom line; ESC clears it. */
static void tui__filter(struct kp_tui *t)
{
	char buf[FILTER_MAX] = "", line[FILTER_MAX + 16];
	size_t len = 0;
	int ch;

	timeout(-1);
	curs_set(1);
	for (;;) {
		snprintf(line, sizeof(line), "Filter: %s", buf);
		tui__bar(LINES - 1, line);
		move(LINES - 1, strlen(line) < (size_t)COLS ? (int)strlen(line) : COLS - 1);
		refresh();
		ch = getch();
		if (ch == '\n' || ch == '\r' || ch == KEY_ENTER)
			break;
		if (ch == KEY_ESC || ch == KEY_CTRL_C || ch == ERR) {
			len = 0;
			break;
		}
		if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
			if (len)
				buf[--len] = '\0';
		} else if (ch >= 32 && ch < 127 && len + 1 < sizeof(buf)) {
			buf[len++] = ch;
			buf[len] = '\0';
		}
	}
	curs_set(0);
	buf[len] = '\0';
	memcpy(t->filter, buf, sizeof(buf));
	t->sel = t->top = 0;
}

static void tui__fold(struct kp_tui *t, size_t line)
{
	struct kp_tui_view *v = tui__view(t);
	struct kp_tui_row *r;

	if (line >= t->nr_lines)
		return;
	r = &v->rows[t->lines[line].row];
	if (!r->graph) {
		snprintf(t->msg, sizeof(t->msg), "This entry has no call graph");
		return;
	}
	r->unfolded = !r->unfolded;
	tui__build(t);
	t->sel = tui__row_line(t, t->lines[line].row);
}

static void tui__fold_all(struct kp_tui *t, bool unfolded)
{
	struct kp_tui_view *v = tui__view(t);
	size_t row = t->nr_lines ? t->lines[t->sel].row : 0, i;

	for (i = 0; v && i < v->nr_rows; i++)
		v->rows[i].unfolded = unfolded && v->rows[i].graph;
	tui__build(t);
	t->sel = tui__row_line(t, row);
}

/* One key: true to quit. */
static bool tui__key(struct kp_tui *t, int ch)
{
	size_t h = tui__body_height();

	tui__build(t);
	switch (ch) {
	case 'q':
	case 'Q':
	case KEY_CTRL_C:
		return true;
	case KEY_ESC:
		if (!t->filter[0])
			return true;
		t->filter[0] = '\0';
		t->sel = t->top = 0;
		break;
	case KEY_UP:
	case 'k':
		if (t->sel)
			t->sel--;
		break;
	case KEY_DOWN:
	case 'j':
		if (t->sel + 1 < t->nr_lines)
			t->sel++;
		break;
	case KEY_PPAGE:
		t->sel = t->sel > h ? t->sel - h : 0;
		break;
	case KEY_NPAGE:
		t->sel = t->sel + h < t->nr_lines ? t->sel + h : (t->nr_lines ? t->nr_lines - 1 : 0);
		break;
	case KEY_HOME:
		t->sel = 0;
		break;
	case KEY_END:
		t->sel = t->nr_lines ? t->nr_lines - 1 : 0;
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
	case '+':
		tui__fold(t, t->sel);
		break;
	case 'E':
		tui__fold_all(t, true);
		break;
	case 'C':
		tui__fold_all(t, false);
		break;
	case '/':
		tui__filter(t);
		break;
	case 'a':
		tui__annotate(t);
		break;
	case 'h':
	case '?':
		tui__help(t);
		break;
	case '\t':
	case KEY_BTAB:
		if (t->nr_views > 1) {
			t->cur = (t->cur + (ch == '\t' ? 1 : t->nr_views - 1)) % t->nr_views;
			t->sel = t->top = 0;
		}
		break;
	default:
		break;
	}
	return false;
}

/* ---- the browser ---- */

bool kp_tui__wanted(bool tui, bool stdio)
{
	const char *term = getenv("TERM");

	if (stdio)
		return false;
	/* --tui on no terminal: the text, as perf falls back to its stdio */
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
		return false;
	return tui || (term && *term && strcmp(term, "dumb"));
}

struct kp_tui *kp_tui__open(const struct kp_tui_ops *ops)
{
	const char *term = getenv("TERM");
	struct kp_tui *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	if (ops)
		t->ops = *ops;
	/* characters only: numbers keep their '.' */
	setlocale(LC_CTYPE, "");
	fflush(stdout);
	t->scr = newterm(term && *term ? term : "vt100", stdout, stdin);
	if (!t->scr) {
		free(t);
		errno = ENOTTY;
		return NULL;
	}
	set_term(t->scr);
	set_escdelay(25);
	/* Ctrl-C a key: q's way out, the terminal restored */
	raw();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	curs_set(0);
	return t;
}

/* The key of the row of the cursor, or NULL. */
static const char *tui__sel_key(struct kp_tui *t)
{
	struct kp_tui_view *v = tui__view(t);

	tui__build(t);
	if (!v || !t->nr_lines)
		return NULL;
	return v->rows[t->lines[t->sel].row].key;
}

void kp_tui__set_views(struct kp_tui *t, struct kp_tui_view *views, size_t nr)
{
	struct kp_tui_view *old = t->views;
	size_t nr_old = t->nr_views, i, j, k;
	char *sel = NULL;
	bool on_row;

	if (tui__sel_key(t))
		sel = strdup(tui__sel_key(t));
	on_row = t->nr_lines && t->lines[t->sel].s == tui__view(t)->rows[t->lines[t->sel].row].text;
	t->views = calloc(nr ? nr : 1, sizeof(*t->views));
	t->nr_views = t->views ? nr : 0;
	for (i = 0; i < t->nr_views; i++) {
		t->views[i] = views[i];
		memset(&views[i], 0, sizeof(views[i]));
		/* what was unfolded stays so */
		for (j = 0; i < nr_old && j < t->views[i].nr_rows; j++)
			for (k = 0; k < old[i].nr_rows; k++)
				if (old[i].rows[k].unfolded &&
				    !strcmp(old[i].rows[k].key, t->views[i].rows[j].key)) {
					t->views[i].rows[j].unfolded = true;
					break;
				}
	}
	for (i = 0; i < nr_old; i++)
		kp_tui_view__exit(&old[i]);
	free(old);
	if (t->cur >= t->nr_views)
		t->cur = 0;
	tui__build(t);
	if (sel) {
		struct kp_tui_view *v = tui__view(t);

		for (i = 0; i < t->nr_lines; i++)
			if (!strcmp(v->rows[t->lines[i].row].key, sel)) {
				if (on_row)
					t->sel = i;
				break;
			}
		free(sel);
	}
}

bool kp_tui__poll(struct kp_tui *t, int timeout_ms)
{
	int ch;

	tui__draw(t);
	timeout(timeout_ms);
	ch = getch();
	if (ch == ERR && tui__input_ended(timeout_ms < 0))
		return true;	/* end of input or hangup: as q */
	while (ch != ERR) {
		if (ch != KEY_RESIZE && tui__key(t, ch))
			return true;
		timeout(0);
		ch = getch();
	}
	tui__draw(t);
	return false;
}

void kp_tui__close(struct kp_tui *t)
{
	size_t i;

	if (!t)
		return;
	endwin();
	delscreen(t->scr);
	for (i = 0; i < t->nr_views; i++)
		kp_tui_view__exit(&t->views[i]);
	free(t->views);
	free(t->lines);
	free(t);
}
