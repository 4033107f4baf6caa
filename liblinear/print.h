/*
 * print.h - progress messages of the library.
 *
 * Contract: info() formats like printf and hands the text to the function
 * set by set_print_string_function (stdout when none is set, nothing
 * after set_print_string_function of a no-op, as train -q does).
 * Like upstream, the print function is process-global, not thread-safe.
 * info_mute(true) silences info() until info_mute(false), whatever print
 * function is set; it returns the previous state so callers can nest.
 *
 * Ordered output of work items that run in parallel (the folds of
 * cross-validation): info_order_begin(n) prepares n items (NULL when out
 * of memory); a thread running item k calls info_order_enter(o, k) first
 * and info_order_leave() when the item is done. Between the two, that
 * thread's info() text is printed at once while k is the earliest item not
 * yet done, and held otherwise; when an item is done, the held text of the
 * items after it goes out in item order as each becomes the earliest. So
 * the printed text is exactly what running the items one after another
 * prints, and each item's lines appear as soon as it and all items before
 * it are done (item 0's while it runs). The print function is then called
 * from the worker threads, one call at a time (an OpenMP critical
 * section). info_order_end(o) prints whatever is still held (nothing when
 * every item left) and frees o. Threads outside an item print as before.
 */
#ifndef LIBLINEAR_PRINT_H
#define LIBLINEAR_PRINT_H

#include <stdbool.h>

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
void info(const char *fmt, ...);

bool info_mute(bool mute);

struct info_order;
struct info_order *info_order_begin(int nr_items);
void info_order_enter(struct info_order *o, int item);
void info_order_leave(void);
void info_order_end(struct info_order *o);

#endif /* LIBLINEAR_PRINT_H */
