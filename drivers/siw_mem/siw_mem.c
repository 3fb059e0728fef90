// SPDX-License-Identifier: GPL-2.0
/*
 * Protection domains, memory regions and the STag table.
 *
 * The table is an xarray indexed by the STag's upper 24 bits. Writers
 * (registration, deregistration) run in process context and use the
 * xarray's own lock; readers use RCU and a reference, so the receive
 * path may look STags up from softirq. Each MR's mutable description
 * changes under its spinlock inside a sequence count, and a lookup
 * reads it again if one changed it meanwhile, so a lookup never sees
 * half a fast registration and takes no lock.
 *
 * The same spinlock is held across every access to a region's memory
 * and is taken to revoke it (invalidation, deregistration): an access
 * checks that the region is valid and unchanged since the access was
 * checked (&siw_mr.gen), copies (placement) or takes a page reference
 * (transmit), and lets go. Once a revocation returned, no access is
 * under way and none starts. A reference to the description only keeps
 * the description; the memory goes at deregistration. A copy of an
 * SGE at a message's start takes no reference at all: RCU keeps the
 * description, and validity, checked under the lock, the memory
 * (siw_mr_fetch_local()).
 */
#include <kunit/visibility.h>
#include <linux/export.h>
#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/net.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/ib_umem.h>
#include <rdma/siw-abi.h>

#include "siw_compat.h"
#include "siw_ddp/siw_ddp.h"
#include "siw_mpa/siw_mpa.h"
#include "siw_limits.h"
#include "siw_mem.h"
#include "siw_fault.h"

/**
 * siw_mem_table_init() - set up an empty STag table
 * @t: the table, part of a device being created
 */
void siw_mem_table_init(struct siw_mem_table *t)
{
	xa_init_flags(&t->xa, XA_FLAGS_ALLOC1);
	t->next = 1;
	atomic_set(&t->nr_mr, 0);
	atomic_set(&t->nr_pd, 0);
}
EXPORT_SYMBOL_IF_KUNIT(siw_mem_table_init);

/**
 * siw_mem_table_destroy() - release an STag table
 * @t: the table; the RDMA core has deregistered every MR before
 */
void siw_mem_table_destroy(struct siw_mem_table *t)
{
	WARN_ON(!xa_empty(&t->xa));
	xa_destroy(&t->xa);
}
EXPORT_SYMBOL_IF_KUNIT(siw_mem_table_destroy);

/* siw_mr_get(), inline where the receive path's lookup calls it */
static __always_inline struct siw_mr *siw_mr_find(struct siw_mem_table *t,
						  u32 stag)
{
	u32 index = siw_stag_index(stag);
	struct siw_mr *mr;

	if (!index)
		return NULL;
	rcu_read_lock();
	mr = xa_load(&t->xa, index);
	if (mr && !refcount_inc_not_zero(&mr->ref))
		mr = NULL;
	rcu_read_unlock();
	return mr;
}

/**
 * siw_mr_get() - find the region behind an STag's index
 * @t: the STag table
 * @stag: an STag; only its index (upper 24 bits) is used
 *
 * The key is not compared: callers check the region they get, so that
 * a wrong key is reported as such and not as an unknown STag.
 *
 * Context: any; does not sleep.
 * Returns: the region with a reference taken, or NULL.
 */
struct siw_mr *siw_mr_get(struct siw_mem_table *t, u32 stag)
{
	return siw_mr_find(t, stag);
}
EXPORT_SYMBOL_IF_KUNIT(siw_mr_get);

/**
 * siw_mr_hold() - take another reference on a region
 * @mr: a region the caller holds a reference on (e.g. through a lookup)
 *
 * Context: any.
 */
void siw_mr_hold(struct siw_mr *mr)
{
	refcount_inc(&mr->ref);
}
EXPORT_SYMBOL_IF_KUNIT(siw_mr_hold);

/* The last reference is gone: free the description (any context) */
static void siw_mr_release(struct siw_mr *mr)
{
	kvfree(mr->pages);
	kfree(mr->pbl);
	kfree(mr->map_pbl);
	/* a lookup may still be looking at it, under RCU */
	kfree_rcu(mr, rcu);
}

/**
 * siw_mr_put() - drop a reference taken by siw_mr_get()
 * @mr: the region
 *
 * Context: any.
 */
void siw_mr_put(struct siw_mr *mr)
{
	if (refcount_dec_and_test(&mr->ref))
		siw_mr_release(mr);
}
EXPORT_SYMBOL_IF_KUNIT(siw_mr_put);

/*
 * A snapshot of one moment: the accesses that follow check under the
 * lock that the region is still valid and its change count the one read
 * here (siw_mr_live()), so the snapshot only has to be consistent, not
 * current.
 */
static __always_inline void siw_mr_describe(struct siw_mr *mr,
					    struct siw_ddp_region *r)
{
	unsigned int seq;

	r->pd = mr->base.pd;
	r->obj = mr;
	/* only regions the consumer registers per use may be invalidated */
	r->remote_inv = mr->kind == SIW_MR_FASTREG;
	do {
		seq = read_seqcount_begin(&mr->seq);
		r->base = mr->va;
		r->len = mr->len;
		r->stag = mr->stag;
		r->access = mr->access;
		r->state = mr->valid ? SIW_DDP_REGION_VALID :
				       SIW_DDP_REGION_INVALID;
		r->version = mr->gen;
	} while (read_seqcount_retry(&mr->seq, seq));
}

