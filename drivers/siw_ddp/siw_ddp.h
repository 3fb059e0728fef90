/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DDP (RFC 5041) and RDMAP (RFC 5040): header codecs, placement rules,
 * STag checks and Terminate messages.
 *
 * Every function here is a pure function over buffers and over state
 * the caller owns: nothing allocates, sleeps or takes a lock, so all of
 * it may run in softirq context. Checks return an enum siw_ddp_err; a
 * non-zero value names one row of the RFC error table and is what the
 * Terminate message carries.
 *
 * See Documentation/ddp.rst.
 */
#ifndef SIW_DDP_H
#define SIW_DDP_H

#include <linux/bits.h>
#include <linux/types.h>

#define SIW_DDP_VERSION		1
#define SIW_RDMAP_VERSION	1

#define SIW_DDP_TAGGED_HLEN	14
#define SIW_DDP_UNTAGGED_HLEN	18
#define SIW_RDMAP_RREQ_LEN	28
#define SIW_RDMAP_TERM_HLEN	4
/* Terminate payload with every optional part: length, DDP and RDMA header */
#define SIW_RDMAP_TERM_MAX_LEN	(SIW_RDMAP_TERM_HLEN + 2 + \
				 SIW_DDP_UNTAGGED_HLEN + SIW_RDMAP_RREQ_LEN)
/* A whole Terminate message: its own DDP header plus the payload */
#define SIW_RDMAP_TERM_MAX_MSG	(SIW_DDP_UNTAGGED_HLEN + SIW_RDMAP_TERM_MAX_LEN)

/* Untagged queues RDMAP uses (RFC 5040 section 4.3) */
enum siw_ddp_qn {
	SIW_DDP_QN_SEND		= 0,
	SIW_DDP_QN_RREQ		= 1,
	SIW_DDP_QN_TERM		= 2,
	SIW_DDP_NUM_QN		= 3,
};

/* RDMAP opcodes (RFC 5040 section 4.3; the extensions of RFC 7306) */
enum siw_rdmap_opcode {
	SIW_RDMAP_WRITE		= 0x0,
	SIW_RDMAP_READ_REQ	= 0x1,
	SIW_RDMAP_READ_RESP	= 0x2,
	SIW_RDMAP_SEND		= 0x3,
	SIW_RDMAP_SEND_INV	= 0x4,
	SIW_RDMAP_SEND_SE	= 0x5,
	SIW_RDMAP_SEND_SE_INV	= 0x6,
	SIW_RDMAP_TERMINATE	= 0x7,
	/* RFC 7306 extensions: known, not supported */
	SIW_RDMAP_ATOMIC_REQ	= 0xa,
	SIW_RDMAP_ATOMIC_RESP	= 0xb,
	SIW_RDMAP_IMM		= 0xc,
	SIW_RDMAP_IMM_SE	= 0xd,
	SIW_RDMAP_NUM_OPCODES	= 16,
};

/* Which receive handler a message goes to */
enum siw_rdmap_class {
	SIW_RDMAP_CLASS_NONE,		/* reserved or unsupported opcode */
	SIW_RDMAP_CLASS_WRITE,		/* tagged placement, no completion */
	SIW_RDMAP_CLASS_READ_REQ,	/* queue a Read Response (responder) */
	SIW_RDMAP_CLASS_READ_RESP,	/* tagged placement, completes a Read */
	SIW_RDMAP_CLASS_SEND,		/* untagged placement into an RQ WQE */
	SIW_RDMAP_CLASS_TERMINATE,	/* report the peer's error */
};

#define SIW_RDMAP_F_SUPPORTED	BIT(0)	/* siw sends and accepts it */
#define SIW_RDMAP_F_TAGGED	BIT(1)	/* tagged buffer model (T = 1) */
#define SIW_RDMAP_F_SOLICITED	BIT(2)	/* solicited event */
#define SIW_RDMAP_F_INVALIDATE	BIT(3)	/* carries an Invalidate STag */
#define SIW_RDMAP_F_ONE_SEG	BIT(4)	/* one segment: L = 1, MO = 0 */
#define SIW_RDMAP_F_RFC7306	BIT(5)	/* defined by RFC 7306 */

