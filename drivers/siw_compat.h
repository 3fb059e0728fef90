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
#include <linux/uio.h>
#include <linux/version.h>
#include <net/tcp.h>

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

/**
 * siw_tcp_splice_page_locked() - queue a page on a TCP socket by reference
 * @sk: the socket, locked
 * @page: the page; TCP takes a reference until the octets are acknowledged
 * @off: offset of the first octet in @page
 * @len: octets
 * @flags: MSG_* flags (MSG_DONTWAIT, MSG_MORE, ...)
 *
 * sendmsg with MSG_SPLICE_PAGES from 6.5 on; sendpage before.
 *
 * Returns: octets queued, or -errno.
 */
static inline int siw_tcp_splice_page_locked(struct sock *sk,
					     struct page *page,
					     unsigned int off, size_t len,
					     int flags)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
	struct msghdr msg = { .msg_flags = flags | MSG_SPLICE_PAGES };
	struct bio_vec bv;

	bvec_set_page(&bv, page, len, off);
	iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, &bv, 1, len);
	return tcp_sendmsg_locked(sk, &msg, len);
#else
	if (flags & MSG_MORE)
		flags |= MSG_SENDPAGE_NOTLAST;
	return tcp_sendpage_locked(sk, page, off, len, flags);
#endif
}

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

#endif /* SIW_COMPAT_H */
