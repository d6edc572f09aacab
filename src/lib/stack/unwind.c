/*
 * unwind.c -- the fast unwinder (see unwind.h).
 *
 * Owns the rule cache and the threads' walk memos.  Runs on the sampled
 * slow path inside the guard: no locks on the lookup path (the cache is
 * read lock-free; a new rule is published with one compare-and-swap), no
 * system calls, no allocation except when the cache grows and once a
 * thread when its memos do (mmap, never the host's allocator).  _dl_find_object takes no lock and
 * is async-signal-safe.
 *
 * A rule says, for one code address, where the caller's stack pointer
 * (the CFA) is -- the stack pointer or RBP plus an offset -- where the
 * return address is (at CFA - 8 on x86_64), and where the caller's RBP
 * is (unchanged, or saved at CFA + offset).  That is all a backtrace
 * needs: the other callee-saved registers never hold a CFA in code whose
 * rule we accept.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <string.h>

#include "base/compiler.h"
#include "base/pages.h"
#include "base/spin.h"
#include "stack/unwind.h"
#include "base/banned.h"

static uint64_t n_fast, n_fallback, n_libunwind, n_memo, n_again;
bool hp_unwind_counting;

#if defined(__x86_64__)

#define R_RBP 6
#define R_RSP 7
#define R_RA  16

enum { DW_EH_PE_omit = 0xff, DW_EH_PE_uleb128 = 0x01, DW_EH_PE_udata2 = 0x02,
       DW_EH_PE_udata4 = 0x03, DW_EH_PE_udata8 = 0x04, DW_EH_PE_sleb128 = 0x09,
       DW_EH_PE_sdata2 = 0x0a, DW_EH_PE_sdata4 = 0x0b, DW_EH_PE_sdata8 = 0x0c,
       DW_EH_PE_pcrel = 0x10, DW_EH_PE_datarel = 0x30, DW_EH_PE_indirect = 0x80 };

/* The call frame instructions (DWARF 5, 6.4.2, and GNU's), by opcode.  The
 * first three keep their operand in the low six bits. */
enum dw_cfa {
	DW_CFA_advance_loc = 0x40, DW_CFA_offset = 0x80, DW_CFA_restore = 0xc0,
	DW_CFA_nop = 0x00, DW_CFA_set_loc = 0x01, DW_CFA_advance_loc1 = 0x02,
	DW_CFA_advance_loc2 = 0x03, DW_CFA_advance_loc4 = 0x04,
	DW_CFA_offset_extended = 0x05, DW_CFA_restore_extended = 0x06,
	DW_CFA_undefined = 0x07, DW_CFA_same_value = 0x08, DW_CFA_register = 0x09,
	DW_CFA_remember_state = 0x0a, DW_CFA_restore_state = 0x0b, DW_CFA_def_cfa = 0x0c,
	DW_CFA_def_cfa_register = 0x0d, DW_CFA_def_cfa_offset = 0x0e,
	DW_CFA_def_cfa_expression = 0x0f, DW_CFA_expression = 0x10,
	DW_CFA_offset_extended_sf = 0x11, DW_CFA_def_cfa_sf = 0x12,
	DW_CFA_def_cfa_offset_sf = 0x13, DW_CFA_val_offset = 0x14, DW_CFA_val_offset_sf = 0x15,
	DW_CFA_val_expression = 0x16, DW_CFA_GNU_args_size = 0x2e,
	DW_CFA_GNU_negative_offset_extended = 0x2f,
};

/* ---- rules and their cache ------------------------------------------- */

/* 0 is "not cached": a hole in the table reads as a miss. */
enum rule_kind {
	RULE_CFA_RSP = 1,   /* a frame whose CFA is RSP + cfa_off */
	RULE_CFA_RBP = 2,   /* a frame whose CFA is RBP + cfa_off */
	RULE_END = 3,       /* the outermost frame */
	RULE_GIVE_UP = 4,   /* anything else: libunwind walks this stack */
};
enum reg_how { REG_SAME = 0, REG_OFFSET = 1, REG_UNKNOWN = 2 };

/* Eight bytes, so that a cache entry's rule is read in one load; whole
 * bytes, so that the walk reads fields without shifting. */
union rule {
	uint64_t word;
	struct {
		int32_t cfa_off;
		int16_t rbp_off;    /* caller's RBP at CFA + rbp_off */
		uint8_t kind;       /* enum rule_kind, and (<< RULE_HOW_SHIFT) the
				     * frame's hp_unwind_frame.how, worked out once */
		uint8_t rbp_how;
	} f;
};
#define RULE_HOW_SHIFT 4

struct cache {
	uint32_t mask;
	uint32_t used;
	struct { uintptr_t key; uint64_t rule; } e[];
};

static struct cache *cache;
static struct hp_spin cache_lock;

static size_t cache_bytes(uint32_t slots)
{
	return sizeof(struct cache) + (size_t)slots * 16;
}

static uint32_t slot_of(uintptr_t key, uint32_t mask)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ULL) >> 32) & mask;
}

static void insert_into(struct cache *c, uintptr_t key, uint64_t val)
{
	for (uint32_t i = slot_of(key, c->mask);; i = (i + 1) & c->mask) {
		if (c->e[i].key == key)
			return;
		if (!c->e[i].key) {
			HP_STORE(&c->e[i].rule, val);
			HP_STORE_REL(&c->e[i].key, key);   /* publishes val */
			c->used++;
			return;
		}
	}
}

/* Under cache_lock; readers keep probing the old table until they see
 * the new one, and read zeros from it once retired (a miss). */