static int siw_mem_ddp_lookup(void *ctx, u32 stag, struct siw_ddp_region *r)
{
	struct siw_mr *mr = siw_mr_find(ctx, stag);

	if (!mr)
		return -ENOENT;
	siw_mr_describe(mr, r);
	return 0;
}

/*
 * Every change to what siw_mr_describe() reads, once the region can be
 * looked up, counts in @gen, in the same write section: an unchanged
 * count is an unchanged description. (Deregistration erases the index
 * before it revokes: in between a lookup finds nothing where this still
 * says unchanged, and an access checked then counts as made before the
 * deregistration; placement still checks validity under the lock.)
 */
static bool siw_mem_ddp_unchanged(void *ctx, const struct siw_ddp_region *r)
{
	struct siw_mr *mr = r->obj;
	unsigned int seq;
	u64 gen;

	do {
		seq = read_seqcount_begin(&mr->seq);
		gen = mr->gen;
	} while (read_seqcount_retry(&mr->seq, seq));
	return gen == r->version;
}

static void siw_mem_ddp_put(void *ctx, struct siw_ddp_region *r)
{
	siw_mr_put(r->obj);
}

/* What the DDP layer's STag checks call; ctx is the struct siw_mem_table */
const struct siw_ddp_mem_ops siw_mem_ddp_ops = {
	.lookup = siw_mem_ddp_lookup,
	.put = siw_mem_ddp_put,
	.unchanged = siw_mem_ddp_unchanged,
};
EXPORT_SYMBOL_IF_KUNIT(siw_mem_ddp_ops);

/* Does [@va, @va + @n) lie within [@base, @base + @len)? */
static bool siw_range_within(u64 base, u64 len, u64 va, u64 n)
{
	return va >= base && va - base <= len && n <= len - (va - base);
}

/**
 * siw_mr_check() - may a local access go through a region?
 * @r: the region as looked up
 * @pd: the PD of the QP making the access
 * @stag: the STag (lkey) the work request names
 * @va: first address accessed
 * @len: octets accessed
 * @access: IB_ACCESS_* bits needed (0 for a local read)
 *
 * Returns: SIW_MEM_OK, or why the access is refused.
 */
enum siw_mem_err siw_mr_check(const struct siw_ddp_region *r, const void *pd,
			      u32 stag, u64 va, u32 len, u32 access)
{
	if (r->stag != stag)
		return SIW_MEM_ERR_STAG;
	if (r->state != SIW_DDP_REGION_VALID)
		return SIW_MEM_ERR_INVALID;
	if (r->pd != pd)
		return SIW_MEM_ERR_PD;
	if ((r->access & access) != access)
		return SIW_MEM_ERR_ACCESS;
	if (!siw_range_within(r->base, r->len, va, len))
		return SIW_MEM_ERR_BOUNDS;
	return SIW_MEM_OK;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mr_check);

/**
 * siw_mr_get_local() - resolve an SGE's lkey for a local access
 * @t: the STag table
 * @pd: the QP's PD
 * @lkey: the SGE's lkey
 * @va: the SGE's address
 * @len: the SGE's length
 * @access: IB_ACCESS_LOCAL_WRITE for a receive or Read sink, else 0
 * @gen: the region's change count the access was checked at, for
 *	siw_mr_place(), siw_mr_get_page() and siw_mr_usable()
 * @err: why the access was refused, if it was
 *
 * Context: any; does not sleep.
 * Returns: the region with a reference (drop it with siw_mr_put()), or
 * NULL with @err set.
 */
struct siw_mr *siw_mr_get_local(struct siw_mem_table *t, struct ib_pd *pd,
				u32 lkey, u64 va, u32 len, u32 access,
				u64 *gen, enum siw_mem_err *err)
{
	struct siw_ddp_region r;
	struct siw_mr *mr;

	mr = siw_mr_get(t, lkey);
	if (!mr) {
		*err = SIW_MEM_ERR_STAG;
		return NULL;
	}
	siw_mr_describe(mr, &r);
	*err = siw_mr_check(&r, pd, lkey, va, len, access);
	if (*err) {
		siw_mr_put(mr);
		return NULL;
	}
	*gen = r.version;
	return mr;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mr_get_local);

/**
 * siw_mr_pgidx() - locate a Tagged Offset in a region's page list
 * @base: the region's first Tagged Offset
 * @first_off: offset of @base in the first page
 * @shift: log2 of the page size
 * @va: the Tagged Offset to locate
 * @idx: page index
 * @off: offset in that page
 *
 * Returns: 0, or -ERANGE if @va is below @base.
 */
int siw_mr_pgidx(u64 base, u32 first_off, u8 shift, u64 va, u32 *idx,
		 u32 *off)
{
	u64 pos;

	if (va < base)
		return -ERANGE;
	pos = va - base + first_off;
	*idx = pos >> shift;
	*off = pos & ((1ULL << shift) - 1);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mr_pgidx);

static struct page *siw_kaddr_page(u64 kaddr, unsigned int *pg_off)
{
	const void *p = (const void *)(uintptr_t)kaddr;

	*pg_off = offset_in_page(p);
	if (is_vmalloc_addr(p))
		return vmalloc_to_page(p);
	return virt_addr_valid(p) ? virt_to_page(p) : NULL;
}