/**
 * struct siw_rdmap_opinfo - what the protocol says about one opcode
 * @name: for logs and traces
 * @min_len: smallest legal message payload (after the DDP header)
 * @max_len: largest legal message payload
 * @access: IB_ACCESS_* bits the STag this message targets must grant
 *	(RDMA Write and Read Response: the sink; Read Request: the source)
 * @hdr_len: DDP header length, 14 (tagged) or 18 (untagged)
 * @qn: untagged queue (for untagged opcodes)
 * @flags: SIW_RDMAP_F_*
 * @class: enum siw_rdmap_class
 */
struct siw_rdmap_opinfo {
	const char *name;
	u32 min_len;
	u32 max_len;
	u32 access;
	u8 hdr_len;
	u8 qn;
	u8 flags;
	u8 class;
};

/* Layers and error types of the Terminate control field (RFC 5040 4.8) */
enum siw_term_layer {
	SIW_TERM_LAYER_RDMAP	= 0x0,
	SIW_TERM_LAYER_DDP	= 0x1,
	SIW_TERM_LAYER_LLP	= 0x2,
};

enum siw_term_etype {
	SIW_TERM_ETYPE_RDMAP_CATASTROPHIC	= 0x0,
	SIW_TERM_ETYPE_RDMAP_PROTECTION		= 0x1,
	SIW_TERM_ETYPE_RDMAP_OPERATION		= 0x2,
	SIW_TERM_ETYPE_DDP_CATASTROPHIC		= 0x0,
	SIW_TERM_ETYPE_DDP_TAGGED		= 0x1,
	SIW_TERM_ETYPE_DDP_UNTAGGED		= 0x2,
	SIW_TERM_ETYPE_LLP_MPA			= 0x0,
};

/*
 * Every error of RFC 5040 sections 4.8 and 7, RFC 5041 section 7.2,
 * RFC 5044 section 8 and RFC 6581 section 8; one row each in the table of
 * ddp_error.c, which holds the layer/type/code triple.
 */
enum siw_ddp_err {
	SIW_DDP_OK = 0,
	/* RDMAP, layer 0 */
	SIW_DDP_ERR_RDMAP_CATASTROPHIC,
	SIW_DDP_ERR_RDMAP_INVALID_STAG,
	SIW_DDP_ERR_RDMAP_BASE_BOUNDS,
	SIW_DDP_ERR_RDMAP_ACCESS,
	SIW_DDP_ERR_RDMAP_STAG_NOT_ASSOC,
	SIW_DDP_ERR_RDMAP_TO_WRAP,
	SIW_DDP_ERR_RDMAP_PROT_CANNOT_INV,
	SIW_DDP_ERR_RDMAP_PROT_UNSPECIFIED,
	SIW_DDP_ERR_RDMAP_VERSION,
	SIW_DDP_ERR_RDMAP_OPCODE,
	SIW_DDP_ERR_RDMAP_CATA_STREAM,
	SIW_DDP_ERR_RDMAP_CATA_GLOBAL,
	SIW_DDP_ERR_RDMAP_OP_CANNOT_INV,
	SIW_DDP_ERR_RDMAP_OP_UNSPECIFIED,
	/* DDP, layer 1 */
	SIW_DDP_ERR_DDP_CATASTROPHIC,
	SIW_DDP_ERR_DDP_T_INVALID_STAG,
	SIW_DDP_ERR_DDP_T_BASE_BOUNDS,
	SIW_DDP_ERR_DDP_T_STAG_NOT_ASSOC,
	SIW_DDP_ERR_DDP_T_TO_WRAP,
	SIW_DDP_ERR_DDP_T_VERSION,
	SIW_DDP_ERR_DDP_U_INVALID_QN,
	SIW_DDP_ERR_DDP_U_MSN_NO_BUF,
	SIW_DDP_ERR_DDP_U_MSN_RANGE,
	SIW_DDP_ERR_DDP_U_INVALID_MO,
	SIW_DDP_ERR_DDP_U_TOO_LONG,
	SIW_DDP_ERR_DDP_U_VERSION,
	/* LLP (MPA), layer 2 */
	SIW_DDP_ERR_LLP_CLOSED,
	SIW_DDP_ERR_LLP_CRC,
	SIW_DDP_ERR_LLP_MARKER,
	SIW_DDP_ERR_LLP_BAD_FRAME,
	SIW_DDP_ERR_LLP_CATASTROPHIC,
	SIW_DDP_ERR_LLP_NO_IRD,
	SIW_DDP_ERR_LLP_NO_RTR,
	/* a received triple that no RFC defines */
	SIW_DDP_ERR_UNKNOWN,
	SIW_DDP_NUM_ERR,
};

