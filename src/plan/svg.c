#include "svg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "terms.h"

#define MIB (1024.0 * 1024.0)

/* Colours far apart, so a segment is told from its neighbours by eye and
 * by a pixel test. */
static const char *const colors[TERM_N] = {
    "#3f51b5", /* model */
    "#009688", /* kv */
    "#80cbc4", /* kv_swa */
    "#8e24aa", /* recurrent */
    "#fb8c00", /* draft_kv */
    "#795548", /* output */
    "#1e88e5", /* compute */
    "#ffcc80", /* draft_compute */
    "#d81b60", /* projector */
    "#c0ca33", /* lora */
    "#757575", /* overhead */
};

const char *svg_term_color(int term)
{
	return term >= 0 && term < TERM_N ? colors[term] : "#000000";
}

static void esc(struct sb *b, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': sb_adds(b, "&amp;"); break;
		case '<': sb_adds(b, "&lt;"); break;
		case '>': sb_adds(b, "&gt;"); break;
		case '"': sb_adds(b, "&quot;"); break;
		default:
			/* control characters are not XML */
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				sb_addc(b, *s);
		}
	}
}

/* 12345.678 -> "12,345.68" (base's one MiB format) */
static void mib(char *buf, size_t n, double v)
{
	fmt_mib(v, 0, buf, n);
}

struct scale {
	double top_mib; /* the value at the top of the chart */
	double y0, y1;	/* pixel rows of top_mib and 0 */
};

static double y_of(const struct scale *sc, double v)
{
	return sc->y1 - (sc->y1 - sc->y0) * (v / sc->top_mib);
}

static double advertised(const struct plan *p)
{
	return p->device ? (double)p->device->advertised_mib : 0;
}

static void header(struct sb *b, int w, int h, const char *title)
{
	sb_addf(b,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"font-family=\"sans-serif\" font-size=\"12\">\n"
		"<title>",
		w, h, w, h);
	esc(b, title);
	sb_addf(b, "</title>\n<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", w, h);
}

/* The slack band below the addressable line, from x0 to x1 (drawn first,
 * under the bars). */
static void band(struct sb *b, const struct scale *sc, const struct plan *p, double x0, double x1)
{
	char m[32];
	double addr = (double)p->addressable / MIB, slack = (double)p->slack / MIB;
	double lo = addr - slack > 0 ? addr - slack : 0;
	mib(m, sizeof(m), slack);
	sb_addf(b,
		"<rect data-band=\"slack\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fdd835\" "
		"fill-opacity=\"0.30\"><title>slack band %s MiB (law M09)</title></rect>\n",
		x0, y_of(sc, addr), x1 - x0, y_of(sc, lo) - y_of(sc, addr), m);
}

/* Lines at addressable and advertised memory (drawn last, over the bars),
 * labelled at x1. */
static void lines(struct sb *b, const struct scale *sc, const struct plan *p, double x0, double x1)
{
	char m1[32], m2[32];
	double addr = (double)p->addressable / MIB, slack = (double)p->slack / MIB, adv = advertised(p);
	/* on whole pixel rows, so a 2-px line is two crisp rows */
	double ya = (double)(long)(y_of(sc, addr) + 0.5), yv = (double)(long)(y_of(sc, adv) + 0.5);
	sb_addf(b,
		"<line data-line=\"addressable\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c62828\" "
		"stroke-width=\"2\"/>\n",
		x0, ya, x1, ya);
	if (adv > 0)
		sb_addf(
		    b,
		    "<line data-line=\"advertised\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#424242\" "
		    "stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n",
		    x0, yv, x1, yv);
	mib(m1, sizeof(m1), addr);
	sb_addf(b, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#c62828\">addressable %s MiB (law M01)</text>\n", x1 + 6,
		y_of(sc, addr) + 4, m1);
	if (adv > 0) {
		mib(m2, sizeof(m2), adv);
		sb_addf(b, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#424242\">advertised %s MiB</text>\n", x1 + 6,
			y_of(sc, adv) - 4 < y_of(sc, addr) - 10 ? y_of(sc, adv) - 4 : y_of(sc, addr) - 14, m2);
	}
	mib(m1, sizeof(m1), slack);
	sb_addf(b, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#9e7c00\">slack band %s MiB (law M09)</text>\n", x1 + 6,
		y_of(sc, addr) + 18, m1);
}