/*
 * The page holding Tagged Offset @va of @mr, or NULL; @mr->lock held.
 * *@pg_off is the octet's offset in that page, *@room the octets from
 * there to the end of the region's page or of the kernel page,
 * whichever ends first: no access may run past either. A region's pages
 * may be smaller than the kernel's (a consumer maps 4 KiB pages on a
 * 64 KiB-page kernel: the rest of that kernel page is not the region's)
 * or larger (a 2 MiB page, whose kernel pages siw_kaddr_page() resolves
 * one at a time).
 */
static struct page *siw_mr_page(struct siw_mr *mr, u64 va,
				unsigned int *pg_off, u32 *room)
{
	struct page *pg;
	u32 idx, off;

	lockdep_assert_held(&mr->lock);
	switch (mr->kind) {
	case SIW_MR_DMA:
		pg = siw_kaddr_page(va, pg_off);
		*room = PAGE_SIZE - *pg_off;
		return pg;
	case SIW_MR_USER:
		if (siw_mr_pgidx(mr->va, mr->first_off, PAGE_SHIFT, va,
				 &idx, &off) || idx >= mr->npages)
			return NULL;
		*pg_off = off;
		*room = PAGE_SIZE - off;
		return mr->pages[idx];
	case SIW_MR_FASTREG:
		if (siw_mr_pgidx(mr->va, mr->first_off, mr->page_shift, va,
				 &idx, &off) || idx >= mr->npages ||
		    idx >= mr->max_pages)
			return NULL;
		pg = siw_kaddr_page(mr->pbl[idx] + off, pg_off);
		*room = min_t(u64, BIT_ULL(mr->page_shift) - off,
			      PAGE_SIZE - *pg_off);
		return pg;
	}
	return NULL;
}

/*
 * May an access checked against the description of change count @gen
 * touch @mr's memory? Lock held. A registration again under the same
 * STag follows an invalidation, and both count: an equal count means
 * the region was neither revoked nor changed in bounds, rights or key
 * since the check, so what the check found still holds.
 */
static bool siw_mr_live(struct siw_mr *mr, u64 gen)
{
	lockdep_assert_held(&mr->lock);
	return mr->valid && mr->gen == gen;
}

/**
 * siw_mr_usable() - is a region as it was when an access was checked?
 * @mr: a region the caller holds a reference on
 * @gen: its change count when the access was checked
 *	(&siw_ddp_region.version, or what siw_mr_get_local() returned)
 *
 * For a sender between FPDUs: a false answer stops the message. The
 * pages already taken with siw_mr_get_page() stay the caller's.
 *
 * Context: any.
 * Returns: true if @mr is valid and unchanged since.
 */
bool siw_mr_usable(struct siw_mr *mr, u64 gen)
{
	unsigned long flags;
	bool live;

	spin_lock_irqsave(&mr->lock, flags);
	live = siw_mr_live(mr, gen);
	spin_unlock_irqrestore(&mr->lock, flags);
	return live;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mr_usable);

/*
 * Copy the part of [@va, @va + @len) of @mr that lies in the page of @va
 * (the region's page or the kernel page, whichever ends first) from
 * @buf (@into) or to @buf, feeding the octets into *@crc if @crc is set;
 * @mr->lock held, the access checked. Returns the octets copied, 0 if
 * no page backs @va.
 */
static __always_inline u32 siw_mr_copy_page(struct siw_mr *mr, u64 va,
					    void *buf, u32 len, u32 *crc,
					    bool into)
{
	unsigned int pg_off;
	struct page *pg;
	void *dst, *src;
	void *map;
	u32 n;

	pg = siw_mr_page(mr, va, &pg_off, &n);
	if (!pg)
		return 0;
	n = min(len, n);
	map = kmap_local_page(pg);
	dst = into ? map + pg_off : buf;
	src = into ? buf : map + pg_off;
	if (crc)
		*crc = siw_mpa_crc_copy(*crc, dst, src, n);
	else
		memcpy(dst, src, n);
	if (into)
		flush_dcache_page(pg);
	kunmap_local(map);
	return n;
}

/*
 * Copy [@va, @va + @len) of @mr from @buf (@into) or to @buf, a page at
 * a time, each under the region's lock once it was found valid and
 * unchanged since @gen: interrupts stay off for one page's copy at most,
 * and a revocation between two pages stops the copy before the next.
 * Feeds the octets into *@crc if @crc is set: siw_mr_place(),
 * siw_mr_fetch() and siw_mr_fetch_local().
 */
static __always_inline int siw_mr_copy(struct siw_mr *mr, u64 gen,
				       u64 va, void *buf, u32 len, u32 *crc,
				       bool into)
{
	unsigned long flags;
	int rv = 0;
	u32 n;

	do {
		n = 0;
		spin_lock_irqsave(&mr->lock, flags);
		if (!siw_mr_live(mr, gen))
			rv = -EACCES;
		else if (!siw_range_within(mr->va, mr->len, va, len))
			rv = -ERANGE;
		else if (len)
			n = siw_mr_copy_page(mr, va, buf, len, crc, into);
		spin_unlock_irqrestore(&mr->lock, flags);
		if (!rv && len && !n)
			rv = -EFAULT;
		va += n;
		buf += n;
		len -= n;
	} while (!rv && len);
	return rv;
}