static void cache_put(uintptr_t key, const union rule *r)
{
	hp_spin_lock(&cache_lock);
	struct cache *c = cache;
	if (!c || (c->used + 1) * 2 > c->mask + 1) {
		uint32_t slots = c ? (c->mask + 1) * 2 : 512;
		struct cache *fresh = hp_pages_alloc(cache_bytes(slots));
		if (!fresh)
			goto out;
		fresh->mask = slots - 1;
		for (uint32_t i = 0; c && i <= c->mask; i++)
			if (c->e[i].key)
				insert_into(fresh, c->e[i].key, c->e[i].rule);
		HP_STORE_REL(&cache, fresh);
		if (c)
			hp_pages_retire(c, cache_bytes(c->mask + 1));
		c = fresh;
	}
	insert_into(c, key, r->word);
out:
	hp_spin_unlock(&cache_lock);
}

void hp_unwind_prefork(void)
{
	hp_spin_lock(&cache_lock);
}

void hp_unwind_postfork_parent(void)
{
	hp_spin_unlock(&cache_lock);
}

void hp_unwind_postfork_child(void)
{
	hp_spin_reset(&cache_lock);
}

/* ---- reading .eh_frame ----------------------------------------------- */

struct cursor {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t uleb(struct cursor *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (c->p < c->end) {
		uint8_t b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

static int64_t sleb(struct cursor *c)
{
	int64_t v = 0;
	unsigned shift = 0;
	uint8_t b = 0;

	while (c->p < c->end) {
		b = *c->p++;
		if (shift < 64)
			v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= -((int64_t)1 << shift);
			return v;
		}
	}
	c->bad = true;
	return 0;
}

static bool take(struct cursor *c, void *out, size_t n)
{
	if ((size_t)(c->end - c->p) < n) {
		c->bad = true;
		return false;
	}
	memcpy(out, c->p, n);
	c->p += n;
	return true;
}

/* A pointer in encoding enc; indirect pointers are never followed (only
 * personality routines use them, and we skip those). */
static uintptr_t encoded(struct cursor *c, uint8_t enc, uintptr_t datarel)
{
	const uint8_t *start = c->p;
	uintptr_t v = 0;

	if (enc == DW_EH_PE_omit)
		return 0;
	switch (enc & 0x0f) {
	case 0x00: { uint64_t x = 0; take(c, &x, 8); v = (uintptr_t)x; break; }
	case DW_EH_PE_uleb128: v = (uintptr_t)uleb(c); break;
	case DW_EH_PE_udata2: { uint16_t x = 0; take(c, &x, 2); v = x; break; }
	case DW_EH_PE_udata4: { uint32_t x = 0; take(c, &x, 4); v = x; break; }
	case DW_EH_PE_udata8: { uint64_t x = 0; take(c, &x, 8); v = (uintptr_t)x; break; }
	case DW_EH_PE_sleb128: v = (uintptr_t)sleb(c); break;
	case DW_EH_PE_sdata2: { int16_t x = 0; take(c, &x, 2); v = (uintptr_t)(intptr_t)x; break; }
	case DW_EH_PE_sdata4: { int32_t x = 0; take(c, &x, 4); v = (uintptr_t)(intptr_t)x; break; }
	case DW_EH_PE_sdata8: { int64_t x = 0; take(c, &x, 8); v = (uintptr_t)x; break; }
	default: c->bad = true; return 0;
	}
	switch (enc & 0x70) {
	case 0x00: break;
	case DW_EH_PE_pcrel: v += (uintptr_t)start; break;
	case DW_EH_PE_datarel: v += datarel; break;
	default: c->bad = true; break;
	}
	return v;
}

/* The FDE covering pc, from the object's .eh_frame_hdr search table. */
static const uint8_t *find_fde(uintptr_t pc)
{
	struct dl_find_object fo;

	if (_dl_find_object((void *)pc, &fo) != 0 || !fo.dlfo_eh_frame)
		return NULL;
	const uint8_t *hdr = fo.dlfo_eh_frame;
	if (hdr[0] != 1 || hdr[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
		return NULL;   /* only the usual sorted table */
	struct cursor c = { hdr + 4, hdr + 4 + 16, false };
	(void)encoded(&c, hdr[1], (uintptr_t)hdr);        /* eh_frame_ptr */
	uintptr_t count = encoded(&c, hdr[2], (uintptr_t)hdr);
	if (c.bad || !count)
		return NULL;
	const int32_t *table = (const int32_t *)c.p;
	/* The last entry whose initial location is <= pc. */
	uintptr_t lo = 0, hi = count;
	while (lo < hi) {
		uintptr_t mid = (lo + hi) / 2;
		if ((uintptr_t)hdr + (uintptr_t)(intptr_t)table[2 * mid] <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	return hdr + table[2 * (lo - 1) + 1];
}

/* One register's rule while interpreting. */
struct regs {
	int cfa_reg;
	int64_t cfa_off;
	int rbp_how, ra_how;
	int64_t rbp_off, ra_off;
};

struct cie {
	int64_t data_align;
	uint64_t code_align;
	uint8_t fde_enc;
	bool has_z, signal_frame;
	struct cursor insns;
};

static bool parse_cie(const uint8_t *p, struct cie *out)
{
	uint32_t len;

	memcpy(&len, p, 4);
	if (len == 0 || len == 0xffffffff)
		return false;
	struct cursor c = { p + 4, p + 4 + len, false };
	uint32_t id = 1;
	uint8_t version = 0;
	take(&c, &id, 4);
	take(&c, &version, 1);
	if (id != 0 || (version != 1 && version != 3))
		return false;
	const char *aug = (const char *)c.p;
	size_t aug_len = strnlen(aug, (size_t)(c.end - c.p));
	c.p += aug_len + 1;
	out->code_align = uleb(&c);
	out->data_align = sleb(&c);
	uint64_t ra = version == 1 ? (c.p < c.end ? *c.p++ : 0) : uleb(&c);
	if (ra != R_RA)
		return false;
	out->fde_enc = 0;
	out->has_z = aug[0] == 'z';
	out->signal_frame = false;
	if (out->has_z) {
		uint64_t n = uleb(&c);
		const uint8_t *aug_end = c.p + n;
		for (size_t i = 1; i < aug_len && !c.bad; i++) {
			switch (aug[i]) {
			case 'R':
				take(&c, &out->fde_enc, 1);
				break;
			case 'P': {
				uint8_t enc = 0;
				take(&c, &enc, 1);
				(void)encoded(&c, enc & 0x7f, 0);
				break;
			}
			case 'L':
				c.p++;
				break;
			case 'S':
				out->signal_frame = true;
				break;
			default:
				return false;
			}
		}
		c.p = aug_end;
	} else if (aug_len) {
		return false;
	}
	out->insns = (struct cursor){ c.p, c.end, false };
	return !c.bad && c.p <= c.end;
}

/* ---- interpreting CFA instructions ----------------------------------- */

/* What one instruction leaves the interpreter to do. */
enum step {
	STEP_NEXT,          /* go on with the next instruction */
	STEP_ROW_DONE,      /* the next row starts past target: r is its rule */
	STEP_UNMODELLED,    /* something we do not model for RBP, RA or the CFA */
};

#define HP_CFA_STATES 8   /* remember_state's depth */

/* The interpreter's state across one run of instructions. */
struct interp {
	struct cursor *c;
	const struct cie *cie;
	uintptr_t *loc;             /* where the current row starts */
	uintptr_t target;
	struct regs *r;             /* the current row */
	const struct regs *initial; /* the CIE's row; NULL while running the CIE */
	struct regs *saved;         /* remember_state's stack, HP_CFA_STATES deep */
	int depth;
	struct rows *sink;          /* every row recorded here (fde_rows), or NULL */
};

static void rows_emit(struct rows *w, uintptr_t loc, const struct regs *r);

/* A new row starts at next; the current one covers target if next is past it. */
static enum step advance_to(struct interp *in, uintptr_t next)
{
	if (next > in->target)
		return STEP_ROW_DONE;
	if (in->sink)
		rows_emit(in->sink, *in->loc, in->r);
	*in->loc = next;
	return STEP_NEXT;
}

/* advance_loc1/2/4: an unsigned delta of size bytes, in code_align units
 * (little-endian: this interpreter is x86_64's). */
static enum step advance_by(struct interp *in, size_t size)
{
	uint32_t delta = 0;

	take(in->c, &delta, size);
	return advance_to(in, *in->loc + delta * in->cie->code_align);
}

/* reg is saved at CFA + off; only RBP and the return address matter. */
static void saved_at(struct regs *r, uint64_t reg, int64_t off)
{
	if (reg == R_RBP) {
		r->rbp_how = REG_OFFSET;
		r->rbp_off = off;
	} else if (reg == R_RA) {
		r->ra_how = REG_OFFSET;
		r->ra_off = off;
	}
}

/* reg goes back to its rule in the CIE's row, which the CIE's own
 * instructions cannot refer to. */
static enum step restore_initial(struct interp *in, uint64_t reg)
{
	const struct regs *initial = in->initial;

	if (!initial)
		return STEP_UNMODELLED;
	if (reg == R_RBP) {
		in->r->rbp_how = initial->rbp_how;
		in->r->rbp_off = initial->rbp_off;
	} else if (reg == R_RA) {
		in->r->ra_how = initial->ra_how;
		in->r->ra_off = initial->ra_off;
	}
	return STEP_NEXT;
}

static enum step undefined(struct regs *r, uint64_t reg)
{
	if (reg == R_RA)
		r->ra_how = REG_UNKNOWN;
	else if (reg == R_RBP)
		r->rbp_how = REG_UNKNOWN;
	return STEP_NEXT;
}

static enum step same_value(struct regs *r, uint64_t reg)
{
	if (reg == R_RBP)
		r->rbp_how = REG_SAME;
	else if (reg == R_RA)
		return STEP_UNMODELLED;
	return STEP_NEXT;
}

/* A rule for reg we do not model: fine unless reg is RBP or RA. */
static enum step other_rule(uint64_t reg)
{
	return reg == R_RBP || reg == R_RA ? STEP_UNMODELLED : STEP_NEXT;
}

/* DW_CFA_expression, DW_CFA_val_expression: skipped, for other registers. */
static enum step skip_expression(struct cursor *c)
{
	uint64_t reg = uleb(c);
	uint64_t n = uleb(c);

	if (reg == R_RBP || reg == R_RA || (uint64_t)(c->end - c->p) < n)
		return STEP_UNMODELLED;
	c->p += n;
	return STEP_NEXT;
}

static enum step remember_state(struct interp *in)
{
	if (in->depth == HP_CFA_STATES)
		return STEP_UNMODELLED;
	in->saved[in->depth++] = *in->r;
	return STEP_NEXT;
}

/* The whole row, CFA included, as libgcc and libunwind do: GCC wraps
 * mid-function epilogues in remember/restore_state to get the CFA back. */
static enum step restore_state(struct interp *in)
{
	if (!in->depth)
		return STEP_UNMODELLED;
	*in->r = in->saved[--in->depth];
	return STEP_NEXT;
}

/* The three opcodes that carry their operand in their low six bits. */
static enum step step_packed(struct interp *in, uint8_t op)
{
	uint8_t low = op & 0x3f;

	switch (op & 0xc0) {
	case DW_CFA_advance_loc:
		return advance_to(in, *in->loc + low * in->cie->code_align);
	case DW_CFA_offset:
		saved_at(in->r, low, (int64_t)uleb(in->c) * in->cie->data_align);
		return STEP_NEXT;
	default: /* DW_CFA_restore */
		return restore_initial(in, low);
	}
}

/* The CFA's rule: register and offset. */
static enum step def_cfa(struct regs *r, struct cursor *c, int64_t data_align, bool factored)
{
	r->cfa_reg = (int)uleb(c);
	r->cfa_off = factored ? sleb(c) * data_align : (int64_t)uleb(c);
	return STEP_NEXT;
}

/* Every other opcode, whose operands follow it. */
static enum step step_extended(struct interp *in, uint8_t op)
{
	struct cursor *c = in->c;
	struct regs *r = in->r;
	int64_t data_align = in->cie->data_align;
	uint64_t reg;

	switch (op) {
	case DW_CFA_nop:
		return STEP_NEXT;
	case DW_CFA_set_loc:
		return advance_to(in, encoded(c, in->cie->fde_enc, 0));
	case DW_CFA_advance_loc1:
		return advance_by(in, 1);
	case DW_CFA_advance_loc2:
		return advance_by(in, 2);
	case DW_CFA_advance_loc4:
		return advance_by(in, 4);
	case DW_CFA_offset_extended:
		reg = uleb(c);
		saved_at(r, reg, (int64_t)uleb(c) * data_align);
		return STEP_NEXT;
	case DW_CFA_offset_extended_sf:
		reg = uleb(c);
		saved_at(r, reg, sleb(c) * data_align);
		return STEP_NEXT;
	case DW_CFA_GNU_negative_offset_extended:
		reg = uleb(c);
		saved_at(r, reg, -(int64_t)uleb(c) * data_align);
		return STEP_NEXT;
	case DW_CFA_restore_extended:
		return restore_initial(in, uleb(c));
	case DW_CFA_undefined:
		return undefined(r, uleb(c));
	case DW_CFA_same_value:
		return same_value(r, uleb(c));
	case DW_CFA_register:
		reg = uleb(c);
		(void)uleb(c);
		return other_rule(reg);
	case DW_CFA_remember_state:
		return remember_state(in);
	case DW_CFA_restore_state:
		return restore_state(in);
	case DW_CFA_def_cfa:
		return def_cfa(r, c, data_align, false);
	case DW_CFA_def_cfa_sf:
		return def_cfa(r, c, data_align, true);
	case DW_CFA_def_cfa_register:
		r->cfa_reg = (int)uleb(c);
		return STEP_NEXT;
	case DW_CFA_def_cfa_offset:
		r->cfa_off = (int64_t)uleb(c);
		return STEP_NEXT;
	case DW_CFA_def_cfa_offset_sf:
		r->cfa_off = sleb(c) * data_align;
		return STEP_NEXT;
	case DW_CFA_expression:
	case DW_CFA_val_expression:
		return skip_expression(c);
	case DW_CFA_val_offset:
		reg = uleb(c);
		(void)uleb(c);
		return other_rule(reg);
	case DW_CFA_val_offset_sf:
		reg = uleb(c);
		(void)sleb(c);
		return other_rule(reg);
	case DW_CFA_GNU_args_size:
		(void)uleb(c);
		return STEP_NEXT;
	default:     /* DW_CFA_def_cfa_expression and anything else */
		return STEP_UNMODELLED;
	}
}

/* Runs CFA instructions until the row that covers target.  Returns false
 * on anything we do not model for RBP, the return address or the CFA. */
static bool run(struct cursor *c, const struct cie *cie, uintptr_t *loc, uintptr_t target,
		struct regs *r, const struct regs *initial, struct rows *sink)
{
	struct regs saved[HP_CFA_STATES];
	struct interp in = { .c = c, .cie = cie, .loc = loc, .target = target, .r = r,
			     .initial = initial, .saved = saved, .depth = 0, .sink = sink };

	while (c->p < c->end && !c->bad) {
		uint8_t op = *c->p++;
		enum step s = op & 0xc0 ? step_packed(&in, op) : step_extended(&in, op);
		if (s != STEP_NEXT)
			return s == STEP_ROW_DONE;
	}
	return !c->bad;
}

/* The rule of an interpreted row. */
static void rule_of(const struct regs *r, union rule *out)
{
	out->word = 0;
	out->f.kind = RULE_GIVE_UP;
	if (r->ra_how == REG_UNKNOWN) {
		out->f.kind = RULE_END;   /* the outermost frame (_start, clone) */
		return;
	}
	if ((r->cfa_reg != R_RSP && r->cfa_reg != R_RBP) || r->ra_how != REG_OFFSET || r->ra_off != -8 ||
	    r->cfa_off < 0 || r->cfa_off > INT32_MAX || r->rbp_off < INT16_MIN || r->rbp_off > INT16_MAX)
		return;
	out->f.kind = r->cfa_reg == R_RBP ? RULE_CFA_RBP : RULE_CFA_RSP;
	out->f.cfa_off = (int32_t)r->cfa_off;
	out->f.rbp_how = (uint8_t)r->rbp_how;
	out->f.rbp_off = (int16_t)r->rbp_off;
	out->f.kind |= (uint8_t)(((r->cfa_reg == R_RBP ? HP_UNWIND_CFA_RBP : 0) |
				  (r->rbp_how == REG_SAME ? HP_UNWIND_KEEPS_RBP : 0)) << RULE_HOW_SHIFT);
}

/* ---- every row of a long FDE, interpreted once ------------------------
 *
 * A rule is worked out by running the function's CFA program from its
 * start to the return address, so a function with a long program (a
 * large function compiled without frame pointers: a row per push and pop
 * around each call) cost that whole run for every call site a stack went
 * through: thousands of instructions each, once per return address in
 * every process.  Such a program is run once instead, every row kept
 * (where it starts, its rule), and each return address in the function
 * then finds its row by binary search.  Under cache_lock. */

#define ROWS_MIN_PROGRAM 64      /* bytes of CFA program worth a table */
#define ROWS_SLOTS       4096    /* FDEs with a table, at most */

struct row {
	uintptr_t loc;
	uint64_t rule;
};

struct rows {
	const uint8_t *fde;
	uint32_t n, cap;   /* cap 0: counting only */
	bool unsorted;
	struct row *row;
};

static struct rows **rows_table;   /* ROWS_SLOTS, by FDE address */
static struct hp_pages_arena rows_arena = { .chunk = 1u << 20 };

/* A row starting at loc whose rule is r's, or when r is NULL, gives up. */
static void rows_emit(struct rows *w, uintptr_t loc, const struct regs *r)
{
	if (w->n && w->cap && w->row[w->n - 1].loc > loc)
		w->unsorted = true;   /* a DW_CFA_set_loc going back: no table */
	if (w->n < w->cap) {
		union rule u = { .word = 0 };
		if (r)
			rule_of(r, &u);
		else
			u.f.kind = RULE_GIVE_UP;
		w->row[w->n].loc = loc;
		w->row[w->n].rule = u.word;
	}
	w->n++;
}

/* Runs the FDE's program (c, after the CIE's, whose row is *initial) to
 * its end into w: counting rows when w->cap is 0.  Where it meets what
 * the interpreter does not model, the row from there on gives up, as
 * run() would for any address from there. */
static void rows_run(struct rows *w, struct cursor c, const struct cie *cie, uintptr_t begin,
		     const struct regs *initial)
{
	struct regs r = *initial;
	uintptr_t loc = begin;

	bool ok = run(&c, cie, &loc, UINTPTR_MAX, &r, initial, w);
	rows_emit(w, loc, ok ? &r : NULL);
}

static struct rows *rows_build(const uint8_t *fde, struct cursor c, const struct cie *cie,
			       uintptr_t begin, const struct regs *initial)
{
	struct rows count = { .fde = fde };

	rows_run(&count, c, cie, begin, initial);
	struct rows *w = hp_pages_arena_alloc(&rows_arena, sizeof(*w) + count.n * sizeof(struct row), 8);
	if (!w)
		return NULL;
	w->fde = fde;
	w->cap = count.n;
	w->row = (struct row *)(w + 1);
	rows_run(w, c, cie, begin, initial);
	return w->unsorted || w->n != w->cap ? NULL : w;
}

/* fde's table, built on first use; NULL when it cannot have one.  Under
 * cache_lock. */
static struct rows *rows_of(const uint8_t *fde, struct cursor c, const struct cie *cie, uintptr_t begin,
			    const struct regs *initial)
{
	if (!rows_table && !(rows_table = hp_pages_alloc(ROWS_SLOTS * sizeof(*rows_table))))
		return NULL;
	uint32_t i = slot_of((uintptr_t)fde, ROWS_SLOTS - 1);
	for (uint32_t probes = 0; probes < ROWS_SLOTS; probes++, i = (i + 1) & (ROWS_SLOTS - 1)) {
		if (rows_table[i] && rows_table[i]->fde == fde)
			return rows_table[i]->n ? rows_table[i] : NULL;
		if (!rows_table[i]) {
			if (probes * 4 > ROWS_SLOTS * 3)
				return NULL;   /* nearly full: keep probing short */
			struct rows *w = rows_build(fde, c, cie, begin, initial);
			if (!w && (w = hp_pages_arena_alloc(&rows_arena, sizeof(*w), 8)))
				w->fde = fde;   /* no rows: not built again */
			rows_table[i] = w;
			return w && w->n ? w : NULL;
		}
	}
	return NULL;
}

/* The rule of the last row starting at or before pc. */
static void rows_find(const struct rows *w, uintptr_t pc, union rule *out)
{
	uint32_t lo = 0, hi = w->n;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (w->row[mid].loc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	out->word = lo ? w->row[lo - 1].rule : 0;
	if (!lo)
		out->f.kind = RULE_GIVE_UP;
}

/* Computes the rule for code address pc (already adjusted into the call
 * instruction for caller frames). */
static void compute(uintptr_t pc, union rule *out)
{
	const uint8_t *fde = find_fde(pc);
	struct cie cie;
	uint32_t len;
	int32_t cie_off;

	out->word = 0;
	out->f.kind = RULE_GIVE_UP;
	if (!fde)
		return;
	memcpy(&len, fde, 4);
	memcpy(&cie_off, fde + 4, 4);
	if (len == 0 || len == 0xffffffff || cie_off == 0 || !parse_cie(fde + 4 - cie_off, &cie) ||
	    cie.signal_frame)
		return;
	struct cursor c = { fde + 8, fde + 4 + len, false };
	uintptr_t begin = encoded(&c, cie.fde_enc, 0);
	uintptr_t range = encoded(&c, cie.fde_enc & 0x0f, 0);
	if (c.bad || pc < begin || pc >= begin + range)
		return;
	if (cie.has_z) {
		uint64_t n = uleb(&c);
		c.p += n;
	}
	struct regs r = { .cfa_reg = -1, .rbp_how = REG_SAME, .ra_how = REG_UNKNOWN };
	uintptr_t loc = begin;
	struct cursor ci = cie.insns;
	if (!run(&ci, &cie, &loc, pc, &r, NULL, NULL))
		return;
	struct regs initial = r;
	if (c.end - c.p >= ROWS_MIN_PROGRAM && loc == begin) {
		hp_spin_lock(&cache_lock);
		struct rows *w = rows_of(fde, c, &cie, begin, &initial);
		if (w)
			rows_find(w, pc, out);
		hp_spin_unlock(&cache_lock);
		if (w)
			return;
	}
	if (!run(&c, &cie, &loc, pc, &r, &initial, NULL))
		return;
	rule_of(&r, out);
}

/* rule_word's miss: the rule for pc computed and cached (which may
 * replace the table: *c is reloaded). */
static HP_NOINLINE uint64_t rule_missed(struct cache **c, uintptr_t pc)
{
	union rule r;

	compute(pc, &r);
	cache_put(pc, &r);
	*c = HP_LOAD_ACQ(&cache);
	return r.word;
}

/* The rule for pc as its word (union rule), from the table *c as loaded
 * for this walk; a miss computes it.  A word is never 0: a rule has a
 * kind. */
HP_INLINE uint64_t rule_word(struct cache **c, uintptr_t pc)
{
	const struct cache *t = *c;

	if (HP_LIKELY(t)) {
		for (uint32_t i = slot_of(pc, t->mask);; i = (i + 1) & t->mask) {
			uintptr_t k = HP_LOAD_ACQ(&t->e[i].key);
			if (HP_LIKELY(k == pc)) {
				uint64_t w = HP_LOAD(&t->e[i].rule);
				if (HP_LIKELY(w))
					return w;
				break;   /* retired under us: zeros */
			}
			if (!k)
				break;   /* the table is never full: a hole ends the probe */
		}
	}
	return rule_missed(c, pc);
}

/* A rule word's fields (union rule, little-endian). */
#define RW_CFA_OFF(w)  ((intptr_t)(int32_t)(uint32_t)(w))
#define RW_RBP_OFF(w)  ((intptr_t)(int16_t)(uint16_t)((w) >> 32))
#define RW_KIND(w)     ((unsigned)((w) >> 48) & ((1u << RULE_HOW_SHIFT) - 1))
#define RW_HOW(w)      ((uint8_t)((w) >> (48 + RULE_HOW_SHIFT)) & 3)
#define RW_RBP_HOW(w)  ((unsigned)((w) >> 56))

/* ---- the walk, and its memo (unwind.h) ------------------------------ */

void hp_unwind_memo_reset(struct hp_unwind_memo *m)
{
	m->lo = m->hi = 0;
	m->n = 0;
	m->named = 0;
	m->last_ok = false;
	m->sid = 0;
}

static void memos_one(struct hp_unwind_memos *s)
{
	s->mask = 0;
	for (unsigned i = 0; i < HP_UNWIND_MEMOS; i++)
		s->m[i] = &s->first;
	s->last = s->in_buf = &s->first;
}

void hp_unwind_memos_reset(struct hp_unwind_memos *s)
{
	s->walks = 0;
	s->review = HP_UNWIND_MEMOS_AFTER;
	s->since = 0;
	s->again = HP_UNWIND_MEMOS_AGAIN;
	s->hits = 0;
	s->first.fresh = s->fresh;
	hp_unwind_memo_reset(&s->first);
	memos_one(s);
}

static bool memos_grow(struct hp_unwind_memos *s)
{
	size_t bytes = (HP_UNWIND_MEMOS - 1) * sizeof(struct hp_unwind_memo);

	if (!s->more && !(s->more = hp_pages_alloc(bytes)))
		return false;
	for (unsigned i = 1; i < HP_UNWIND_MEMOS; i++) {
		struct hp_unwind_memo *m = &s->more[i - 1];
		m->fresh = s->fresh;
		hp_unwind_memo_reset(m);   /* another thread's, or stale */
		s->m[i] = m;
	}
	s->mask = HP_UNWIND_MEMOS - 1;
	return true;
}

HP_COLD void hp_unwind_memos_review(struct hp_unwind_memos *s)
{
	if (!s->mask) {
		s->review = s->walks + (memos_grow(s) ? HP_UNWIND_MEMOS_TRIAL : s->again);
	} else if (s->hits < s->walks - s->since) {
		memos_one(s);   /* first's last walk stays */
		s->review = s->walks + s->again;
		if (s->again < HP_UNWIND_MEMOS_AGAIN_MAX)
			s->again *= 2;
	} else {
		s->review = s->walks + HP_UNWIND_MEMOS_AGAIN;   /* paying: looked at again later */
		s->again = HP_UNWIND_MEMOS_AGAIN;
	}
	s->since = s->walks;
	s->hits = 0;
}

/* The memo's frames from f[j] outwards appended to buf (n frames in it
 * already, at most max), each step's words checked against the stack
 * first: the new frame count, or -1 - k when the step out of f[k] would
 * now read something else.  f[0] is the outermost frame (its rule ends
 * the walk) or a sentinel of return address 0 (the walk read a 0, which
 * is checked too); a walk cut at max checks no step past its last
 * frame.  buf NULL: the frames are only checked, unless max cuts them
 * (the memo then holds more than this walk: buf must have it). */
HP_INLINE int replay(const struct hp_unwind_memo *m, int j, uintptr_t *buf, uintptr_t *cut_buf, int n, int max)
{
	const struct hp_unwind_frame *f = m->f;
	int first = f[0].ip ? 0 : 1;   /* the outermost frame a whole walk gives */
	int last = j - first + 1 > max - n ? j + 1 - (max - n) : first;
	int low = last == first ? 0 : last;

	if (last != first)
		buf = cut_buf;
	/* Checked and copied in one pass (last >= low): a failed check
	 * leaves frames past n in buf, which the walk then writes over. */
	int k = buf ? hp_unwind_memo_check(f, j, low, buf + n) : hp_unwind_memo_check(f, j, low, NULL);
	if (k >= 0)
		return -1 - k;
	n += j - low;
	if (last == low) {
		if (buf)
			buf[n] = f[low].ip;   /* the outermost frame, or where max cut the walk */
		n++;
	}
	return n;
}

/* This walk's first p frames (m->fresh, innermost first) in front of the
 * memo's f[0..j] (j = -1: none); the memo then holds this walk.  False
 * when it would not fit. */
HP_INLINE bool memo_keep(struct hp_unwind_memo *m, int j, int p, int max)
{
	if (j + 1 + p > HP_UNWIND_MEMO_MAX)
		return false;
	for (int t = 0; t < p; t++) {
		struct hp_unwind_frame *f = &m->f[j + 1 + t];
		*f = m->fresh[p - 1 - t];
		/* Outer frames first: whether the frame out of this one reads
		 * the RBP this one passes on is known. */
		bool out_used = j + t >= 0 && f[-1].bp_used;
		f->bp_used = (f->how & HP_UNWIND_CFA_RBP) || ((f->how & HP_UNWIND_KEEPS_RBP) && out_used);
		if (!out_used)
			f->bp_check = 0;   /* fresh[] had every RBP read; keep those that matter */
		f->chk = (uint16_t)(f->bp_check ? j + 1 + t + 1 : j + t >= 0 ? f[-1].chk : 0);
		uint64_t out_h = j + t >= 0 ? f[-1].h : HP_STACK_HASH_SEED;
		f->h = f->ip ? hp_stack_hash_step(out_h, f->ip) : HP_STACK_HASH_SEED;
		f->node = 0;   /* a path the layer above has not named */
	}
	m->n = (uint32_t)(j + 1 + p);
	if (m->named > (uint32_t)(j + 1))
		m->named = (uint32_t)(j + 1);
	m->max = (uint32_t)max;
	m->last_ok = true;
	/* hp_unwind_again's bounds: f[0] is the outermost frame, or a
	 * sentinel of return address 0 (also checked); a walk cut at max
	 * checks no step past its last frame. */
	int top = (int)m->n - 1, first = m->f[0].ip ? 0 : 1;
	int last = top - first + 1 > max ? top + 1 - max : first;
	m->again_low = last == first ? 0 : last;
	m->again_n = top - last + 1;
	return true;
}

/* The common case first, with nothing else set up: the very walk of
 * last time (a loop allocating in one place), its words checked.  The
 * frame count, or -1. */
HP_INLINE int memo_again(const struct hp_unwind_memo *m, int max, uintptr_t lo, uintptr_t hi,
			 uintptr_t ip, uintptr_t sp, uintptr_t bp)
{
	return hp_unwind_again(m, max, lo, hi, ip, sp, bp);
}

int hp_unwind_fast(uintptr_t *buf, int max, uintptr_t lo, uintptr_t hi, uintptr_t ip,
		   uintptr_t sp, uintptr_t bp, struct hp_unwind_memo *m, const struct hp_unwind_memo *from,
		   bool *same)
{
	if (same) {
		int n = memo_again(m, max, lo, hi, ip, sp, bp);
		if (n >= 0) {
			*same = true;
			if (HP_UNLIKELY(HP_LOAD(&hp_unwind_counting)))
				hp_unwind_count_memo();
			return n;
		}
	}
	return hp_unwind_walk(buf, max, lo, hi, ip, sp, bp, m, from, same);
}

/* memo_join's: the memo from's frames f[0] .. f[j] are m's too (a walk
 * into m joined them), their nodes with them. */
static void memo_take(struct hp_unwind_memo *m, const struct hp_unwind_memo *from, int j)
{
	memcpy(m->f, from->f, (size_t)(j + 1) * sizeof(m->f[0]));
	m->named = from->named < (uint32_t)(j + 1) ? from->named : (uint32_t)(j + 1);
	m->n = (uint32_t)(j + 1);
}

/* hp_unwind_walk's memo (from) joins at f[j], whose state the walk
 * reached with n frames of its own: the frame count if every word the
 * memo's steps read still holds (m then keeps this walk), else -1 - k as
 * replay gives.  was_ok: from is m, and its last walk is whole. */
HP_INLINE int memo_join(struct hp_unwind_memo *m, const struct hp_unwind_memo *from, int j, uintptr_t *buf,
				 int n, int max, bool was_ok, int top, bool *same)
{
	/* The last walk again, if its words check: buf holds it. */
	bool again = same && was_ok && n == 0 && j == top;
	/* With same, the memo keeps the walk: its frames are checked, not
	 * copied (unwind.h). */
	int done = replay(from, j, again || same ? NULL : buf, buf, n, max);
	if (done < 0)
		return done;
	bool fits = n <= HP_UNWIND_MEMO_MAX && j + 1 + n <= HP_UNWIND_MEMO_MAX;
	if (fits && from != m)
		memo_take(m, from, j);
	bool kept = fits && memo_keep(m, j, n, max);
	if (!kept && same && !again)
		replay(from, j, buf, buf, n, max);   /* checked above: the copy */
	if (same)
		*same = kept && again;
	if (HP_UNLIKELY(HP_LOAD(&hp_unwind_counting)))
		HP_ADD(&n_memo, 1);
	return done;
}

int hp_unwind_walk(uintptr_t *buf, int max, uintptr_t lo, uintptr_t hi, uintptr_t ip,
		   uintptr_t sp, uintptr_t bp, struct hp_unwind_memo *m, const struct hp_unwind_memo *from,
		   bool *same)
{
	struct cache *c = HP_LOAD_ACQ(&cache);
	int n = 0, j = -1, limit = -1, top = -1, keep = 0;
	bool was_ok = false, ended = false;
	uintptr_t span = hi - lo - 8;   /* an RBP slot is in [lo, hi - 8] */
	uintptr_t join_sp = UINTPTR_MAX;   /* f[j].sp: below it, no memo frame to meet */
	struct hp_unwind_frame *fresh = NULL;
	const struct hp_unwind_frame *mf = NULL;   /* the memo's frames */

	if (same)
		*same = false;
	/* An unknown RBP is kept as 0: a CFA computed from it lands below sp,
	 * which the range check turns away. */
	if (sp < lo || sp >= hi)
		goto give_up;
	if (m) {
		if (m->lo != lo || m->hi != hi) {
			hp_unwind_memo_reset(m);
			m->lo = lo;
			m->hi = hi;
		}
		if (!from || from->lo != lo || from->hi != hi)
			from = m;
		was_ok = from == m && m->last_ok && m->max == (uint32_t)max;
		m->last_ok = false;
		j = limit = top = (int)from->n - 1;
		if (j >= 0)
			join_sp = from->f[j].sp;
		fresh = m->fresh;
		mf = from->f;
		keep = HP_UNWIND_MEMO_MAX;
	}
	while (n < max && ip) {
		if (HP_UNLIKELY(sp >= join_sp)) {
			/* The memo's cursor moves out past its frames below sp
			 * (the walk only goes up the stack); where f[j] is this
			 * very state, and no failed check lies on its way out
			 * (j <= limit), the memo's walk takes over. */
			while (sp > join_sp)
				join_sp = --j >= 0 ? mf[j].sp : UINTPTR_MAX;
			if (sp == join_sp && j <= limit && mf[j].ip == ip && (mf[j].bp == bp || !mf[j].bp_used)) {
				int done = memo_join(m, from, j, buf, n, max, was_ok, top, same);
				if (done >= 0) {
					n = done;
					goto walked;
				}
				limit = -1 - done - 1;   /* a match at k or further in fails the same check */
			}
		}
		buf[n] = ip;
		/* Every frame's address is a return address: look up the call
		 * instruction, which may be its function's last. */
		uint64_t w = rule_word(&c, ip - 1);
		unsigned kind = RW_KIND(w), rbp_how = RW_RBP_HOW(w);
		if (HP_UNLIKELY(kind > RULE_CFA_RBP)) {
			if (kind != RULE_END)
				goto give_up;
			if (n < keep)
				fresh[n] = (struct hp_unwind_frame){ .sp = sp, .ip = ip, .bp = bp };
			n++;
			ended = true;
			break;
		}
		uintptr_t cfa = (kind == RULE_CFA_RBP ? bp : sp) + (uintptr_t)RW_CFA_OFF(w);
		if (HP_UNLIKELY(cfa <= sp || cfa > hi))
			goto give_up;
		uintptr_t next_ip = *(const uintptr_t *)(cfa - 8), next_bp = bp, bp_at = 0;
		if (rbp_how == REG_OFFSET) {
			/* Within [lo, hi - 8]: one unsigned comparison. */
			bp_at = cfa + (uintptr_t)RW_RBP_OFF(w);
			if (HP_UNLIKELY(bp_at - lo > span))
				goto give_up;
			next_bp = *(const uintptr_t *)bp_at;
		} else if (rbp_how == REG_UNKNOWN) {
			next_bp = 0;
		}
		if (n < keep) {
			/* Field by field: memo_keep sets the rest. */
			struct hp_unwind_frame *fr = &fresh[n];
			fr->sp = sp;
			fr->ip = ip;
			fr->bp = bp;
			fr->bp_check = bp_at;
			fr->how = RW_HOW(w);
		}
		n++;
		ip = next_ip;
		bp = next_bp;
		sp = cfa;
	}
	if (m && (ended || !ip) && n + !ip <= HP_UNWIND_MEMO_MAX) {
		/* A complete walk: the memo becomes it, with a sentinel frame
		 * for the return address 0 it read. */
		int p = n;
		if (!ip)
			m->fresh[p++] = (struct hp_unwind_frame){ .sp = sp, .bp = bp };
		memo_keep(m, -1, p, max);
	}
walked:
	if (HP_UNLIKELY(HP_LOAD(&hp_unwind_counting)))
		HP_ADD(&n_fast, 1);
	return n;
give_up:
	if (HP_UNLIKELY(HP_LOAD(&hp_unwind_counting)))
		HP_ADD(&n_fallback, 1);
	return -1;
}

void hp_unwind_count_libunwind(void)
{
	HP_ADD(&n_libunwind, 1);
}

void hp_unwind_count_memo(void)
{
	HP_ADD(&n_again, 1);
	HP_ADD(&n_memo, 1);
	HP_ADD(&n_fast, 1);
}

void hp_unwind_stats(struct hp_unwind_stats *out)
{
	struct cache *c = HP_LOAD_ACQ(&cache);

	out->fast = HP_LOAD(&n_fast);
	out->memo = HP_LOAD(&n_memo);
	out->again = HP_LOAD(&n_again);
	out->fallback = HP_LOAD(&n_fallback);
	out->libunwind = HP_LOAD(&n_libunwind);
	out->rules = c ? c->used : 0;
}

#else /* not x86_64: always libunwind */

void hp_unwind_memo_reset(struct hp_unwind_memo *m)
{
	m->n = 0;
	m->named = 0;
	m->last_ok = false;
}

int hp_unwind_fast(uintptr_t *buf, int max, uintptr_t lo, uintptr_t hi, uintptr_t ip,
		   uintptr_t sp, uintptr_t bp, struct hp_unwind_memo *m, const struct hp_unwind_memo *from,
		   bool *same)
{
	return hp_unwind_walk(buf, max, lo, hi, ip, sp, bp, m, from, same);
}

int hp_unwind_walk(uintptr_t *buf, int max, uintptr_t lo, uintptr_t hi, uintptr_t ip,
		   uintptr_t sp, uintptr_t bp, struct hp_unwind_memo *m, const struct hp_unwind_memo *from,
		   bool *same)
{
	(void)m;
	(void)from;
	if (same)
		*same = false;
	(void)buf;
	(void)max;
	(void)lo;
	(void)hi;
	(void)ip;
	(void)sp;
	(void)bp;
	if (HP_UNLIKELY(HP_LOAD(&hp_unwind_counting)))
		HP_ADD(&n_fallback, 1);
	return -1;
}

void hp_unwind_count_libunwind(void)
{
	HP_ADD(&n_libunwind, 1);
}

void hp_unwind_count_memo(void)
{
}

void hp_unwind_stats(struct hp_unwind_stats *out)
{
	out->fast = 0;
	out->memo = 0;
	out->again = 0;
	out->fallback = HP_LOAD(&n_fallback);
	out->libunwind = HP_LOAD(&n_libunwind);
	out->rules = 0;
}

#endif
