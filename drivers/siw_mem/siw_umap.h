/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rings shared with user space (siw_umap.c) and the user context they
 * are mapped through.
 */
#ifndef SIW_UMAP_H
#define SIW_UMAP_H

#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

/**
 * struct siw_ucontext - a user process's context on the device
 * @base: the RDMA core's ucontext
 */
struct siw_ucontext {
	struct ib_ucontext base;
};

static inline struct siw_ucontext *
siw_udata_to_uctx(struct ib_udata *udata)
{
	return rdma_udata_to_drv_context(udata, struct siw_ucontext, base);
}

void *siw_ring_alloc(size_t len, bool user);
int siw_ring_export(struct ib_udata *udata, void *ring, size_t len,
		    struct rdma_user_mmap_entry **entry, u64 *key);
void siw_ring_free(void *ring, struct rdma_user_mmap_entry *entry);
int siw_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void siw_mmap_free(struct rdma_user_mmap_entry *entry);

#endif /* SIW_UMAP_H */
