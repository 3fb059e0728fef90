// SPDX-License-Identifier: GPL-2.0
/*
 * Zero-copy sends: when may a work request whose payload went to TCP by
 * page reference complete?
 *
 * Only once no skb refers to its pages any more. The peer's TCP
 * acknowledging the octets is not enough: on a local path (loopback, a
 * veth pair, any receiver in this kernel) the receiving socket
 * acknowledges an skb as it queues it, and the receiver reads the
 * sender's pages later; a consumer that rewrote its buffer on the
 * completion would have the new octets placed at the peer.
 *
 * Each such message carries a ubuf_info (the kernel's MSG_ZEROCOPY
 * notification): TCP attaches it to every skb that takes its pages, and
 * the kernel drops the skb's reference when the skb's data is freed,
 * after the peer's acknowledgment and after any clone (a retransmission,
 * a device's queue) let go. An skb that loops back to a local receiver
 * has its zero-copy frags copied on the receive path before any
 * protocol sees it (skb_orphan_frags_rx()), so that path lets go of the
 * pages at once and the receiver reads the copy. The transmit side holds
 * one more reference while the message is being pushed; the last put,
 * wherever it happens (softirq, process), marks the work request's
 * record released and kicks the transmit work, which completes work
 * requests in order (siw_stx_retire()).
 *
 * Where the kernel copies the pages anyway (a local receiver, a packet
 * tap, a device that cannot gather), it says so to the callback, and the
 * stream sends no more messages by reference: copying a message into
 * the stream's own pages once costs less than having the kernel
 * allocate pages for the skb and copy it there.
 *
 * A ubuf_info may outlive its stream (TCP keeps unacknowledged octets
 * after the socket is released): it points at a small shared hub, not
 * at the stream, and the hub forgets the stream when the stream stops.
 * Module unload waits for the last of them: the callback is our code.
 */
#include <kunit/visibility.h>
#include <linux/atomic.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait_bit.h>

#include "siw_compat.h"
#include "siw_stream.h"

/**
 * struct siw_zc_hub - what a stream's ubuf_infos share
 * @lock: protects @s
 * @s: the stream, until it stops; then NULL
 * @ref: the stream's reference, and one per live &struct siw_zc
 * @copied: the kernel copied the pages of an skb sent by reference
 */
struct siw_zc_hub {
	spinlock_t lock;	/* see above */
	struct siw_stream *s;
	refcount_t ref;
	bool copied;
};

/**
 * struct siw_zc - the notification of one message sent by reference
 * @ubuf: what TCP and the skbs hold (its refcnt)
 * @hub: the stream's hub, referenced
 * @wqe_seq: the send queue sequence number of the work request
 */
struct siw_zc {
	struct ubuf_info ubuf;
	struct siw_zc_hub *hub;
	u32 wqe_seq;
};

/* ubuf_infos alive, for module unload */
static atomic_t siw_zc_live = ATOMIC_INIT(0);

static void siw_zc_hub_put(struct siw_zc_hub *hub)
{
	if (refcount_dec_and_test(&hub->ref))
		kfree(hub);
}

/*
 * The ubuf_info's callback: one put, @zc false where the kernel copied
 * @skb's pages (skb_copy_ubufs()). The last put marks the work request
 * released and has the transmit work retire it.
 */
static void siw_zc_put(struct sk_buff *skb, struct ubuf_info *u, bool zc)
{
	struct siw_zc *z = container_of(u, struct siw_zc, ubuf);
	struct siw_zc_hub *hub = z->hub;
	struct siw_stream *s;
	unsigned long flags;

	if (!zc && !READ_ONCE(hub->copied))
		WRITE_ONCE(hub->copied, true);
	if (!refcount_dec_and_test(&u->refcnt))
		return;
	spin_lock_irqsave(&hub->lock, flags);
	s = hub->s;
	if (s) {
		/* pairs with siw_stx_retire(): the record is read after this */
		smp_store_release(&s->sq_rec[z->wqe_seq & s->sq_mask].zc,
				  false);
		siw_stream_kick(s);
	}
	spin_unlock_irqrestore(&hub->lock, flags);
	siw_zc_hub_put(hub);
	kfree(z);
	/* unload waits for the count, then for this read side to end */
	rcu_read_lock();
	if (atomic_dec_and_test(&siw_zc_live))
		wake_up_var(&siw_zc_live);
	rcu_read_unlock();
}

