/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place that knows kernel versions.
 *
 * The driver is written for the newest kernel it supports; what an
 * older kernel lacks or names differently is supplied here, keyed on
 * LINUX_VERSION_CODE. No other file tests a kernel version.
 * Documentation/kernels.rst lists the kernels and how to add the next.
 */
#ifndef SIW_COMPAT_H
#define SIW_COMPAT_H

#include <linux/bvec.h>
#include <linux/mm.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <linux/version.h>
#include <linux/workqueue.h>
#include <net/tcp.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

/* 6.12 moved the unaligned access helpers out of asm/ */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * From 6.11 create_cq is handed the whole uverbs_attr_bundle, before
 * only its driver udata: the verb is siw_create_cq() on the newer
 * kernels and the udata-taking siw_cq_create() on the older
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define SIW_CREATE_CQ_OP	siw_create_cq
#else
#define SIW_CREATE_CQ_OP	siw_cq_create
#endif

/*
 * The stream's own pages (its stages) handed to a TCP socket by
 * reference, the socket locked; TCP takes a reference on each page
 * until every skb that holds its octets is freed. From 6.5 on a sendmsg
 * with MSG_SPLICE_PAGES; sendpage before.
 *
 * siw_tcp_splice_bvec_locked(): @n vectors of @len octets in all, each
 * within one page: one sendmsg, or a sendpage per vector stopping at the
 * first that queues less than it was given. Returns the octets queued,
 * or -errno if none.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
static inline int siw_tcp_splice_bvec_locked(struct sock *sk,
					     struct bio_vec *bv,
					     unsigned int n, size_t len,
					     int flags)
{
	struct msghdr msg = { .msg_flags = flags | MSG_SPLICE_PAGES };

	iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, bv, n, len);
	return tcp_sendmsg_locked(sk, &msg, len);
}
#else
static inline int siw_tcp_splice_page_locked(struct sock *sk,
					     struct page *page,
					     unsigned int off, size_t len,
					     int flags)
{
	if (flags & MSG_MORE)
		flags |= MSG_SENDPAGE_NOTLAST;
	return tcp_sendpage_locked(sk, page, off, len, flags);
}

static inline int siw_tcp_splice_bvec_locked(struct sock *sk,
					     struct bio_vec *bv,
					     unsigned int n, size_t len,
					     int flags)
{
	int done = 0, rv = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		rv = siw_tcp_splice_page_locked(sk, bv[i].bv_page,
						bv[i].bv_offset, bv[i].bv_len,
						i + 1 < n ? flags | MSG_MORE :
						flags);
		if (rv > 0)
			done += rv;
		if (rv < 0 || rv < bv[i].bv_len)
			break;
	}
	return done ? done : rv;
}
#endif

/*
 * A zero-copy send's ubuf_info: TCP and every skb made from its data
 * hold a reference, and the callback runs on each put, the last one
 * included (it does the count itself). From 6.10 the callback sits in a
 * const struct ubuf_info_ops; before, it is a member of the ubuf_info.
 * SIW_UBUF_OPS() defines the ops @name for callback @fn,
 * siw_ubuf_set_ops() points a ubuf_info at them.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define SIW_UBUF_OPS(name, fn) \
	static const struct ubuf_info_ops name = { .complete = (fn) }
#define siw_ubuf_set_ops(u, name)	((u)->ops = &(name))
#else
#define SIW_UBUF_OPS(name, fn) \
	static void (*const name)(struct sk_buff *, struct ubuf_info *, \
				  bool) = (fn)
#define siw_ubuf_set_ops(u, name)	((u)->callback = (name))
#endif

/* 6.13 made symbol namespaces string literals */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define SIW_KUNIT_NS	"EXPORTED_FOR_KUNIT_TESTING"
#else
#define SIW_KUNIT_NS	EXPORTED_FOR_KUNIT_TESTING
#endif

/*
 * VMA flags are set through vm_flags_set() from 6.3; before, vm_flags
 * was written directly
 */
static inline void siw_vm_flags_set(struct vm_area_struct *vma,
				    vm_flags_t flags)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

/*
 * 6.19 gave kernel_bind(), kernel_connect() and the proto_ops callbacks
 * a struct sockaddr_unsized (a family and a flexible array: the length
 * is the call's argument) in place of struct sockaddr. Before, the same
 * calls take the same octets as a struct sockaddr.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 19, 0)
#define sockaddr_unsized	sockaddr
#endif

/*
 * 7.x pins a process's memory with ib_umem_get_va() (ib_umem_get() is
 * gone; the other ib_umem_get_*() take a buffer described by uverbs
 * attributes). Without attributes, as here, it pins [addr, addr + size)
 * exactly as ib_umem_get() did before.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(7, 0, 0)
static inline struct ib_umem *ib_umem_get_va(struct ib_device *device,
					     unsigned long addr, size_t size,
					     int access)
{
	return ib_umem_get(device, addr, size, access);
}
#endif

/*
 * From 6.17 reg_user_mr is also handed the DMA handle (struct ib_dmah,
 * TPH steering hints) the process asked for, or NULL. The core makes
 * one only for a device with the alloc_dmah verb, which siw lacks, and
 * siw_reg_user_mr() refuses any. Before 6.17 there is none to pass:
 * the op is a wrapper that calls it with NULL.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
#define SIW_REG_USER_MR_OP	siw_reg_user_mr
#else
struct ib_dmah;
struct ib_mr *siw_reg_user_mr(struct ib_pd *pd, u64 start, u64 len, u64 virt,
			      int access, struct ib_dmah *dmah,
			      struct ib_udata *udata);

static inline struct ib_mr *siw_reg_user_mr_nodmah(struct ib_pd *pd,
						   u64 start, u64 len,
						   u64 virt, int access,
						   struct ib_udata *udata)
{
	return siw_reg_user_mr(pd, start, len, virt, access, NULL, udata);
}

#define SIW_REG_USER_MR_OP	siw_reg_user_mr_nodmah
#endif

/*
 * 7.x has no ib_resize_cq(): kernel consumers cannot resize a CQ, and
 * the op left, resize_user_cq, is called for a process's CQ only. siw
 * resizes kernel CQs only (a process maps its ring once), so on 7.x it
 * has no resize op and uverbs refuses the command with -EOPNOTSUPP, the
 * answer siw_resize_cq() gives a user CQ on the older kernels. There
 * the resize_cq op serves ib_resize_cq() and uverbs alike.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(7, 0, 0)
#define SIW_OPS_RESIZE_CQ	.resize_cq = siw_resize_cq,
#else
#define SIW_OPS_RESIZE_CQ
#endif

/**
 * siw_nth_page() - the page @n pages after @page in one physically
 *	contiguous range (a scatterlist element, a compound page)
 * @page: the first page
 * @n: pages to step
 *
 * 6.18 removed nth_page(): the kernel no longer hands out contiguous
 * ranges whose struct pages are not contiguous too, so @page + @n is
 * right. Before, nth_page() steps through the PFN where the memory
 * model needs it (SPARSEMEM without VMEMMAP).
 *
 * Returns: the page.
 */
static inline struct page *siw_nth_page(struct page *page, unsigned long n)
{
#ifdef nth_page
	return nth_page(page, n);
#else
	return page + n;
#endif
}

/*
 * 6.17 added WQ_PERCPU, and 7.x warns when a workqueue names neither it
 * nor WQ_UNBOUND. Before, a workqueue without WQ_UNBOUND is per-CPU: the
 * same queue with no flag.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 17, 0)
#define WQ_PERCPU	0
#endif

#endif /* SIW_COMPAT_H */
