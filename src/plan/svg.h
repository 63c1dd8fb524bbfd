/* svg: the budget picture. One standalone SVG document (no script, no
 * external font or image, no network): each plan a stacked bar of its
 * terms billed to the gated budget, bottom to top in plan's order, each
 * segment named with its MiB; lines at the addressable and advertised
 * memory (law M01); the slack band below the addressable line (law M09);
 * the verdict. Several plans (rungs) stand side by side on one scale.
 *
 * Every segment is a <rect> with data-term, data-mib and a <title>, so a
 * test can find where a term must be drawn and check the pixels there.
 */
#ifndef ZEALOT_SVG_H
#define ZEALOT_SVG_H

#include <stddef.h>

#include "plan.h"

struct svg_bar {
	const char *label; /* under the bar: "endpoint", "SPEC_TYPE=none" */
	const struct plan *p;
};

/* One plan, its terms labelled beside the bar. title: a line on top. The
 * caller frees the result. */
char *svg_plan(const char *title, const struct plan *p);

/* Bars side by side on one scale (the first is the base). */
char *svg_bars(const char *title, const struct svg_bar *bars, size_t n);

/* The fill of a term's segments, "#rrggbb". */
const char *svg_term_color(int term);

#endif
