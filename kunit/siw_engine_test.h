/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the siw_engine_* KUnit suites: a fake peer that
 * plays the QP and memory layers for the receive engine, and a wire
 * image the transmit engine writes.
 *
 * The fake memory layer is a small table of regions, each backed by a
 * buffer with guard octets around it; the fake QP layer has one
 * receive buffer with guards too. Every placement is checked against
 * the backing buffer, so a placement outside a validated range fails
 * the case even if the guards happen to survive.
 */
#ifndef SIW_ENGINE_TEST_H
#define SIW_ENGINE_TEST_H

#include <kunit/test.h>
#include <linux/crc32c.h>
#include <linux/errno.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include "siw_engine/siw_engine.h"
#include "siw_ddp_test.h"

#define ENG_GUARD	64
#define ENG_GUARD_VAL	0xee
#define ENG_NREG	8
#define ENG_MAX_DONE	16

/* Protection domains the fake regions belong to */
static const int eng_pd_a;
static const int eng_pd_b;

/* The QP's own protection domain, or another one (cross-PD cases) */
static inline const void *eng_pd(bool foreign)
{
	return foreign ? &eng_pd_b : &eng_pd_a;
}

/**
 * struct eng_region - one region of the fake memory layer
 * @r: what lookup reports; @r.obj points back here
 * @mem: the backing octets (@r.len of them, guards around)
 * @size: octets at @mem, guards not counted
 */
struct eng_region {
	struct siw_ddp_region r;
	u8 *mem;
	u32 size;
};

/**
 * struct eng_peer - the fake QP and memory layers
 * @test: the case
 * @reg: regions by STag index - 1
 * @refs: references the engine holds
 * @rbuf: the receive buffer (guards around)
 * @rbuf_len: its length
 * @nbufs: receive buffers posted (all alike)
 * @nplace: placement calls
 * @nonce: Writes in one segment checked and placed in one call
 * @placed: octets placed
 * @summed: octets placed that the placement fed to the FPDU's CRC as it
 *	copied them (the engine handed it a CRC state)
 * @bad: a placement outside its buffer, or a callback out of turn
 * @ndone: messages completed
 * @done: their last headers
 * @done_len: their lengths
 * @done_inval: the STag of the region each one invalidates, 0 if none
 * @done_sum: untagged ones: CRC32c (seed 0) of the first @done_len
 *	octets of the receive buffer when they completed; tagged ones: 0
 * @inval_stag: STag the last Send with Invalidate named, 0 if none
 * @nrresp: Read Response segments the fake ORQ was asked about
 * @nrreq: Read Requests delivered
 * @rreq: the last one
 * @rreq_src_len: length of the source region it was checked against
 * @rreq_src_stag: STag of that region (0 for a zero-length Read)
 * @nterm: Terminates delivered
 * @term: the last one
 * @read_resp_err: what the fake ORQ says of a Read Response
 * @read_req_err: what the fake IRQ says of a Read Request
 * @place_err: what placement returns (a local fault)
 * @place_short: a failing placement copies (and sums) only the first
 *	half of its octets, as a copy that met an unbacked page would
 */
struct eng_peer {
	struct kunit *test;
	struct eng_region reg[ENG_NREG];
	int refs;
	u8 *rbuf;
	u32 rbuf_len;
	unsigned int nbufs;
	unsigned int nplace;
	unsigned int nonce;
	u32 placed;
	u32 summed;
	bool bad;
	unsigned int ndone;
	struct siw_ddp_hdr done[ENG_MAX_DONE];
	u32 done_len[ENG_MAX_DONE];
	u32 done_inval[ENG_MAX_DONE];
	u32 done_sum[ENG_MAX_DONE];
	u32 inval_stag;
	unsigned int nrresp;
	unsigned int nrreq;
	struct siw_rdmap_rreq rreq;
	u64 rreq_src_len;
	u32 rreq_src_stag;
	unsigned int nterm;
	struct siw_rdmap_term_report term;
	enum siw_ddp_err read_resp_err;
	enum siw_ddp_err read_req_err;
	enum siw_ddp_err place_err;
	bool place_short;
};

