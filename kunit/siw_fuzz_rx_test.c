// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite siw_fuzz_rx: the receive engine (siw_fpdu_rx.c, over the
 * real MPA deframer and DDP layer) fed pseudo-random streams, against
 * the fake QP and memory layers of siw_engine_test.h.
 *
 * Every stream comes from one of a fixed list of seeds through a small
 * generator of our own (splitmix64), so every run sees the same octets
 * and a failure names the seed and stream that reproduce it. A stream
 * is what a peer might send: mostly well-formed FPDUs (right length,
 * right CRC32c, markers where they belong) carrying Sends, RDMA Writes,
 * Read Responses, Read Requests and now and then a Terminate, each
 * message cut in segments. At a rate chosen per stream, an FPDU is
 * damaged: a header field changed (opcode, DDP and RDMAP versions, T
 * and L bits, reserved bits, STag, TO, QN, MSN, MO, Invalidate STag,
 * the fields of a Read Request), the ULPDU cut short or lengthened, the
 * CRC or any other bit flipped; or raw garbage, a framed ULPDU of
 * random octets, a replayed FPDU or a malformed Terminate comes first;
 * or the stream ends inside the FPDU. The octets reach the engine in
 * chunks of random size, down to single octets, or in skbs with a
 * linear part and page fragments.
 *
 * The generator models the receiver as long as the stream is well
 * formed. Up to the first damaged FPDU a run must match the model
 * exactly: the engine has not stopped, every message completed, every
 * octet placed where the model put it. For a few kinds of damage the
 * outcome is certain too (a wrong CRC, a wrong version, a Send without
 * a receive buffer, a Read Request beyond the IRD, a stream cut inside
 * an FPDU) and the error is checked. Past that, only safety is
 * predicted, and checked for every stream:
 *
 *  - every callback checks again what the engine must have checked:
 *    tagged placement only into a valid region of the QP's PD that
 *    grants the access, named with its current key, within its bounds
 *    and with a reference held; untagged placement only into a bound
 *    receive buffer, within it; a Read Request's source readable and in
 *    bounds; an invalidation only of a region that allows it;
 *  - nothing is delivered (a completion, a Read Request, a Terminate)
 *    from an FPDU whose CRC is wrong;
 *  - the guard octets around every buffer are intact;
 *  - once the engine stopped, no callback runs, no octet is consumed
 *    and no memory changes;
 *  - no region reference is left once the stream stopped or closed;
 *  - the Terminate the engine asks for can be built and parses back to
 *    the same error and the same offending header.
 *
 * The callbacks read the engine's current header (rx->h) and the
 * deframer's FPDU offset (rx->mpa.start) to know which segment they
 * serve; nothing else of the engine's state is touched.
 */
#include <kunit/test.h>
#include <linux/crc32c.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/skbuff.h>
#include "siw_compat.h"

#include "siw_ddp/ddp_wire.h"
#include "siw_engine_test.h"

#define FZ_STREAMS	32		/* streams per seed */
#define FZ_WIRE_SIZE	(128 * 1024)
#define FZ_WIRE_ROOM	(40 * 1024)	/* enough for any one message */
#define FZ_POOL_SIZE	(16 * 1024)
#define FZ_SEGS_MAX	12		/* full segments per message */
#define FZ_SHORT_SEGS	4		/* short segments it may start with */
#define FZ_EMPTY_SEGS	2		/* empty ones inside a tagged message */
#define FZ_EXTRA_MAX	64		/* octets a lengthened ULPDU gains */
#define FZ_SEG_MAX	1024		/* largest segment payload */
#define FZ_RBUF_MAX	4096
#define FZ_ULPDU_MAX	(SIW_DDP_UNTAGGED_HLEN + FZ_RBUF_MAX + FZ_EXTRA_MAX)
#define FZ_GARBAGE_MAX	300
#define FZ_MAX_FPDU	256
#define FZ_FPDU_ROOM	(2 * (FZ_SEGS_MAX + FZ_SHORT_SEGS + FZ_EMPTY_SEGS) + 2)
#define FZ_MAX_BAD	32
#define FZ_PLENTY	1000		/* receive buffers of most streams */
#define FZ_SKB_MAX	3000		/* an skb's stream octets */
#define FZ_GOLDEN	0x9e3779b97f4a7c15ULL

/* FPDUs the whole suite must get through, or the generator lost its way */
#define FZ_MIN_ACCEPTED	20000

#define FZ_RW		IB_ACCESS_REMOTE_WRITE
#define FZ_RR		IB_ACCESS_REMOTE_READ
#define FZ_LW		IB_ACCESS_LOCAL_WRITE
#define FZ_NREG		7
#define FZ_R_NONE	8	/* an STag index no region has */

/* The seeds; each gives FZ_STREAMS streams */
static const u64 fz_seeds[] = {
	0x0000000000000001ULL, 0x5eed5eed5eed5eedULL, 0x243f6a8885a308d3ULL,
	0x13198a2e03707344ULL, 0xa4093822299f31d0ULL, 0x082efa98ec4e6c89ULL,
	0x452821e638d01377ULL, 0xbe5466cf34e90c6cULL, 0xc0ac29b7c97c50ddULL,
	0x3f84d5b5b5470917ULL, 0x9216d5d98979fb1bULL, 0xd1310ba698dfb5acULL,
	0x2ffd72dbd01adfb7ULL, 0xb8e1afed6a267e96ULL, 0xba7c9045f12c7f99ULL,
	0x24a19947b3916cf7ULL, 0x0801f2e2858efc16ULL, 0x636920d871574e69ULL,
	0xa458fea3f4933d7eULL, 0x0d95748f728eb658ULL, 0x718bcd5882154aeeULL,
	0x7b54a41dc25a59b5ULL, 0x9c30d5392af26013ULL, 0xc5d1b023286085f0ULL,
	0xca417918b8db38efULL, 0x8e79dcb0603a180eULL, 0x6c9e0e8bb01e8a3eULL,
	0xd71577c1bd314b27ULL, 0x78af2fda55605c60ULL, 0xe65525f3aa55ab94ULL,
	0x5748986263e81440ULL, 0xffffffffffffffffULL,
};

/**
 * struct fz_region_def - one region of the fake memory layer
 * @key: STag key; the index is the position in fz_regions plus one
 * @base: Tagged Offset of its first octet
 * @len: octets
 * @access: IB_ACCESS_* granted
 * @foreign: it belongs to another PD than the QP's
 * @valid: not invalidated
 * @remote_inv: the peer may invalidate it
 */
struct fz_region_def {
	u8 key;
	u64 base;
	u32 len;
	u32 access;
	bool foreign;
	bool valid;
	bool remote_inv;
};

static const struct fz_region_def fz_regions[FZ_NREG] = {
	/* 1: the main sink and source */
	{ 0x5a, 0x10000, 8192, FZ_RW | FZ_RR, false, true, false },
	/* 2: the peer may invalidate it */
	{ 0x11, 0x900000, 512, FZ_RW, false, true, true },
	/* 3: another PD's */
	{ 0x33, 0x20000, 512, FZ_RW | FZ_RR, true, true, true },
	/* 4: read only */
	{ 0x44, 0x30000, 512, FZ_RR, false, true, false },
	/* 5: the last 256 octets below 2^64 */
	{ 0x55, 0xffffffffffffff00ULL, 256, FZ_RW | FZ_RR, false, true,
	  false },
	/* 6: invalidated */
	{ 0x66, 0x40000, 512, FZ_RW | FZ_RR, false, false, true },
	/* 7: a Read sink, local write access only */
	{ 0x77, 0x50000, 1024, FZ_LW, false, true, false },
};

/* Where well-formed messages go (STag indexes) */
static const u8 fz_write_sinks[] = { 1, 1, 1, 2, 5 };
static const u8 fz_rresp_sinks[] = { 1, 1, 2, 5, 7 };
static const u8 fz_read_srcs[] = { 1, 1, 4, 5 };
/* Regions a well-formed message never names */
static const u8 fz_wrong_regions[] = { 3, 4, 6, 7 };
/* Regions a Read Request may not read */
static const u8 fz_no_srcs[] = { 2, 3, 6, 7 };

static u32 fz_stag(const struct fz_region_def *d)
{
	return eng_stag(d - fz_regions + 1, d->key);
}

/* The region an STag's index names, region 1 if none */
static const struct fz_region_def *fz_region_of(u32 stag)
{
	u32 i = siw_stag_index(stag);

	return i && i <= FZ_NREG ? &fz_regions[i - 1] : &fz_regions[0];
}

/* splitmix64: small, fast, and the same everywhere */
struct fz_rng {
	u64 s;
};

