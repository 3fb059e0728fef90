// SPDX-License-Identifier: GPL-2.0
/*
 * Rings shared with user space: the CQ, SQ, RQ and SRQ arrays of
 * include/uapi/rdma/siw-abi.h, which rdma-core's siw provider maps with
 * mmap(2) at the key the create verb returned.
 *
 * A ring is zeroed vmalloc memory. Once exported, its mmap entry owns
 * it: the RDMA core calls mmap_free when the object is gone and the
 * last mapping of it closed, and only then is the ring freed. The pages
 * stay referenced by any mapping until it is unmapped.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/siw-abi.h>

#include "siw_compat.h"
#include "siw_fault.h"
#include "siw_umap.h"

/**
 * struct siw_umap - an mmap entry and the ring behind it
 * @base: the RDMA core's entry
 * @ring: siw_ring_alloc() memory, PAGE_ALIGN(length) octets
 */
struct siw_umap {
	struct rdma_user_mmap_entry base;
	void *ring;
};

/*
 * The provider takes SIW_INVAL_UOBJ_KEY for "no mapping"; keys start
 * above it so no real key can equal it.
 */
#define SIW_UMAP_MIN_PGOFF	((SIW_INVAL_UOBJ_KEY >> PAGE_SHIFT) + 1)

/**
 * siw_ring_alloc() - zeroed memory for a queue
 * @len: octets
 * @user: the ring will be mapped into a process
 *
 * Returns: the ring, or NULL.
 */
void *siw_ring_alloc(size_t len, bool user)
{
	if (!len)
		return NULL;
	if (!user)
		return SIW_FAULT(vzalloc(len));
	/*
	 * Whole zeroed pages, so nothing stale leaks into the process, and
	 * charged to its memory cgroup: the process sized the ring.
	 */
	return SIW_FAULT(__vmalloc(PAGE_ALIGN(len),
				   GFP_KERNEL_ACCOUNT | __GFP_ZERO));
}

/**
 * siw_ring_export() - make a ring mappable by the calling process
 * @udata: the create verb's user data
 * @ring: from siw_ring_alloc(@len, true)
 * @len: octets the process will map
 * @entry: the new entry; pass it to siw_ring_free()
 * @key: the mmap offset to return to the process
 *
 * Returns: 0, or -errno; on failure the ring stays the caller's.
 */
int siw_ring_export(struct ib_udata *udata, void *ring, size_t len,
		    struct rdma_user_mmap_entry **entry, u64 *key)
{
	struct siw_ucontext *uctx = siw_udata_to_uctx(udata);
	struct siw_umap *um;
	int rv;

	um = SIW_FAULT(kzalloc(sizeof(*um), GFP_KERNEL));
	if (!um)
		return -ENOMEM;
	um->ring = ring;
	rv = rdma_user_mmap_entry_insert_range(&uctx->base, &um->base,
					       PAGE_ALIGN(len),
					       SIW_UMAP_MIN_PGOFF, U32_MAX);
	if (rv) {
		kfree(um);
		return rv;
	}
	*entry = &um->base;
	*key = rdma_user_mmap_get_offset(&um->base);
	return 0;
}

/**
 * siw_ring_free() - release a ring
 * @ring: the ring, may be NULL
 * @entry: its mmap entry if exported, else NULL
 *
 * An exported ring is freed once the last mapping is gone.
 */
void siw_ring_free(void *ring, struct rdma_user_mmap_entry *entry)
{
	if (entry)
		rdma_user_mmap_entry_remove(entry);
	else
		vfree(ring);
}

/**
 * siw_mmap() - the device's mmap verb
 * @uctx: the process's context
 * @vma: the mapping; its offset is a key a create verb returned and its
 *	size must be that of the ring, rounded to pages
 *
 * Returns: 0 or -errno.
 */
int siw_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *entry;
	unsigned long off;
	struct siw_umap *um;
	int rv = 0;

	/* only an entry whose size is the mapping's comes back */
	entry = rdma_user_mmap_entry_get(uctx, vma);
	if (!entry)
		return -EINVAL;
	um = container_of(entry, struct siw_umap, base);
	for (off = 0; !rv && off < vma->vm_end - vma->vm_start;
	     off += PAGE_SIZE)
		rv = vm_insert_page(vma, vma->vm_start + off,
				    vmalloc_to_page(um->ring + off));
	if (!rv)
		siw_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	rdma_user_mmap_entry_put(entry);
	return rv;
}

/**
 * siw_mmap_free() - the RDMA core's last word on an entry
 * @entry: an entry of siw_ring_export()
 */
void siw_mmap_free(struct rdma_user_mmap_entry *entry)
{
	struct siw_umap *um = container_of(entry, struct siw_umap, base);

	vfree(um->ring);
	kfree(um);
}