/*
 * How the QP layer surfaces an error: FATAL as IB_EVENT_QP_FATAL,
 * ACCESS as IB_EVENT_QP_ACCESS_ERR, REQUEST as IB_EVENT_QP_REQ_ERR.
 */
enum siw_ddp_err_kind {
	SIW_DDP_KIND_NONE,
	SIW_DDP_KIND_FATAL,
	SIW_DDP_KIND_ACCESS,
	SIW_DDP_KIND_REQUEST,
};

/**
 * struct siw_ddp_errinfo - one row of the error table
 * @name: the RFC's wording, for logs and traces
 * @layer: enum siw_term_layer
 * @etype: error type within @layer
 * @ecode: error code within @etype
 * @kind: enum siw_ddp_err_kind
 * @on_wire: false for SIW_DDP_OK and SIW_DDP_ERR_UNKNOWN
 */
struct siw_ddp_errinfo {
	const char *name;
	u8 layer;
	u8 etype;
	u8 ecode;
	u8 kind;
	bool on_wire;
};

/**
 * struct siw_ddp_hdr - one DDP segment header with its RDMAP control,
 *	in host order
 * @to: Tagged Offset (tagged)
 * @stag: STag (tagged)
 * @qn: Queue Number (untagged)
 * @msn: Message Sequence Number (untagged)
 * @mo: Message Offset (untagged)
 * @inval_stag: Invalidate STag (untagged, Send with Invalidate)
 * @opcode: RDMAP opcode
 * @tagged: T bit
 * @last: L bit
 *
 * The version fields are not here: the decoder rejects anything but
 * version 1 and the encoder always writes 1.
 */
struct siw_ddp_hdr {
	u64 to;
	u32 stag;
	u32 qn;
	u32 msn;
	u32 mo;
	u32 inval_stag;
	u8 opcode;
	bool tagged;
	bool last;
};

/**
 * struct siw_rdmap_rreq - RDMA Read Request header in host order
 * @sink_to: Data Sink Tagged Offset
 * @src_to: Data Source Tagged Offset
 * @sink_stag: Data Sink STag
 * @src_stag: Data Source STag
 * @len: RDMA Read Message Size
 */
struct siw_rdmap_rreq {
	u64 sink_to;
	u64 src_to;
	u32 sink_stag;
	u32 src_stag;
	u32 len;
};

/**
 * struct siw_ddp_uq - receive state of one untagged queue
 * @msn: MSN the next segment on this queue must carry
 * @avail: buffers ready for @msn and the messages after it: posted
 *	receive WQEs (queue 0), free inbound read slots, i.e. IRD minus
 *	Read Requests in progress (queue 1), Terminate buffers (queue 2)
 * @buf_len: octets in the buffer that receives @msn
 * @next_mo: queue 0: the MO the next segment of message @msn must carry
 *	(the payload octets of its segments so far)
 *
 * Owned by the QP layer and protected by its receive lock.
 */
struct siw_ddp_uq {
	u32 msn;
	u32 avail;
	u32 buf_len;
	u32 next_mo;
};

/*
 * An STag is a 24-bit index chosen by the memory layer and an 8-bit key
 * chosen by the consumer (the low octet). Index 0 is never handed out.
 */
#define SIW_STAG_KEY_MASK	0xffU
#define SIW_STAG_INDEX_SHIFT	8

/**
 * siw_stag_index() - the index part of an STag
 * @stag: the STag
 *
 * Returns: its upper 24 bits; 0 names no region.
 */
static inline u32 siw_stag_index(u32 stag)
{
	return stag >> SIW_STAG_INDEX_SHIFT;
}

