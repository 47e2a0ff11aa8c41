/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The full-screen browser of 'kprofctl report' and 'kprofctl top' on a
 * terminal, perf's TUI (ncurses): a status line, the column names, the
 * rows the command computed (the lines its --stdio output has), each
 * with the call graph text it prints with -g, folded until Enter or '+'
 * unfolds it.  '/' keeps the rows whose symbol contains a string, 'a'
 * shows what the command's annotate callback returns for the selected
 * symbol, 'h' or '?' the keys, 'q' quits with the terminal restored.
 *
 *	struct kp_tui_view v = { 0 };
 *	kp_tui_view__title(&v, "Samples: %llu of event '%s'", ...);
 *	kp_tui_view__add(&v, text, key, symbol, graph);	one per row
 *	t = kp_tui__open(&ops);			NULL: no terminal
 *	kp_tui__set_views(t, &v, 1);		the browser owns them now
 *	while (!kp_tui__poll(t, -1))		or a timeout, to refresh
 *		;
 *	kp_tui__close(t);			endwin()
 *
 * The browser computes nothing itself: new views (top's refresh) keep the
 * selection, the unfolded rows (by key) and the filter.
 */
#ifndef KPROFCTL_TUI_H
#define KPROFCTL_TUI_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

struct kp_tui_row {
	char	*text;		/* the line, as --stdio prints it */
	char	*key;		/* what stays the same across refreshes */
	char	*symbol;	/* what '/' matches and 'a' annotates; NULL: none */
	char	*graph;		/* the call graph, '\n'-ended lines; NULL: none */
	bool	unfolded;
};

/* The rows of one event: Tab goes to the next view. */
struct kp_tui_view {
	char			*title;		/* the status line */
	char			*header;	/* the column names */
	struct kp_tui_row	*rows;
	size_t			nr_rows, alloc;
};

/* The status line, printf-style: 0 or -ENOMEM. */
int kp_tui_view__title(struct kp_tui_view *v, const char *fmt, ...) __printf(2, 3);
/* A row (copies of the strings; @key NULL: @text): 0 or -ENOMEM. */
int kp_tui_view__add(struct kp_tui_view *v, const char *text, const char *key,
		     const char *symbol, const char *graph);
void kp_tui_view__exit(struct kp_tui_view *v);

struct kp_tui_ops {
	/*
	 * The text to show for 'a' on @symbol, malloc'd ('\n'-ended lines),
	 * or NULL: 'a' is not offered.
	 */
	char	*(*annotate)(void *arg, const char *symbol);
	void	*arg;
	const char *help;	/* the command's own lines of the help screen */
};

/*
 * Whether to open the browser: only with a terminal on stdin and stdout
 * (else the text, as perf falls back to its stdio); then --tui (@tui)
 * does, --stdio (@stdio) does not, else when TERM is not "dumb".
 */
bool kp_tui__wanted(bool tui, bool stdio);

struct kp_tui;

/* Take over the terminal: NULL (errno set) when it cannot. */
struct kp_tui *kp_tui__open(const struct kp_tui_ops *ops);
/* Show @nr views (the browser takes them: the caller's are emptied). */
void kp_tui__set_views(struct kp_tui *t, struct kp_tui_view *views, size_t nr);
/*
 * Wait up to @timeout_ms (-1: forever) for keys, act on them and redraw:
 * true once 'q' was pressed.
 */
bool kp_tui__poll(struct kp_tui *t, int timeout_ms);
/* Give the terminal back (endwin) and free everything. */
void kp_tui__close(struct kp_tui *t);

#endif /* KPROFCTL_TUI_H */
