// SPDX-License-Identifier: GPL-2.0
/*
 * Building checked work queue elements from verbs work requests and
 * from the entries of rings shared with user space. Pure functions:
 * the only memory read besides the arguments is a kernel consumer's
 * inline data, which the verbs contract makes the consumer's buffer.
 *
 * What an operation may carry is one table per source, not a switch.
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "siw_wqe.h"

#define SIW_OPF_OK	BIT(0)	/* supported */
#define SIW_OPF_SGL	BIT(1)	/* carries local SGEs */
#define SIW_OPF_INLINE	BIT(2)	/* may carry inline data instead */
#define SIW_OPF_SOLICIT	BIT(3)	/* may ask for a solicited event */
#define SIW_OPF_REMOTE	BIT(4)	/* names a remote buffer */
#define SIW_OPF_INV	BIT(5)	/* names an STag to invalidate */

/**
 * struct siw_op_desc - what a send opcode may carry
 * @siw: enum siw_opcode it becomes
 * @flags: SIW_OPF_*
 */
struct siw_op_desc {
	u8 siw;
	u8 flags;
};

/* Kernel consumers: IB_WR_* opcodes; anything absent is unsupported */
static const struct siw_op_desc siw_kernel_ops[] = {
	[IB_WR_RDMA_WRITE] = { SIW_OP_WRITE, SIW_OPF_OK | SIW_OPF_SGL |
			       SIW_OPF_INLINE | SIW_OPF_REMOTE },
	[IB_WR_RDMA_READ] = { SIW_OP_READ, SIW_OPF_OK | SIW_OPF_SGL |
			      SIW_OPF_REMOTE },
	[IB_WR_RDMA_READ_WITH_INV] = { SIW_OP_READ_LOCAL_INV, SIW_OPF_OK |
				       SIW_OPF_SGL | SIW_OPF_REMOTE |
				       SIW_OPF_INV },
	[IB_WR_SEND] = { SIW_OP_SEND, SIW_OPF_OK | SIW_OPF_SGL |
			 SIW_OPF_INLINE | SIW_OPF_SOLICIT },
	[IB_WR_SEND_WITH_INV] = { SIW_OP_SEND_REMOTE_INV, SIW_OPF_OK |
				  SIW_OPF_SGL | SIW_OPF_INLINE |
				  SIW_OPF_SOLICIT | SIW_OPF_INV },
	[IB_WR_LOCAL_INV] = { SIW_OP_INVAL_STAG, SIW_OPF_OK | SIW_OPF_INV },
	[IB_WR_REG_MR] = { SIW_OP_REG_MR, SIW_OPF_OK },
};

/*
 * User consumers: the ABI's opcodes rdma-core's provider writes. Send
 * with Invalidate names the STag in the entry's rkey field.
 */
static const u8 siw_user_ops[SIW_NUM_OPCODES] = {
	[SIW_OP_WRITE] = SIW_OPF_OK | SIW_OPF_SGL | SIW_OPF_INLINE |
			 SIW_OPF_REMOTE,
	[SIW_OP_READ] = SIW_OPF_OK | SIW_OPF_SGL | SIW_OPF_REMOTE,
	[SIW_OP_SEND] = SIW_OPF_OK | SIW_OPF_SGL | SIW_OPF_INLINE |
			SIW_OPF_SOLICIT,
	[SIW_OP_SEND_REMOTE_INV] = SIW_OPF_OK | SIW_OPF_SGL | SIW_OPF_INLINE |
				   SIW_OPF_SOLICIT | SIW_OPF_INV,
};

/* Completion opcodes; a flushed entry keeps the opcode it was posted with */
static const u8 siw_wc_opcodes[SIW_NUM_OPCODES] = {
	[SIW_OP_WRITE] = IB_WC_RDMA_WRITE,
	[SIW_OP_READ] = IB_WC_RDMA_READ,
	[SIW_OP_READ_LOCAL_INV] = IB_WC_RDMA_READ,
	[SIW_OP_SEND] = IB_WC_SEND,
	[SIW_OP_SEND_WITH_IMM] = IB_WC_SEND,
	[SIW_OP_SEND_REMOTE_INV] = IB_WC_SEND,
	[SIW_OP_FETCH_AND_ADD] = IB_WC_FETCH_ADD,
	[SIW_OP_COMP_AND_SWAP] = IB_WC_COMP_SWAP,
	[SIW_OP_RECEIVE] = IB_WC_RECV,
	[SIW_OP_READ_RESPONSE] = IB_WC_RDMA_READ,
	[SIW_OP_INVAL_STAG] = IB_WC_LOCAL_INV,
	[SIW_OP_REG_MR] = IB_WC_REG_MR,
};

