// SPDX-License-Identifier: GPL-2.0
/*
 * STag checks (RFC 5041 section 7.1, RFC 5040 sections 5 and 7, RFC 5042
 * section 5) as a pure function over a struct siw_ddp_region, and the
 * lookup through the memory layer's callbacks.
 *
 * One set of checks serves three uses; only the error codes differ: a
 * tagged segment reports DDP Tagged Buffer errors, the source of a Read
 * Request RDMAP Remote Protection errors, and the STag of a Send with
 * Invalidate the two "STag cannot be Invalidated" errors.
 */
#include <kunit/visibility.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/string.h>

#include "siw_ddp.h"

enum siw_stag_fault {
	SIW_STAG_FINE,
	SIW_STAG_INVALID,	/* unknown, index 0, invalidated, wrong key */
	SIW_STAG_FOREIGN_PD,
	SIW_STAG_NO_ACCESS,	/* rights missing, or not remotely invalidatable */
	SIW_STAG_WRAP,		/* TO + length - 1 beyond 2^64 - 1 */
	SIW_STAG_BOUNDS,	/* outside [base, base + len) */
	SIW_STAG_NUM_FAULTS,
};

static const enum siw_ddp_err
siw_stag_errors[][SIW_STAG_NUM_FAULTS] = {
	[SIW_DDP_STAG_PLACE] = {
		[SIW_STAG_INVALID]	= SIW_DDP_ERR_DDP_T_INVALID_STAG,
		[SIW_STAG_FOREIGN_PD]	= SIW_DDP_ERR_DDP_T_STAG_NOT_ASSOC,
		/* DDP has no access rights code: RDMAP reports it */
		[SIW_STAG_NO_ACCESS]	= SIW_DDP_ERR_RDMAP_ACCESS,
		[SIW_STAG_WRAP]		= SIW_DDP_ERR_DDP_T_TO_WRAP,
		[SIW_STAG_BOUNDS]	= SIW_DDP_ERR_DDP_T_BASE_BOUNDS,
	},
	[SIW_DDP_STAG_READ_SRC] = {
		[SIW_STAG_INVALID]	= SIW_DDP_ERR_RDMAP_INVALID_STAG,
		[SIW_STAG_FOREIGN_PD]	= SIW_DDP_ERR_RDMAP_STAG_NOT_ASSOC,
		[SIW_STAG_NO_ACCESS]	= SIW_DDP_ERR_RDMAP_ACCESS,
		[SIW_STAG_WRAP]		= SIW_DDP_ERR_RDMAP_TO_WRAP,
		[SIW_STAG_BOUNDS]	= SIW_DDP_ERR_RDMAP_BASE_BOUNDS,
	},
	[SIW_DDP_STAG_INVALIDATE] = {
		[SIW_STAG_INVALID]	= SIW_DDP_ERR_RDMAP_OP_CANNOT_INV,
		[SIW_STAG_FOREIGN_PD]	= SIW_DDP_ERR_RDMAP_PROT_CANNOT_INV,
		[SIW_STAG_NO_ACCESS]	= SIW_DDP_ERR_RDMAP_OP_CANNOT_INV,
	},
};

/* Is this the region the peer named, and may this stream use it? */
static enum siw_stag_fault siw_stag_identity(const struct siw_ddp_region *r,
					     const struct siw_ddp_stag_req *req)
{
	if (!r || !siw_stag_index(req->stag) ||
	    r->state != SIW_DDP_REGION_VALID || r->stag != req->stag)
		return SIW_STAG_INVALID;
	if (r->pd != req->pd)
		return SIW_STAG_FOREIGN_PD;
	return SIW_STAG_FINE;
}

/* Rights, then wrap before bounds: a wrapping access is also out of bounds */
static enum siw_stag_fault siw_stag_range(const struct siw_ddp_region *r,
					  const struct siw_ddp_stag_req *req)
{
	u64 last, r_last;

	if (req->access_any ? !(r->access & req->access) :
	    (r->access & req->access) != req->access)
		return SIW_STAG_NO_ACCESS;
	if (check_add_overflow(req->to, (u64)req->len - 1, &last))
		return SIW_STAG_WRAP;
	if (!r->len || check_add_overflow(r->base, r->len - 1, &r_last))
		return SIW_STAG_BOUNDS;
	if (req->to < r->base || last > r_last)
		return SIW_STAG_BOUNDS;
	return SIW_STAG_FINE;
}

static enum siw_stag_fault siw_stag_fault(const struct siw_ddp_region *r,
					  const struct siw_ddp_stag_req *req)
{
	enum siw_stag_fault f = siw_stag_identity(r, req);

	if (f)
		return f;
	if (req->use == SIW_DDP_STAG_INVALIDATE)
		return r->remote_inv ? SIW_STAG_FINE : SIW_STAG_NO_ACCESS;
	return siw_stag_range(r, req);
}

static bool siw_stag_skip(const struct siw_ddp_stag_req *req)
{
	/* RFC 5041 5.2: STag and TO of a zero-length segment are not checked */
	return !req->len && req->use != SIW_DDP_STAG_INVALIDATE;
}

