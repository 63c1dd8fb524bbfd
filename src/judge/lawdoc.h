/* judge/lawdoc: the text of every law (what breaks, why, how zealot
 * checks it, the fix), one entry per id the findings cite. Data and lookups
 * only; src/cmd/explain.c prints it.
 */
#ifndef ZEALOT_JUDGE_LAWDOC_H
#define ZEALOT_JUDGE_LAWDOC_H

#include <stddef.h>

#define LAWDOC_FIELDS 4

struct law_doc {
	const char *id;
	const char *title;
	const char *breaks; /* what goes wrong when the law is broken */
	const char *why;    /* the mechanism */
	const char *check;  /* how and where zealot holds it */
	const char *fix;
};

/* The page's opening paragraph (zealot-laws(7), docs/laws.md). */
extern const char lawdoc_intro[];
/* The four parts' headings, in lawdoc_field order. */
extern const char *const lawdoc_field_names[LAWDOC_FIELDS];

size_t lawdoc_count(void);
/* The i-th law in page order, or NULL past the end. */
const struct law_doc *lawdoc_at(size_t i);
/* The law with this id, case not minding, or NULL. */
const struct law_doc *lawdoc_find(const char *id);
/* The id one edit away from id, or NULL (the did-you-mean). */
const char *lawdoc_nearest(const char *id);
/* Part i (0 what breaks, 1 why, 2 how zealot checks it, 3 the fix). */
const char *lawdoc_field(const struct law_doc *l, int i);

#endif
