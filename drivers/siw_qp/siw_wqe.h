/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Work queue elements: the host's own form of a work request, the
 * pure functions that build one from a verbs work request or from an
 * entry of a ring shared with user space (include/uapi/rdma/siw-abi.h),
 * and the geometry of those rings.
 *
 * Everything here checks its input and touches nothing else; a work
 * request that passes is one the TX and RX engines can carry out.
 */
#ifndef SIW_WQE_H
#define SIW_WQE_H

#include <linux/log2.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>

#include "siw_ddp/siw_ddp.h"
#include "siw_mem/siw_limits.h"

/* The ABI's entries are shared memory: their layout is fixed */
static_assert(sizeof(struct siw_sge) == 16);
static_assert(sizeof(struct siw_sqe) == 120);
static_assert(sizeof(struct siw_rqe) == 112);
static_assert(sizeof(struct siw_cqe) == 32);
static_assert(sizeof(struct siw_cq_ctrl) == 8);

/* Kernel consumers' inline data lives in the SGE array */
static_assert(SIW_DEV_MAX_SGE * sizeof(struct siw_sge) >= SIW_DEV_MAX_INLINE);

/**
 * struct siw_wqe - one send or receive work request, checked
 * @id: the consumer's wr_id
 * @flags: SIW_WQE_* (VALID marks a posted entry of a kernel ring)
 * @num_sge: entries in @sge (0 for inline data)
 * @opcode: enum siw_opcode
 * @rkey: the peer's STag (WRITE, READ); REG_MR: the new STag
 * @inval_stag: SEND_REMOTE_INV: the peer's STag to invalidate;
 *	READ_LOCAL_INV and INVAL_STAG: the local one
 * @raddr: the peer's Tagged Offset (WRITE, READ)
 * @access: REG_MR: IB_ACCESS_* to grant
 * @inline_len: octets of inline data in @data (SIW_WQE_INLINE)
 * @mr: REG_MR: the fast-registration MR
 * @sge: local buffers
 * @data: inline data
 */
struct siw_wqe {
	u64 id;
	u16 flags;
	u8 num_sge;
	u8 opcode;
	u32 rkey;
	u32 inval_stag;
	u32 access;
	u64 raddr;
	u32 inline_len;
	struct ib_mr *mr;
	union {
		struct siw_sge sge[SIW_DEV_MAX_SGE];
		u8 data[SIW_DEV_MAX_INLINE];
	};
};

/*
 * Flushing reads an entry's id, flags and opcode without knowing which
 * kind of ring it is in: the three layouts agree on them.
 */
static_assert(offsetof(struct siw_wqe, flags) == offsetof(struct siw_sqe, flags));
static_assert(offsetof(struct siw_wqe, flags) == offsetof(struct siw_rqe, flags));
static_assert(offsetof(struct siw_wqe, opcode) == offsetof(struct siw_sqe, opcode));
static_assert(offsetof(struct siw_wqe, id) == offsetof(struct siw_sqe, id));
static_assert(offsetof(struct siw_wqe, id) == offsetof(struct siw_rqe, id));

/**
 * struct siw_wq_caps - what one queue accepts
 * @max_sge: SGEs per work request
 * @max_inline: octets of inline data per work request
 * @user: the consumer is a process (only the ABI's opcodes)
 */
struct siw_wq_caps {
	u32 max_sge;
	u32 max_inline;
	bool user;
};

/**
 * siw_ring_entries() - entries of a ring asked for @wr work requests
 * @wr: the consumer's request, at least 1
 *
 * Rings are powers of two: the provider indexes them with a free
 * running 32-bit counter modulo their size, which only stays in step
 * with ours across the counter's wrap if the size divides 2^32.
 *
 * Returns: the number of entries.
 */
static inline u32 siw_ring_entries(u32 wr)
{
	return roundup_pow_of_two(wr ? wr : 1);
}

/**
 * siw_cq_ring_bytes() - octets of a CQ ring of @n entries
 * @n: entries
 *
 * The control word that arms the CQ follows the last entry.
 *
 * Returns: the size the provider maps.
 */
static inline size_t siw_cq_ring_bytes(u32 n)
{
	return (size_t)n * sizeof(struct siw_cqe) + sizeof(struct siw_cq_ctrl);
}

/* siw_wqe.c */
int siw_wqe_from_send_wr(const struct ib_send_wr *wr,
			 const struct siw_wq_caps *caps, struct siw_wqe *wqe);
int siw_wqe_from_recv_wr(const struct ib_recv_wr *wr,
			 const struct siw_wq_caps *caps, struct siw_wqe *wqe);
int siw_wqe_from_sqe(const struct siw_sqe *sqe, struct siw_wqe *wqe);
int siw_wqe_from_rqe(const struct siw_rqe *rqe, struct siw_wqe *wqe);
u8 siw_wqe_flush_opcode(u8 opcode);
enum ib_wc_opcode siw_wc_opcode(u8 opcode);
enum siw_wc_status siw_wc_status_to_abi(enum ib_wc_status status);
enum ib_wc_status siw_wc_status_from_abi(u16 status);

#endif /* SIW_WQE_H */