static inline u8 *eng_guarded(struct kunit *test, u32 size)
{
	u8 *p = kunit_kmalloc(test, size + 2 * ENG_GUARD, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	memset(p, ENG_GUARD_VAL, size + 2 * ENG_GUARD);
	return p + ENG_GUARD;
}

static inline bool eng_guards_ok(const u8 *mem, u32 size)
{
	u32 i;

	for (i = 0; i < ENG_GUARD; i++)
		if (mem[-1 - (int)i] != ENG_GUARD_VAL ||
		    mem[size + i] != ENG_GUARD_VAL)
			return false;
	return true;
}

/* Untouched: every octet still the guard value */
static inline bool eng_untouched(const u8 *mem, u32 size)
{
	u32 i;

	for (i = 0; i < size; i++)
		if (mem[i] != ENG_GUARD_VAL)
			return false;
	return eng_guards_ok(mem, size);
}

/**
 * eng_region_set() - define region @index of the fake memory layer
 * @p: the peer
 * @index: STag index, 1 to ENG_NREG
 * @key: STag key
 * @base: Tagged Offset of its first octet
 * @len: octets; backed by a buffer if at most 1 MiB
 * @access: IB_ACCESS_* granted
 * @pd: &eng_pd_a or &eng_pd_b
 * @valid: not invalidated
 * @remote_inv: the peer may invalidate it
 */
static inline void eng_region_set(struct eng_peer *p, u32 index, u8 key,
				  u64 base, u64 len, u32 access,
				  const void *pd, bool valid, bool remote_inv)
{
	struct eng_region *g = &p->reg[index - 1];

	g->r = (struct siw_ddp_region){
		.pd = pd, .obj = g, .base = base, .len = len,
		.stag = index << SIW_STAG_INDEX_SHIFT | key, .access = access,
		.state = valid ? SIW_DDP_REGION_VALID : SIW_DDP_REGION_INVALID,
		.remote_inv = remote_inv,
	};
	g->size = len <= SZ_1M ? len : 0;
	g->mem = eng_guarded(p->test, g->size);
}

static inline u32 eng_stag(u32 index, u8 key)
{
	return index << SIW_STAG_INDEX_SHIFT | key;
}

static inline int eng_lookup(void *ctx, u32 stag, struct siw_ddp_region *r)
{
	struct eng_peer *p = ctx;
	u32 i = siw_stag_index(stag);

	if (!i || i > ENG_NREG || !p->reg[i - 1].r.stag)
		return -ENOENT;
	*r = p->reg[i - 1].r;
	p->refs++;
	return 0;
}

static inline void eng_put(void *ctx, struct siw_ddp_region *r)
{
	struct eng_peer *p = ctx;

	p->refs--;
}

/* The region as defined now is the one @r describes */
static inline bool eng_unchanged(void *ctx, const struct siw_ddp_region *r)
{
	const struct eng_region *g = r->obj;

	return g->r.stag == r->stag && g->r.state == r->state &&
	       g->r.base == r->base && g->r.len == r->len &&
	       g->r.access == r->access && g->r.pd == r->pd &&
	       g->r.remote_inv == r->remote_inv;
}

static const struct siw_ddp_mem_ops eng_mem_ops = {
	.lookup = eng_lookup,
	.put = eng_put,
	.unchanged = eng_unchanged,
};

static inline int eng_recv_buf(void *ctx, const struct siw_ddp_hdr *h,
			       u32 *len)
{
	struct eng_peer *p = ctx;

	if (!p->nbufs)
		return -ENOBUFS;
	p->nbufs--;
	*len = p->rbuf_len;
	return 0;
}

/* Copy as the QP layer does: with the CRC in the same pass if asked */
static inline void eng_copy(struct eng_peer *p, void *to, const void *data,
			    u32 len, u32 *crc)
{
	if (p->place_err && p->place_short)
		len /= 2;
	if (crc) {
		*crc = siw_mpa_crc_copy(*crc, to, data, len);
		p->summed += len;
	} else {
		memcpy(to, data, len);
	}
	p->placed += len;
}

static inline enum siw_ddp_err eng_recv_place(void *ctx,
					      const struct siw_ddp_hdr *h,
					      u32 mo, const void *data,
					      u32 len, u32 *crc)
{
	struct eng_peer *p = ctx;

	p->nplace++;
	if (mo > p->rbuf_len || len > p->rbuf_len - mo) {
		p->bad = true;
		return SIW_DDP_ERR_RDMAP_CATA_STREAM;
	}
	eng_copy(p, p->rbuf + mo, data, len, crc);
	return p->place_err;
}

static inline enum siw_ddp_err eng_tagged_place(void *ctx,
						const struct siw_ddp_region *r,
						u64 to, const void *data,
						u32 len, u32 *crc)
{
	struct eng_region *g = r->obj;
	struct eng_peer *p = ctx;

	p->nplace++;
	if (!g || r->state != SIW_DDP_REGION_VALID || to < r->base ||
	    to - r->base > g->size || len > g->size - (to - r->base)) {
		p->bad = true;
		return SIW_DDP_ERR_RDMAP_CATA_STREAM;
	}
	eng_copy(p, g->mem + (to - r->base), data, len, crc);
	return p->place_err;
}

static inline enum siw_ddp_err eng_read_resp(void *ctx,
					     const struct siw_ddp_hdr *h,
					     u32 len)
{
	struct eng_peer *p = ctx;

	p->nrresp++;
	return p->read_resp_err;
}

static inline enum siw_ddp_err eng_read_req(void *ctx,
					    const struct siw_rdmap_rreq *rr,
					    const struct siw_ddp_region *src)
{
	struct eng_peer *p = ctx;

	p->nrreq++;
	p->rreq = *rr;
	p->rreq_src_len = src->len;
	p->rreq_src_stag = src->stag;
	return p->read_req_err;
}

static inline void eng_terminate(void *ctx,
				 const struct siw_rdmap_term_report *rep)
{
	struct eng_peer *p = ctx;

	p->nterm++;
	p->term = *rep;
}

static inline void eng_msg_done(void *ctx, const struct siw_engine_rx_msg *m)
{
	struct eng_peer *p = ctx;

	if (p->ndone < ENG_MAX_DONE) {
		p->done[p->ndone] = *m->hdr;
		p->done_len[p->ndone] = m->len;
		p->done_inval[p->ndone] = m->inval ? m->inval->stag : 0;
		p->done_sum[p->ndone] = m->hdr->tagged ? 0 :
			crc32c(0, p->rbuf, min(m->len, p->rbuf_len));
	}
	p->ndone++;
	p->inval_stag = m->inval ? m->inval->stag : 0;
	if (m->inval && m->inval->stag != m->hdr->inval_stag)
		p->bad = true;
}

/*
 * A Write in one segment, checked and placed in one call: the same
 * lookup, check and copy as the general path's, counted alike
 */
static inline enum siw_ddp_err eng_tagged_once(void *ctx,
					       const struct siw_ddp_stag_req *req,
					       const void *data, u32 len,
					       u32 *crc)
{
	const struct siw_ddp_mem mem = { .ops = &eng_mem_ops, .ctx = ctx };
	struct eng_peer *p = ctx;
	struct siw_ddp_region r;
	enum siw_ddp_err err;

	p->nonce++;
	err = siw_ddp_stag_resolve(&mem, req, &r);
	if (err)
		return err;
	err = eng_tagged_place(ctx, &r, req->to, data, len, crc);
	siw_ddp_stag_put(&mem, &r);
	return err;
}

static const struct siw_engine_rx_ops eng_rx_ops = {
	.recv_buf = eng_recv_buf,
	.recv_place = eng_recv_place,
	.tagged_place = eng_tagged_place,
	.tagged_once = eng_tagged_once,
	.read_resp = eng_read_resp,
	.read_req = eng_read_req,
	.terminate = eng_terminate,
	.msg_done = eng_msg_done,
};

static inline struct eng_peer *eng_peer_new(struct kunit *test, u32 rbuf_len)
{
	struct eng_peer *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	p->test = test;
	p->rbuf_len = rbuf_len;
	p->rbuf = eng_guarded(test, rbuf_len);
	return p;
}

/* Forget what was received; regions and buffers back to guard octets */
static inline void eng_peer_reset(struct eng_peer *p, unsigned int nbufs)
{
	u32 i;

	memset(p->rbuf, ENG_GUARD_VAL, p->rbuf_len);
	for (i = 0; i < ENG_NREG; i++)
		if (p->reg[i].mem)
			memset(p->reg[i].mem, ENG_GUARD_VAL, p->reg[i].size);
	p->nbufs = nbufs;
	p->nplace = 0;
	p->placed = 0;
	p->summed = 0;
	p->bad = false;
	p->ndone = 0;
	p->inval_stag = 0;
	p->nrresp = 0;
	p->nrreq = 0;
	memset(&p->rreq, 0, sizeof(p->rreq));
	p->rreq_src_len = 0;
	p->rreq_src_stag = 0;
	p->nterm = 0;
	memset(&p->term, 0, sizeof(p->term));
	p->refs = 0;
}

static inline void eng_rx_start(struct siw_engine_rx *rx, struct eng_peer *p,
				u32 ird, bool markers, bool crc)
{
	struct siw_engine_rx_cfg cfg = {
		.ops = &eng_rx_ops, .ctx = p,
		.mem = { .ops = &eng_mem_ops, .ctx = p },
		.pd = &eng_pd_a, .ird = ird, .markers = markers, .crc = crc,
	};

	siw_engine_rx_init(rx, &cfg);
}

/* Every region's and the receive buffer's guards intact */
static inline bool eng_peer_guards_ok(const struct eng_peer *p)
{
	u32 i;

	for (i = 0; i < ENG_NREG; i++)
		if (p->reg[i].mem && !eng_guards_ok(p->reg[i].mem,
						    p->reg[i].size))
			return false;
	return eng_guards_ok(p->rbuf, p->rbuf_len);
}

/* Nothing placed anywhere: every buffer still all guard octets */
static inline bool eng_peer_untouched(const struct eng_peer *p)
{
	u32 i;

	for (i = 0; i < ENG_NREG; i++)
		if (p->reg[i].mem && !eng_untouched(p->reg[i].mem,
						    p->reg[i].size))
			return false;
	return !p->nplace && eng_untouched(p->rbuf, p->rbuf_len);
}

/**
 * struct eng_wire - a stream image
 * @buf: the octets
 * @size: room at @buf
 * @len: octets written
 */
struct eng_wire {
	u8 *buf;
	size_t size;
	size_t len;
};

static inline struct eng_wire *eng_wire_new(struct kunit *test, size_t size)
{
	struct eng_wire *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, w);
	w->buf = kunit_kzalloc(test, size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, w->buf);
	w->size = size;
	return w;
}

