/*
 * flame.h -- the tree a flame graph draws, shared by the static SVG
 * (svg.c) and the explorer page (html.c): the kept stacks merged by call
 * path, root first, children in name order, each node with its value and
 * the companion value (objects for bytes, bytes for objects).
 *
 * A diff (report --base) builds the tree from a series profile (slot 0:
 * the dumps, slot 1: the bases, both added with sign +1) so that each node
 * knows both sides; grow and shrink then sum, over the call paths that end
 * at or under it, each path's increase and each path's decrease: a diff
 * frame is drawn grow - shrink wide (everything that changed under it)
 * and coloured by its net change, v[0] - v[1] (which is grow + shrink).
 */
#ifndef HP_REPORT_FLAME_H
#define HP_REPORT_FLAME_H

#include <stdint.h>

#include "profile.h"

#define HP_FLAME_ROOT UINT32_MAX	/* the node of the root, "all" */

struct hp_flame_node {
	uint32_t node;		/* profile node; HP_FLAME_ROOT for the root */
	uint32_t parent;	/* 0 for the root, which is node 0 */
	uint32_t child, next;	/* first child, next sibling (0 = none) */
	uint32_t last_child;
	uint32_t depth;		/* the root is 0 */
	int64_t v[2];		/* the value shown: [0] the dumps, [1] the base */
	int64_t o[2];		/* the companion value, same sides */
	int64_t self[2];	/* v of the paths that end here */
	int64_t grow, shrink;	/* diff: sums of path increases (>= 0) and
				 * decreases (<= 0) at or under this node */
};

struct hp_flame {
	struct hp_flame_node *n;	/* n[0] is the root */
	size_t nn, cap;
	int vi, oi;		/* value shown and its companion */
	int diff;		/* built from dumps minus bases */
	uint32_t maxdepth;	/* the deepest node */
};

/*
 * Builds the tree of p's kept stacks for value vi.  diff: p is a series
 * profile with the dumps in slot 0 and the bases in slot 1; otherwise only
 * stacks with a positive value are drawn (slot ignored).
 */
void hp_flame_build(struct hp_flame *f, const struct hp_profile *p, int vi, int diff);
/* The same with the companion value oi (report --age: the long-lived
 * bytes, HP_V_AGE_LONG, which colour the frames). */
void hp_flame_build_with(struct hp_flame *f, const struct hp_profile *p, int vi, int oi,
			 int diff);
void hp_flame_release(struct hp_flame *f);


/* The width a node is drawn with: its value, or for a diff the sum of the
 * changes under it (grow - shrink). */
static inline int64_t hp_flame_width(const struct hp_flame *f, const struct hp_flame_node *n)
{
	return f->diff ? n->grow - n->shrink : n->v[0];
}

/* The node's name: "all" for the root. */
const char *hp_flame_name(const struct hp_flame *f, const struct hp_profile *p, uint32_t id);

/*
 * A diff colour for a change of delta when the largest change is max
 * (> 0): red for growth, blue for shrinkage, from near white (no change)
 * to full colour (a change as large as max), linearly.  rgb gets 3 bytes.
 */
void hp_flame_diff_color(int64_t delta, int64_t max, int rgb[3]);

/* The largest |net change| (v[0] - v[1]) of any node but the root. */
int64_t hp_flame_max_change(const struct hp_flame *f);

#endif