/* Completion status: the ABI's codes and the verbs' */
static const u8 siw_wc_status_map[SIW_NUM_WC_STATUS] = {
	[SIW_WC_SUCCESS] = IB_WC_SUCCESS,
	[SIW_WC_LOC_LEN_ERR] = IB_WC_LOC_LEN_ERR,
	[SIW_WC_LOC_PROT_ERR] = IB_WC_LOC_PROT_ERR,
	[SIW_WC_LOC_QP_OP_ERR] = IB_WC_LOC_QP_OP_ERR,
	[SIW_WC_WR_FLUSH_ERR] = IB_WC_WR_FLUSH_ERR,
	[SIW_WC_BAD_RESP_ERR] = IB_WC_BAD_RESP_ERR,
	[SIW_WC_LOC_ACCESS_ERR] = IB_WC_LOC_ACCESS_ERR,
	[SIW_WC_REM_ACCESS_ERR] = IB_WC_REM_ACCESS_ERR,
	[SIW_WC_REM_INV_REQ_ERR] = IB_WC_REM_INV_REQ_ERR,
	[SIW_WC_GENERAL_ERR] = IB_WC_GENERAL_ERR,
};

/* Sum SGE lengths; a message is at most 2^32 - 1 octets */
static int siw_sgl_len(const struct siw_sge *sge, u32 n, u32 *total)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < n; i++)
		sum += sge[i].length;
	if (sum > U32_MAX)
		return -EINVAL;
	*total = sum;
	return 0;
}

static int siw_copy_sgl(struct siw_wqe *wqe, const struct ib_sge *sg, int n,
			u32 max_sge)
{
	u32 total;
	int i;

	if (n < 0 || n > max_sge)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		wqe->sge[i].laddr = sg[i].addr;
		wqe->sge[i].length = sg[i].length;
		wqe->sge[i].lkey = sg[i].lkey;
	}
	wqe->num_sge = n;
	return siw_sgl_len(wqe->sge, n, &total);
}

/* Kernel inline data: the SGE addresses are kernel virtual addresses */
static int siw_copy_inline(struct siw_wqe *wqe, const struct ib_sge *sg,
			   int n, u32 max_inline)
{
	u32 len = 0;
	int i;

	if (n < 0)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (sg[i].length > max_inline - len)
			return -EINVAL;
		memcpy(wqe->data + len, (void *)(uintptr_t)sg[i].addr,
		       sg[i].length);
		len += sg[i].length;
	}
	wqe->inline_len = len;
	wqe->num_sge = 0;
	return 0;
}

static u16 siw_kernel_flags(int send_flags, u8 opf)
{
	u16 flags = 0;

	if (send_flags & IB_SEND_SIGNALED)
		flags |= SIW_WQE_SIGNALLED;
	if ((send_flags & IB_SEND_SOLICITED) && (opf & SIW_OPF_SOLICIT))
		flags |= SIW_WQE_SOLICITED;
	if (send_flags & IB_SEND_FENCE)
		flags |= SIW_WQE_READ_FENCE;
	if (send_flags & IB_SEND_INLINE)
		flags |= SIW_WQE_INLINE;
	return flags;
}

static int siw_wqe_reg_mr(const struct ib_send_wr *wr, struct siw_wqe *wqe)
{
	const struct ib_reg_wr *reg = reg_wr(wr);

	if (!reg->mr || reg->mr->type != IB_MR_TYPE_MEM_REG)
		return -EINVAL;
	/* the consumer may change the key, never the index */
	if ((reg->key ^ reg->mr->lkey) & ~(u32)SIW_STAG_KEY_MASK)
		return -EINVAL;
	wqe->mr = reg->mr;
	wqe->rkey = reg->key;
	wqe->access = reg->access;
	return 0;
}