/* The stacked segments of one plan; returns the height of the stack. */
static double stack(struct sb *b, const struct scale *sc, const struct plan *p, double x, double w, const char *bar,
		    double *mid, double *hgt)
{
	struct term t[TERM_N];
	terms_of(p, t);
	double at = 0;
	char m[32];
	for (int i = 0; i < TERM_N; i++) {
		double v = (double)t[i].gated / MIB;
		mid[i] = hgt[i] = 0;
		if (t[i].gated == 0)
			continue;
		double ytop = y_of(sc, at + v), ybot = y_of(sc, at);
		mid[i] = (ytop + ybot) / 2;
		hgt[i] = ybot - ytop;
		mib(m, sizeof(m), v);
		sb_addf(b, "<rect data-term=\"%s\" data-mib=\"%.2f\" data-bar=\"", t[i].name, v);
		esc(b, bar);
		sb_addf(b,
			"\" x=\"%.2f\" y=\"%.3f\" width=\"%.2f\" height=\"%.3f\" fill=\"%s\"><title>%s %s "
			"MiB</title></rect>\n",
			x, ytop, w, ybot - ytop, colors[i], t[i].name, m);
		at += v;
	}
	return at;
}

/* The MiB axis's five labels, whole MiB, right-aligned left of x0. */
static void ticks(struct sb *b, const struct scale *sc, double x0)
{
	char m[32];
	for (int k = 0; k <= 4; k++) {
		double v = sc->top_mib / 1.06 * k / 4;
		mib(m, sizeof(m), v);
		char *dot = strchr(m, '.');
		if (dot)
			*dot = '\0';
		sb_addf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"#616161\">%s</text>\n", x0 - 14,
			y_of(sc, v) + 4, m);
	}
}

static double top_of(const struct plan *const *ps, size_t n)
{
	double top = 1;
	for (size_t i = 0; i < n; i++) {
		double v = (double)ps[i]->device_total / MIB;
		double a = (double)ps[i]->addressable / MIB, adv = advertised(ps[i]);
		if (v > top)
			top = v;
		if (a > top)
			top = a;
		if (adv > top)
			top = adv;
	}
	return top * 1.06;
}

/* The verdict at (x, y): big, the headline; else a bar's word, turned to
 * read upwards from the bar's top (bars are narrower than the word). */
static void verdict(struct sb *b, double x, double y, const struct plan *p, int big)
{
	char f[32], s[32];
	double free_mib = (double)p->free_bytes / MIB;
	mib(f, sizeof(f), free_mib);
	mib(s, sizeof(s), (double)p->slack / MIB);
	if (big)
		sb_addf(b,
			"<text data-verdict=\"%s\" x=\"%.1f\" y=\"%.1f\" fill=\"%s\" font-weight=\"bold\" "
			"font-size=\"15\">",
			p->fits ? "fits" : "refused", x, y, p->fits ? "#2e7d32" : "#c62828");
	else
		sb_addf(b,
			"<text data-verdict=\"%s\" transform=\"translate(%.1f,%.1f) rotate(-90)\" fill=\"%s\" "
			"font-weight=\"bold\" font-size=\"11\">",
			p->fits ? "fits" : "refused", x, y, p->fits ? "#2e7d32" : "#c62828");
	if (big)
		sb_addf(b, "%s: %s MiB free, slack band %s MiB", p->fits ? "fits" : "refused", f, s);
	else
		sb_addf(b, "%s", p->fits ? "fits" : "refused");
	sb_adds(b, "</text>\n");
}

/* The footer's lines: what the plan bills off the gated budget (a card's
 * host buffers: mapped weights, outputs, host compute), with the host's
 * total, and the terms it bills nothing; each line at most ~110
 * characters (12 px sans-serif within the picture's width). */