SIW_UBUF_OPS(siw_zc_ops, siw_zc_put);

/**
 * siw_zc_hub_init() - give a new stream its hub
 * @s: the stream
 *
 * Returns: 0 or -ENOMEM.
 */
int siw_zc_hub_init(struct siw_stream *s)
{
	struct siw_zc_hub *hub = kzalloc(sizeof(*hub), GFP_KERNEL);

	if (!hub)
		return -ENOMEM;
	spin_lock_init(&hub->lock);
	refcount_set(&hub->ref, 1);
	hub->s = s;
	s->zc_hub = hub;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(siw_zc_hub_init);

/**
 * siw_zc_hub_detach() - the stream stops: no release reaches it any more
 * @s: the stream
 *
 * Work requests still waiting for a release are flushed with the send
 * queue. Idempotent.
 *
 * Context: any.
 */
void siw_zc_hub_detach(struct siw_stream *s)
{
	struct siw_zc_hub *hub = s->zc_hub;
	unsigned long flags;

	if (!hub)
		return;
	spin_lock_irqsave(&hub->lock, flags);
	hub->s = NULL;
	spin_unlock_irqrestore(&hub->lock, flags);
	s->zc_hub = NULL;
	siw_zc_hub_put(hub);
}

/**
 * siw_zc_copied() - has the kernel copied pages this stream sent by
 *	reference?
 * @s: the stream, transmit side
 *
 * Context: any.
 * Returns: true once it did, or if the stream has no hub (nothing of it
 * can go by reference): the stream copies its messages.
 */
bool siw_zc_copied(const struct siw_stream *s)
{
	return !s->zc_hub || READ_ONCE(s->zc_hub->copied);
}
EXPORT_SYMBOL_IF_KUNIT(siw_zc_copied);

/**
 * siw_zc_start() - a work request's payload is to go by page reference
 * @s: the stream, transmit side
 * @wqe_seq: the work request's send queue sequence number
 *
 * Marks its record: it completes only once the ubuf_info returned is
 * released. The caller holds the first reference and passes the
 * ubuf_info with each sendmsg of the message's pages (MSG_ZEROCOPY,
 * msg_ubuf), then drops it with siw_zc_end().
 *
 * Context: process.
 * Returns: the ubuf_info, or NULL (no memory: the payload is copied).
 */
struct ubuf_info *siw_zc_start(struct siw_stream *s, u32 wqe_seq)
{
	struct siw_zc *z;

	if (!s->zc_hub)
		return NULL;
	z = kmalloc(sizeof(*z), GFP_NOIO | __GFP_NOWARN);
	if (!z)
		return NULL;
	siw_ubuf_set_ops(&z->ubuf, siw_zc_ops);
	refcount_set(&z->ubuf.refcnt, 1);
	/*
	 * Local delivery copies the frags (skb_orphan_frags_rx()); a device
	 * queue or a forward to another device need not
	 */
	z->ubuf.flags = SKBFL_ZEROCOPY_FRAG | SKBFL_DONT_ORPHAN;
	z->hub = s->zc_hub;
	refcount_inc(&z->hub->ref);
	z->wqe_seq = wqe_seq;
	atomic_inc(&siw_zc_live);
	s->sq_rec[wqe_seq & s->sq_mask].zc = true;
	return &z->ubuf;
}

/**
 * siw_zc_end() - the sender lets go of a message's ubuf_info
 * @u: from siw_zc_start(), or NULL
 *
 * Context: any.
 */
void siw_zc_end(struct ubuf_info *u)
{
	if (u)
		net_zcopy_put(u);
}

/**
 * siw_zc_exit() - module unload: wait until TCP let go of every page
 *
 * Sockets released with octets unacknowledged still hold them; the
 * wait ends when TCP frees those skbs (acknowledged, or the connection
 * timed out).
 */
void siw_zc_exit(void)
{
	while (!wait_var_event_timeout(&siw_zc_live,
				       !atomic_read(&siw_zc_live), 10 * HZ))
		pr_info("siw: waiting for TCP to release %d zero-copy sends\n",
			atomic_read(&siw_zc_live));
	/* the last callback's read side, after its decrement */
	synchronize_rcu();
}
