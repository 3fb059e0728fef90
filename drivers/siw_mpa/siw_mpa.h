/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MPA (RFC 5044, updated by RFC 6581), the FPDU side: framing with
 * CRC32c and markers, the receive deframer, and what the connection
 * side shares with it (error codes, RTR types). The MPA Request/Reply
 * frames and the connection setup rules, which only the CM uses, are in
 * siw_mpa_conn.h.
 *
 * Everything here works on buffers and on state the caller owns and
 * embeds: nothing allocates, sleeps or takes a lock, so every function
 * may run in softirq context. The layer knows nothing of sockets, QPs or
 * the RDMA core; the caller serialises access to each state object.
 *
 * See Documentation/mpa.rst.
 */
#ifndef SIW_MPA_H
#define SIW_MPA_H

#include <linux/bits.h>
#include <linux/math.h>
#include <linux/types.h>

struct sk_buff;

/*
 * FPDU sizes (RFC 5044 section 4): the ULPDU Length field, the CRC, the
 * pad; the largest ULPDU and FPDU; markers every 512 octets of the
 * stream. The wire layouts are in mpa_wire.h, private to this directory.
 */
#define SIW_MPA_HDR_LEN		2
#define SIW_MPA_CRC_LEN		4
#define SIW_MPA_PAD_MAX		3
/* Header and CRC: what an FPDU adds to its ULPDU besides pad and markers */
#define SIW_MPA_FPDU_OVERHEAD	(SIW_MPA_HDR_LEN + SIW_MPA_CRC_LEN)
/* Largest ULPDU DDP may hand to MPA (RFC 5044 section 3) */
#define SIW_MPA_ULPDU_MAX	64768
/* Smallest MULPDU MPA may report, whatever the EMSS (section 4.5) */
#define SIW_MPA_MULPDU_MIN	128
/* Largest FPDU a sender may build, markers not counted */
#define SIW_MPA_FPDU_MAX	(SIW_MPA_ULPDU_MAX + SIW_MPA_FPDU_OVERHEAD + \
				 SIW_MPA_PAD_MAX)
#define SIW_MPA_MARKER_LEN	4
#define SIW_MPA_MARKER_PERIOD	512
/*
 * Most markers one FPDU can hold: a marker every 508 octets of FPDU,
 * counting one right before its header.
 */
#define SIW_MPA_FPDU_MAX_MARKERS \
	DIV_ROUND_UP(SIW_MPA_FPDU_MAX, \
		     SIW_MPA_MARKER_PERIOD - SIW_MPA_MARKER_LEN)

/*
 * MPA error codes (RFC 5044 section 8, RFC 6581 section 8). The value is
 * the Error Code a Terminate carries with Layer SIW_MPA_TERM_LAYER (LLP)
 * and Error Type SIW_MPA_TERM_ETYPE (MPA).
 */
enum siw_mpa_err {
	SIW_MPA_OK		= 0x00,
	SIW_MPA_ERR_CLOSED	= 0x01,	/* TCP closed, reset or lost */
	SIW_MPA_ERR_CRC		= 0x02,	/* FPDU CRC mismatch */
	SIW_MPA_ERR_MARKER	= 0x03,	/* marker and ULPDU Length disagree */
	SIW_MPA_ERR_FRAME	= 0x04,	/* invalid MPA Request or Reply */
	SIW_MPA_ERR_LOCAL	= 0x05,	/* local catastrophic */
	SIW_MPA_ERR_NO_IRD	= 0x06,	/* insufficient IRD resources */
	SIW_MPA_ERR_NO_RTR	= 0x07,	/* no matching RTR option */
	SIW_MPA_NUM_ERR,
};

#define SIW_MPA_TERM_LAYER	0x2
#define SIW_MPA_TERM_ETYPE	0x0

/*
 * Ready-to-receive indications of the peer-to-peer model (RFC 6581
 * section 9.2). The order is the initiator's preference.
 */
enum siw_mpa_rtr {
	SIW_MPA_RTR_WRITE,	/* zero-length RDMA Write, flag C */
	SIW_MPA_RTR_READ,	/* zero-length RDMA Read, flag D */
	SIW_MPA_RTR_SEND,	/* zero-length Send, flag B */
	SIW_MPA_NUM_RTR,
	SIW_MPA_RTR_NONE = SIW_MPA_NUM_RTR,
};