/**
 * siw_mr_place() - copy octets into a region
 * @mr: a region the caller holds a reference on and checked the whole
 *	access against when it was granted (siw_mr_check() or the DDP
 *	layer's STag checks)
 * @gen: its change count when the access was checked
 *	(&siw_ddp_region.version, or what siw_mr_get_local() returned)
 * @va: Tagged Offset (or address) of the first octet
 * @data: the octets
 * @len: their number
 * @crc: NULL, or a CRC32c state to feed the octets into as they are
 *	copied (the receive path's FPDU CRC, checked in the same pass)
 *
 * Copies a page at a time, each page under the region's lock after
 * checking that the region is still valid and unchanged since the
 * check: an invalidation or deregistration either waits for the page
 * being copied or stops the copy before the next, and so does a
 * registration again under the same STag (which follows an
 * invalidation), whatever bounds and rights it gives. Each piece
 * copied ends at the end of the region's page or of the kernel page,
 * whichever comes first.
 *
 * Context: any; does not sleep.
 * Returns: 0, -EACCES (revoked or changed since the check; nothing is
 * copied after the revocation, the pages before it may be), -ERANGE
 * (outside the region: the caller did not check the range; nothing is
 * copied) or -EFAULT (an octet not backed by the region; the pages
 * before it are copied).
 */
int siw_mr_place(struct siw_mr *mr, u64 gen, u64 va, const void *data,
		 u32 len, u32 *crc)
{
	return siw_mr_copy(mr, gen, va, (void *)data, len, crc, true);
}
EXPORT_SYMBOL_IF_KUNIT(siw_mr_place);

/**
 * siw_mr_fetch() - copy octets out of a region into a kernel buffer
 * @mr: a region the caller holds a reference on and checked the whole
 *	access against when it was granted (siw_mr_get_local())
 * @gen: its change count when the access was checked
 * @va: address (or Tagged Offset) of the first octet
 * @dst: where the octets go
 * @len: their number
 * @crc: NULL, or a CRC32c state to feed the octets into as they are
 *	copied (the transmit path's FPDU CRC, in the same pass)
 *
 * The sender's counterpart of siw_mr_place(), for a message copied
 * whole before it goes to TCP: the octets are read a page at a time
 * under the region's lock, once it was found valid and unchanged since
 * the check, so an invalidation or deregistration either waits for the
 * page being read or stops the copy before the next, and nothing is
 * read from memory the region no longer grants. No page reference is
 * taken: nothing refers to the pages afterwards.
 *
 * Context: any; does not sleep.
 * Returns: 0, -EACCES (revoked or changed since the check; nothing is
 * read after the revocation), -ERANGE (outside the region; nothing is
 * copied) or -EFAULT (an octet not backed by the region).
 */
int siw_mr_fetch(struct siw_mr *mr, u64 gen, u64 va, void *dst, u32 len,
		 u32 *crc)
{
	return siw_mr_copy(mr, gen, va, dst, len, crc, false);
}
EXPORT_SYMBOL_IF_KUNIT(siw_mr_fetch);

/**
 * siw_mr_fetch_local() - copy an SGE's octets out of its region
 * @t: the STag table
 * @pd: the QP's PD
 * @lkey: the SGE's lkey
 * @va: the SGE's address
 * @dst: where the octets go
 * @len: their number
 * @crc: NULL, or a CRC32c state to feed the octets into as they are
 *	copied
 *
 * siw_mr_get_local() for a local read, siw_mr_fetch() and siw_mr_put()
 * in one, for a message copied whole at its start: the region is found
 * under RCU and checked under its lock, where nothing of what the check
 * reads can change, and its first page read in the same hold; the rest
 * a page a hold, as siw_mr_fetch() reads. No reference is taken: a
 * region valid under its lock is not yet revoked, and only its
 * revocation (siw_mr_destroy()) drops the table's reference, so its
 * pages and page list are there; RCU keeps the description itself.
 *
 * Context: any; does not sleep.
 * Returns: 0, -EACCES (no such region, or it refused the access: key,
 * validity, PD or bounds; or it was revoked during the copy, nothing
 * read after the revocation) or -EFAULT (an octet not backed by the
 * region).
 */
int siw_mr_fetch_local(struct siw_mem_table *t, struct ib_pd *pd, u32 lkey,
		       u64 va, void *dst, u32 len, u32 *crc)
{
	u32 index = siw_stag_index(lkey);
	struct siw_ddp_region r;
	unsigned long flags;
	struct siw_mr *mr;
	int rv = -EACCES;
	u32 n = 0;

	if (!index)
		return -EACCES;
	rcu_read_lock();
	mr = xa_load(&t->xa, index);
	if (!mr)
		goto out;
	spin_lock_irqsave(&mr->lock, flags);
	siw_mr_describe(mr, &r);
	if (siw_mr_check(&r, pd, lkey, va, len, 0) == SIW_MEM_OK) {
		n = len ? siw_mr_copy_page(mr, va, dst, len, crc, false) : 0;
		rv = len && !n ? -EFAULT : 0;
	}
	spin_unlock_irqrestore(&mr->lock, flags);
	/* the rest, if the SGE spans pages, a page a hold */
	if (!rv && n < len)
		rv = siw_mr_copy(mr, r.version, va + n, dst + n, len - n, crc,
				 false);
out:
	rcu_read_unlock();
	return rv;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mr_fetch_local);