/**
 * siw_ddp_stag_check() - may @req access the region @r describes?
 * @r: the region the memory layer found for @req->stag, or NULL if none
 * @req: the access
 *
 * Checks, in this order: the STag has a non-zero index, a region, that
 * region is valid and its STag (key included) is the one received; its
 * PD is the QP's; then, for placement and reads, it grants the rights,
 * TO + length does not wrap 2^64 and lies within the region; for an
 * invalidation, the region allows remote invalidation. A zero-length
 * placement or read checks nothing.
 *
 * Context: any; pure function.
 * Returns: SIW_DDP_OK or the error to report for @req->use; the RDMAP
 * Local Catastrophic Error for a @req->use this function does not know.
 */
enum siw_ddp_err siw_ddp_stag_check(const struct siw_ddp_region *r,
				    const struct siw_ddp_stag_req *req)
{
	enum siw_stag_fault f;

	if ((unsigned int)req->use >= ARRAY_SIZE(siw_stag_errors))
		return SIW_DDP_ERR_RDMAP_CATASTROPHIC;
	if (siw_stag_skip(req))
		return SIW_DDP_OK;
	f = siw_stag_fault(r, req);
	if (f == SIW_STAG_FINE)
		return SIW_DDP_OK;
	return siw_stag_errors[req->use][f];
}
EXPORT_SYMBOL_IF_KUNIT(siw_ddp_stag_check);

static void siw_ddp_region_put(const struct siw_ddp_mem *mem,
			       struct siw_ddp_region *r)
{
	if (mem->ops->put)
		mem->ops->put(mem->ctx, r);
	memset(r, 0, sizeof(*r));
}

/**
 * siw_ddp_stag_resolve() - look up an STag and check an access to it
 * @mem: the memory layer
 * @req: the access
 * @r: on success, the region, holding the reference the lookup took
 *
 * A zero-length placement or read looks nothing up and leaves @r zeroed
 * (no reference). On error, the reference is already dropped.
 *
 * Context: any; does not sleep if @mem's callbacks do not.
 * Returns: SIW_DDP_OK or the error to report for @req->use.
 */
enum siw_ddp_err siw_ddp_stag_resolve(const struct siw_ddp_mem *mem,
				      const struct siw_ddp_stag_req *req,
				      struct siw_ddp_region *r)
{
	enum siw_ddp_err err;

	if (siw_stag_skip(req)) {
		memset(r, 0, sizeof(*r));
		return SIW_DDP_OK;
	}
	/* a lookup that finds the region fills all of @r */
	if (!siw_stag_index(req->stag) ||
	    mem->ops->lookup(mem->ctx, req->stag, r)) {
		memset(r, 0, sizeof(*r));
		return siw_ddp_stag_check(NULL, req);
	}
	err = siw_ddp_stag_check(r, req);
	if (err)
		siw_ddp_region_put(mem, r);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(siw_ddp_stag_resolve);

/**
 * siw_ddp_stag_again() - resolve an STag, reusing a region still held
 * @mem: the memory layer
 * @req: the access
 * @r: a region an earlier resolve returned and the caller still holds,
 *	or a zeroed one; on success, the region for @req, holding a
 *	reference
 *
 * For the segments of one message, which name the same STag: if @r is
 * that STag's region and the memory layer says nothing in it changed
 * since it was looked up, @req is checked against it with no lookup;
 * the outcome is the one siw_ddp_stag_resolve() would have now.
 * Otherwise @r is released and @req resolved afresh.
 *
 * Context: any; does not sleep if @mem's callbacks do not.
 * Returns: SIW_DDP_OK or the error to report for @req->use; on error
 * @r holds nothing.
 */
enum siw_ddp_err siw_ddp_stag_again(const struct siw_ddp_mem *mem,
				    const struct siw_ddp_stag_req *req,
				    struct siw_ddp_region *r)
{
	enum siw_ddp_err err;

	if (r->state != SIW_DDP_REGION_VALID || r->stag != req->stag ||
	    siw_stag_skip(req) || !mem->ops->unchanged ||
	    !mem->ops->unchanged(mem->ctx, r)) {
		siw_ddp_stag_put(mem, r);
		return siw_ddp_stag_resolve(mem, req, r);
	}
	err = siw_ddp_stag_check(r, req);
	if (err)
		siw_ddp_region_put(mem, r);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(siw_ddp_stag_again);

/**
 * siw_ddp_stag_put() - release a region siw_ddp_stag_resolve() returned
 * @mem: the memory layer
 * @r: the region; zeroed afterwards
 *
 * Does nothing for the zeroed region of a zero-length access, so the
 * caller may call it after every successful resolve.
 *
 * Context: any; does not sleep if @mem's put does not.
 */
void siw_ddp_stag_put(const struct siw_ddp_mem *mem, struct siw_ddp_region *r)
{
	if (r->state == SIW_DDP_REGION_VALID)
		siw_ddp_region_put(mem, r);
}
EXPORT_SYMBOL_IF_KUNIT(siw_ddp_stag_put);