/* Memory layer interface: the description of one region behind an STag */
enum siw_ddp_region_state {
	SIW_DDP_REGION_INVALID = 0,
	SIW_DDP_REGION_VALID,
};

/**
 * struct siw_ddp_region - a looked-up memory region or window
 * @pd: protection domain identity; compared, never dereferenced
 * @obj: the memory layer's object, opaque here, for placement and put
 * @base: Tagged Offset of the first octet of the region
 * @len: octets in the region
 * @stag: the STag with its current key (low 8 bits)
 * @access: IB_ACCESS_* bits granted to the peer
 * @state: invalid once invalidated or deregistered
 * @remote_inv: the peer may invalidate it (Send with Invalidate)
 * @version: the memory layer's, for its @unchanged
 */
struct siw_ddp_region {
	const void *pd;
	void *obj;
	u64 base;
	u64 len;
	u32 stag;
	u32 access;
	enum siw_ddp_region_state state;
	bool remote_inv;
	u64 version;
};

/**
 * struct siw_ddp_mem_ops - STag lookups, implemented by the memory layer
 * @lookup: fill @region for the STag whose index (upper 24 bits) is that
 *	of @stag, whatever its key, every field of it, and take a reference
 *	on it. Returns 0, or -ENOENT if no region has that index (@region
 *	may then hold anything). Must not sleep.
 * @put: drop the reference @lookup took; may be NULL.
 * @unchanged: true if nothing @lookup described in @region (validity,
 *	STag, bounds, rights) has changed since, so that the description
 *	is what a lookup would return now; may be NULL (then no
 *	description is reused). Must not sleep.
 */
struct siw_ddp_mem_ops {
	int (*lookup)(void *ctx, u32 stag, struct siw_ddp_region *region);
	void (*put)(void *ctx, struct siw_ddp_region *region);
	bool (*unchanged)(void *ctx, const struct siw_ddp_region *region);
};

/**
 * struct siw_ddp_mem - a memory layer instance
 * @ops: its lookup callbacks
 * @ctx: passed back to @ops (e.g. the device)
 */
struct siw_ddp_mem {
	const struct siw_ddp_mem_ops *ops;
	void *ctx;
};

/* What an STag is checked for; selects the error codes */
enum siw_ddp_stag_use {
	SIW_DDP_STAG_PLACE,		/* tagged DDP segment: RFC 5041 errors */
	SIW_DDP_STAG_READ_SRC,		/* Read Request source: RFC 5040 */
	SIW_DDP_STAG_INVALIDATE,	/* Send with Invalidate: RFC 5040 */
};

/**
 * struct siw_ddp_stag_req - one access an STag must allow
 * @pd: protection domain of the QP
 * @to: first Tagged Offset accessed
 * @stag: STag as received
 * @len: octets accessed; 0 skips every check but for @use INVALIDATE
 * @access: IB_ACCESS_* bits needed
 * @access_any: any one of the @access bits suffices
 * @use: enum siw_ddp_stag_use
 */
struct siw_ddp_stag_req {
	const void *pd;
	u64 to;
	u32 stag;
	u32 len;
	u32 access;
	bool access_any;
	enum siw_ddp_stag_use use;
};

/**
 * struct siw_rdmap_term_info - what a Terminate message reports
 * @err: the error
 * @seg: the offending DDP segment as received, from its DDP header on,
 *	or NULL; the Terminate carries its DDP header and, for a Read
 *	Request, the Read Request header, as far as @seg_avail covers them
 * @seg_avail: octets readable at @seg
 * @seg_len: MPA ULPDU Length of the offending segment
 * @seg_len_valid: @seg_len is known
 */
struct siw_rdmap_term_info {
	enum siw_ddp_err err;
	const void *seg;
	size_t seg_avail;
	u16 seg_len;
	bool seg_len_valid;
};

/**
 * struct siw_rdmap_term_report - a received Terminate, parsed
 * @err: the table row of the triple, SIW_DDP_ERR_UNKNOWN if none
 * @layer: Layer as received
 * @etype: EType as received
 * @ecode: Error Code as received
 * @seg_len: DDP Segment Length, if @seg_len_valid
 * @seg_len_valid: the M bit
 * @has_ddp_hdr: the D bit; @ddp and @ddp_raw hold the header
 * @has_rreq: the R bit; @rreq holds the Read Request header
 * @ddp_raw_len: 14 or 18 if @has_ddp_hdr
 * @ddp_raw: the terminated DDP header as sent
 * @ddp: its fields, unchecked (it may be the malformed one)
 * @rreq: the terminated Read Request header
 */
