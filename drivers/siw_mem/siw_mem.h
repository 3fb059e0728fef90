/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memory layer: protection domains, memory regions and the STag
 * table that names them.
 *
 * An STag is a 24-bit index into the device's table and an 8-bit key in
 * its low octet. The index is allocated here, cyclically, so that a
 * freed index is not reused at once; the key of a new region is random,
 * so a peer cannot guess the STag of a region it was not told about.
 * A fast-registration MR keeps its index for life; its consumer chooses
 * a new key for each registration (ib_update_fast_reg_key()).
 *
 * Lookups run under RCU and take a reference; they never sleep and may
 * be called from softirq (the receive path). A reference keeps the
 * description alive, never the memory: invalidation and deregistration
 * revoke the region under its lock, and every access to the region's
 * memory (siw_mr_place(), siw_mr_get_page()) checks, under that same
 * lock, that the region is valid and has not changed since the access
 * was checked (its change count, &siw_mr.gen). So an access is either
 * done before the revocation returns or refused after it, even if the
 * region was registered again under the same STag, and deregistration
 * never waits for a holder. See Documentation/security.rst.
 */
#ifndef SIW_MEM_H
#define SIW_MEM_H

#include <linux/refcount.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

/* DDP's view of a region, its checks and the lookup it calls */
#include "siw_ddp/siw_ddp.h"

struct ib_dmah;

/* The largest STag index: 24 bits */
#define SIW_STAG_INDEX_MAX	0xffffffU

/**
 * struct siw_pd - a protection domain
 * @base: the RDMA core's PD
 */
struct siw_pd {
	struct ib_pd base;
};

/* How a region's Tagged Offsets reach memory */
enum siw_mr_kind {
	SIW_MR_DMA,		/* kernel virtual addresses, whole space */
	SIW_MR_USER,		/* pinned user pages (ib_umem) */
	SIW_MR_FASTREG,		/* page list from ib_map_mr_sg */
};

/**
 * struct siw_mr - a memory region and its entry in the STag table
 * @base: the RDMA core's MR; @base.lkey == @base.rkey == the STag
 *	given to the consumer (for fast-registration, the latest key the
 *	consumer chose)
 * @table: the STag table that holds @stag's index
 * @ref: references: one for the table (until dereg_mr), one per lookup;
 *	the last one frees the description
 * @rcu: frees the MR after lookups that might still see it
 * @lock: protects @stag, @valid, @dead, @access, @va, @len and the page
 *	list of a fast-registration MR; held across every access to the
 *	region's memory, so that revoking under it waits for an access
 *	under way
 * @seq: bumped, under @lock, around every change of @stag, @valid,
 *	@access, @va and @len once the region is findable, so that a
 *	lookup reads the five of one moment without taking @lock
 * @gen: such changes counted, in the same write sections; 64 bits, so
 *	that an unchanged count means no change (siw_mem_ddp_unchanged(),
 *	and every access to the memory against the count it was checked
 *	at)
 * @stag: the STag the region answers to, key included
 * @valid: the region may be accessed (false after invalidation and
 *	from deregistration on)
 * @dead: deregistered: no REG_MR makes it valid again, though a work
 *	request still in a send queue may name it (it holds a reference)
 * @access: IB_ACCESS_* bits
 * @va: Tagged Offset of the first octet
 * @len: octets in the region
 * @kind: enum siw_mr_kind
 * @page_shift: log2 of the page size of @pbl (fast-registration: the
 *	consumer's, smaller or larger than PAGE_SIZE) or PAGE_SHIFT;
 *	every access stops at the end of the region's page and at the end
 *	of the kernel page, whichever comes first
 * @first_off: offset of @va in the first page
 * @npages: pages in @pages or @pbl in use
 * @max_pages: capacity of @pbl
 * @umem: pinned user memory (SIW_MR_USER)
 * @pages: the pages of @umem, in order (SIW_MR_USER)
 * @pbl: kernel virtual addresses of the pages (SIW_MR_FASTREG); the
 *	RDMA core's software DMA mapping makes them so
 * @map_pbl: the page list map_mr_sg wrote, for the next REG_MR (which
 *	copies it, with @map_npages, @map_shift and @map_off, to @pbl,
 *	@npages, @page_shift and @first_off): a consumer maps the MR
 *	for its next use while the current registration may still be
 *	valid and in a peer's hands, and that registration keeps its
 *	pages until it is invalidated
 * @map_npages: entries of @map_pbl in use
 * @map_shift: log2 of the page size map_mr_sg was given
 * @map_off: offset of the mapped IOVA in the first page
 */
struct siw_mr {
	struct ib_mr base;
	struct siw_mem_table *table;
	refcount_t ref;
	struct rcu_head rcu;
	spinlock_t lock;	/* see @lock above */
	seqcount_spinlock_t seq;
	u64 gen;
	u32 stag;
	bool valid;
	bool dead;
	u32 access;
	u64 va;
	u64 len;
	u8 kind;
	u8 page_shift;
	u32 first_off;
	u32 npages;
	u32 max_pages;
	struct ib_umem *umem;
	struct page **pages;
	u64 *pbl;
	u64 *map_pbl;
	u32 map_npages;
	u8 map_shift;
	u32 map_off;
};