static size_t footer_lines(const struct plan *p, const struct term *t, struct sb *lines, size_t max)
{
	size_t n = 0;
	char m[32];
	struct sb cur = {0};
	const char *lead = device_is_card(p->device) ? "on the host, not the card: " : NULL;
	uint64_t host = 0;
	for (int i = 0; lead && i < TERM_N; i++) {
		if (t[i].bytes <= t[i].gated)
			continue;
		host += t[i].bytes - t[i].gated;
		mib(m, sizeof(m), (double)(t[i].bytes - t[i].gated) / MIB);
		char item[96];
		snprintf(item, sizeof(item), "%s %s MiB", t[i].name, m);
		if (cur.len && cur.len + strlen(item) > 104 && n + 1 < max) {
			sb_adds(&cur, ",");
			lines[n++] = cur;
			memset(&cur, 0, sizeof(cur));
		}
		sb_addf(&cur, "%s%s", cur.len ? ", " : lead, item);
	}
	if (host) {
		mib(m, sizeof(m), (double)p->host_total / MIB);
		sb_addf(&cur, "; host total %s MiB", m);
	}
	if (cur.len && n < max) {
		lines[n++] = cur;
		memset(&cur, 0, sizeof(cur));
	}
	for (int i = 0; i < TERM_N; i++)
		if (!t[i].bytes)
			sb_addf(&cur, "%s%s", cur.len ? ", " : "billed nothing: ", t[i].name);
	if (cur.len && n < max)
		lines[n++] = cur;
	else
		sb_release(&cur);
	return n;
}

char *svg_plan(const char *title, const struct plan *p)
{
	struct term t[TERM_N];
	terms_of(p, t);
	struct sb foot[4];
	size_t n_foot = footer_lines(p, t, foot, 4);
	const int W = 880, H = 644 + 16 * (int)n_foot;
	struct scale sc = {top_of(&p, 1), 70, 600};
	double x0 = 110, bw = 150;
	struct sb b = {0};
	header(&b, W, H, title);
	sb_adds(&b, "<text x=\"20\" y=\"24\" font-size=\"15\" font-weight=\"bold\">");
	esc(&b, title);
	sb_adds(&b, "</text>\n");
	verdict(&b, 20, 48, p, 1);
	/* the axis */
	sb_addf(&b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000000\"/>\n", x0 - 10, sc.y0,
		x0 - 10, sc.y1);
	char m[32];
	ticks(&b, &sc, x0);
	sb_addf(&b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"#616161\">MiB</text>\n", x0 - 14,
		sc.y1 + 18);
	/* columns left to right: the bar, its term labels (up to ~180 px), the
	 * free line and its label, the lines' labels; none shares a column */
	double xr = x0 + bw + 350, fx = x0 + bw + 230;
	band(&b, &sc, p, x0 - 10, xr);
	double mid[TERM_N], hgt[TERM_N];
	double total = stack(&b, &sc, p, x0, bw, "plan", mid, hgt);
	/* labels right of the bar, pushed apart so none overlap */
	double ly[TERM_N];
	int order[TERM_N], n = 0;
	for (int i = TERM_N - 1; i >= 0; i--) /* top of the stack first */
		if (t[i].gated)
			order[n++] = i;
	double prev = -1e9;
	for (int k = 0; k < n; k++) {
		double y = mid[order[k]] + 4;
		if (y < prev + 15)
			y = prev + 15;
		ly[k] = prev = y;
	}
	if (n && ly[n - 1] > sc.y1 + 4) { /* pushed off the bottom: shift all up */
		double d = ly[n - 1] - (sc.y1 + 4);
		for (int k = 0; k < n; k++)
			ly[k] -= d;
	}
	for (int k = 0; k < n; k++) {
		int i = order[k];
		mib(m, sizeof(m), (double)t[i].gated / MIB);
		double lx = x0 + bw + 40;
		sb_addf(&b,
			"<polyline points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"none\" stroke=\"%s\" "
			"stroke-width=\"1\"/>\n",
			x0 + bw, mid[i], x0 + bw + 14, mid[i], lx - 4, ly[k] - 4, colors[i]);
		sb_addf(&b, "<text data-label=\"%s\" x=\"%.1f\" y=\"%.1f\">%s %s MiB</text>\n", t[i].name, lx, ly[k],
			t[i].name, m);
	}
	/* totals and lines, labelled at the right edge */
	mib(m, sizeof(m), total);
	sb_addf(&b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-weight=\"bold\">total %s MiB</text>\n",
		x0 + bw / 2, y_of(&sc, total) - 6, m);
	lines(&b, &sc, p, x0 - 10, xr);
	/* the free memory, between the stack and the addressable line */
	double addr = (double)p->addressable / MIB;
	if (p->free_bytes > 0) {
		mib(m, sizeof(m), (double)p->free_bytes / MIB);
		sb_addf(&b,
			"<line data-free=\"1\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#2e7d32\" "
			"stroke-width=\"1.5\"/>\n<text x=\"%.1f\" y=\"%.1f\" fill=\"#2e7d32\">free %s MiB</text>\n",
			fx, y_of(&sc, total), fx, y_of(&sc, addr), fx + 6, (y_of(&sc, total) + y_of(&sc, addr)) / 2 + 4,
			m);
	}
	/* the footer: every term billed off the bar, and those billed nothing,
	 * so every term the plan bills is named */
	for (size_t k = 0; k < n_foot; k++) {
		sb_addf(&b, "<text data-footer=\"%zu\" x=\"20\" y=\"%d\" fill=\"#616161\">", k, 640 + 16 * (int)k);
		esc(&b, foot[k].s);
		sb_adds(&b, "</text>\n");
		sb_release(&foot[k]);
	}
	sb_adds(&b, "</svg>\n");
	return sb_detach(&b);
}