struct siw_rdmap_term_report {
	enum siw_ddp_err err;
	u8 layer;
	u8 etype;
	u8 ecode;
	u16 seg_len;
	bool seg_len_valid;
	bool has_ddp_hdr;
	bool has_rreq;
	u8 ddp_raw_len;
	u8 ddp_raw[SIW_DDP_UNTAGGED_HLEN];
	struct siw_ddp_hdr ddp;
	struct siw_rdmap_rreq rreq;
};

/* rdmap_opcode.c */
extern const struct siw_rdmap_opinfo siw_rdmap_ops[SIW_RDMAP_NUM_OPCODES];

/**
 * siw_rdmap_opinfo() - look up an RDMAP opcode
 * @opcode: the 4-bit opcode; higher bits are ignored
 *
 * Inline: every FPDU asks several times, on both paths.
 *
 * Context: any.
 * Returns: the table row, never NULL; unsupported and reserved opcodes
 * have a row without SIW_RDMAP_F_SUPPORTED.
 */
static inline const struct siw_rdmap_opinfo *siw_rdmap_opinfo(u8 opcode)
{
	return &siw_rdmap_ops[opcode % SIW_RDMAP_NUM_OPCODES];
}

bool siw_rdmap_opcode_supported(u8 opcode);

/* ddp_error.c */
const struct siw_ddp_errinfo *siw_ddp_errinfo(enum siw_ddp_err err);
enum siw_ddp_err siw_ddp_err_lookup(u8 layer, u8 etype, u8 ecode);
const char *siw_ddp_err_name(enum siw_ddp_err err);

/* ddp_hdr.c */
int siw_rdmap_hdr_init(struct siw_ddp_hdr *h, u8 opcode);
enum siw_ddp_err siw_ddp_hdr_decode(const void *buf, size_t len,
				    struct siw_ddp_hdr *h);
void siw_ddp_hdr_unpack(const void *buf, size_t len, struct siw_ddp_hdr *h);
int siw_ddp_hdr_encode(const struct siw_ddp_hdr *h, void *buf, size_t size);
size_t siw_ddp_hdr_len(const void *buf, size_t len);
void siw_rdmap_rreq_decode(const void *buf, struct siw_rdmap_rreq *rr);
void siw_rdmap_rreq_encode(const struct siw_rdmap_rreq *rr, void *buf);

/* ddp_place.c */
void siw_ddp_uq_init(struct siw_ddp_uq q[SIW_DDP_NUM_QN], u32 ird);
enum siw_ddp_err siw_ddp_untagged_check(const struct siw_ddp_hdr *h,
					u32 len,
					const struct siw_ddp_uq q[SIW_DDP_NUM_QN]);
bool siw_ddp_uq_advance(struct siw_ddp_uq *q, const struct siw_ddp_hdr *h,
			u32 len, u32 *msg_len);

/* ddp_stag.c */
enum siw_ddp_err siw_ddp_stag_check(const struct siw_ddp_region *r,
				    const struct siw_ddp_stag_req *req);
enum siw_ddp_err siw_ddp_stag_resolve(const struct siw_ddp_mem *mem,
				      const struct siw_ddp_stag_req *req,
				      struct siw_ddp_region *r);
enum siw_ddp_err siw_ddp_stag_again(const struct siw_ddp_mem *mem,
				    const struct siw_ddp_stag_req *req,
				    struct siw_ddp_region *r);
void siw_ddp_stag_put(const struct siw_ddp_mem *mem,
		      struct siw_ddp_region *r);

/* rdmap_term.c */
int siw_rdmap_term_build(const struct siw_rdmap_term_info *ti, u32 msn,
			 void *buf, size_t size);
enum siw_ddp_err siw_rdmap_term_parse(const void *buf, size_t len,
				      struct siw_rdmap_term_report *rep);

#endif /* SIW_DDP_H */