#define SIW_MPA_RTR_F(rtr)	BIT(rtr)
#define SIW_MPA_RTR_ALL		(BIT(SIW_MPA_NUM_RTR) - 1)

/**
 * struct siw_mpa_rtr_info - what the protocol says about one RTR type
 * @name: for logs and traces
 * @flag: its bit in the enhanced data word (SIW_MPA_ENH_B, _C or _D)
 * @in_ord_word: @flag is in the ORD word, not the IRD word
 * @needs_ird: it takes a slot of the responder's IRD, which must be 1
 *	at least (RFC 6581 section 9.1)
 */
struct siw_mpa_rtr_info {
	const char *name;
	u16 flag;
	bool in_ord_word;
	bool needs_ird;
};

/* mpa_tables.c */
const char *siw_mpa_err_name(enum siw_mpa_err err);
const struct siw_mpa_rtr_info *siw_mpa_rtr_info(enum siw_mpa_rtr rtr);

/* mpa_crc.c */

/* CRC32c state before any octet; siw_mpa_crc_value() turns a state into
 * the value the FPDU carries.
 */
#define SIW_MPA_CRC_SEED	(~0U)

u32 siw_mpa_crc_update(u32 state, const void *buf, size_t len);
u32 siw_mpa_crc_copy(u32 state, void *dst, const void *src, size_t len);
#if IS_ENABLED(CONFIG_KUNIT)
u32 siw_mpa_crc32c(const void *buf, size_t len);
#endif

/**
 * siw_mpa_crc_value() - the CRC32c value of a running state
 * @state: from siw_mpa_crc_update(), started at SIW_MPA_CRC_SEED
 *
 * Returns: the final complement of @state, the standard CRC32c value.
 */
static inline u32 siw_mpa_crc_value(u32 state)
{
	return ~state;
}

/* mpa_marker.c: FPDU geometry */

/**
 * siw_mpa_marker_dist() - octets until the next marker position
 * @pos: stream offset, counted from the start of MPA mode (mod 2^32)
 *
 * Markers sit at every offset that is a multiple of 512; as 512 divides
 * 2^32 the rule survives the wrap of the 32-bit offset.
 *
 * Returns: 0 if a marker starts at @pos, else the octets up to the next.
 */
static inline u32 siw_mpa_marker_dist(u32 pos)
{
	return (0U - pos) & (SIW_MPA_MARKER_PERIOD - 1);
}

u32 siw_mpa_pad_len(u32 ulpdu_len);
u32 siw_mpa_fpdu_len(u32 ulpdu_len);
u32 siw_mpa_fpdu_markers(u32 pos, u32 ulpdu_len);
u32 siw_mpa_fpdu_wire_len(u32 pos, bool markers, u32 ulpdu_len);
u32 siw_mpa_mulpdu(u32 emss, bool markers);

/* mpa_tx.c: FPDU transmit framing */

/**
 * struct siw_mpa_tx - one transmit direction in MPA full operation
 * @pos: octets sent since MPA mode started, mod 2^32; the next marker
 *	goes where it is a multiple of 512
 * @markers: insert markers (the peer set M in its frame)
 * @crc: compute the CRC; if clear the CRC field is sent as zero
 */
struct siw_mpa_tx {
	u32 pos;
	bool markers;
	bool crc;
};

/* Who supplies the octets of a piece of FPDU */
enum siw_mpa_piece_kind {
	SIW_MPA_PIECE_MPA,	/* framing octets, in struct siw_mpa_fpdu */
	SIW_MPA_PIECE_ULPDU,	/* a range of the caller's ULPDU */
};

/**
 * struct siw_mpa_piece - a run of FPDU octets to send next
 * @buf: SIW_MPA_PIECE_MPA: the octets (valid until the FPDU's state is
 *	begun again); NULL for SIW_MPA_PIECE_ULPDU
 * @off: SIW_MPA_PIECE_ULPDU: offset of the run in the ULPDU
 * @len: octets in the run, never 0
 * @kind: enum siw_mpa_piece_kind
 */