/**
 * siw_mr_place_once() - check a tagged segment and place all its payload
 * @t: the STag table
 * @req: the access the segment asks for (&siw_ddp_stag_req.len octets
 *	from its Tagged Offset), at least one octet
 * @data: the payload
 * @crc: NULL, or a CRC32c state to feed the octets into as they are
 *	copied
 * @rv: the copy's outcome, as siw_mr_place() returns it, once the check
 *	passed
 *
 * The DDP layer's STag checks (siw_ddp_stag_check()) and siw_mr_place()
 * in one, for a Write that arrived in one segment: the region is found
 * under RCU and described and checked under its lock, where nothing the
 * check reads can change, and its first page placed in the same hold;
 * the rest a page a hold, as siw_mr_place() copies. No reference is
 * taken, for the reason siw_mr_fetch_local() gives.
 *
 * Context: any; does not sleep.
 * Returns: SIW_DDP_OK, with *@rv set; or the error the check reports,
 * nothing placed.
 */
enum siw_ddp_err siw_mr_place_once(struct siw_mem_table *t,
				   const struct siw_ddp_stag_req *req,
				   const void *data, u32 *crc, int *rv)
{
	u32 index = siw_stag_index(req->stag);
	struct siw_ddp_region r;
	enum siw_ddp_err err;
	unsigned long flags;
	struct siw_mr *mr;
	u32 n = 0;

	if (!index)
		return siw_ddp_stag_check(NULL, req);
	rcu_read_lock();
	mr = xa_load(&t->xa, index);
	if (!mr) {
		err = siw_ddp_stag_check(NULL, req);
		goto out;
	}
	spin_lock_irqsave(&mr->lock, flags);
	siw_mr_describe(mr, &r);
	err = siw_ddp_stag_check(&r, req);
	if (!err)
		n = siw_mr_copy_page(mr, req->to, (void *)data, req->len, crc,
				     true);
	spin_unlock_irqrestore(&mr->lock, flags);
	if (err)
		goto out;
	*rv = n ? 0 : -EFAULT;
	/* the rest, if the segment spans pages, a page a hold */
	if (n && n < req->len)
		*rv = siw_mr_copy(mr, r.version, req->to + n,
				  (void *)data + n, req->len - n, crc, true);
out:
	rcu_read_unlock();
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mr_place_once);

/**
 * siw_mr_get_page() - take the page holding a Tagged Offset, to send from
 * @mr: a region the caller holds a reference on and checked the access
 *	against when it was granted
 * @gen: its change count when the access was checked
 * @va: Tagged Offset (or address) of the first octet
 * @len: octets wanted from there, at least 1; the page serves @src->len
 *	of them, up to the end of the region's page or of the kernel
 *	page, whichever ends first
 * @copy_slab: the caller may send after the region's owner let go of
 *	the memory (a Read Response, timed by the peer)
 * @src: the page, its offset, the octets it serves and whether the
 *	caller holds a reference
 *
 * A page that can be referenced comes with a reference of the caller's
 * (put_page() it), so that it cannot be freed while the caller still
 * sends from it, even after the region was revoked. Slab memory takes
 * no reference (a kfree() hands it on whatever the page's count): with
 * @copy_slab its octets are copied, at the same offset, into a page of
 * the caller's own; without, it is the owner's, who keeps it until the
 * work request completes.
 *
 * Context: any; does not sleep.
 * Returns: 0, -EACCES (revoked or changed since the check), -EFAULT
 * (not backed) or -ENOMEM.
 */
int siw_mr_get_page(struct siw_mr *mr, u64 gen, u64 va, u32 len,
		    bool copy_slab, struct siw_mr_src *src)
{
	unsigned long flags;
	struct page *pg;
	int rv = 0;
	u32 room;

	spin_lock_irqsave(&mr->lock, flags);
	if (!siw_mr_live(mr, gen)) {
		rv = -EACCES;
		goto out;
	}
	pg = siw_mr_page(mr, va, &src->off, &room);
	if (!pg) {
		rv = -EFAULT;
		goto out;
	}
	src->len = min(len, room);
	src->page = pg;
	src->ref = sendpage_ok(pg);
	if (src->ref) {
		get_page(pg);
	} else if (copy_slab) {
		src->page = SIW_FAULT(alloc_page(GFP_ATOMIC));
		if (src->page)
			memcpy_page(src->page, src->off, pg, src->off,
				    src->len);
		else
			rv = -ENOMEM;
		src->ref = true;
	}
out:
	spin_unlock_irqrestore(&mr->lock, flags);
	return rv;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mr_get_page);

/**
 * siw_mr_pieces() - into how many pages siw_mr_get_page() cuts a range
 * @mr: a region the caller holds a reference on
 * @len: octets of the range
 *
 * A page serves a range up to the end of the region's page or of the
 * kernel page, so the range is cut at multiples of the smaller of the
 * two. Read without the region's lock: a registration that changes the
 * page size changes the count, and siw_mr_get_page() refuses an access
 * checked before it.
 *
 * Context: any.
 * Returns: an upper bound, for sizing an array of pages.
 */
u64 siw_mr_pieces(struct siw_mr *mr, u32 len)
{
	unsigned int shift = min_t(unsigned int, READ_ONCE(mr->page_shift),
				   PAGE_SHIFT);

	return ((u64)len >> shift) + 2;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mr_pieces);