static u64 fz_next(struct fz_rng *r)
{
	u64 z = (r->s += FZ_GOLDEN);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* 0 to @n - 1, @n at least 1; multiply and shift, no division */
static u32 fz_below(struct fz_rng *r, u32 n)
{
	return (u32)(((fz_next(r) >> 32) * n) >> 32);
}

/* True once in @n */
static bool fz_chance(struct fz_rng *r, u32 n)
{
	return !fz_below(r, n);
}

static void fz_fill(struct fz_rng *r, u8 *p, u32 len)
{
	u64 v = 0;
	u32 i;

	for (i = 0; i < len; i++) {
		if (!(i % 8))
			v = fz_next(r);
		p[i] = (u8)v;
		v >>= 8;
	}
}

/* What damages an FPDU, or what else comes first */
enum fz_cause {
	FZ_M_OPCODE,
	FZ_M_TBIT,
	FZ_M_LBIT,
	FZ_M_VERSION,
	FZ_M_RSVD,
	FZ_M_STAG,
	FZ_M_TO,
	FZ_M_QN,
	FZ_M_MSN,
	FZ_M_MO,
	FZ_M_INVAL,
	FZ_M_RREQ,
	FZ_M_SHORTEN,
	FZ_M_LENGTHEN,
	FZ_M_CRC,
	FZ_M_FLIP,
	FZ_M_GARBAGE,
	FZ_M_JUNK_FPDU,
	FZ_M_REPLAY,
	FZ_M_BAD_TERM,
	FZ_M_CUT,
	FZ_M_OVERRUN,
	FZ_M_MARKER,
	FZ_NUM_M,
	/* not damage: the well-formed part ends for another reason */
	FZ_C_NO_BUF = FZ_NUM_M,	/* a Send and no receive buffer posted */
	FZ_C_NO_IRD,		/* a Read Request beyond the IRD */
	FZ_C_TERM,		/* a well-formed Terminate */
	FZ_C_LOCAL,		/* the QP layer fails from here on */
	FZ_NUM_CAUSES,
	FZ_C_NONE = FZ_NUM_CAUSES,
};

static const char * const fz_cause_names[FZ_NUM_CAUSES + 1] = {
	[FZ_M_OPCODE]		= "opcode",
	[FZ_M_TBIT]		= "T bit",
	[FZ_M_LBIT]		= "L bit",
	[FZ_M_VERSION]		= "DV or RV",
	[FZ_M_RSVD]		= "reserved bits",
	[FZ_M_STAG]		= "STag",
	[FZ_M_TO]		= "TO",
	[FZ_M_QN]		= "QN",
	[FZ_M_MSN]		= "MSN",
	[FZ_M_MO]		= "MO",
	[FZ_M_INVAL]		= "Invalidate STag",
	[FZ_M_RREQ]		= "Read Request fields",
	[FZ_M_SHORTEN]		= "ULPDU cut short",
	[FZ_M_LENGTHEN]		= "ULPDU lengthened",
	[FZ_M_CRC]		= "CRC",
	[FZ_M_FLIP]		= "bit flip",
	[FZ_M_GARBAGE]		= "raw garbage",
	[FZ_M_JUNK_FPDU]	= "framed garbage",
	[FZ_M_REPLAY]		= "replayed FPDU",
	[FZ_M_BAD_TERM]		= "malformed Terminate",
	[FZ_M_CUT]		= "stream cut",
	[FZ_M_OVERRUN]		= "1 to 8 octets past the end",
	[FZ_M_MARKER]		= "marker pointer",
	[FZ_C_NO_BUF]		= "no receive buffer",
	[FZ_C_NO_IRD]		= "beyond IRD",
	[FZ_C_TERM]		= "Terminate",
	[FZ_C_LOCAL]		= "local fault",
	[FZ_C_NONE]		= "none",
};

/*
 * How often each damage is picked: more for the fields behind the
 * checks a peer would probe (STag, TO, the Read Request's source).
 */
static const u8 fz_weights[FZ_NUM_M] = {
	[FZ_M_OPCODE] = 2, [FZ_M_TBIT] = 1, [FZ_M_LBIT] = 2,
	[FZ_M_VERSION] = 1, [FZ_M_RSVD] = 1, [FZ_M_STAG] = 4, [FZ_M_TO] = 4,
	[FZ_M_QN] = 1, [FZ_M_MSN] = 2, [FZ_M_MO] = 2, [FZ_M_INVAL] = 2,
	[FZ_M_RREQ] = 4, [FZ_M_SHORTEN] = 2, [FZ_M_LENGTHEN] = 2,
	[FZ_M_CRC] = 1, [FZ_M_FLIP] = 2, [FZ_M_GARBAGE] = 1,
	[FZ_M_JUNK_FPDU] = 2, [FZ_M_REPLAY] = 1, [FZ_M_BAD_TERM] = 1,
	[FZ_M_CUT] = 1, [FZ_M_OVERRUN] = 3, [FZ_M_MARKER] = 4,
};

/* How the octets reach the engine */
enum fz_cut {
	FZ_CUT_BIG,	/* linear chunks of 1 to 4096 octets */
	FZ_CUT_SMALL,	/* 1 to 96 */
	FZ_CUT_TINY,	/* 1 to 8 */
	FZ_CUT_OCTET,	/* one octet at a time */
	FZ_CUT_SKB,	/* skbs with page fragments, 1 to FZ_SKB_MAX */
	FZ_CUT_MIXED,	/* any of big, small, tiny and skb, chunk by chunk */
};

/**
 * struct fz_gen - a stream being written, and the model of its receiver
 * @test: the case
 * @rng: the stream's generator
 * @wire: the stream; its offsets are stream offsets
 * @len: octets in @wire
 * @pool: random payload octets
 * @ulpdu: the ULPDU being written
 * @prev: the last undamaged ULPDU, for replays
 * @prev_len: its length
 * @mtx: MPA transmit state (marker positions)
 * @mf: the FPDU being framed
 * @cut: enum fz_cut
 * @crc: CRCs on
 * @markers: markers on
 * @rbuf_len: length of the receive buffer(s)
 * @nbufs: receive buffers posted
 * @ird: inbound Read queue depth
 * @seg_max: payload octets of a full segment
 * @rate: one FPDU in @rate is damaged, none if 0
 * @budget: FPDUs to write
 * @ended: the stream was cut: nothing more
 * @send_msn: MSN of the next Send
 * @rreq_msn: MSN of the next Read Request
 * @bufs_left: receive buffers not yet used
 * @reads_out: Read Requests whose IRD slot is not back
 * @nfpdu: FPDUs written
 * @fpdu_end: stream offset after each one
 * @open_after: after each one, a tagged message goes on into the region
 *	its last segment checked (the receiver holds that region)
 * @nempty: empty segments inside tagged messages, not the last, undamaged
 * @npending: Read Requests whose slot comes back later
 * @pending: the FPDU after which each one's comes back
 * @ncredit: slots given back
 * @credit: stream offset after which each one is (the QP layer sent
 *	the Read Response)
 * @nbad: FPDUs whose CRC is wrong
 * @bad_hdr: stream offset of each one's ULPDU Length field
 * @tainted: the well-formed part ended
 * @cause: why, enum fz_cause
 * @clean_end: stream offset where it ended
 * @cause_end: stream offset after the FPDU (or the cut) that ended it
 * @cause_err: the error that FPDU must stop the stream with, if certain
 * @ndone: messages the well-formed part completes
 * @nrreq: Read Requests it delivers
 * @placed: payload octets it places
 * @want_term: it ends with a well-formed Terminate
 * @want_rbuf: the receive buffer as it leaves it
 * @want: each region as it leaves it
 */
struct fz_gen {
	struct kunit *test;
	struct fz_rng rng;
	u8 *wire;
	u32 len;
	u8 *pool;
	u8 *ulpdu;
	u8 *prev;
	u32 prev_len;
	struct siw_mpa_tx mtx;
	struct siw_mpa_fpdu mf;
	int cut;
	bool crc;
	bool markers;
	u32 rbuf_len;
	u32 nbufs;
	u32 ird;
	u32 seg_max;
	u32 rate;
	u32 budget;
	bool ended;
	u32 send_msn;
	u32 rreq_msn;
	u32 bufs_left;
	u32 reads_out;
	u32 nfpdu;
	u32 fpdu_end[FZ_MAX_FPDU];
	bool open_after[FZ_MAX_FPDU];
	u32 nempty;
	u32 npending;
	u32 pending[FZ_MAX_FPDU];
	u32 ncredit;
	u32 credit[FZ_MAX_FPDU];
	u32 nbad;
	u32 bad_hdr[FZ_MAX_BAD];
	bool tainted;
	int cause;
	u32 clean_end;
	u32 cause_end;
	enum siw_ddp_err cause_err;
	u32 ndone;
	u32 nrreq;
	u32 placed;
	bool want_term;
	u8 *want_rbuf;
	u8 *want[FZ_NREG];
};

/* Fresh payload: @len random octets of the pool */
static const u8 *fz_take(struct fz_gen *g, u32 len)
{
	return g->pool + fz_below(&g->rng, FZ_POOL_SIZE - len + 1);
}

/* The well-formed part ends at @start, for @cause */
static void fz_taint(struct fz_gen *g, int cause, u32 start)
{
	if (g->tainted)
		return;
	g->tainted = true;
	g->cause = cause;
	g->clean_end = start;
	g->cause_end = g->len;
}

/* Frame @len octets at @u as the next FPDU; returns its stream offset */
static u32 fz_frame(struct fz_gen *g, const u8 *u, u32 len)
{
	u32 start = g->len, i, k;
	ssize_t n;

	KUNIT_ASSERT_LT(g->test, g->nfpdu, (u32)FZ_MAX_FPDU);
	n = siw_mpa_fpdu_build(&g->mf, &g->mtx, u, len, g->wire + g->len,
			       FZ_WIRE_SIZE - g->len);
	KUNIT_ASSERT_GT(g->test, n, 0L);
	g->len += n;
	g->fpdu_end[g->nfpdu] = g->len;
	/*
	 * a tagged message goes on after it, into a region it checked:
	 * the receiver holds that region until the next segment
	 */
	g->open_after[g->nfpdu] = len > SIW_DDP_TAGGED_HLEN &&
				  siw_ddp_ctrl_tagged(u[0]) &&
				  !siw_ddp_ctrl_last(u[0]);
	/* the Read Responses sent by now give their IRD slots back here */
	for (i = 0, k = 0; i < g->npending; i++) {
		if (g->pending[i] <= g->nfpdu) {
			g->credit[g->ncredit++] = g->len;
			g->reads_out--;
		} else {
			g->pending[k++] = g->pending[i];
		}
	}
	g->npending = k;
	g->nfpdu++;
	return start;
}

/* A damage, as often as fz_weights says */
static int fz_pick(struct fz_rng *r)
{
	u32 total = 0, k;
	int i;

	for (i = 0; i < FZ_NUM_M; i++)
		total += fz_weights[i];
	k = fz_below(r, total);
	for (i = 0; k >= fz_weights[i]; i++)
		k -= fz_weights[i];
	return i;
}

/* Stream offset of the ULPDU Length field of an FPDU framed at @start */
static u32 fz_hdr_pos(const struct fz_gen *g, u32 start)
{
	return g->markers && !(start % SIW_MPA_MARKER_PERIOD) ?
	       start + SIW_MPA_MARKER_LEN : start;
}

/*
 * Change the FPDU pointer of the first marker in the FPDU framed at
 * @start (one bit of octet 2: never a reserved bit); with no marker in
 * it, flip a bit anywhere in it. Returns whether a marker was hit.
 */
static bool fz_hit_marker(struct fz_gen *g, u32 start)
{
	u32 mark = round_up(start, SIW_MPA_MARKER_PERIOD);

	if (g->markers && mark + SIW_MPA_MARKER_LEN <= g->len) {
		g->wire[mark + 2] ^= BIT(fz_below(&g->rng, 8));
		return true;
	}
	g->wire[start + fz_below(&g->rng, g->len - start)] ^=
		BIT(fz_below(&g->rng, 8));
	return false;
}

/*
 * An STag a well-formed message would not carry here: forged, index 0,
 * the right index with the wrong key, no region, or a region that
 * refuses some uses (2 allows no Read, 3 is another PD's, 4 is read
 * only, 6 is invalidated, 7 takes local writes only)
 */
static u32 fz_bad_stag(struct fz_rng *r, u32 stag)
{
	u32 k = fz_below(r, 5 + ARRAY_SIZE(fz_wrong_regions));

	switch (k) {
	case 0:
		return (u32)fz_next(r);
	case 1:
		return fz_below(r, 256);
	case 2:
		return stag ^ (1 + fz_below(r, 255));
	case 3:
		return eng_stag(FZ_R_NONE, fz_below(r, 256));
	case 4:
		return fz_stag(&fz_regions[1]);
	default:
		return fz_stag(&fz_regions[fz_wrong_regions[k - 5] - 1]);
	}
}

/* A Tagged Offset at or past the edges of @d, near 2^64, or anywhere */
static u64 fz_bad_to(struct fz_rng *r, const struct fz_region_def *d)
{
	switch (fz_below(r, 5)) {
	case 0:
		return d->base - 1 - fz_below(r, 16);
	case 1:
		return d->base + d->len - fz_below(r, 16);
	case 2:
		return U64_MAX - fz_below(r, 8);
	case 3:
		return d->base + fz_below(r, 2 * d->len);
	default:
		return fz_next(r);
	}
}

/* A 32-bit field near @v, at either limit, or anywhere */
static u32 fz_bad_u32(struct fz_rng *r, u32 v)
{
	switch (fz_below(r, 5)) {
	case 0:
		return v + 1 + fz_below(r, 3);
	case 1:
		return v - 1 - fz_below(r, 3);
	case 2:
		return fz_below(r, 8);
	case 3:
		return U32_MAX - fz_below(r, 8);
	default:
		return (u32)fz_next(r);
	}
}

/* Another Read Request header: one field changed */
static void fz_bad_rreq(struct fz_rng *r, u8 *fx)
{
	struct siw_rdmap_rreq rr;

	siw_rdmap_rreq_decode(fx, &rr);
	switch (fz_below(r, 7)) {
	case 0:
		rr.src_stag = fz_bad_stag(r, rr.src_stag);
		break;
	case 1:
	case 2:
		/*
		 * a source that is no source: 2, 3, 6 or 7, with its key,
		 * read from (a zero-length Read would check nothing)
		 */
		rr.src_stag = fz_stag(&fz_regions[fz_no_srcs[fz_below(r, 4)] - 1]);
		rr.len = max(rr.len, 1U);
		break;
	case 3:
	case 4:
		rr.src_to = fz_bad_to(r, fz_region_of(rr.src_stag));
		break;
	case 5:
		rr.len = fz_chance(r, 2) ? fz_bad_u32(r, rr.len) :
			 fz_region_of(rr.src_stag)->len + fz_below(r, 4);
		break;
	default:
		/* the sink is the requester's business: no error */
		rr.sink_stag = (u32)fz_next(r);
		rr.sink_to = fz_next(r);
		break;
	}
	siw_rdmap_rreq_encode(&rr, fx);
}

/* A well-formed Read Request header at @fx */
static void fz_rreq_hdr(struct fz_gen *g, u8 *fx)
{
	const struct fz_region_def *d;
	struct siw_rdmap_rreq rr = { };

	d = &fz_regions[fz_read_srcs[fz_below(&g->rng, 4)] - 1];
	rr.sink_stag = (u32)fz_next(&g->rng);
	rr.sink_to = fz_next(&g->rng);
	if (fz_chance(&g->rng, 8)) {
		/* a zero-length Read checks nothing of its source */
		rr.src_stag = (u32)fz_next(&g->rng);
		rr.src_to = fz_next(&g->rng);
	} else {
		rr.len = 1 + fz_below(&g->rng, d->len);
		rr.src_stag = fz_stag(d);
		rr.src_to = d->base + (fz_chance(&g->rng, 4) ? d->len - rr.len :
				       fz_below(&g->rng, d->len - rr.len + 1));
	}
	siw_rdmap_rreq_encode(&rr, fx);
}

/* Damage a header before it is encoded */
static void fz_damage_hdr(struct fz_gen *g, int mut, struct siw_ddp_hdr *h,
			  u8 *fx, u32 fixed_len)
{
	struct fz_rng *r = &g->rng;

	switch (mut) {
	case FZ_M_OPCODE:
		h->opcode = fz_below(r, SIW_RDMAP_NUM_OPCODES);
		break;
	case FZ_M_TBIT:
		h->tagged = !h->tagged;
		/* and give the fields of the other buffer model values */
		if (h->tagged) {
			h->stag = fz_bad_stag(r, h->stag);
			h->to = fz_bad_to(r, fz_region_of(h->stag));
		} else {
			h->qn = fz_below(r, SIW_DDP_NUM_QN);
			h->msn = fz_bad_u32(r, 1);
			h->mo = 0;
		}
		break;
	case FZ_M_LBIT:
		h->last = !h->last;
		break;
	case FZ_M_STAG:
		if (h->tagged)
			h->stag = fz_bad_stag(r, h->stag);
		else
			h->inval_stag = fz_bad_stag(r, h->inval_stag);
		break;
	case FZ_M_TO:
		if (h->tagged)
			h->to = fz_bad_to(r, fz_region_of(h->stag));
		else
			h->mo = fz_bad_u32(r, h->mo);
		break;
	case FZ_M_QN:
		if (!h->tagged)
			h->qn = fz_bad_u32(r, h->qn);
		else if (h->opcode == SIW_RDMAP_WRITE)
			h->opcode = SIW_RDMAP_READ_RESP;
		else
			h->opcode = SIW_RDMAP_WRITE;
		break;
	case FZ_M_MSN:
		if (h->tagged)
			h->to = fz_bad_to(r, fz_region_of(h->stag));
		else
			h->msn = fz_bad_u32(r, h->msn);
		break;
	case FZ_M_MO:
		if (h->tagged)
			h->to += 1 + fz_below(r, 64);
		else
			h->mo = fz_bad_u32(r, h->mo);
		break;
	case FZ_M_INVAL:
		if (h->tagged) {
			h->stag ^= 1 + fz_below(r, 255);
			break;
		}
		h->inval_stag = fz_bad_stag(r, h->inval_stag);
		if (fz_chance(r, 2) && h->opcode == SIW_RDMAP_SEND)
			h->opcode = SIW_RDMAP_SEND_INV;
		break;
	case FZ_M_RREQ:
		/* any other segment is preceded by a damaged Read Request */
		if (fixed_len == SIW_RDMAP_RREQ_LEN)
			fz_bad_rreq(r, fx);
		break;
	default:
		break;
	}
}

/* Damage the control octets of the header encoded at @u */
static void fz_damage_ctrl(struct fz_gen *g, int mut, u8 *u)
{
	struct fz_rng *r = &g->rng;
	static const u8 wrong[] = { 0, 2, 3 };

	if (mut == FZ_M_VERSION) {
		if (fz_chance(r, 2))
			u[0] = (u[0] & ~SIW_DDP_CTRL_DV) | wrong[fz_below(r, 3)];
		else
			u[1] = (u[1] & ~SIW_RDMAP_CTRL_RV) |
			       wrong[fz_below(r, 3)] << SIW_RDMAP_CTRL_RV_SHIFT;
	} else if (mut == FZ_M_RSVD) {
		if (fz_chance(r, 2))
			u[0] |= SIW_DDP_CTRL_RSVD & (u8)(1 + fz_below(r, 255));
		else
			u[1] |= SIW_RDMAP_CTRL_RSVD & (u8)(1 + fz_below(r, 255));
	}
}

/*
 * What comes before the FPDU: garbage, another FPDU, or nothing. A
 * damaged Read Request comes before any FPDU but a Read Request (@rreq),
 * whose own fields are damaged instead.
 */
static void fz_insert(struct fz_gen *g, int mut, bool rreq)
{
	struct siw_ddp_hdr h = { .opcode = SIW_RDMAP_TERMINATE,
				 .qn = SIW_DDP_QN_TERM, .msn = 1,
				 .last = true };
	u32 start = g->len, n;
	int hl;

	switch (mut) {
	case FZ_M_GARBAGE:
		n = 1 + fz_below(&g->rng, FZ_GARBAGE_MAX);
		fz_fill(&g->rng, g->wire + g->len, n);
		g->len += n;
		g->mtx.pos += n;
		break;
	case FZ_M_JUNK_FPDU:
		n = fz_below(&g->rng, FZ_GARBAGE_MAX);
		fz_fill(&g->rng, g->ulpdu, n);
		/* half of them pass the version checks */
		if (n >= 2 && fz_chance(&g->rng, 2)) {
			g->ulpdu[0] = (g->ulpdu[0] & ~SIW_DDP_CTRL_DV) |
				      SIW_DDP_VERSION;
			g->ulpdu[1] = (g->ulpdu[1] & ~SIW_RDMAP_CTRL_RV) |
				      SIW_RDMAP_VERSION << SIW_RDMAP_CTRL_RV_SHIFT;
		}
		start = fz_frame(g, g->ulpdu, n);
		break;
	case FZ_M_REPLAY:
		start = fz_frame(g, g->prev, g->prev_len);
		break;
	case FZ_M_RREQ:
		if (rreq)
			return;
		h = (struct siw_ddp_hdr){ .opcode = SIW_RDMAP_READ_REQ,
					  .qn = SIW_DDP_QN_RREQ,
					  .msn = g->rreq_msn, .last = true };
		hl = siw_ddp_hdr_encode(&h, g->ulpdu, FZ_ULPDU_MAX);
		KUNIT_ASSERT_GT(g->test, hl, 0);
		fz_rreq_hdr(g, g->ulpdu + hl);
		fz_bad_rreq(&g->rng, g->ulpdu + hl);
		start = fz_frame(g, g->ulpdu, hl + SIW_RDMAP_RREQ_LEN);
		break;
	case FZ_M_BAD_TERM:
		if (fz_chance(&g->rng, 2))
			h.msn = fz_bad_u32(&g->rng, 1);
		hl = siw_ddp_hdr_encode(&h, g->ulpdu, FZ_ULPDU_MAX);
		KUNIT_ASSERT_GT(g->test, hl, 0);
		n = fz_below(&g->rng, SIW_RDMAP_TERM_MAX_LEN + 8);
		fz_fill(&g->rng, g->ulpdu + hl, n);
		start = fz_frame(g, g->ulpdu, hl + n);
		break;
	default:
		return;
	}
	fz_taint(g, mut, start);
}

/*
 * Make a segment reach 1 to 8 octets past what it may touch: a Send past
 * its receive buffer (the payload grows by *@grow), a tagged segment
 * past its region's end (the TO moves), a Read Request past its source
 * (the length grows). Returns the error that must follow, SIW_DDP_OK if
 * none is certain (an empty segment or a zero-length Read).
 */
static enum siw_ddp_err fz_overrun(struct fz_gen *g, struct siw_ddp_hdr *m,
				   u8 *fx, u32 fixed_len, u32 len, u32 *grow)
{
	u32 k = 1 + fz_below(&g->rng, 8);
	const struct fz_region_def *d;
	struct siw_rdmap_rreq rr;
	bool top;

	*grow = 0;
	if (fixed_len == SIW_RDMAP_RREQ_LEN) {
		siw_rdmap_rreq_decode(fx, &rr);
		if (!rr.len)
			return SIW_DDP_OK;
		d = fz_region_of(rr.src_stag);
		/* octets from src_to to the end, mod 2^64 for region 5 */
		rr.len = (u32)(d->base + d->len - rr.src_to) + k;
		siw_rdmap_rreq_encode(&rr, fx);
		top = d->base + (d->len - 1) == U64_MAX;
		return top ? SIW_DDP_ERR_RDMAP_TO_WRAP :
			     SIW_DDP_ERR_RDMAP_BASE_BOUNDS;
	}
	if (m->tagged) {
		if (!len)
			return SIW_DDP_OK;
		d = fz_region_of(m->stag);
		m->to = d->base + d->len - len + k;
		/*
		 * at the top of the space the end wraps, unless the TO
		 * itself wrapped (k >= len) and now lies below the base
		 */
		top = m->to + (len - 1) < m->to;
		return top ? SIW_DDP_ERR_DDP_T_TO_WRAP :
			     SIW_DDP_ERR_DDP_T_BASE_BOUNDS;
	}
	*grow = g->rbuf_len - (m->mo + len) + k;
	return SIW_DDP_ERR_DDP_U_TOO_LONG;
}

/*
 * One segment: header @h, then @fixed_len octets at @fixed (a Read
 * Request header), then @len payload octets at @data. Damaged at the
 * stream's rate unless @cause already says why the well-formed part
 * ends here.
 */
static void fz_segment(struct fz_gen *g, const struct siw_ddp_hdr *h,
		       const u8 *fixed, u32 fixed_len, const u8 *data,
		       u32 len, int cause)
{
	enum siw_ddp_err want = SIW_DDP_OK;
	struct siw_ddp_hdr m = *h;
	u8 fx[SIW_RDMAP_RREQ_LEN] = {};
	int mut = FZ_C_NONE;
	u32 ulen, start, n, grow = 0;
	bool first;
	int hl;

	/* damage only where the wire has room for what damage adds */
	if (cause == FZ_C_NONE && g->rate &&
	    g->len + FZ_WIRE_ROOM <= FZ_WIRE_SIZE &&
	    fz_chance(&g->rng, g->rate))
		mut = fz_pick(&g->rng);
	fz_insert(g, mut, fixed_len == SIW_RDMAP_RREQ_LEN);
	if (fixed_len)
		memcpy(fx, fixed, fixed_len);
	fz_damage_hdr(g, mut, &m, fx, fixed_len);
	if (mut == FZ_M_OVERRUN)
		want = fz_overrun(g, &m, fx, fixed_len, len, &grow);
	hl = siw_ddp_hdr_encode(&m, g->ulpdu, FZ_ULPDU_MAX);
	KUNIT_ASSERT_GT(g->test, hl, 0);
	fz_damage_ctrl(g, mut, g->ulpdu);
	memcpy(g->ulpdu + hl, fx, fixed_len);
	if (len)
		memcpy(g->ulpdu + hl + fixed_len, data, len);
	ulen = hl + fixed_len + len;
	if (mut == FZ_M_SHORTEN) {
		ulen = fz_below(&g->rng, ulen);
	} else if (mut == FZ_M_LENGTHEN || grow) {
		n = grow ? grow : 1 + fz_below(&g->rng, FZ_EXTRA_MAX);
		fz_fill(&g->rng, g->ulpdu + ulen, n);
		ulen += n;
	} else if (mut == FZ_C_NONE) {
		memcpy(g->prev, g->ulpdu, ulen);
		g->prev_len = ulen;
	}
	start = fz_frame(g, g->ulpdu, ulen);

	switch (mut) {
	case FZ_M_CRC:
		/* the last octet of an FPDU is always one of its CRC */
		g->wire[g->len - 1] ^= BIT(fz_below(&g->rng, 8));
		break;
	case FZ_M_FLIP:
		g->wire[start + fz_below(&g->rng, g->len - start)] ^=
			BIT(fz_below(&g->rng, 8));
		break;
	case FZ_M_MARKER:
		if (fz_hit_marker(g, start))
			want = SIW_DDP_ERR_LLP_MARKER;
		break;
	case FZ_M_CUT:
		g->len = start + fz_below(&g->rng, g->len - start);
		g->ended = true;
		break;
	default:
		break;
	}
	if ((mut == FZ_M_CRC || mut == FZ_M_FLIP || mut == FZ_M_MARKER) &&
	    g->crc &&
	    g->nbad < FZ_MAX_BAD)
		g->bad_hdr[g->nbad++] = fz_hdr_pos(g, start);
	first = !g->tainted;
	if (mut != FZ_C_NONE)
		fz_taint(g, mut, start);
	else if (cause != FZ_C_NONE)
		fz_taint(g, cause, start);
	if (first && g->tainted)
		g->cause_err = want;
}

/*
 * A message length: mostly short, now and then up to @max, and now and
 * then right at it (a buffer filled to its last octet)
 */
static u32 fz_msg_len(struct fz_gen *g, u32 max)
{
	u32 cap = min(max, g->seg_max * FZ_SEGS_MAX);

	switch (fz_below(&g->rng, 10)) {
	case 0:
		return 0;
	case 1: case 2: case 3: case 4:
		return fz_below(&g->rng, min(cap, 64U) + 1);
	case 5: case 6: case 7:
		return fz_below(&g->rng, min(cap, 512U) + 1);
	case 8:
		return cap - fz_below(&g->rng, min(cap, 3U) + 1);
	default:
		return fz_below(&g->rng, cap + 1);
	}
}

/* Payload of segment @i with @left octets to go: full, or now and then short */
static u32 fz_seg_len(struct fz_gen *g, u32 left, u32 i)
{
	u32 n = min(left, g->seg_max);

	if (i < FZ_SHORT_SEGS && n > 1 && fz_chance(&g->rng, 8))
		n = 1 + fz_below(&g->rng, n);
	return n;
}

static void fz_send(struct fz_gen *g)
{
	static const u8 ops[] = { SIW_RDMAP_SEND, SIW_RDMAP_SEND_INV,
				  SIW_RDMAP_SEND_SE, SIW_RDMAP_SEND_SE_INV };
	struct siw_ddp_hdr h = { .opcode = ops[fz_below(&g->rng, 4)],
				 .qn = SIW_DDP_QN_SEND, .msn = g->send_msn };
	u32 len = fz_msg_len(g, g->rbuf_len), mo = 0, n, i = 0;
	const u8 *data = fz_take(g, len);
	int cause = FZ_C_NONE;

	if (siw_rdmap_opinfo(h.opcode)->flags & SIW_RDMAP_F_INVALIDATE)
		h.inval_stag = fz_stag(&fz_regions[1]);
	if (g->bufs_left)
		g->bufs_left--;
	else
		cause = FZ_C_NO_BUF;
	do {
		n = fz_seg_len(g, len - mo, i++);
		h.mo = mo;
		h.last = mo + n == len;
		fz_segment(g, &h, NULL, 0, data + mo, n, cause);
		cause = FZ_C_NONE;
		if (!g->tainted) {
			memcpy(g->want_rbuf + mo, data + mo, n);
			g->placed += n;
		}
		mo += n;
	} while (mo < len && !g->ended);
	if (!g->tainted)
		g->ndone++;
	g->send_msn++;
}

/* An RDMA Write or Read Response into a region that takes it */
static void fz_tagged(struct fz_gen *g, u8 opcode)
{
	const u8 *sinks = opcode == SIW_RDMAP_WRITE ? fz_write_sinks :
						      fz_rresp_sinks;
	const struct fz_region_def *d;
	struct siw_ddp_hdr h = { .opcode = opcode, .tagged = true };
	u32 len, done = 0, n, i = 0, off, empty = 0;
	const u8 *data;
	u64 to;

	d = &fz_regions[sinks[fz_below(&g->rng, 5)] - 1];
	h.stag = fz_stag(d);
	len = fz_msg_len(g, d->len);
	data = fz_take(g, len);

	/* a quarter of them end at the region's last octet */
	off = fz_chance(&g->rng, 4) ? d->len - len :
				       fz_below(&g->rng, d->len - len + 1);
	to = d->base + off;
	if (!len) {
		/* RFC 5041 5.2: STag and TO of an empty segment go unchecked */
		h.stag = (u32)fz_next(&g->rng);
		to = fz_next(&g->rng);
	}
	do {
		/*
		 * now and then an empty segment that is not the last: it
		 * places nothing and has nothing checked (RFC 5041 5.2),
		 * so half of them name any STag and TO, and the receiver
		 * holds no region after it
		 */
		if (len && empty < FZ_EMPTY_SEGS && fz_chance(&g->rng, 12)) {
			empty++;
			h.to = to + done;
			if (fz_chance(&g->rng, 2)) {
				h.stag = (u32)fz_next(&g->rng);
				h.to = fz_next(&g->rng);
			}
			h.last = false;
			fz_segment(g, &h, NULL, 0, NULL, 0, FZ_C_NONE);
			h.stag = fz_stag(d);
			g->nempty += !g->tainted;
			if (g->ended)
				break;
		}
		n = fz_seg_len(g, len - done, i++);
		h.to = to + done;
		h.last = done + n == len;
		fz_segment(g, &h, NULL, 0, data + done, n, FZ_C_NONE);
		if (!g->tainted) {
			memcpy(g->want[d - fz_regions] + off + done,
			       data + done, n);
			g->placed += n;
		}
		done += n;
	} while (done < len && !g->ended);
	if (!g->tainted)
		g->ndone++;
}

static void fz_rreq(struct fz_gen *g)
{
	struct siw_ddp_hdr h = { .opcode = SIW_RDMAP_READ_REQ,
				 .qn = SIW_DDP_QN_RREQ, .msn = g->rreq_msn,
				 .last = true };
	int cause = FZ_C_NONE;
	u8 fx[SIW_RDMAP_RREQ_LEN];

	if (g->reads_out >= g->ird)
		cause = FZ_C_NO_IRD;
	fz_rreq_hdr(g, fx);
	fz_segment(g, &h, fx, sizeof(fx), NULL, 0, cause);
	g->rreq_msn++;
	if (cause == FZ_C_NONE) {
		/* the Read Response goes out a few FPDUs later */
		g->reads_out++;
		g->pending[g->npending++] = g->nfpdu + fz_below(&g->rng, 6);
	}
	if (!g->tainted)
		g->nrreq++;
}

/* A well-formed Terminate: the stream stops after it */
static void fz_term(struct fz_gen *g)
{
	struct siw_rdmap_term_info ti = {
		.seg = fz_take(g, SIW_RDMAP_TERM_MAX_LEN),
		.seg_avail = fz_below(&g->rng, SIW_RDMAP_TERM_MAX_LEN + 1),
		.seg_len = (u16)fz_next(&g->rng),
		.seg_len_valid = fz_chance(&g->rng, 2),
	};
	u8 msg[SIW_RDMAP_TERM_MAX_MSG];
	int n;

	do {
		ti.err = 1 + fz_below(&g->rng, SIW_DDP_NUM_ERR - 1);
	} while (!siw_ddp_errinfo(ti.err)->on_wire);
	n = siw_rdmap_term_build(&ti, 1, msg, sizeof(msg));
	KUNIT_ASSERT_GT(g->test, n, 0);
	fz_frame(g, msg, n);
	if (!g->tainted) {
		g->want_term = true;
		fz_taint(g, FZ_C_TERM, g->len);
	}
	/* a few more, which must go nowhere */
	g->budget = min(g->budget, g->nfpdu + 3);
}

static void fz_message(struct fz_gen *g)
{
	u32 k = fz_below(&g->rng, 1000);

	/* from the next message on, the QP layer refuses what it is given */
	if (!g->tainted && fz_chance(&g->rng, 200))
		fz_taint(g, FZ_C_LOCAL, g->len);
	if (k < 340)
		fz_send(g);
	else if (k < 640)
		fz_tagged(g, SIW_RDMAP_WRITE);
	else if (k < 790)
		fz_tagged(g, SIW_RDMAP_READ_RESP);
	else if (k < 997 && (g->reads_out < g->ird ||
			     (g->rate && fz_chance(&g->rng, 16))))
		fz_rreq(g);
	else if (k < 997)
		fz_tagged(g, SIW_RDMAP_WRITE);
	else
		fz_term(g);
}

/* Write stream @idx of @seed, and the model of its well-formed part */
static void fz_generate(struct fz_gen *g, u64 seed, unsigned int idx)
{
	static const u32 rates[] = { 0, 0, 0, 128, 128, 64, 24, 24, 8, 2 };
	static const u32 seg_maxes[] = { 16, 64, 200, 512, 1024, 1024 };
	static const u32 rbufs[] = { 64, 256, 1024, 4096, 4096 };
	static const u8 cuts[] = {
		FZ_CUT_BIG, FZ_CUT_BIG, FZ_CUT_BIG, FZ_CUT_BIG, FZ_CUT_BIG,
		FZ_CUT_BIG, FZ_CUT_BIG, FZ_CUT_SMALL, FZ_CUT_SMALL,
		FZ_CUT_SMALL, FZ_CUT_SMALL, FZ_CUT_TINY, FZ_CUT_OCTET,
		FZ_CUT_SKB, FZ_CUT_SKB, FZ_CUT_SKB, FZ_CUT_SKB, FZ_CUT_MIXED,
		FZ_CUT_MIXED, FZ_CUT_MIXED,
	};
	struct fz_rng *r = &g->rng;
	unsigned int i;

	r->s = seed ^ ((u64)(idx + 1) * FZ_GOLDEN);
	fz_next(r);
	g->len = 0;
	g->prev_len = 0;
	g->cut = cuts[fz_below(r, ARRAY_SIZE(cuts))];
	g->crc = !fz_chance(r, 5);
	g->markers = fz_chance(r, 3);
	g->rate = rates[fz_below(r, ARRAY_SIZE(rates))];
	g->rbuf_len = rbufs[fz_below(r, ARRAY_SIZE(rbufs))];
	g->nbufs = fz_chance(r, 10) ? fz_below(r, 8) : FZ_PLENTY;
	g->ird = fz_below(r, 5);
	if (g->cut == FZ_CUT_TINY || g->cut == FZ_CUT_OCTET) {
		/* short streams of short segments: these cost the most */
		g->seg_max = seg_maxes[fz_below(r, 2)];
		g->budget = 10 + fz_below(r, 20);
	} else {
		g->seg_max = seg_maxes[fz_below(r, ARRAY_SIZE(seg_maxes))];
		g->budget = 40 + fz_below(r, 140);
	}
	g->ended = false;
	g->send_msn = 1;
	g->rreq_msn = 1;
	g->bufs_left = g->nbufs;
	g->reads_out = 0;
	g->nfpdu = 0;
	g->npending = 0;
	g->ncredit = 0;
	g->nbad = 0;
	g->tainted = false;
	g->cause = FZ_C_NONE;
	g->clean_end = 0;
	g->cause_end = 0;
	g->cause_err = SIW_DDP_OK;
	g->ndone = 0;
	g->nrreq = 0;
	g->placed = 0;
	g->nempty = 0;
	g->want_term = false;
	memset(g->want_rbuf, ENG_GUARD_VAL, FZ_RBUF_MAX);
	for (i = 0; i < FZ_NREG; i++)
		memset(g->want[i], ENG_GUARD_VAL, fz_regions[i].len);
	siw_mpa_tx_init(&g->mtx, g->markers, g->crc);

	while (!g->ended && g->nfpdu < g->budget &&
	       g->nfpdu + FZ_FPDU_ROOM <= FZ_MAX_FPDU &&
	       g->len + FZ_WIRE_ROOM <= FZ_WIRE_SIZE)
		fz_message(g);
	if (!g->tainted)
		g->clean_end = g->len;
}

/**
 * struct fz_snap - what a stopped stream must leave alone
 * @sum: CRC32c of every buffer of the fake peer, guards included
 * @nplace: placement calls
 * @placed: octets placed
 * @ndone: completions
 * @nrreq: Read Requests delivered
 * @nrresp: Read Responses shown to the fake ORQ
 * @nterm: Terminates delivered
 * @refs: region references held
 */
struct fz_snap {
	u32 sum;
	unsigned int nplace;
	u32 placed;
	unsigned int ndone;
	unsigned int nrreq;
	unsigned int nrresp;
	unsigned int nterm;
	int refs;
};

/**
 * struct fz_run - one stream received
 * @test: the case
 * @seed: the case's seed
 * @idx: the stream's index
 * @g: the stream
 * @p: the fake peer
 * @rx: the engine
 * @rng: chunk sizes and skb layouts
 * @at: octets consumed
 * @next_credit: next of @g->credit to reach
 * @puts: IRD slots given back
 * @bound: a receive buffer is bound to the Send in progress
 * @dead: the engine stopped
 * @stop_at: octets consumed when it did
 * @snap: the fake peer then
 * @why: the first thing a callback found wrong
 * @why_at: @at then
 * @failed: a check failed
 */
struct fz_run {
	struct kunit *test;
	u64 seed;
	unsigned int idx;
	struct fz_gen *g;
	struct eng_peer *p;
	struct siw_engine_rx *rx;
	struct fz_rng rng;
	u32 at;
	u32 next_credit;
	u32 puts;
	bool bound;
	bool dead;
	u32 stop_at;
	struct fz_snap snap;
	const char *why;
	u32 why_at;
	bool failed;
};

/* Checks name the seed and stream that reproduce a failure */
#define FZ_EXPECT(r, cond, fmt, ...)					\
	do {								\
		struct fz_run *__r = (r);				\
		bool __ok = (cond);					\
									\
		KUNIT_EXPECT_TRUE_MSG(__r->test, __ok,			\
				      "seed %#llx stream %u: " fmt,	\
				      __r->seed, __r->idx, ##__VA_ARGS__); \
		if (!__ok)						\
			__r->failed = true;				\
	} while (0)

static void fz_bad(struct fz_run *r, const char *why)
{
	if (r->why)
		return;
	r->why = why;
	r->why_at = r->at;
}

/* Every callback: is the stream live, and may this FPDU deliver? */
static void fz_callback(struct fz_run *r, bool delivers)
{
	u32 i;

	if (r->dead || siw_engine_rx_stopped(r->rx))
		fz_bad(r, "callback after the stream stopped");
	if (!delivers || !r->g->crc)
		return;
	for (i = 0; i < r->g->nbad; i++)
		if (r->rx->mpa.start == r->g->bad_hdr[i])
			fz_bad(r, "delivered from an FPDU whose CRC is wrong");
}

/* The definition of the region the engine found, NULL if not one of ours */
static const struct fz_region_def *fz_def(const struct fz_run *r,
					  const struct siw_ddp_region *reg)
{
	const struct eng_region *e = reg->obj;

	if (!e || e < r->p->reg || e >= r->p->reg + FZ_NREG)
		return NULL;
	return &fz_regions[e - r->p->reg];
}

static int fz_recv_buf(void *ctx, const struct siw_ddp_hdr *h, u32 *len)
{
	struct fz_run *r = ctx;
	int rv;

	fz_callback(r, false);
	if (r->bound)
		fz_bad(r, "a second receive buffer for one Send");
	if (h->tagged || h->qn != SIW_DDP_QN_SEND || h->mo ||
	    siw_rdmap_opinfo(h->opcode)->class != SIW_RDMAP_CLASS_SEND)
		fz_bad(r, "a receive buffer for what is no Send's start");
	rv = eng_recv_buf(r->p, h, len);
	if (!rv)
		r->bound = true;
	return rv;
}

static enum siw_ddp_err fz_recv_place(void *ctx, const struct siw_ddp_hdr *h,
				      u32 mo, const void *data, u32 len,
				      u32 *crc)
{
	struct fz_run *r = ctx;

	fz_callback(r, false);
	if (!r->bound)
		fz_bad(r, "untagged placement without a receive buffer");
	if (h->tagged || h->qn != SIW_DDP_QN_SEND)
		fz_bad(r, "untagged placement of no Send");
	return eng_recv_place(r->p, h, mo, data, len, crc);
}

static enum siw_ddp_err fz_tagged_place(void *ctx,
					const struct siw_ddp_region *reg,
					u64 to, const void *data, u32 len,
					u32 *crc)
{
	struct fz_run *r = ctx;
	const struct siw_ddp_hdr *h = &r->rx->h;
	const struct fz_region_def *d = fz_def(r, reg);
	u32 need;

	fz_callback(r, false);
	if (!d) {
		fz_bad(r, "tagged placement into no region of ours");
		return SIW_DDP_ERR_RDMAP_CATA_STREAM;
	}
	need = h->opcode == SIW_RDMAP_READ_RESP ? FZ_RW | FZ_LW : FZ_RW;
	if (!h->tagged || !(siw_rdmap_opinfo(h->opcode)->flags &
			    SIW_RDMAP_F_TAGGED))
		fz_bad(r, "tagged placement of an untagged segment");
	if (!d->valid || d->foreign)
		fz_bad(r, "placement into an invalid or foreign region");
	if (h->stag != fz_stag(d))
		fz_bad(r, "placement through an STag with the wrong key");
	if (!(d->access & need))
		fz_bad(r, "placement into a region without write access");
	if (to < d->base || to - d->base > d->len ||
	    len > d->len - (to - d->base))
		fz_bad(r, "placement outside its region");
	if (r->p->refs <= 0)
		fz_bad(r, "placement without a reference on the region");
	return eng_tagged_place(r->p, reg, to, data, len, crc);
}

static enum siw_ddp_err fz_read_resp(void *ctx, const struct siw_ddp_hdr *h,
				     u32 len)
{
	struct fz_run *r = ctx;

	fz_callback(r, false);
	return eng_read_resp(r->p, h, len);
}

static enum siw_ddp_err fz_read_req(void *ctx, const struct siw_rdmap_rreq *rr,
				    const struct siw_ddp_region *src)
{
	struct fz_run *r = ctx;
	const struct fz_region_def *d = fz_def(r, src);
	u64 last;

	fz_callback(r, true);
	if (!rr->len) {
		if (src->state == SIW_DDP_REGION_VALID)
			fz_bad(r, "a zero-length Read Request holds a region");
	} else if (!d || !d->valid || d->foreign || !(d->access & FZ_RR) ||
		   rr->src_stag != fz_stag(d) || src->stag != rr->src_stag) {
		fz_bad(r, "a Read Request from a source it may not read");
	} else if (check_add_overflow(rr->src_to, (u64)rr->len - 1, &last) ||
		   rr->src_to < d->base || last > d->base + (d->len - 1)) {
		fz_bad(r, "a Read Request beyond its source");
	}
	return eng_read_req(r->p, rr, src);
}

static void fz_terminate(void *ctx, const struct siw_rdmap_term_report *rep)
{
	struct fz_run *r = ctx;

	fz_callback(r, true);
	eng_terminate(r->p, rep);
}

static void fz_msg_done(void *ctx, const struct siw_engine_rx_msg *m)
{
	struct fz_run *r = ctx;
	const struct siw_ddp_hdr *h = m->hdr;
	const struct fz_region_def *d;

	fz_callback(r, true);
	if (!h->last)
		fz_bad(r, "a completion on a segment without the L bit");
	if (!h->tagged) {
		if (!r->bound)
			fz_bad(r, "a Send completed without a receive buffer");
		if (m->len > r->g->rbuf_len)
			fz_bad(r, "a Send longer than its receive buffer");
		r->bound = false;
		if (!m->inval != !(siw_rdmap_opinfo(h->opcode)->flags &
				   SIW_RDMAP_F_INVALIDATE))
			fz_bad(r, "an invalidation the opcode does not ask for");
	}
	if (m->inval) {
		d = fz_def(r, m->inval);
		if (!d || !d->valid || d->foreign || !d->remote_inv ||
		    m->inval->stag != fz_stag(d) ||
		    h->inval_stag != m->inval->stag)
			fz_bad(r, "an invalidation of a region that forbids it");
	}
	eng_msg_done(r->p, m);
}

static const struct siw_engine_rx_ops fz_rx_ops = {
	.recv_buf = fz_recv_buf,
	.recv_place = fz_recv_place,
	.tagged_place = fz_tagged_place,
	.read_resp = fz_read_resp,
	.read_req = fz_read_req,
	.terminate = fz_terminate,
	.msg_done = fz_msg_done,
};

/* Every buffer of the fake peer, guards included */
static u32 fz_mem_sum(const struct eng_peer *p)
{
	u32 sum, i;

	sum = crc32c(0, p->rbuf - ENG_GUARD, FZ_RBUF_MAX + 2 * ENG_GUARD);
	for (i = 0; i < FZ_NREG; i++)
		sum = crc32c(sum, p->reg[i].mem - ENG_GUARD,
			     p->reg[i].size + 2 * ENG_GUARD);
	return sum;
}

static void fz_snapshot(const struct eng_peer *p, struct fz_snap *s)
{
	s->sum = fz_mem_sum(p);
	s->nplace = p->nplace;
	s->placed = p->placed;
	s->ndone = p->ndone;
	s->nrreq = p->nrreq;
	s->nrresp = p->nrresp;
	s->nterm = p->nterm;
	s->refs = p->refs;
}

/* Octets in the next chunk, and whether it goes in an skb */
static u32 fz_chunk(struct fz_run *r, bool *skb)
{
	int cut = r->g->cut;

	if (cut == FZ_CUT_MIXED) {
		static const u8 any[] = { FZ_CUT_BIG, FZ_CUT_SMALL,
					  FZ_CUT_TINY, FZ_CUT_SKB };

		cut = any[fz_below(&r->rng, ARRAY_SIZE(any))];
	}
	*skb = cut == FZ_CUT_SKB;
	switch (cut) {
	case FZ_CUT_BIG:
		return 1 + fz_below(&r->rng, 4096);
	case FZ_CUT_SMALL:
		return 1 + fz_below(&r->rng, 96);
	case FZ_CUT_TINY:
		return 1 + fz_below(&r->rng, 8);
	case FZ_CUT_SKB:
		return 1 + fz_below(&r->rng, FZ_SKB_MAX);
	default:
		return 1;
	}
}

/*
 * @n octets at @src in an skb: a few octets that are not the stream,
 * a linear part, then up to four page fragments at random offsets.
 */
static size_t fz_push_skb(struct fz_run *r, const u8 *src, u32 n)
{
	u32 junk = fz_below(&r->rng, 4), head = fz_below(&r->rng, n + 1);
	unsigned int nfrags = 0, used;
	struct sk_buff *skb;
	struct page *pg;
	u32 at, k, off;

	skb = alloc_skb(junk + head, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(r->test, skb);
	memset(skb_put(skb, junk), 0xa5, junk);
	skb_put_data(skb, src, head);
	for (at = head; at < n; at += k) {
		k = n - at;
		if (nfrags < 3)
			k = 1 + fz_below(&r->rng, k);
		off = fz_below(&r->rng, PAGE_SIZE - k + 1);
		pg = alloc_page(GFP_KERNEL);
		if (!pg)
			kfree_skb(skb);
		KUNIT_ASSERT_NOT_NULL(r->test, pg);
		memcpy(page_address(pg) + off, src + at, k);
		skb_fill_page_desc(skb, nfrags++, pg, off, k);
		skb->len += k;
		skb->data_len += k;
		skb->truesize += PAGE_SIZE;
	}
	used = siw_engine_rx_skb(r->rx, skb, junk, n);
	kfree_skb(skb);
	return used;
}

static size_t fz_push(struct fz_run *r, const u8 *src, u32 n, bool skb)
{
	if (skb)
		return fz_push_skb(r, src, n);
	return siw_engine_rx_feed(r->rx, src, n);
}

/* After each chunk: did the engine stop? Are Read Responses out? */
static void fz_settle(struct fz_run *r)
{
	const struct fz_gen *g = r->g;

	if (!r->dead && siw_engine_rx_stopped(r->rx)) {
		r->dead = true;
		r->stop_at = r->at;
		fz_snapshot(r->p, &r->snap);
	}
	/* the QP layer frees an IRD slot only for a Read it was given */
	while (r->next_credit < g->ncredit &&
	       g->credit[r->next_credit] <= r->at) {
		if (!r->dead && r->p->nrreq > r->puts) {
			siw_engine_rx_ird_put(r->rx);
			r->puts++;
		}
		r->next_credit++;
	}
}

/* Feed the stream up to offset @to, chunk by chunk, until the engine stops */
static void fz_feed(struct fz_run *r, u32 to)
{
	const struct fz_gen *g = r->g;
	size_t used;
	u32 end;
	bool skb;

	while (r->at < to && !r->dead) {
		end = min(to, r->at + fz_chunk(r, &skb));
		if (r->next_credit < g->ncredit)
			end = min(end, g->credit[r->next_credit]);
		used = fz_push(r, g->wire + r->at, end - r->at, skb);
		if (used > end - r->at) {
			fz_bad(r, "consumed more octets than given");
			used = end - r->at;
		}
		r->at += used;
		fz_settle(r);
		if (r->at < end && !r->dead) {
			fz_bad(r, "octets refused by a running engine");
			break;
		}
	}
}

/* A stopped engine takes nothing more: feed it what is left, and more */
static void fz_poke(struct fz_run *r)
{
	const struct fz_gen *g = r->g;
	u32 from = r->at < g->len ? r->at : 0;
	u32 n = min_t(u32, g->len - from, 1 + fz_below(&r->rng, FZ_SKB_MAX));
	size_t a, b = 0;

	if (!n)
		return;
	a = siw_engine_rx_feed(r->rx, g->wire + from, g->len - from);
	b = fz_push_skb(r, g->wire + from, n);
	FZ_EXPECT(r, !a && !b, "a stopped engine consumed %zu and %zu octets",
		  a, b);
}

/*
 * References the receiver should hold once the well-formed part is in:
 * one if its last FPDU is a tagged segment with payload and not the
 * last of its message, from what the generator framed, not from the
 * engine's own view
 */
static int fz_refs_after_clean(const struct fz_gen *g)
{
	u32 k;

	if (g->want_term)
		return 0;
	for (k = 0; k < g->nfpdu; k++)
		if (g->fpdu_end[k] == g->clean_end)
			return g->open_after[k];
	return 0;
}

/* The well-formed part was received as the model says */
static void fz_check_clean(struct fz_run *r)
{
	const struct fz_gen *g = r->g;
	const struct eng_peer *p = r->p;
	enum siw_ddp_err err = siw_engine_rx_error(r->rx);
	int refs = fz_refs_after_clean(g);
	u32 i;

	if (g->want_term) {
		FZ_EXPECT(r, r->dead && r->stop_at == g->clean_end && !err &&
			  p->nterm == 1,
			  "a Terminate ending at %u: stopped %d at %u, %u delivered, error %s",
			  g->clean_end, r->dead, r->stop_at, p->nterm,
			  siw_ddp_err_name(err));
	} else {
		FZ_EXPECT(r, !r->dead,
			  "stopped at %u inside the well-formed part (to %u): %s",
			  r->stop_at, g->clean_end, siw_ddp_err_name(err));
		FZ_EXPECT(r, r->at == g->clean_end &&
			  siw_mpa_rx_idle(&r->rx->mpa),
			  "consumed %u of the %u well-formed octets", r->at,
			  g->clean_end);
	}
	FZ_EXPECT(r, p->ndone == g->ndone, "%u messages completed, %u sent",
		  p->ndone, g->ndone);
	FZ_EXPECT(r, p->nrreq == g->nrreq, "%u Read Requests delivered, %u sent",
		  p->nrreq, g->nrreq);
	FZ_EXPECT(r, p->placed == g->placed, "%u octets placed, %u sent",
		  p->placed, g->placed);
	/* between FPDUs: the region of a tagged message under way, no other */
	FZ_EXPECT(r, p->refs == refs &&
		  p->refs == (r->rx->region.state == SIW_DDP_REGION_VALID),
		  "%d region references held between FPDUs, %d expected",
		  p->refs, refs);
	FZ_EXPECT(r, !memcmp(p->rbuf, g->want_rbuf, g->rbuf_len),
		  "the receive buffer differs from what the Sends carried");
	for (i = 0; i < FZ_NREG; i++)
		FZ_EXPECT(r, !memcmp(p->reg[i].mem, g->want[i],
				     fz_regions[i].len),
			  "region %u differs from what was written to it",
			  i + 1);
}

/* Damage whose outcome is certain, when it is the first */
static void fz_check_cause(struct fz_run *r)
{
	const struct fz_gen *g = r->g;
	enum siw_ddp_err err = siw_engine_rx_error(r->rx);
	bool at_end = r->dead && r->stop_at == g->cause_end;

	switch (g->cause) {
	case FZ_M_CRC:
		if (!g->crc)
			break;
		FZ_EXPECT(r, at_end && err == SIW_DDP_ERR_LLP_CRC,
			  "wrong CRC in the FPDU ending at %u: stopped %d at %u, %s",
			  g->cause_end, r->dead, r->stop_at,
			  siw_ddp_err_name(err));
		break;
	case FZ_M_VERSION:
		FZ_EXPECT(r, at_end && (err == SIW_DDP_ERR_DDP_T_VERSION ||
					err == SIW_DDP_ERR_DDP_U_VERSION ||
					err == SIW_DDP_ERR_RDMAP_VERSION),
			  "wrong version in the FPDU ending at %u: stopped %d at %u, %s",
			  g->cause_end, r->dead, r->stop_at,
			  siw_ddp_err_name(err));
		break;
	case FZ_M_MARKER:
		/* the marker comes before the CRC: nothing else can stop it */
		FZ_EXPECT(r, !g->cause_err ||
			  (r->dead && err == g->cause_err),
			  "wrong marker in the FPDU ending at %u: stopped %d at %u, %s",
			  g->cause_end, r->dead, r->stop_at,
			  siw_ddp_err_name(err));
		break;
	case FZ_M_OVERRUN:
		if (!g->cause_err)
			break;
		FZ_EXPECT(r, at_end && err == g->cause_err,
			  "past the end in the FPDU ending at %u: stopped %d at %u, %s, not %s",
			  g->cause_end, r->dead, r->stop_at,
			  siw_ddp_err_name(err), siw_ddp_err_name(g->cause_err));
		break;
	case FZ_C_NO_BUF:
	case FZ_C_NO_IRD:
		FZ_EXPECT(r, at_end && err == SIW_DDP_ERR_DDP_U_MSN_NO_BUF,
			  "%s in the FPDU ending at %u: stopped %d at %u, %s",
			  fz_cause_names[g->cause], g->cause_end, r->dead,
			  r->stop_at, siw_ddp_err_name(err));
		break;
	case FZ_M_CUT:
		/* closed before the FPDU's end */
		if (g->cause_end == g->clean_end)
			break;
		FZ_EXPECT(r, r->stop_at == g->len &&
			  err == SIW_DDP_ERR_LLP_CLOSED,
			  "cut at %u inside an FPDU: stopped at %u, %s",
			  g->len, r->stop_at, siw_ddp_err_name(err));
		break;
	case FZ_C_NONE:
		FZ_EXPECT(r, r->stop_at == g->len && !err,
			  "a well-formed stream of %u octets: stopped at %u, %s",
			  g->len, r->stop_at, siw_ddp_err_name(err));
		break;
	default:
		break;
	}
}

/* The Terminate the engine asks for can be built and parses back */
static void fz_check_answer(struct fz_run *r)
{
	const struct siw_ddp_errinfo *want, *got;
	u8 buf[SIW_RDMAP_TERM_MAX_MSG];
	struct siw_rdmap_term_report rep;
	struct siw_rdmap_term_info ti;
	enum siw_ddp_err perr;
	int n;

	if (!siw_engine_rx_term_info(r->rx, &ti))
		return;
	FZ_EXPECT(r, ti.seg_avail <= SIW_ENGINE_RX_KEEP,
		  "%zu segment octets kept", ti.seg_avail);
	n = siw_rdmap_term_build(&ti, 1, buf, sizeof(buf));
	FZ_EXPECT(r, n >= SIW_DDP_UNTAGGED_HLEN + SIW_RDMAP_TERM_HLEN,
		  "no Terminate for %s: %d", siw_ddp_err_name(ti.err), n);
	if (n < SIW_DDP_UNTAGGED_HLEN + SIW_RDMAP_TERM_HLEN)
		return;
	perr = siw_rdmap_term_parse(buf + SIW_DDP_UNTAGGED_HLEN,
				    n - SIW_DDP_UNTAGGED_HLEN, &rep);
	want = siw_ddp_errinfo(ti.err);
	got = siw_ddp_errinfo(rep.err);
	FZ_EXPECT(r, !perr && got->layer == want->layer &&
		  got->etype == want->etype && got->ecode == want->ecode,
		  "the Terminate for %s parses as %s (%s)",
		  siw_ddp_err_name(ti.err), siw_ddp_err_name(rep.err),
		  siw_ddp_err_name(perr));
	if (rep.has_ddp_hdr)
		FZ_EXPECT(r, rep.ddp_raw_len <= ti.seg_avail &&
			  !memcmp(rep.ddp_raw, ti.seg, rep.ddp_raw_len),
			  "the Terminate carries another header than the offending one");
}

/**
 * struct fz_totals - the whole suite, for the last case
 * @start: when the suite began
 * @streams: streams received
 * @clean: of which without damage
 * @fpdus: FPDUs written
 * @accepted: FPDUs the engine took whole and without error
 * @octets: stream octets written
 * @msgs: messages completed
 * @reads: Read Requests delivered
 * @terms: Terminates delivered
 * @empty: empty tagged segments inside messages, undamaged (fz_gen.nempty)
 * @errors: streams stopped on each error
 * @causes: streams whose well-formed part ended for each cause
 */
struct fz_totals {
	ktime_t start;
	u64 streams;
	u64 clean;
	u64 fpdus;
	u64 accepted;
	u64 octets;
	u64 msgs;
	u64 reads;
	u64 terms;
	u64 empty;
	u32 errors[SIW_DDP_NUM_ERR];
	u32 causes[FZ_NUM_CAUSES + 1];
};

static struct fz_totals fz_tot;

static void fz_count(const struct fz_run *r)
{
	const struct fz_gen *g = r->g;
	enum siw_ddp_err err = siw_engine_rx_error(r->rx);
	u32 i;

	fz_tot.streams++;
	fz_tot.clean += g->cause == FZ_C_NONE;
	fz_tot.fpdus += g->nfpdu;
	fz_tot.octets += g->len;
	fz_tot.msgs += r->p->ndone;
	fz_tot.reads += r->p->nrreq;
	fz_tot.terms += r->p->nterm;
	fz_tot.empty += g->nempty;
	fz_tot.errors[err]++;
	fz_tot.causes[g->cause]++;
	for (i = 0; i < g->nfpdu; i++)
		if (g->fpdu_end[i] < r->stop_at ||
		    (g->fpdu_end[i] == r->stop_at && !err))
			fz_tot.accepted++;
}

/**
 * struct fz_ctx - what a case allocates once for all its streams
 * @g: the generator
 * @r: the run
 * @p: the fake peer
 * @rx: the engine
 */
struct fz_ctx {
	struct fz_gen *g;
	struct fz_run *r;
	struct eng_peer *p;
	struct siw_engine_rx *rx;
};

static void fz_ctx_init(struct kunit *test, struct fz_ctx *c, u64 seed)
{
	struct fz_rng rng = { .s = seed };
	struct fz_gen *g;
	u32 i;

	c->g = kunit_kzalloc(test, sizeof(*c->g), GFP_KERNEL);
	c->r = kunit_kzalloc(test, sizeof(*c->r), GFP_KERNEL);
	c->rx = kunit_kzalloc(test, sizeof(*c->rx), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, c->g && c->r && c->rx);
	g = c->g;
	g->test = test;
	g->wire = kunit_kmalloc(test, FZ_WIRE_SIZE, GFP_KERNEL);
	g->pool = kunit_kmalloc(test, FZ_POOL_SIZE, GFP_KERNEL);
	g->ulpdu = kunit_kmalloc(test, FZ_ULPDU_MAX, GFP_KERNEL);
	g->prev = kunit_kmalloc(test, FZ_ULPDU_MAX, GFP_KERNEL);
	g->want_rbuf = kunit_kmalloc(test, FZ_RBUF_MAX, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, g->wire && g->pool && g->ulpdu && g->prev &&
			  g->want_rbuf);
	for (i = 0; i < FZ_NREG; i++) {
		g->want[i] = kunit_kmalloc(test, fz_regions[i].len, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, g->want[i]);
	}
	fz_fill(&rng, g->pool, FZ_POOL_SIZE);

	c->p = eng_peer_new(test, FZ_RBUF_MAX);
	for (i = 0; i < FZ_NREG; i++)
		eng_region_set(c->p, i + 1, fz_regions[i].key,
			       fz_regions[i].base, fz_regions[i].len,
			       fz_regions[i].access,
			       eng_pd(fz_regions[i].foreign),
			       fz_regions[i].valid, fz_regions[i].remote_inv);
}

/* Write stream @idx of @seed and receive it; false if a check failed */
static bool fz_stream(struct kunit *test, struct fz_ctx *c, u64 seed,
		      unsigned int idx)
{
	struct fz_gen *g = c->g;
	struct fz_run *r = c->r;
	struct eng_peer *p = c->p;
	struct siw_engine_rx_cfg cfg = {
		.ops = &fz_rx_ops, .ctx = r,
		.mem = { .ops = &eng_mem_ops, .ctx = p },
		.pd = eng_pd(false),
	};
	struct fz_snap now;

	fz_generate(g, seed, idx);

	/* the whole receive buffer back to guard octets, then the peer */
	memset(p->rbuf, ENG_GUARD_VAL, FZ_RBUF_MAX + ENG_GUARD);
	p->rbuf_len = g->rbuf_len;
	eng_peer_reset(p, g->nbufs);
	p->place_err = SIW_DDP_OK;
	p->read_resp_err = SIW_DDP_OK;
	p->read_req_err = SIW_DDP_OK;
	memset(r, 0, sizeof(*r));
	r->test = test;
	r->seed = seed;
	r->idx = idx;
	r->g = g;
	r->p = p;
	r->rx = c->rx;
	r->rng.s = g->rng.s ^ 0x6a09e667f3bcc909ULL;
	cfg.ird = g->ird;
	cfg.markers = g->markers;
	cfg.crc = g->crc;
	siw_engine_rx_init(r->rx, &cfg);

	fz_feed(r, g->clean_end);
	fz_check_clean(r);
	if (g->cause == FZ_C_LOCAL) {
		p->place_err = SIW_DDP_ERR_RDMAP_CATA_STREAM;
		p->read_resp_err = SIW_DDP_ERR_RDMAP_OPCODE;
		p->read_req_err = SIW_DDP_ERR_LLP_NO_IRD;
	}
	fz_feed(r, g->len);
	if (!r->dead) {
		siw_engine_rx_close(r->rx);
		FZ_EXPECT(r, siw_engine_rx_stopped(r->rx),
			  "still running after the close");
		r->dead = true;
		r->stop_at = r->at;
		fz_snapshot(p, &r->snap);
	}
	fz_check_cause(r);
	fz_check_answer(r);
	fz_poke(r);
	siw_engine_rx_close(r->rx);
	fz_snapshot(p, &now);
	FZ_EXPECT(r, !memcmp(&now, &r->snap, sizeof(now)),
		  "the peer changed after the stream stopped at %u: %u/%u placements, %u/%u completions",
		  r->stop_at, r->snap.nplace, now.nplace, r->snap.ndone,
		  now.ndone);
	FZ_EXPECT(r, !r->why, "%s (chunk at octet %u)", r->why ?: "",
		  r->why_at);
	FZ_EXPECT(r, !p->bad,
		  "the fake peer saw a placement outside its buffers or a wrong invalidation");
	FZ_EXPECT(r, eng_peer_guards_ok(p), "guard octets overwritten");
	FZ_EXPECT(r, !p->refs, "%d region references left", p->refs);
	fz_count(r);

	if (r->failed)
		kunit_info(test,
			   "seed %#llx stream %u: %u octets, %u FPDUs, crc %d, markers %d, cut %d, rate %u, ird %u, %u buffers of %u, first damage: %s at %u, stopped at %u: %s\n",
			   seed, idx, g->len, g->nfpdu, g->crc, g->markers,
			   g->cut, g->rate, g->ird, g->nbufs, g->rbuf_len,
			   fz_cause_names[g->cause], g->clean_end, r->stop_at,
			   siw_ddp_err_name(siw_engine_rx_error(r->rx)));
	return !r->failed;
}

static void fz_seed_desc(const u64 *seed, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "seed %#llx", *seed);
}

KUNIT_ARRAY_PARAM(fz_seed, fz_seeds, fz_seed_desc);

static void siw_fuzz_rx_streams(struct kunit *test)
{
	const u64 seed = *(const u64 *)test->param_value;
	u64 fpdus = fz_tot.fpdus, accepted = fz_tot.accepted;
	ktime_t t0 = ktime_get();
	struct fz_ctx c;
	unsigned int i;

	fz_ctx_init(test, &c, seed);
	for (i = 0; i < FZ_STREAMS; i++)
		if (!fz_stream(test, &c, seed, i))
			break;
	kunit_info(test, "seed %#llx: %u streams, %llu FPDUs, %llu taken, %lld ms\n",
		   seed, i, fz_tot.fpdus - fpdus, fz_tot.accepted - accepted,
		   ktime_ms_delta(ktime_get(), t0));
}

/*
 * Every error a peer can provoke with what it sends (and the QP layer's
 * local faults): some stream of the suite must stop on each.
 */
static const u8 fz_must_reach[] = {
	SIW_DDP_ERR_RDMAP_INVALID_STAG, SIW_DDP_ERR_RDMAP_BASE_BOUNDS,
	SIW_DDP_ERR_RDMAP_ACCESS, SIW_DDP_ERR_RDMAP_STAG_NOT_ASSOC,
	SIW_DDP_ERR_RDMAP_TO_WRAP, SIW_DDP_ERR_RDMAP_PROT_CANNOT_INV,
	SIW_DDP_ERR_RDMAP_VERSION, SIW_DDP_ERR_RDMAP_OPCODE,
	SIW_DDP_ERR_RDMAP_CATA_STREAM, SIW_DDP_ERR_RDMAP_OP_CANNOT_INV,
	SIW_DDP_ERR_RDMAP_OP_UNSPECIFIED, SIW_DDP_ERR_DDP_CATASTROPHIC,
	SIW_DDP_ERR_DDP_T_INVALID_STAG, SIW_DDP_ERR_DDP_T_BASE_BOUNDS,
	SIW_DDP_ERR_DDP_T_STAG_NOT_ASSOC, SIW_DDP_ERR_DDP_T_TO_WRAP,
	SIW_DDP_ERR_DDP_T_VERSION, SIW_DDP_ERR_DDP_U_INVALID_QN,
	SIW_DDP_ERR_DDP_U_MSN_NO_BUF, SIW_DDP_ERR_DDP_U_MSN_RANGE,
	SIW_DDP_ERR_DDP_U_INVALID_MO, SIW_DDP_ERR_DDP_U_TOO_LONG,
	SIW_DDP_ERR_DDP_U_VERSION, SIW_DDP_ERR_LLP_CLOSED,
	SIW_DDP_ERR_LLP_CRC, SIW_DDP_ERR_LLP_MARKER, SIW_DDP_ERR_LLP_NO_IRD,
};

/* The fuzz went deep enough: enough FPDUs, errors and kinds of damage */
static void siw_fuzz_rx_coverage(struct kunit *test)
{
	unsigned int i, nerr = 0;

	for (i = 1; i < SIW_DDP_NUM_ERR; i++) {
		if (!fz_tot.errors[i])
			continue;
		nerr++;
		kunit_info(test, "%u streams stopped on %x/%x/%02x: %s\n",
			   fz_tot.errors[i], siw_ddp_errinfo(i)->layer,
			   siw_ddp_errinfo(i)->etype, siw_ddp_errinfo(i)->ecode,
			   siw_ddp_err_name(i));
	}
	for (i = 0; i <= FZ_NUM_CAUSES; i++)
		kunit_info(test, "%u streams well formed up to: %s\n",
			   fz_tot.causes[i], fz_cause_names[i]);
	kunit_info(test,
		   "%llu streams (%llu undamaged), %llu octets, %llu FPDUs, %llu taken whole, %llu messages, %llu Read Requests, %llu Terminates, %llu empty inner tagged segments, %u distinct errors, %lld ms\n",
		   fz_tot.streams, fz_tot.clean, fz_tot.octets, fz_tot.fpdus,
		   fz_tot.accepted, fz_tot.msgs, fz_tot.reads, fz_tot.terms,
		   fz_tot.empty, nerr,
		   ktime_ms_delta(ktime_get(), fz_tot.start));
	KUNIT_EXPECT_EQ(test, fz_tot.streams,
			(u64)ARRAY_SIZE(fz_seeds) * FZ_STREAMS);
	KUNIT_EXPECT_GE(test, fz_tot.accepted, (u64)FZ_MIN_ACCEPTED);
	KUNIT_EXPECT_GT(test, fz_tot.empty, 0ULL);
	for (i = 0; i < ARRAY_SIZE(fz_must_reach); i++)
		KUNIT_EXPECT_GT_MSG(test, fz_tot.errors[fz_must_reach[i]], 0U,
				    "no stream stopped on: %s",
				    siw_ddp_err_name(fz_must_reach[i]));
	for (i = 0; i < FZ_NUM_CAUSES; i++)
		KUNIT_EXPECT_GT_MSG(test, fz_tot.causes[i], 0U,
				    "no stream's well-formed part ended on: %s",
				    fz_cause_names[i]);
}

static int siw_fuzz_rx_suite_init(struct kunit_suite *suite)
{
	memset(&fz_tot, 0, sizeof(fz_tot));
	fz_tot.start = ktime_get();
	return 0;
}

static struct kunit_case siw_fuzz_rx_cases[] = {
	KUNIT_CASE_PARAM(siw_fuzz_rx_streams, fz_seed_gen_params),
	KUNIT_CASE(siw_fuzz_rx_coverage),
	{}
};

static struct kunit_suite siw_fuzz_rx_suite = {
	.name = "siw_fuzz_rx",
	.suite_init = siw_fuzz_rx_suite_init,
	.test_cases = siw_fuzz_rx_cases,
};

kunit_test_suite(siw_fuzz_rx_suite);