struct siw_mpa_piece {
	const u8 *buf;
	u32 off;
	u32 len;
	enum siw_mpa_piece_kind kind;
};

/* Framing octets one FPDU may need: markers, length, pad, CRC */
#define SIW_MPA_FPDU_OWN_MAX	(SIW_MPA_FPDU_MAX_MARKERS * \
				 SIW_MPA_MARKER_LEN + SIW_MPA_HDR_LEN + \
				 SIW_MPA_PAD_MAX + SIW_MPA_CRC_LEN)

/**
 * struct siw_mpa_fpdu - one FPDU being framed
 * @tx: the direction it is sent on
 * @start: stream offset of its ULPDU Length field
 * @crc: CRC32c state over what has been framed so far
 * @given: ULPDU octets handed out in pieces (all of them at once for an
 *	FPDU written flat)
 * @summed: ULPDU octets the caller passed to siw_mpa_fpdu_data()
 * @ulpdu_len: ULPDU octets
 * @own_len: octets used in @own
 * @stage: next field to frame (private to mpa_tx.c)
 * @stage_off: octets of that field already framed
 * @pad: pad octets
 * @nmarkers: markers inserted so far
 * @crc_field: the CRC field, once computed
 * @own: every framing octet of this FPDU, in stream order
 *
 * Embedded by the caller; no field is for the caller to touch.
 */
struct siw_mpa_fpdu {
	struct siw_mpa_tx *tx;
	u32 start;
	u32 crc;
	u32 given;
	u32 summed;
	u16 ulpdu_len;
	u16 own_len;
	u8 stage;
	u8 stage_off;
	u8 pad;
	u8 nmarkers;
	u8 crc_field[SIW_MPA_CRC_LEN];
	u8 own[SIW_MPA_FPDU_OWN_MAX];
};

void siw_mpa_tx_init(struct siw_mpa_tx *tx, bool markers, bool crc);
int siw_mpa_fpdu_begin(struct siw_mpa_fpdu *f, struct siw_mpa_tx *tx,
		       u32 ulpdu_len);
int siw_mpa_fpdu_next(struct siw_mpa_fpdu *f, struct siw_mpa_piece *p);
void siw_mpa_fpdu_data(struct siw_mpa_fpdu *f, const void *buf, size_t len);
void siw_mpa_fpdu_data_copy(struct siw_mpa_fpdu *f, void *dst,
			    const void *src, size_t len);
int siw_mpa_fpdu_flat(struct siw_mpa_fpdu *f, struct siw_mpa_tx *tx,
		      u32 ulpdu_len, u8 *out);
u32 *siw_mpa_fpdu_flat_sum(struct siw_mpa_fpdu *f, u32 len);
int siw_mpa_fpdu_flat_end(struct siw_mpa_fpdu *f, u8 *out);
#if IS_ENABLED(CONFIG_KUNIT)
/* for the tests: a whole FPDU framed into one buffer */
ssize_t siw_mpa_fpdu_build(struct siw_mpa_fpdu *f, struct siw_mpa_tx *tx,
			   const void *ulpdu, u32 ulpdu_len,
			   void *out, size_t size);
#endif

/* mpa_rx.c: receive deframing */

/* Receive states; siw_mpa_rx_stage_name() names them */
enum siw_mpa_rx_stage {
	SIW_MPA_RXS_HDR,	/* ULPDU Length field */
	SIW_MPA_RXS_DATA,	/* ULPDU */
	SIW_MPA_RXS_PAD,	/* pad */
	SIW_MPA_RXS_CRC,	/* CRC field */
	SIW_MPA_RXS_FAILED,	/* an error was reported; nothing more */
	SIW_MPA_RX_NUM_STAGES,
};

/* What one call of siw_mpa_rx_parse() reports */
enum siw_mpa_ev {
	SIW_MPA_EV_MORE,	/* input used up, nothing to report */
	SIW_MPA_EV_HDR,		/* an FPDU starts: @ulpdu_len is known */
	SIW_MPA_EV_DATA,	/* a run of ULPDU at @data */
	SIW_MPA_EV_FPDU,	/* the FPDU ended and is valid */
	SIW_MPA_EV_ERROR,	/* @err; the stream is dead */
};