/**
 * siw_mem_invalidate() - invalidate a fast-registration STag
 * @t: the STag table
 * @pd: the PD of the QP asking (a Local Invalidate, or a Send with
 *	Invalidate received)
 * @stag: the STag; its key counts only when @remote
 * @remote: the peer asks (Send with Invalidate)
 *
 * Once this returns, no access to the region's memory is under way and
 * none will start (siw_mr_place(), siw_mr_get_page()); the caller
 * reports the completion only after it.
 *
 * Context: any; does not sleep.
 * Returns: 0, -ENOENT (no such index), -EINVAL (the peer's key is not
 * the current one), -EACCES (another PD) or -EPERM (not a
 * fast-registration region).
 */
int siw_mem_invalidate(struct siw_mem_table *t, const void *pd, u32 stag,
		       bool remote)
{
	unsigned long flags;
	struct siw_mr *mr;
	int rv = 0;

	mr = siw_mr_get(t, stag);
	if (!mr)
		return -ENOENT;
	/*
	 * A peer must name the current key; the QP's own consumer only the
	 * index (siw_mr_get() found the region by it). 6.1's rdma_rw
	 * (core/rw.c) fills a READ_WITH_INV's invalidate_rkey before it
	 * bumps the MR's key for the REG_MR ahead of it, so every such
	 * request names the previous key.
	 */
	spin_lock_irqsave(&mr->lock, flags);
	if (remote && mr->stag != stag)
		rv = -EINVAL;
	else if (mr->base.pd != pd)
		rv = -EACCES;
	else if (mr->kind != SIW_MR_FASTREG)
		rv = -EPERM;
	if (!rv) {
		write_seqcount_begin(&mr->seq);
		mr->gen++;
		mr->valid = false;
		write_seqcount_end(&mr->seq);
	}
	spin_unlock_irqrestore(&mr->lock, flags);
	siw_mr_put(mr);
	return rv;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mem_invalidate);

/**
 * siw_mem_fastreg() - carry out a REG_MR work request
 * @mr: a fast-registration MR, mapped by ib_map_mr_sg()
 * @pd: the PD of the QP that posted the request
 * @stag: the STag to register (same index, the consumer's key)
 * @access: IB_ACCESS_* bits to grant
 *
 * A REG_MR that was posted before its MR was deregistered and carried
 * out after is refused: the region stays revoked (the work request's
 * reference kept the description, not the registration).
 *
 * Context: any; does not sleep.
 * Returns: 0, -EINVAL (not a fast-registration MR of that index),
 * -ENOENT (deregistered), -EACCES (another PD) or -EBUSY (still valid:
 * invalidate it first).
 */
int siw_mem_fastreg(struct siw_mr *mr, const void *pd, u32 stag, u32 access)
{
	unsigned long flags;
	int rv = 0;

	spin_lock_irqsave(&mr->lock, flags);
	if (mr->kind != SIW_MR_FASTREG ||
	    siw_stag_index(stag) != siw_stag_index(mr->stag))
		rv = -EINVAL;
	else if (mr->dead)
		rv = -ENOENT;
	else if (mr->base.pd != pd)
		rv = -EACCES;
	else if (mr->valid)
		rv = -EBUSY;
	if (!rv) {
		write_seqcount_begin(&mr->seq);
		mr->gen++;
		mr->stag = stag;
		mr->access = access;
		mr->va = mr->base.iova;
		mr->len = mr->base.length;
		/* the pages map_mr_sg gave, from now on */
		memcpy(mr->pbl, mr->map_pbl,
		       mr->map_npages * sizeof(*mr->pbl));
		mr->npages = mr->map_npages;
		mr->page_shift = mr->map_shift;
		mr->first_off = mr->map_off;
		mr->valid = true;
		write_seqcount_end(&mr->seq);
	}
	spin_unlock_irqrestore(&mr->lock, flags);
	return rv;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mem_fastreg);

/* Verbs */

/**
 * siw_alloc_pd() - the alloc_pd verb
 * @pd: the core's PD
 * @udata: user data (none is exchanged)
 *
 * Returns: 0, or -ENOMEM past SIW_DEV_MAX_PD.
 */
int siw_alloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	struct siw_mem_table *t = siw_dev_mem(pd->device);

	if (atomic_inc_return(&t->nr_pd) > SIW_DEV_MAX_PD) {
		atomic_dec(&t->nr_pd);
		return -ENOMEM;
	}
	return 0;
}

/**
 * siw_dealloc_pd() - the dealloc_pd verb
 * @pd: the PD; the core has released every object on it
 * @udata: user data
 *
 * Returns: 0.
 */
int siw_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	atomic_dec(&siw_dev_mem(pd->device)->nr_pd);
	return 0;
}

static struct siw_mr *siw_mr_alloc(struct ib_pd *pd, enum siw_mr_kind kind,
				   u32 access)
{
	struct siw_mem_table *t = siw_dev_mem(pd->device);
	struct siw_mr *mr;

	if (atomic_inc_return(&t->nr_mr) > SIW_DEV_MAX_MR) {
		atomic_dec(&t->nr_mr);
		return ERR_PTR(-ENOMEM);
	}
	mr = SIW_FAULT(kzalloc(sizeof(*mr), GFP_KERNEL));
	if (!mr) {
		atomic_dec(&t->nr_mr);
		return ERR_PTR(-ENOMEM);
	}
	mr->table = t;
	refcount_set(&mr->ref, 1);
	spin_lock_init(&mr->lock);
	seqcount_spinlock_init(&mr->seq, &mr->lock);
	mr->kind = kind;
	mr->access = access;
	mr->page_shift = PAGE_SHIFT;
	return mr;
}