/* Append the pieces of one FPDU, as a socket would send them */
static inline bool eng_wire_put(struct eng_wire *w,
				const struct siw_engine_txd *d)
{
	const struct siw_engine_seg *s;
	unsigned int i;
	void *va;

	for (i = 0; i < d->n; i++) {
		s = &d->piece[i];
		if (w->len + s->len > w->size)
			return false;
		if (s->kind == SIW_ENGINE_SEG_PAGE) {
			va = kmap_local_page(s->page);
			memcpy(w->buf + w->len, va + s->off, s->len);
			kunmap_local(va);
		} else {
			memcpy(w->buf + w->len, s->addr, s->len);
		}
		w->len += s->len;
	}
	return true;
}

/* How a receive run cuts the stream */
enum eng_cut {
	ENG_WHOLE,	/* one buffer */
	ENG_SPLIT,	/* two pieces, cut at @at */
	ENG_OCTETS,	/* one octet at a time */
	ENG_UNEVEN,	/* pseudo-random pieces of 1 to 700 octets */
};

static inline size_t eng_next_cut(enum eng_cut cut, size_t from, size_t len,
				  size_t at, u32 *seed)
{
	switch (cut) {
	case ENG_SPLIT:
		return from < at ? at : len;
	case ENG_OCTETS:
		return from + 1;
	case ENG_UNEVEN:
		*seed = *seed * 1103515245 + 12345;
		return min_t(size_t, len, from + 1 + (*seed >> 16) % 700);
	default:
		return len;
	}
}

/* Feed @len octets of @buf cut as @cut says; returns octets consumed */
static inline size_t eng_feed(struct siw_engine_rx *rx, const u8 *buf,
			      size_t len, enum eng_cut cut, size_t at,
			      u32 seed)
{
	size_t from = 0, to, used;

	while (from < len) {
		to = eng_next_cut(cut, from, len, at, &seed);
		used = siw_engine_rx_feed(rx, buf + from, to - from);
		if (used != to - from)
			return from + used;
		from = to;
	}
	return from;
}

/* The error of a stopped stream against an RFC triple */
static inline void eng_expect_err(struct kunit *test,
				  const struct siw_engine_rx *rx,
				  const struct siw_ddp_triple *exp)
{
	KUNIT_EXPECT_TRUE(test, siw_engine_rx_stopped(rx));
	siw_ddp_expect(test, siw_engine_rx_error(rx), exp);
}

#endif /* SIW_ENGINE_TEST_H */
