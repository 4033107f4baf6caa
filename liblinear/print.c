/* print.c - routing of progress messages (see print.h). */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "export.h"
#include "linear.h"
#include "print.h"

static void print_to_stdout(const char *s)
{
	fputs(s, stdout);
	fflush(stdout);
}

static void (*print_string)(const char *) = print_to_stdout;
static bool muted;

bool info_mute(bool mute)
{
	bool was = muted;
	muted = mute;
	return was;
}

LIBLINEAR_EXPORT void set_print_string_function(void (*print_func)(const char *))
{
	print_string = print_func ? print_func : print_to_stdout;
}

/* ---- ordered output of parallel work items ---- */

/* The text an item printed while an earlier item was still running. */
struct held_text {
	char *text;
	size_t len, cap;
	bool lost;	/* out of memory: the rest of this item's text is dropped */
	bool done;
};

struct info_order {
	int nr_items;
	int next;	/* the item whose text goes out as it is printed */
	struct held_text *items;
};

/* The work item of the calling thread, if it runs inside one. */
static _Thread_local struct info_order *thread_order;
static _Thread_local int thread_item;

struct info_order *info_order_begin(int nr_items)
{
	struct info_order *o = malloc(sizeof *o);
	if (o == NULL)
		return NULL;
	o->nr_items = nr_items;
	o->next = 0;
	o->items = calloc(nr_items > 0 ? (size_t)nr_items : 1, sizeof *o->items);
	if (o->items == NULL) {
		free(o);
		return NULL;
	}
	return o;
}

static void hold(struct held_text *h, const char *s)
{
	size_t n = strlen(s);
	if (h->lost)
		return;
	if (h->len + n + 1 > h->cap) {
		size_t cap = h->cap ? h->cap : 256;
		while (cap < h->len + n + 1)
			cap *= 2;
		char *grown = realloc(h->text, cap);
		if (grown == NULL) {
			/* progress text only: losing it must not fail the training */
			h->lost = true;
			return;
		}
		h->text = grown;
		h->cap = cap;
	}
	memcpy(h->text + h->len, s, n + 1);
	h->len += n;
}

/* Hands an item's held text to the print function and frees it. */
static void release(struct held_text *h)
{
	if (h->len > 0)
		print_string(h->text);
	free(h->text);
	h->text = NULL;
	h->len = h->cap = 0;
}

/* Called with the lock held: moves `next` past done items, printing each one's text in turn. */
static void advance(struct info_order *o)
{
	while (o->next < o->nr_items && o->items[o->next].done) {
		o->next++;
		if (o->next < o->nr_items)
			release(&o->items[o->next]);
	}
}

void info_order_enter(struct info_order *o, int item)
{
	thread_order = o;
	thread_item = item;
}

void info_order_leave(void)
{
	struct info_order *o = thread_order;
	if (o == NULL)
		return;
	int item = thread_item;
	thread_order = NULL;
#pragma omp critical(liblinear_info_order)
	{
		o->items[item].done = true;
		advance(o);
	}
}

void info_order_end(struct info_order *o)
{
	if (o == NULL)
		return;
	/* items that never left (none, unless a caller broke off) still go out in order */
	for (int k = o->next; k < o->nr_items; k++)
		release(&o->items[k]);
	free(o->items);
	free(o);
}

/* One info() text of the calling thread's item: out now if its turn, else held. */
static void order_print(struct info_order *o, int item, const char *s)
{
#pragma omp critical(liblinear_info_order)
	{
		if (item == o->next)
			print_string(s);
		else
			hold(&o->items[item], s);
	}
}

void info(const char *fmt, ...)
{
	if (muted)
		return;
	char buf[8192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (thread_order != NULL)
		order_print(thread_order, thread_item, buf);
	else
		print_string(buf);
}