/**
 * siw_wqe_from_send_wr() - check a kernel consumer's send work request
 * @wr: the work request (only this one, not the list behind it)
 * @caps: the send queue's limits
 * @wqe: the result, VALID not yet set
 *
 * Immediate data, atomics, memory windows and every other opcode we do
 * not carry out are refused here, at post time.
 *
 * Returns: 0, or -EINVAL.
 */
int siw_wqe_from_send_wr(const struct ib_send_wr *wr,
			 const struct siw_wq_caps *caps, struct siw_wqe *wqe)
{
	const struct siw_op_desc *op;
	int rv;

	if (wr->opcode >= ARRAY_SIZE(siw_kernel_ops))
		return -EINVAL;
	op = &siw_kernel_ops[wr->opcode];
	if (!(op->flags & SIW_OPF_OK))
		return -EINVAL;

	memset(wqe, 0, offsetof(struct siw_wqe, sge));
	wqe->id = wr->wr_id;
	wqe->opcode = op->siw;
	wqe->flags = siw_kernel_flags(wr->send_flags, op->flags);
	if ((wqe->flags & SIW_WQE_INLINE) && !(op->flags & SIW_OPF_INLINE))
		return -EINVAL;
	if (op->flags & SIW_OPF_REMOTE) {
		wqe->raddr = rdma_wr(wr)->remote_addr;
		wqe->rkey = rdma_wr(wr)->rkey;
	}
	if (op->flags & SIW_OPF_INV)
		wqe->inval_stag = wr->ex.invalidate_rkey;
	if (wqe->opcode == SIW_OP_REG_MR)
		return siw_wqe_reg_mr(wr, wqe);
	if (!(op->flags & SIW_OPF_SGL))
		return 0;
	if (wqe->flags & SIW_WQE_INLINE)
		rv = siw_copy_inline(wqe, wr->sg_list, wr->num_sge,
				     caps->max_inline);
	else
		rv = siw_copy_sgl(wqe, wr->sg_list, wr->num_sge,
				  caps->max_sge);
	return rv;
}
EXPORT_SYMBOL_IF_KUNIT(siw_wqe_from_send_wr);

/**
 * siw_wqe_from_recv_wr() - check a kernel consumer's receive request
 * @wr: the work request
 * @caps: the receive queue's limits
 * @wqe: the result, VALID not yet set
 *
 * Returns: 0, or -EINVAL.
 */
int siw_wqe_from_recv_wr(const struct ib_recv_wr *wr,
			 const struct siw_wq_caps *caps, struct siw_wqe *wqe)
{
	memset(wqe, 0, offsetof(struct siw_wqe, sge));
	wqe->id = wr->wr_id;
	wqe->opcode = SIW_OP_RECEIVE;
	return siw_copy_sgl(wqe, wr->sg_list, wr->num_sge, caps->max_sge);
}
EXPORT_SYMBOL_IF_KUNIT(siw_wqe_from_recv_wr);

#define SIW_SQE_USER_FLAGS	(SIW_WQE_VALID | SIW_WQE_INLINE | \
				 SIW_WQE_SIGNALLED | SIW_WQE_SOLICITED | \
				 SIW_WQE_READ_FENCE)

/**
 * siw_wqe_from_sqe() - check a send queue entry a process wrote
 * @sqe: a private copy of the entry (the shared one may change under us)
 * @wqe: the result; for a malformed entry, its id and the opcode to
 *	report (siw_wqe_flush_opcode())
 *
 * Returns: 0, or -EINVAL for anything the provider would never write.
 */