/*
 * Revoke the region for good (no access is under way once this returns,
 * none starts after it, no REG_MR makes it valid again), release its
 * memory and drop the table's reference: whoever still holds the
 * description (a stalled stream, a REG_MR still queued) finds it
 * revoked. Never waits for a holder.
 */
static void siw_mr_destroy(struct siw_mr *mr)
{
	unsigned long flags;

	spin_lock_irqsave(&mr->lock, flags);
	write_seqcount_begin(&mr->seq);
	mr->gen++;
	mr->valid = false;
	mr->dead = true;
	write_seqcount_end(&mr->seq);
	spin_unlock_irqrestore(&mr->lock, flags);
	if (mr->umem)
		ib_umem_release(mr->umem);
	mr->umem = NULL;
	atomic_dec(&mr->table->nr_mr);
	siw_mr_put(mr);
}

/**
 * siw_mr_reserve() - give a region its STag, not yet findable
 * @mr: the region, its table set
 *
 * Reserves an index (cyclically: a freed index is not reused soon) and
 * draws a random key. Lookups find nothing at the index until
 * siw_mr_store(); xa_erase() gives it back.
 *
 * Returns: 0, or -errno if the table is full.
 */
VISIBLE_IF_KUNIT int siw_mr_reserve(struct siw_mr *mr)
{
	struct siw_mem_table *t = mr->table;
	u32 index;
	int rv;

	rv = xa_alloc_cyclic(&t->xa, &index, NULL,
			     XA_LIMIT(1, SIW_STAG_INDEX_MAX), &t->next,
			     GFP_KERNEL);
	if (rv < 0)
		return rv;
	mr->stag = index << SIW_STAG_INDEX_SHIFT |
		   (get_random_u32() & SIW_STAG_KEY_MASK);
	mr->base.lkey = mr->stag;
	mr->base.rkey = mr->stag;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mr_reserve);

/**
 * siw_mr_store() - make a reserved region findable by its STag
 * @mr: the region, fully described, siw_mr_reserve() done
 */
VISIBLE_IF_KUNIT void siw_mr_store(struct siw_mr *mr)
{
	/* the index is reserved: storing allocates nothing */
	xa_store(&mr->table->xa, siw_stag_index(mr->stag), mr, GFP_KERNEL);
}
EXPORT_SYMBOL_IF_KUNIT(siw_mr_store);

/**
 * siw_mr_publish() - make a region findable by a new STag
 * @mr: the region, fully described, its table set
 *
 * Returns: 0, or -errno if the table is full.
 */
VISIBLE_IF_KUNIT int siw_mr_publish(struct siw_mr *mr)
{
	int rv = siw_mr_reserve(mr);

	if (!rv)
		siw_mr_store(mr);
	return rv;
}
EXPORT_SYMBOL_IF_KUNIT(siw_mr_publish);

/**
 * siw_get_dma_mr() - the get_dma_mr verb: all of memory
 * @pd: the PD
 * @access: IB_ACCESS_* bits
 *
 * Returns: the MR, whose lkey and rkey are its STag, or an ERR_PTR.
 */
struct ib_mr *siw_get_dma_mr(struct ib_pd *pd, int access)
{
	struct siw_mr *mr;
	int rv;

	mr = siw_mr_alloc(pd, SIW_MR_DMA, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->va = 0;
	mr->len = U64_MAX;
	mr->valid = true;
	rv = siw_mr_publish(mr);
	if (rv) {
		siw_mr_destroy(mr);
		return ERR_PTR(rv);
	}
	return &mr->base;
}

/* Record the pinned pages in order, for siw_mr_page() */
static int siw_mr_take_umem(struct siw_mr *mr, struct ib_umem *umem)
{
	struct sg_page_iter it;
	size_t n = ib_umem_num_pages(umem);
	u32 i = 0;

	if (n > U32_MAX)
		return -EINVAL;
	mr->pages = SIW_FAULT(kvcalloc(n, sizeof(*mr->pages), GFP_KERNEL));
	if (!mr->pages)
		return -ENOMEM;
	for_each_sgtable_page(&umem->sgt_append.sgt, &it, 0) {
		if (i == n)
			break;
		mr->pages[i++] = sg_page_iter_page(&it);
	}
	if (i != n)
		return -EFAULT;
	mr->npages = n;
	mr->first_off = ib_umem_offset(umem);
	return 0;
}

static int siw_mr_reply(struct siw_mr *mr, struct ib_udata *udata)
{
	struct siw_uresp_reg_mr uresp = { .stag = mr->stag };

	if (udata->outlen < sizeof(uresp))
		return 0;
	return ib_copy_to_udata(udata, &uresp, sizeof(uresp));
}

/**
 * siw_reg_user_mr() - the reg_user_mr verb
 * @pd: the PD
 * @start: first address in the process
 * @len: octets
 * @virt: the I/O virtual address the consumer will use
 * @access: IB_ACCESS_* bits
 * @dmah: a DMA handle (TPH steering hints): refused, siw has none
 * @udata: returns struct siw_uresp_reg_mr
 *
 * Returns: the MR, or an ERR_PTR.
 */
struct ib_mr *siw_reg_user_mr(struct ib_pd *pd, u64 start, u64 len, u64 virt,
			      int access, struct ib_dmah *dmah,
			      struct ib_udata *udata)
{
	struct ib_umem *umem;
	struct siw_mr *mr;
	int rv;