/**
 * struct siw_mem_table - the device's STag table
 * @xa: STag index to struct siw_mr; lookups under RCU
 * @next: cyclic allocation cursor for xa_alloc_cyclic()
 * @nr_mr: registered regions, bounded by SIW_DEV_MAX_MR
 * @nr_pd: allocated PDs, bounded by SIW_DEV_MAX_PD
 */
struct siw_mem_table {
	struct xarray xa;
	u32 next;
	atomic_t nr_mr;
	atomic_t nr_pd;
};

/**
 * struct siw_mr_src - a page to send from, as siw_mr_get_page() took it
 * @page: the page
 * @off: offset in @page of the octet asked for
 * @len: octets from @off that are the region's: up to the end of the
 *	region's page or of @page, whichever ends first, and no more than
 *	were asked for
 * @ref: the caller holds a reference on @page
 */
struct siw_mr_src {
	struct page *page;
	unsigned int off;
	u32 len;
	bool ref;
};

/* Why a local access through an STag is refused */
enum siw_mem_err {
	SIW_MEM_OK = 0,
	SIW_MEM_ERR_STAG,	/* no such region or wrong key */
	SIW_MEM_ERR_INVALID,	/* region invalidated */
	SIW_MEM_ERR_PD,		/* region of another PD */
	SIW_MEM_ERR_ACCESS,	/* rights missing */
	SIW_MEM_ERR_BOUNDS,	/* range outside the region, or wraps */
};

static inline struct siw_pd *to_siw_pd(struct ib_pd *pd)
{
	return container_of(pd, struct siw_pd, base);
}

static inline struct siw_mr *to_siw_mr(struct ib_mr *mr)
{
	return container_of(mr, struct siw_mr, base);
}

/*
 * What the memory layer needs of a device, implemented by the device
 * (siw_dev/siw_main.c): the STag table of the device behind @ibdev.
 */
struct siw_mem_table *siw_dev_mem(struct ib_device *ibdev);

/* siw_mem.c: the table */
void siw_mem_table_init(struct siw_mem_table *t);
void siw_mem_table_destroy(struct siw_mem_table *t);
extern const struct siw_ddp_mem_ops siw_mem_ddp_ops;
struct siw_mr *siw_mr_get(struct siw_mem_table *t, u32 stag);
void siw_mr_hold(struct siw_mr *mr);
void siw_mr_put(struct siw_mr *mr);
enum siw_mem_err siw_mr_check(const struct siw_ddp_region *r, const void *pd,
			      u32 stag, u64 va, u32 len, u32 access);
struct siw_mr *siw_mr_get_local(struct siw_mem_table *t, struct ib_pd *pd,
				u32 lkey, u64 va, u32 len, u32 access,
				u64 *gen, enum siw_mem_err *err);
int siw_mr_place(struct siw_mr *mr, u64 gen, u64 va, const void *data,
		 u32 len, u32 *crc);
int siw_mr_fetch(struct siw_mr *mr, u64 gen, u64 va, void *dst, u32 len,
		 u32 *crc);
int siw_mr_fetch_local(struct siw_mem_table *t, struct ib_pd *pd, u32 lkey,
		       u64 va, void *dst, u32 len, u32 *crc);
enum siw_ddp_err siw_mr_place_once(struct siw_mem_table *t,
				   const struct siw_ddp_stag_req *req,
				   const void *data, u32 *crc, int *rv);
int siw_mr_get_page(struct siw_mr *mr, u64 gen, u64 va, u32 len,
		    bool copy_slab, struct siw_mr_src *src);
bool siw_mr_usable(struct siw_mr *mr, u64 gen);
u64 siw_mr_pieces(struct siw_mr *mr, u32 len);
int siw_mr_pgidx(u64 base, u32 first_off, u8 shift, u64 va, u32 *idx,
		 u32 *off);
int siw_mem_invalidate(struct siw_mem_table *t, const void *pd, u32 stag,
		       bool remote);
int siw_mem_fastreg(struct siw_mr *mr, const void *pd, u32 stag, u32 access);
#if IS_ENABLED(CONFIG_KUNIT)
int siw_mr_publish(struct siw_mr *mr);
int siw_mr_reserve(struct siw_mr *mr);
void siw_mr_store(struct siw_mr *mr);
#endif

/* siw_mem.c: verbs */
int siw_alloc_pd(struct ib_pd *pd, struct ib_udata *udata);
int siw_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata);
struct ib_mr *siw_get_dma_mr(struct ib_pd *pd, int access);
struct ib_mr *siw_reg_user_mr(struct ib_pd *pd, u64 start, u64 len, u64 virt,
			      int access, struct ib_dmah *dmah,
			      struct ib_udata *udata);
struct ib_mr *siw_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			   u32 max_num_sg);
int siw_map_mr_sg(struct ib_mr *mr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset);
int siw_dereg_mr(struct ib_mr *mr, struct ib_udata *udata);

#endif /* SIW_MEM_H */