int siw_wqe_from_sqe(const struct siw_sqe *sqe, struct siw_wqe *wqe)
{
	u32 total;
	u8 opf;

	/* a malformed entry is completed in error, under its own id */
	memset(wqe, 0, offsetof(struct siw_wqe, sge));
	wqe->id = sqe->id;
	/* and the opcode its completion reports, whatever it is */
	wqe->opcode = siw_wqe_flush_opcode(sqe->opcode);
	if (sqe->opcode >= SIW_NUM_OPCODES)
		return -EINVAL;
	opf = siw_user_ops[sqe->opcode];
	if (!(opf & SIW_OPF_OK) || (sqe->flags & ~SIW_SQE_USER_FLAGS))
		return -EINVAL;

	wqe->opcode = sqe->opcode;
	wqe->flags = sqe->flags;
	if (!(opf & SIW_OPF_SOLICIT))
		wqe->flags &= ~SIW_WQE_SOLICITED;
	if (opf & SIW_OPF_REMOTE) {
		wqe->raddr = sqe->raddr;
		wqe->rkey = sqe->rkey;
	}
	if (opf & SIW_OPF_INV)
		wqe->inval_stag = sqe->rkey;
	if (wqe->flags & SIW_WQE_INLINE) {
		if (!(opf & SIW_OPF_INLINE) ||
		    sqe->sge[0].length > SIW_MAX_INLINE)
			return -EINVAL;
		wqe->inline_len = sqe->sge[0].length;
		memcpy(wqe->data, &sqe->sge[1], wqe->inline_len);
		return 0;
	}
	if (sqe->num_sge > SIW_MAX_SGE)
		return -EINVAL;
	wqe->num_sge = sqe->num_sge;
	memcpy(wqe->sge, sqe->sge, sqe->num_sge * sizeof(struct siw_sge));
	return siw_sgl_len(wqe->sge, wqe->num_sge, &total);
}
EXPORT_SYMBOL_IF_KUNIT(siw_wqe_from_sqe);

/**
 * siw_wqe_from_rqe() - check a receive queue entry a process wrote
 * @rqe: a private copy of the entry
 * @wqe: the result
 *
 * Returns: 0, or -EINVAL.
 */
int siw_wqe_from_rqe(const struct siw_rqe *rqe, struct siw_wqe *wqe)
{
	u32 total;

	/* a malformed entry is completed in error, under its own id */
	memset(wqe, 0, offsetof(struct siw_wqe, sge));
	wqe->id = rqe->id;
	if (rqe->num_sge > SIW_MAX_SGE)
		return -EINVAL;
	wqe->flags = SIW_WQE_VALID;
	wqe->opcode = SIW_OP_RECEIVE;
	wqe->num_sge = rqe->num_sge;
	memcpy(wqe->sge, rqe->sge, rqe->num_sge * sizeof(struct siw_sge));
	return siw_sgl_len(wqe->sge, wqe->num_sge, &total);
}
EXPORT_SYMBOL_IF_KUNIT(siw_wqe_from_rqe);

/**
 * siw_wqe_flush_opcode() - the opcode to report for a flushed entry
 * @opcode: the entry's opcode as found (possibly written by a process)
 *
 * Returns: @opcode if it is one of the ABI's, else SIW_OP_SEND.
 */
u8 siw_wqe_flush_opcode(u8 opcode)
{
	return opcode < SIW_NUM_OPCODES ? opcode : SIW_OP_SEND;
}
EXPORT_SYMBOL_IF_KUNIT(siw_wqe_flush_opcode);

/**
 * siw_wc_opcode() - the verbs completion opcode of an ABI opcode
 * @opcode: enum siw_opcode
 *
 * Returns: the enum ib_wc_opcode.
 */
enum ib_wc_opcode siw_wc_opcode(u8 opcode)
{
	return siw_wc_opcodes[siw_wqe_flush_opcode(opcode)];
}
EXPORT_SYMBOL_IF_KUNIT(siw_wc_opcode);

/**
 * siw_wc_status_to_abi() - the ABI's code of a completion status
 * @status: a verbs status
 *
 * Returns: the enum siw_wc_status; SIW_WC_GENERAL_ERR for a status the
 * ABI has no code for.
 */
enum siw_wc_status siw_wc_status_to_abi(enum ib_wc_status status)
{
	unsigned int i;

	for (i = 0; i < SIW_NUM_WC_STATUS; i++)
		if (siw_wc_status_map[i] == status)
			return i;
	return SIW_WC_GENERAL_ERR;
}
EXPORT_SYMBOL_IF_KUNIT(siw_wc_status_to_abi);

/**
 * siw_wc_status_from_abi() - the verbs status of an ABI code
 * @status: enum siw_wc_status
 *
 * Returns: the enum ib_wc_status.
 */
enum ib_wc_status siw_wc_status_from_abi(u16 status)
{
	if (status >= SIW_NUM_WC_STATUS)
		return IB_WC_GENERAL_ERR;
	return siw_wc_status_map[status];
}
EXPORT_SYMBOL_IF_KUNIT(siw_wc_status_from_abi);