char *svg_bars(const char *title, const struct svg_bar *bars, size_t n)
{
	const struct plan **ps = xcalloc(n ? n : 1, sizeof(*ps));
	for (size_t i = 0; i < n; i++)
		ps[i] = bars[i].p;
	const double bw = 30, gap = 16, x0 = 90;
	int W = (int)(x0 + (double)n * (bw + gap) + 460), H = 720;
	struct scale sc = {top_of(ps, n), 70, 470};
	struct sb b = {0};
	header(&b, W, H, title);
	sb_adds(&b, "<text x=\"20\" y=\"24\" font-size=\"15\" font-weight=\"bold\">");
	esc(&b, title);
	sb_adds(&b, "</text>\n");
	char m[32];
	ticks(&b, &sc, x0);
	double xr = x0 + (double)n * (bw + gap);
	if (n)
		band(&b, &sc, ps[0], x0 - 10, xr);
	for (size_t i = 0; i < n; i++) {
		double x = x0 + (double)i * (bw + gap), mid[TERM_N], hgt[TERM_N];
		double total = stack(&b, &sc, ps[i], x, bw, bars[i].label, mid, hgt);
		mib(m, sizeof(m), total);
		sb_addf(&b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\"><title>", x,
			y_of(&sc, total), bw, sc.y1 - y_of(&sc, total));
		esc(&b, bars[i].label);
		sb_addf(&b, ": total %s MiB, %s</title></rect>\n", m, ps[i]->fits ? "fits" : "refused");
		verdict(&b, x + bw / 2 + 4, y_of(&sc, total) - 4, ps[i], 0);
		/* the change, under the bar, turned to read upwards */
		sb_addf(&b,
			"<text data-bar-label=\"%zu\" transform=\"translate(%.1f,%.1f) rotate(-60)\" "
			"text-anchor=\"end\" font-size=\"11\">",
			i, x + bw / 2 + 4, sc.y1 + 12);
		esc(&b, bars[i].label);
		sb_adds(&b, "</text>\n");
	}
	if (n)
		lines(&b, &sc, ps[0], x0 - 10, xr);
	/* the legend: every term's colour and the base's MiB */
	struct term t[TERM_N];
	if (n)
		terms_of(ps[0], t);
	for (int i = 0; i < TERM_N && n; i++) {
		double y = 110 + i * 20;
		mib(m, sizeof(m), (double)t[i].gated / MIB);
		sb_addf(&b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", xr + 250, y - 10,
			colors[i]);
		sb_addf(&b, "<text data-legend=\"%s\" x=\"%.1f\" y=\"%.1f\">%s %s MiB</text>\n", t[i].name, xr + 268, y,
			t[i].name, m);
	}
	if (n)
		sb_addf(&b, "<text x=\"%.1f\" y=\"%d\" fill=\"#616161\">the first bar's terms</text>\n", xr + 250, 88);
	sb_adds(&b, "</svg>\n");
	free(ps);
	return sb_detach(&b);
}