/**
 * struct siw_mpa_rx_ev - one receive event
 * @data: SIW_MPA_EV_DATA: the run, inside the caller's input buffer
 * @len: SIW_MPA_EV_DATA: octets in the run
 * @off: SIW_MPA_EV_DATA: offset of the run in the ULPDU
 * @crc: SIW_MPA_EV_DATA: NULL if the parser fed the run to the FPDU's
 *	CRC; else the CRC state the caller must feed every octet of the
 *	run into, in order, before it parses on (siw_mpa_rx_caller_sums())
 * @fpdu_pos: stream offset of the FPDU's ULPDU Length field
 * @crc_rcvd: SIW_MPA_EV_FPDU and CRC errors: the CRC field as received
 * @crc_calc: SIW_MPA_EV_FPDU and CRC errors: the CRC computed
 * @ulpdu_len: the FPDU's ULPDU Length (all but SIW_MPA_EV_MORE)
 * @kind: enum siw_mpa_ev
 * @err: SIW_MPA_EV_ERROR: SIW_MPA_ERR_CRC or SIW_MPA_ERR_MARKER
 */
struct siw_mpa_rx_ev {
	const u8 *data;
	u32 *crc;
	u32 len;
	u32 off;
	u32 fpdu_pos;
	u32 crc_rcvd;
	u32 crc_calc;
	u16 ulpdu_len;
	enum siw_mpa_ev kind;
	enum siw_mpa_err err;
};

/**
 * struct siw_mpa_rx - one receive direction in MPA full operation
 * @pos: octets received since MPA mode started, mod 2^32
 * @start: stream offset of the current FPDU's ULPDU Length field
 * @crc: CRC32c state of the current FPDU
 * @off: ULPDU octets of the current FPDU passed on
 * @ulpdu_len: ULPDU Length of the current FPDU
 * @stage: enum siw_mpa_rx_stage
 * @got: octets of the current fixed-size field collected in @field
 * @mgot: octets of the current marker collected in @mark, 0 if none
 * @pad: pad octets of the current FPDU
 * @err: the error reported, once @stage is SIW_MPA_RXS_FAILED
 * @mlead: the current marker precedes an FPDU header (FPDUPTR 0)
 * @markers: the peer inserts markers (we set M in our frame)
 * @crc_on: check CRCs
 * @caller_sums: with @crc_on, the caller feeds ULPDU runs to the CRC
 * @field: the ULPDU Length or CRC field being collected
 * @mark: the marker being collected
 *
 * Embedded by the caller; no field is for the caller to touch.
 */
struct siw_mpa_rx {
	u32 pos;
	u32 start;
	u32 crc;
	u32 off;
	u16 ulpdu_len;
	u8 stage;
	u8 got;
	u8 mgot;
	u8 pad;
	u8 err;
	bool mlead;
	bool markers;
	bool crc_on;
	bool caller_sums;
	u8 field[SIW_MPA_CRC_LEN];
	u8 mark[SIW_MPA_MARKER_LEN];
};

void siw_mpa_rx_init(struct siw_mpa_rx *rx, bool markers, bool crc);
void siw_mpa_rx_caller_sums(struct siw_mpa_rx *rx);
size_t siw_mpa_rx_parse(struct siw_mpa_rx *rx, const void *buf, size_t len,
			struct siw_mpa_rx_ev *ev);
bool siw_mpa_rx_idle(const struct siw_mpa_rx *rx);
const char *siw_mpa_rx_stage_name(enum siw_mpa_rx_stage stage);
int siw_mpa_rx_fpdu_whole(const struct siw_mpa_rx *rx, const u8 *p,
			  size_t len);
u32 *siw_mpa_rx_fpdu_take(struct siw_mpa_rx *rx, const u8 *p);
bool siw_mpa_rx_fpdu_done(struct siw_mpa_rx *rx, const u8 *p);
unsigned int siw_mpa_rx_skb(struct siw_mpa_rx *rx, struct sk_buff *skb,
			    unsigned int offset, unsigned int len,
			    int (*actor)(void *ctx,
					 const struct siw_mpa_rx_ev *ev),
			    void *ctx);

#endif /* SIW_MPA_H */