	if (dmah)
		return ERR_PTR(-EOPNOTSUPP);
	if (!len || len > SIW_DEV_MAX_MR_SIZE)
		return ERR_PTR(-EINVAL);
	mr = siw_mr_alloc(pd, SIW_MR_USER, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	umem = ib_umem_get_va(pd->device, start, len, access);
	if (IS_ERR(umem)) {
		rv = PTR_ERR(umem);
		goto err_free;
	}
	mr->umem = umem;
	rv = siw_mr_take_umem(mr, umem);
	if (rv)
		goto err_free;
	mr->va = virt;
	mr->len = len;
	mr->valid = true;
	rv = siw_mr_reserve(mr);
	if (rv)
		goto err_free;
	/* findable only once nothing can fail: no lookup ever holds it */
	rv = siw_mr_reply(mr, udata);
	if (rv)
		goto err_unreserve;
	siw_mr_store(mr);
	return &mr->base;

err_unreserve:
	xa_erase(&mr->table->xa, siw_stag_index(mr->stag));
err_free:
	siw_mr_destroy(mr);
	return ERR_PTR(rv);
}

/**
 * siw_alloc_mr() - the alloc_mr verb: a fast-registration MR
 * @pd: the PD
 * @type: only IB_MR_TYPE_MEM_REG
 * @max_num_sg: pages it can map, at most SIW_DEV_MAX_FR_PAGES
 *
 * The MR is invalid until a REG_MR work request registers it.
 *
 * Returns: the MR, or an ERR_PTR.
 */
struct ib_mr *siw_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			   u32 max_num_sg)
{
	struct siw_mr *mr;
	int rv;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > SIW_DEV_MAX_FR_PAGES)
		return ERR_PTR(-EINVAL);
	mr = siw_mr_alloc(pd, SIW_MR_FASTREG, 0);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->pbl = SIW_FAULT(kcalloc(max_num_sg, sizeof(*mr->pbl), GFP_KERNEL));
	mr->map_pbl = SIW_FAULT(kcalloc(max_num_sg, sizeof(*mr->map_pbl),
					GFP_KERNEL));
	if (!mr->pbl || !mr->map_pbl) {
		rv = -ENOMEM;
		goto err_free;
	}
	mr->max_pages = max_num_sg;
	mr->map_shift = PAGE_SHIFT;
	rv = siw_mr_publish(mr);
	if (rv)
		goto err_free;
	return &mr->base;

err_free:
	siw_mr_destroy(mr);
	return ERR_PTR(rv);
}
EXPORT_SYMBOL_IF_KUNIT(siw_alloc_mr);

static int siw_mr_set_page(struct ib_mr *base, u64 addr)
{
	struct siw_mr *mr = to_siw_mr(base);

	if (mr->map_npages >= mr->max_pages)
		return -ENOMEM;
	mr->map_pbl[mr->map_npages++] = addr;
	return 0;
}

/**
 * siw_map_mr_sg() - the map_mr_sg verb
 * @base: a fast-registration MR; it may still be registered (a consumer
 *	maps it before it posts LOCAL_INV and REG_MR)
 * @sg: DMA-mapped scatterlist
 * @sg_nents: its entries
 * @sg_offset: offset into the first entry
 *
 * Maps the pages for the next REG_MR (&siw_mr.map_pbl): the region as
 * registered now, which a peer may be using, keeps its own. Any page
 * size the RDMA core passes (@base->page_size, a power of two) is
 * taken, smaller or larger than PAGE_SIZE: accesses stop at the end of
 * each of the region's pages (siw_mr_place(), siw_mr_get_page()).
 *
 * Returns: the number of entries mapped (ib_sg_to_pages()), or -EINVAL
 * for a page size that is not a power of two.
 */
int siw_map_mr_sg(struct ib_mr *base, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset)
{
	struct siw_mr *mr = to_siw_mr(base);
	int n;

	/* ib_sg_to_pages() masks with page_size - 1 */
	if (!is_power_of_2(base->page_size))
		return -EINVAL;
	mr->map_npages = 0;
	n = ib_sg_to_pages(base, sg, sg_nents, sg_offset, siw_mr_set_page);
	mr->map_shift = ilog2(base->page_size);
	mr->map_off = base->iova & (base->page_size - 1);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(siw_map_mr_sg);

/**
 * siw_dereg_mr() - the dereg_mr verb
 * @base: the MR
 * @udata: user data
 *
 * Removes the STag from the table and revokes the region: once it is
 * revoked no access to its memory is under way and none starts, so the
 * memory is released at once. A stream that still holds the region
 * (a Read Response stalled by the peer, a Send half received) finds it
 * revoked at its next access and fails; the description goes with the
 * last reference. Never waits for the peer.
 *
 * Context: process; may sleep.
 * Returns: 0.
 */
int siw_dereg_mr(struct ib_mr *base, struct ib_udata *udata)
{
	struct siw_mr *mr = to_siw_mr(base);

	xa_erase(&mr->table->xa, siw_stag_index(mr->stag));
	siw_mr_destroy(mr);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(siw_dereg_mr);
