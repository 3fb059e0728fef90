// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite siw_stream: a QP's stream over a real TCP connection on
 * loopback, driven through the QP layer's own entry points.
 *
 * A device made up for the test holds a fast-registration region, a CQ
 * made by the CQ verb and a kernel QP in RTS whose receive queue is
 * posted with the post_recv verb. Its stream reads the socket with
 * siw_srx_read_sock() (what the data-ready callback runs), so the real
 * receive engine, siw_srx_ops and the stream's reaction to a stopped
 * engine run; siw_qp_engine_stop() stops it as a consumer's modify_qp
 * to ERROR does. The other end of the connection is a test peer: what
 * it sends is framed by the transmit engine, what it receives is parsed
 * by a receive engine with the fake layers of siw_engine_test.h.
 *
 * The stream's TX work item is one that does nothing: it stands for
 * transmit work that was queued but has not run yet, which is the
 * window the Terminate case needs. The MSS case puts the real one back
 * and posts Sends with the post_send verb; the doorbell case keeps the
 * idle one, so that what the peer gets was sent by the doorbell.
 * The Read Response cases put the real work back once the idle one ran
 * for the Read Request, so that the consumer acts between the request's
 * check and its answer. The teardown case reads the socket from a work
 * item, as the receive work does, and holds that reader at a Read
 * Request (siw_srx_read_req_hook_set()) while the stream stops.
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/bottom_half.h>
#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/in.h>
#include <linux/jiffies.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/rtnetlink.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/tcp.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "siw_dev/siw_dev.h"
#include "siw_stats.h"
#include "siw_qp/siw_stream.h"
#include "siw_qp/siw_stream_tx.h"
#include "siw_engine_test.h"

#define ST_IOVA		0x80000ULL
#define ST_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ)
#define ST_FILL		0x3c
#define ST_DATA		0xd7
/* the receive buffer: ST_BUF_LEN octets at ST_BUF_OFF of the page */
#define ST_BUF_OFF	256
#define ST_BUF_LEN	300
#define ST_WRID		0x5157aa0011223344ULL
#define ST_WAIT_MS	3000
/* the MSS case: loopback's MTU lowered to ST_LOW_MTU, a Send of ST_MSG */
#define ST_LOW_MTU	1500
#define ST_BATCH_MTU	600
#define ST_MSG		4000
#define ST_SEND_WRID	0x5e4d000000000000ULL
/* the peer's Read: ST_RR_LEN octets from ST_RR_SRC_OFF of the region */
#define ST_RR_SRC_OFF	512
#define ST_RR_LEN	1024
#define ST_RR_DATA	0x6b
#define ST_RR_SINK_TO	0x9000ULL
/* the zero-copy case: a Send of ST_ZC_PAGES pages, overwritten at once */
#define ST_ZC_PAGES	8
#define ST_ZC_OLD	0xa1
#define ST_ZC_NEW	0x5b
#define ST_ZC_IOVA	0x400000ULL
#define ST_ZC_WRID	0x2c0000000000beefULL

/**
 * struct st_fixture - a device, a region, a CQ, a QP, its stream and
 *	the connection under it
 * @sdev: a device with nothing but an STag table
 * @pd: a PD of that device
 * @mr: a fast-registration region mapping @page, under @stag
 * @page: the region's memory, filled with ST_FILL
 * @other: the page the region is registered again to, or NULL
 * @stag: its STag
 * @cq: the QP's send and receive CQ
 * @cq_made: @cq was created (and is to be destroyed)
 * @qp: a kernel QP in RTS
 * @s: its stream
 * @stopped: siw_qp_engine_stop() ran
 * @lsock: the listening socket
 * @ours: the stream's socket
 * @peer: the peer's end
 * @lo_mtu: loopback's MTU before the test changed it, or 0
 * @ring_set: the test set the stage ring's size (siw_stx_stage_ring_swap())
 * @ring_was: the size before that, put back at the end
 * @held: stage pages the test holds a reference on, as TCP would
 * @zc_mr: the zero-copy case's region of @zc_pg, or NULL
 * @zc_pg: its pages
 * @race: the teardown case's reader, or NULL
 */
struct st_fixture {
	struct siw_device *sdev;
	struct ib_pd pd;
	struct siw_mr *mr;
	struct page *page;
	struct page *other;
	u32 stag;
	struct siw_cq *cq;
	bool cq_made;
	struct siw_qp *qp;
	struct siw_stream *s;
	bool stopped;
	struct socket *lsock;
	struct socket *ours;
	struct socket *peer;
	int lo_mtu;
	bool ring_set;
	unsigned int ring_was;
	struct page *held[2];
	struct siw_mr *zc_mr;
	struct page *zc_pg[ST_ZC_PAGES];
	struct st_race *race;
};

/* Transmit work that never gets to run before the stream stops */
static void st_tx_work_unrun(struct work_struct *w)
{
}

/* Every octet of [@off, @off + @len) of @pg is @val */
static bool st_all(struct page *pg, u32 off, u32 len, u8 val)
{
	u8 *va = kmap_local_page(pg);
	bool same = !memchr_inv(va + off, val, len);

	kunmap_local(va);
	return same;
}

static int st_region(struct kunit *test, struct st_fixture *f)
{
	struct ib_mr *base;

	/* room for stream_region_pages()'s pages */
	base = siw_alloc_mr(&f->pd, IB_MR_TYPE_MEM_REG, 512);
	if (IS_ERR_OR_NULL(base))
		return -ENOMEM;
	f->mr = to_siw_mr(base);
	base->pd = &f->pd;
	base->iova = ST_IOVA;
	base->length = PAGE_SIZE;
	base->page_size = PAGE_SIZE;
	/* what map_mr_sg leaves for the REG_MR */
	f->mr->map_pbl[0] = (u64)(uintptr_t)page_address(f->page);
	f->mr->map_npages = 1;
	f->mr->map_off = 0;
	f->stag = (f->mr->stag & ~SIW_STAG_KEY_MASK) | 0x5e;
	return siw_mem_fastreg(f->mr, &f->pd, f->stag, ST_ACCESS);
}

/* A TCP connection on loopback: @f->ours to @f->peer */
static int st_connect(struct st_fixture *f)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int rv;

	rv = sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP,
			      &f->lsock);
	if (rv)
		return rv;
	rv = kernel_bind(f->lsock, (struct sockaddr *)&sin, sizeof(sin));
	if (!rv)
		rv = kernel_listen(f->lsock, 1);
	if (!rv)
		rv = kernel_getsockname(f->lsock, (struct sockaddr *)&sin);
	if (rv < 0)
		return rv;
	rv = sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP,
			      &f->ours);
	if (rv)
		return rv;
	rv = kernel_connect(f->ours, (struct sockaddr *)&sin, sizeof(sin), 0);
	if (rv)
		return rv;
	rv = kernel_accept(f->lsock, &f->peer, 0);
	if (rv)
		return rv;
	tcp_sock_set_nodelay(f->peer->sk);
	tcp_sock_set_nodelay(f->ours->sk);
	return 0;
}

static int st_qp(struct kunit *test, struct st_fixture *f)
{
	struct ib_cq_init_attr attr = { .cqe = 8 };
	struct siw_qp *qp;
	int rv;

	f->cq = kunit_kzalloc(test, sizeof(*f->cq), GFP_KERNEL);
	qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);
	if (!f->cq || !qp)
		return -ENOMEM;
	f->cq->base.device = &f->sdev->base;
	rv = siw_cq_create(&f->cq->base, &attr, NULL);
	if (rv)
		return rv;
	f->cq_made = true;

	qp->base.device = &f->sdev->base;
	qp->base.pd = &f->pd;
	qp->base.qp_num = 7;
	qp->qdev = &f->sdev->qp;
	refcount_set(&qp->ref, 1);
	mutex_init(&qp->modify_mutex);
	spin_lock_init(&qp->state_lock);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);
	qp->rq.size = 4;
	qp->rq.caps.max_sge = 2;
	qp->rq.ring = kunit_kcalloc(test, qp->rq.size, sizeof(struct siw_wqe),
				    GFP_KERNEL);
	qp->sq.size = 4;
	qp->sq.caps.max_sge = 2;
	qp->sq.ring = kunit_kcalloc(test, qp->sq.size, sizeof(struct siw_wqe),
				    GFP_KERNEL);
	if (!qp->rq.ring || !qp->sq.ring)
		return -ENOMEM;
	qp->scq = f->cq;
	qp->rcq = f->cq;
	qp->state = SIW_QP_RTS;
	f->qp = qp;
	return 0;
}

/* The stream as siw_qp_cm_attach() sets it up, minus the callbacks */
static int st_stream(struct kunit *test, struct st_fixture *f)
{
	struct siw_stream *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	if (!s)
		return -ENOMEM;
	s->ord = 1;
	s->ird = 1;
	s->orq = kunit_kcalloc(test, s->ord, sizeof(*s->orq), GFP_KERNEL);
	s->irq = kunit_kcalloc(test, s->ird, sizeof(*s->irq), GFP_KERNEL);
	s->sq_rec = kunit_kcalloc(test, f->qp->sq.size, sizeof(*s->sq_rec),
				  GFP_KERNEL);
	if (!s->orq || !s->irq || !s->sq_rec)
		return -ENOMEM;
	s->sq_mask = f->qp->sq.size - 1;
	s->qp = f->qp;
	s->sock = f->ours;
	s->conn.crc = true;
	s->conn.rev = 2;
	s->conn.ird = 1;
	s->conn.ord = 1;
	s->initiator = true;
	spin_lock_init(&s->lock);
	mutex_init(&s->tx_mutex);
	INIT_WORK(&s->tx_work, st_tx_work_unrun);
	if (siw_zc_hub_init(s))
		return -ENOMEM;
	siw_engine_tx_init(&s->tx, false, true,
			   READ_ONCE(tcp_sk(f->ours->sk)->mss_cache));
	siw_srx_start(s);
	f->s = s;
	f->qp->stream = s;
	return 0;
}

static int st_init(struct kunit *test)
{
	struct st_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	int rv;

	if (!f)
		return -ENOMEM;
	test->priv = f;
	f->sdev = kunit_kzalloc(test, sizeof(*f->sdev), GFP_KERNEL);
	f->page = alloc_page(GFP_KERNEL);
	if (!f->sdev || !f->page)
		return -ENOMEM;
	/* the stream counts into the device's counters */
	f->sdev->stats = siw_stats_alloc();
	if (!f->sdev->stats)
		return -ENOMEM;
	siw_mem_table_init(&f->sdev->mem);
	f->sdev->qp.mem = &f->sdev->mem;
	f->sdev->qp.stats = f->sdev->stats;
	/* as siw_main.c: a CQ's overflow work walks the QPs (none here) */
	xa_init_flags(&f->sdev->qp.qp_xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	f->pd.device = &f->sdev->base;
	memset(page_address(f->page), ST_FILL, PAGE_SIZE);
	rv = st_region(test, f);
	if (!rv)
		rv = st_connect(f);
	if (!rv)
		rv = st_qp(test, f);
	if (!rv)
		rv = st_stream(test, f);
	return rv;
}

/* Terminates the stream sent, of every layer (its device's counters) */
static u64 st_terms_sent(struct st_fixture *f)
{
	return siw_stats_sum(f->sdev->stats, SIW_STAT_TERM_TX_RDMAP) +
	       siw_stats_sum(f->sdev->stats, SIW_STAT_TERM_TX_DDP) +
	       siw_stats_sum(f->sdev->stats, SIW_STAT_TERM_TX_LLP);
}

/* The consumer moves the QP to ERROR: the stream stops */
static void st_stop(struct st_fixture *f)
{
	mutex_lock(&f->qp->modify_mutex);
	siw_qp_engine_stop(f->qp);
	mutex_unlock(&f->qp->modify_mutex);
	f->stopped = true;
}

/**
 * struct st_race - a reader inside a Read Request while the stream stops
 * @f: the fixture
 * @read: the reader: a work item that reads the socket as the receive
 *	work does (siw_srx_work_read())
 * @inside: the reader holds the socket and reached the Read Request
 * @stop_waited: the hook saw the stop wait for the socket
 */
struct st_race {
	struct st_fixture *f;
	struct work_struct read;
	struct completion inside;
	bool stop_waited;
};

/* The race the hook plays its part in (KUnit runs one case at a time) */
static struct st_race *st_race_now;

/* Does a task wait in lock_sock() for @sk? */
static bool st_sock_waited_for(struct sock *sk)
{
	/* no barrier: the caller polls, a late answer only costs a round */
	return waitqueue_active(&sk->sk_lock.wq);
}

/*
 * The hook in siw_srx_read_req(): the reader holds the socket, inside the
 * skb, at the Read Request. It stays there until the stop waits for the
 * socket (ST_WAIT_MS at most), as a receive work interrupted there
 * would. It spins: skb_seq_read() has the skb's fragment mapped, so the
 * reader may not sleep here (nor may the data-ready callback, in
 * softirq); the stop runs on the other CPU.
 */
static void st_race_hook(struct siw_stream *s)
{
	unsigned long end = jiffies + msecs_to_jiffies(ST_WAIT_MS);
	struct st_race *r = READ_ONCE(st_race_now);
	struct sock *sk = s->sock->sk;

	if (!r || r->f->s != s)
		return;
	complete(&r->inside);
	while (!st_sock_waited_for(sk) && time_before(jiffies, end))
		cpu_relax();
	r->stop_waited = st_sock_waited_for(sk);
}

static void st_race_read(struct work_struct *w)
{
	struct st_race *r = container_of(w, struct st_race, read);
	struct sock *sk = r->f->ours->sk;

	lock_sock(sk);
	siw_srx_read_sock(r->f->s);
	release_sock(sk);
}

/* The hook off, the reader done */
static void st_race_end(struct st_race *r)
{
	siw_srx_read_req_hook_set(NULL);
	WRITE_ONCE(st_race_now, NULL);
	flush_work(&r->read);
}

static void st_exit(struct kunit *test)
{
	struct st_fixture *f = test->priv;
	unsigned int i;

	if (!f)
		return;
	if (f->race)
		st_race_end(f->race);
	if (f->s && !f->stopped)
		st_stop(f);
	if (f->s) {
		cancel_work_sync(&f->s->tx_work);
		/* what the transmit side allocated as messages needed */
		kvfree(f->s->seg);
		kvfree(f->s->seg_page);
	}
	if (f->ring_set)
		siw_stx_stage_ring_swap(f->ring_was);
	for (i = 0; i < ARRAY_SIZE(f->held); i++)
		if (f->held[i])
			put_page(f->held[i]);
	if (f->lo_mtu) {
		rtnl_lock();
		dev_set_mtu(init_net.loopback_dev, f->lo_mtu);
		rtnl_unlock();
	}
	if (f->peer)
		sock_release(f->peer);
	if (f->ours)
		sock_release(f->ours);
	if (f->lsock)
		sock_release(f->lsock);
	if (f->cq_made)
		siw_destroy_cq(&f->cq->base, NULL);
	if (f->mr)
		siw_dereg_mr(&f->mr->base, NULL);
	if (f->zc_mr)
		siw_dereg_mr(&f->zc_mr->base, NULL);
	for (i = 0; i < ARRAY_SIZE(f->zc_pg); i++)
		if (f->zc_pg[i])
			__free_page(f->zc_pg[i]);
	if (f->sdev) {
		siw_mem_table_destroy(&f->sdev->mem);
		siw_stats_free(f->sdev->stats);
	}
	if (f->page)
		__free_page(f->page);
	if (f->other)
		__free_page(f->other);
}

/* Post one receive of ST_BUF_LEN octets at ST_BUF_OFF of the region */
static void st_post_recv(struct kunit *test, struct st_fixture *f)
{
	struct ib_sge sge = {
		.addr = ST_IOVA + ST_BUF_OFF,
		.length = ST_BUF_LEN,
		.lkey = f->stag,
	};
	struct ib_recv_wr wr = {
		.wr_id = ST_WRID, .sg_list = &sge, .num_sge = 1,
	};
	const struct ib_recv_wr *bad = NULL;

	KUNIT_ASSERT_EQ(test, siw_post_recv(&f->qp->base, &wr, &bad), 0);
}

/* @m framed by the transmit engine in FPDUs for an MSS of @mss */
static struct eng_wire *st_peer_frame(struct kunit *test,
				      const struct siw_engine_msg *m,
				      size_t size, u32 mss)
{
	struct siw_engine_txd d = { .max = SIW_ENGINE_TX_PIECES };
	struct siw_engine_tx *tx;
	struct eng_wire *w;
	int rv;

	tx = kunit_kzalloc(test, sizeof(*tx), GFP_KERNEL);
	d.piece = kunit_kcalloc(test, SIW_ENGINE_TX_PIECES, sizeof(*d.piece),
				GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, tx && d.piece);
	w = eng_wire_new(test, size);
	siw_engine_tx_init(tx, false, true, mss);
	KUNIT_ASSERT_EQ(test, siw_engine_tx_msg(tx, m), 0);
	while ((rv = siw_engine_tx_next(tx, &d)) == 1)
		KUNIT_ASSERT_TRUE(test, eng_wire_put(w, &d));
	KUNIT_ASSERT_EQ(test, rv, 0);
	return w;
}

/* The peer puts @len octets from @buf on its socket */
static void st_peer_put(struct kunit *test, struct st_fixture *f,
			const u8 *buf, u32 len)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { };

	KUNIT_ASSERT_EQ(test, kernel_sendmsg(f->peer, &msg, &iov, 1, len),
			(int)len);
}

/* A Send of @len octets of ST_DATA as the peer frames it */
static struct eng_wire *st_peer_send_wire(struct kunit *test, u32 len,
					  u32 mss)
{
	struct siw_engine_seg seg = { .kind = SIW_ENGINE_SEG_KVA, .len = len };
	struct siw_engine_msg m = {
		.opcode = SIW_RDMAP_SEND, .sgl = { .seg = &seg, .nseg = 1 },
	};
	u8 *data = kunit_kmalloc(test, len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, data);
	memset(data, ST_DATA, len);
	seg.addr = data;
	return st_peer_frame(test, &m, 2 * len + 4096, mss);
}

/*
 * The peer sends a Send of @len octets of ST_DATA, framed by the
 * transmit engine in FPDUs for an MSS of @mss, over its socket.
 */
static void st_peer_send(struct kunit *test, struct st_fixture *f, u32 len,
			 u32 mss)
{
	struct eng_wire *w = st_peer_send_wire(test, len, mss);

	st_peer_put(test, f, w->buf, w->len);
}

/*
 * What the data-ready callback does, until the receive engine stopped
 * or a receive completed (or ST_WAIT_MS passed)
 */
static void st_receive(struct st_fixture *f)
{
	unsigned long end = jiffies + msecs_to_jiffies(ST_WAIT_MS);
	struct sock *sk = f->ours->sk;
	u32 put = f->cq->put;

	for (;;) {
		lock_sock(sk);
		siw_srx_read_sock(f->s);
		release_sock(sk);
		if (siw_engine_rx_stopped(&f->s->rx) || f->cq->put != put ||
		    time_after(jiffies, end))
			break;
		msleep(20);
	}
}

/*
 * What the data-ready callback does, until the stream took @n octets
 * more from the socket (or its engine stopped, or ST_WAIT_MS passed)
 */
static void st_receive_octets(struct st_fixture *f, u32 n)
{
	unsigned long end = jiffies + msecs_to_jiffies(ST_WAIT_MS);
	struct sock *sk = f->ours->sk;
	u32 start = READ_ONCE(tcp_sk(sk)->copied_seq);

	for (;;) {
		lock_sock(sk);
		siw_srx_read_sock(f->s);
		release_sock(sk);
		if (READ_ONCE(tcp_sk(sk)->copied_seq) - start >= n ||
		    siw_engine_rx_stopped(&f->s->rx) ||
		    time_after(jiffies, end))
			break;
		msleep(20);
	}
}

/*
 * The peer @p reads its end until its receive engine reports a
 * Terminate, a message arrived whole (@until_msg), the connection ends
 * or ST_WAIT_MS passed
 */
static void st_peer_read_into(struct kunit *test, struct st_fixture *f,
			      struct eng_peer *p, bool until_msg)
{
	unsigned long end = jiffies + msecs_to_jiffies(ST_WAIT_MS);
	struct siw_engine_rx *rx = kunit_kzalloc(test, sizeof(*rx),
						 GFP_KERNEL);
	struct msghdr msg = { };
	struct kvec iov;
	u8 *buf;
	int rv;

	buf = kunit_kmalloc(test, 512, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, rx && buf);
	eng_rx_start(rx, p, 1, false, true);
	while (!p->nterm && !siw_engine_rx_stopped(rx) &&
	       !(until_msg && p->ndone) && time_before(jiffies, end)) {
		iov = (struct kvec){ .iov_base = buf, .iov_len = 512 };
		rv = kernel_recvmsg(f->peer, &msg, &iov, 1, 512, MSG_DONTWAIT);
		if (rv > 0)
			siw_engine_rx_feed(rx, buf, rv);
		else if (rv == -EAGAIN)
			msleep(20);
		else
			break;
	}
}

/*
 * The peer reads its end until its receive engine reports a Terminate,
 * the connection ends or ST_WAIT_MS passed. Returns the peer.
 */
static struct eng_peer *st_peer_read(struct kunit *test, struct st_fixture *f)
{
	struct eng_peer *p = eng_peer_new(test, 64);

	st_peer_read_into(test, f, p, false);
	return p;
}

/* The one completion waiting in the CQ, or fail */
static void st_one_wc(struct kunit *test, struct st_fixture *f,
		      struct ib_wc *wc)
{
	KUNIT_ASSERT_EQ_MSG(test, siw_poll_cq(&f->cq->base, 1, wc), 1,
			    "no completion of the receive");
	KUNIT_EXPECT_EQ(test, wc->wr_id, ST_WRID);
	KUNIT_EXPECT_EQ(test, wc->opcode, IB_WC_RECV);
	KUNIT_EXPECT_PTR_EQ(test, wc->qp, &f->qp->base);
}

/* Control: a Send that fills the buffer exactly completes it */
static void stream_send_fits(struct kunit *test)
{
	struct st_fixture *f = test->priv;
	struct ib_wc wc;

	st_post_recv(test, f);
	st_peer_send(test, f, ST_BUF_LEN, 9000);
	st_receive(f);
	KUNIT_EXPECT_FALSE(test, siw_engine_rx_stopped(&f->s->rx));
	st_one_wc(test, f, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.byte_len, ST_BUF_LEN);
	KUNIT_EXPECT_TRUE(test, st_all(f->page, ST_BUF_OFF, ST_BUF_LEN,
				       ST_DATA));
	KUNIT_EXPECT_TRUE(test, st_all(f->page, 0, ST_BUF_OFF, ST_FILL));
	KUNIT_EXPECT_TRUE(test, st_all(f->page, ST_BUF_OFF + ST_BUF_LEN,
				       PAGE_SIZE - ST_BUF_OFF - ST_BUF_LEN,
				       ST_FILL));
	KUNIT_EXPECT_EQ(test, READ_ONCE(f->qp->state), SIW_QP_RTS);
}

/**
 * struct st_long - a Send longer than the receive buffer
 * @name: the case
 * @excess: octets beyond the buffer
 * @mss: the peer's MSS: one segment, or several with only the last
 *	one too long
 */
struct st_long {
	const char *name;
	u32 excess;
	u32 mss;
};

static const struct st_long st_long_cases[] = {
	{ "1 octet over, one segment", 1, 9000 },
	{ "2 octets over, one segment", 2, 9000 },
	{ "3 octets over, one segment", 3, 9000 },
	{ "4 octets over, one segment", 4, 9000 },
	{ "5 octets over, one segment", 5, 9000 },
	{ "6 octets over, one segment", 6, 9000 },
	{ "7 octets over, one segment", 7, 9000 },
	{ "8 octets over, one segment", 8, 9000 },
	{ "1 octet over, in segments", 1, 128 },
	{ "8 octets over, in segments", 8, 128 },
};

SIW_DDP_CASE_DESC(st_long);
KUNIT_ARRAY_PARAM(st_long, st_long_cases, st_long_desc);

/*
 * The receive a too long Send was bound to completes with
 * IB_WC_LOC_LEN_ERR when the stream stops on it, under its own wr_id,
 * once; the stream ends with DDP "Message too long" (1/2/05); nothing
 * lands past the buffer.
 */
static void stream_send_too_long(struct kunit *test)
{
	const struct st_long *c = test->param_value;
	struct st_fixture *f = test->priv;
	struct ib_wc wc;

	st_post_recv(test, f);
	st_peer_send(test, f, ST_BUF_LEN + c->excess, c->mss);
	st_receive(f);
	KUNIT_EXPECT_TRUE(test, siw_engine_rx_stopped(&f->s->rx));
	siw_ddp_expect(test, siw_engine_rx_error(&f->s->rx),
		       &(struct siw_ddp_triple)T_DDP_U_TOO_LONG);
	/* the receive completed as the engine stopped, not at the flush */
	st_one_wc(test, f, &wc);
	KUNIT_EXPECT_EQ_MSG(test, wc.status, IB_WC_LOC_LEN_ERR,
			    "status %s", ib_wc_status_msg(wc.status));
	/* a Terminate is due and the QP is in TERMINATE */
	KUNIT_EXPECT_TRUE(test, READ_ONCE(f->s->term_pending));
	KUNIT_EXPECT_EQ(test, READ_ONCE(f->qp->state), SIW_QP_TERMINATE);
	KUNIT_EXPECT_TRUE(test, st_all(f->page, 0, ST_BUF_OFF, ST_FILL));
	KUNIT_EXPECT_TRUE(test, st_all(f->page, ST_BUF_OFF + ST_BUF_LEN,
				       PAGE_SIZE - ST_BUF_OFF - ST_BUF_LEN,
				       ST_FILL));
	/* nothing of it completes a second time when the stream stops */
	st_stop(f);
	KUNIT_EXPECT_EQ(test, siw_poll_cq(&f->cq->base, 1, &wc), 0);
}

/**
 * struct st_term - a Terminate queued, the stream stopped before the
 *	transmit work ran
 * @name: the case
 * @local: a local error (siw_qp_fatal(), the device's own failure);
 *	else a peer's Send too long for its receive
 * @exp: the error the peer must receive
 */
struct st_term {
	const char *name;
	bool local;
	struct siw_ddp_triple exp;
};

static const struct st_term st_term_cases[] = {
	{ "local catastrophic error", true, SIW_T(0x0, 0x0, 0x00) },
	{ "peer's Send too long", false, T_DDP_U_TOO_LONG },
};

SIW_DDP_CASE_DESC(st_term);
KUNIT_ARRAY_PARAM(st_term, st_term_cases, st_term_desc);

/*
 * An error queues a Terminate; the QP is stopped before the transmit
 * work sent it. The Terminate still reaches the peer, with the error.
 */
static void stream_term_on_stop(struct kunit *test)
{
	const struct st_term *c = test->param_value;
	struct st_fixture *f = test->priv;
	struct eng_peer *p;

	if (c->local) {
		siw_qp_fatal(f->qp);
	} else {
		st_post_recv(test, f);
		st_peer_send(test, f, ST_BUF_LEN + 1, 9000);
		st_receive(f);
	}
	KUNIT_ASSERT_TRUE(test, READ_ONCE(f->s->term_pending));
	KUNIT_EXPECT_EQ(test, READ_ONCE(f->qp->state), SIW_QP_TERMINATE);
	st_stop(f);
	KUNIT_EXPECT_EQ(test, st_terms_sent(f), 1ULL);
	p = st_peer_read(test, f);
	KUNIT_ASSERT_EQ_MSG(test, p->nterm, 1U,
			    "the peer received no Terminate");
	KUNIT_EXPECT_EQ(test, p->term.layer, c->exp.layer);
	KUNIT_EXPECT_EQ(test, p->term.etype, c->exp.etype);
	KUNIT_EXPECT_EQ(test, p->term.ecode, c->exp.ecode);
}

/* What the consumer does to the region while a peer's access is under way */
enum st_change {
	ST_KEEP,	/* nothing */
	ST_INVAL,	/* a Local Invalidate */
	ST_AGAIN,	/* invalidates, registers again: same STag, no remote read */
	ST_REMAP,	/* invalidates, registers again: same STag, another page */
};

static void st_change(struct kunit *test, struct st_fixture *f,
		      enum st_change c)
{
	u32 access = ST_ACCESS;

	if (c == ST_KEEP)
		return;
	KUNIT_ASSERT_EQ(test, siw_mem_invalidate(&f->sdev->mem, &f->pd, f->stag,
						 false), 0);
	if (c == ST_INVAL)
		return;
	if (c == ST_AGAIN)
		access &= ~IB_ACCESS_REMOTE_READ;
	if (c == ST_REMAP) {
		f->other = alloc_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, f->other);
		memset(page_address(f->other), ST_FILL, PAGE_SIZE);
		/* what map_mr_sg leaves for the REG_MR */
		f->mr->map_pbl[0] = (u64)(uintptr_t)page_address(f->other);
	}
	KUNIT_ASSERT_EQ(test, siw_mem_fastreg(f->mr, &f->pd, f->stag, access),
			0);
}

/**
 * struct st_rv - a region changed while a peer's access to it waits
 * @name: the case
 * @change: what the consumer does to it
 */
struct st_rv {
	const char *name;
	enum st_change change;
};

static const struct st_rv st_rr_cases[] = {
	{ "source unchanged", ST_KEEP },
	{ "source invalidated", ST_INVAL },
	{ "registered again without remote read", ST_AGAIN },
	{ "registered again to another page", ST_REMAP },
};

SIW_DDP_CASE_DESC(st_rv);
KUNIT_ARRAY_PARAM(st_rr, st_rr_cases, st_rv_desc);

/*
 * The peer's Read Request is checked when it arrives (source STag, PD,
 * bounds, remote read) and queued; the consumer changes the source
 * before the transmit work answers it. The response reads the source
 * the check saw, or nothing: once that registration is gone, the peer
 * gets a Terminate (RDMAP, remote protection error, invalid STag) and
 * none of the region's octets, old pages or new (Documentation/
 * security.rst). The access is the one the receive path checked: the
 * transmit side must not take the region's state when it answers.
 */
static void stream_read_resp_checked_source(struct kunit *test)
{
	const struct st_rv *c = test->param_value;
	struct st_fixture *f = test->priv;
	struct siw_rdmap_rreq rr = {
		.sink_stag = eng_stag(1, 0x77), .sink_to = ST_RR_SINK_TO,
		.src_stag = f->stag, .src_to = ST_IOVA + ST_RR_SRC_OFF,
		.len = ST_RR_LEN,
	};
	struct siw_engine_msg m = {
		.opcode = SIW_RDMAP_READ_REQ, .rreq = &rr,
	};
	struct eng_peer *p = eng_peer_new(test, 64);
	struct eng_wire *w;

	memset(page_address(f->page) + ST_RR_SRC_OFF, ST_RR_DATA, ST_RR_LEN);
	eng_region_set(p, 1, 0x77, ST_RR_SINK_TO, ST_RR_LEN,
		       IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE,
		       &eng_pd_a, true, false);
	w = st_peer_frame(test, &m, 4096, 9000);
	st_peer_put(test, f, w->buf, w->len);
	st_receive_octets(f, w->len);
	KUNIT_ASSERT_FALSE(test, siw_engine_rx_stopped(&f->s->rx));
	KUNIT_ASSERT_EQ_MSG(test, READ_ONCE(f->s->irq_put), 1U,
			    "the Read Request was not queued");

	/* the receive path's kick ran the idle work; the real one answers */
	flush_work(&f->s->tx_work);
	st_change(test, f, c->change);
	/*
	 * No CM endpoint here: the stream that ends after its Terminate
	 * is not to tell one (in the other cases, no stream ends so)
	 */
	f->s->closed_told = true;
	INIT_WORK(&f->s->tx_work, siw_stx_work);
	schedule_work(&f->s->tx_work);
	st_peer_read_into(test, f, p, true);
	flush_work(&f->s->tx_work);
	KUNIT_EXPECT_FALSE(test, p->bad);
	KUNIT_EXPECT_TRUE(test, eng_peer_guards_ok(p));
	if (c->change == ST_KEEP) {
		KUNIT_EXPECT_EQ(test, p->nterm, 0U);
		KUNIT_ASSERT_EQ_MSG(test, p->ndone, 1U, "no Read Response");
		KUNIT_EXPECT_EQ(test, p->done[0].opcode, SIW_RDMAP_READ_RESP);
		KUNIT_EXPECT_TRUE(test, !memchr_inv(p->reg[0].mem, ST_RR_DATA,
						    ST_RR_LEN));
		return;
	}
	KUNIT_ASSERT_EQ_MSG(test, p->nterm, 1U,
			    "the peer received no Terminate");
	KUNIT_EXPECT_EQ(test, p->term.layer, 0x0);
	KUNIT_EXPECT_EQ(test, p->term.etype, 0x1);
	KUNIT_EXPECT_EQ(test, p->term.ecode, 0x00);
	KUNIT_EXPECT_EQ_MSG(test, p->nrresp, 0U,
			    "a Read Response came from a revoked source");
	KUNIT_EXPECT_TRUE(test, eng_untouched(p->reg[0].mem, ST_RR_LEN));
	KUNIT_EXPECT_EQ(test, st_terms_sent(f), 1ULL);
}

/* Runs of the transmit work that found the stream stopped */
static atomic_t st_tx_after_stop;

static void st_tx_work_after_stop(struct work_struct *w)
{
	struct siw_stream *s = container_of(w, struct siw_stream, tx_work);

	if (siw_stream_stopped(s))
		atomic_inc(&st_tx_after_stop);
}

/*
 * The stream stops while the receive work is inside an skb that ends
 * in a Read Request (issue 47): the reader holds the socket at the
 * request when the stop begins. Once the stop returns nothing of the
 * request may be left: no entry on the inbound read queue (it holds a
 * reference on the source region) and no transmit work queued or run,
 * for a detach frees the stream right after its stop. The stop that
 * drained the queue and cancelled the work before it waited for the
 * reader left both: the request's entry, the region's reference and a
 * kick of the work, which a detach would then run on freed memory.
 */
static void stream_stop_races_read_req(struct kunit *test)
{
	struct st_fixture *f = test->priv;
	struct siw_rdmap_rreq rr = {
		.sink_stag = eng_stag(1, 0x77), .sink_to = ST_RR_SINK_TO,
		.src_stag = f->stag, .src_to = ST_IOVA + ST_RR_SRC_OFF,
		.len = ST_RR_LEN,
	};
	struct siw_engine_msg m = {
		.opcode = SIW_RDMAP_READ_REQ, .rreq = &rr,
	};
	unsigned long end = jiffies + msecs_to_jiffies(ST_WAIT_MS);
	struct sock *sk = f->ours->sk;
	struct st_race *r;
	struct eng_wire *w;
	unsigned int ref;

	/* the reader spins at the request while the stop runs beside it */
	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU: the reader and the stop need two");
	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	r->f = f;
	INIT_WORK(&r->read, st_race_read);
	init_completion(&r->inside);
	atomic_set(&st_tx_after_stop, 0);
	INIT_WORK(&f->s->tx_work, st_tx_work_after_stop);
	ref = refcount_read(&f->mr->ref);

	/* the request is queued on the socket, not read yet */
	w = st_peer_frame(test, &m, 4096, 9000);
	st_peer_put(test, f, w->buf, w->len);
	while (tcp_inq(sk) < (int)w->len && time_before(jiffies, end))
		usleep_range(100, 200);
	KUNIT_ASSERT_EQ(test, tcp_inq(sk), (int)w->len);

	f->race = r;
	WRITE_ONCE(st_race_now, r);
	siw_srx_read_req_hook_set(st_race_hook);
	queue_work(system_unbound_wq, &r->read);
	KUNIT_ASSERT_NE_MSG(test,
			    wait_for_completion_timeout(&r->inside,
							msecs_to_jiffies(ST_WAIT_MS)),
			    0, "the reader did not reach the Read Request");
	st_stop(f);
	st_race_end(r);
	flush_work(&f->s->tx_work);
	KUNIT_EXPECT_TRUE_MSG(test, r->stop_waited,
			      "the stop did not wait for the reader's socket");
	KUNIT_EXPECT_EQ_MSG(test, f->s->irq_put - f->s->irq_get, 0U,
			    "a Read Request was queued on a stopped stream");
	KUNIT_EXPECT_EQ_MSG(test, refcount_read(&f->mr->ref), ref,
			    "the source region's reference was left held");
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&st_tx_after_stop), 0,
			    "the transmit work ran after the stop (after a detach: on a freed stream)");
	/* a second stop (detach after a modify to ERROR) puts anything left */
	st_stop(f);
}

static const struct st_rv st_recv_rv_cases[] = {
	{ "buffer unchanged", ST_KEEP },
	{ "buffer invalidated", ST_INVAL },
	{ "registered again to another page", ST_REMAP },
};

KUNIT_ARRAY_PARAM(st_recv_rv, st_recv_rv_cases, st_rv_desc);

/*
 * A Send of several FPDUs binds a posted receive at its first FPDU,
 * which checks the receive's buffer (lkey, PD, bounds, local write);
 * the consumer changes the buffer's region before the rest arrives.
 * The rest lands where the check said, or nowhere: once that
 * registration is gone the receive completes with a local protection
 * error, the stream stops with a Terminate (RDMAP, local catastrophic
 * error) and no octet reaches the old page or the new one.
 */
static void stream_send_buffer_checked(struct kunit *test)
{
	const struct st_rv *c = test->param_value;
	struct st_fixture *f = test->priv;
	struct eng_wire *w;
	u32 first, placed;
	struct ib_wc wc;

	st_post_recv(test, f);
	w = st_peer_send_wire(test, ST_BUF_LEN, 128);
	/* the first FPDU: its ULPDU, pad and CRC (RFC 5044 section 4) */
	placed = (w->buf[0] << 8 | w->buf[1]);
	first = ALIGN(2 + placed, 4) + 4;
	placed -= SIW_DDP_UNTAGGED_HLEN;
	KUNIT_ASSERT_LT(test, first, w->len);
	st_peer_put(test, f, w->buf, first);
	st_receive_octets(f, first);
	KUNIT_ASSERT_FALSE(test, siw_engine_rx_stopped(&f->s->rx));
	KUNIT_ASSERT_TRUE(test, st_all(f->page, ST_BUF_OFF, placed, ST_DATA));

	st_change(test, f, c->change);
	st_peer_put(test, f, w->buf + first, w->len - first);
	st_receive(f);
	st_one_wc(test, f, &wc);
	if (c->change == ST_KEEP) {
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, wc.byte_len, ST_BUF_LEN);
		KUNIT_EXPECT_TRUE(test, st_all(f->page, ST_BUF_OFF, ST_BUF_LEN,
					       ST_DATA));
		KUNIT_EXPECT_EQ(test, READ_ONCE(f->qp->state), SIW_QP_RTS);
		return;
	}
	KUNIT_EXPECT_EQ_MSG(test, wc.status, IB_WC_LOC_PROT_ERR, "status %s",
			    ib_wc_status_msg(wc.status));
	KUNIT_EXPECT_TRUE(test, siw_engine_rx_stopped(&f->s->rx));
	siw_ddp_expect(test, siw_engine_rx_error(&f->s->rx),
		       &(struct siw_ddp_triple)SIW_T(0x0, 0x0, 0x00));
	KUNIT_EXPECT_TRUE(test, READ_ONCE(f->s->term_pending));
	KUNIT_EXPECT_EQ(test, READ_ONCE(f->qp->state), SIW_QP_TERMINATE);
	KUNIT_EXPECT_TRUE(test, st_all(f->page, 0, ST_BUF_OFF, ST_FILL));
	KUNIT_EXPECT_TRUE(test, st_all(f->page, ST_BUF_OFF + placed,
				       PAGE_SIZE - ST_BUF_OFF - placed,
				       ST_FILL));
	if (f->other)
		KUNIT_EXPECT_TRUE(test, st_all(f->other, 0, PAGE_SIZE,
					       ST_FILL));
	/* it does not complete a second time when the stream stops */
	st_stop(f);
	KUNIT_EXPECT_EQ(test, siw_poll_cq(&f->cq->base, 1, &wc), 0);
}

/* Post a signalled Send of @len octets from the region's start */
static void st_post_send(struct kunit *test, struct st_fixture *f, u32 len)
{
	struct ib_sge sge = {
		.addr = ST_IOVA, .length = len, .lkey = f->stag,
	};
	struct ib_send_wr wr = {
		.wr_id = ST_SEND_WRID + len, .sg_list = &sge, .num_sge = 1,
		.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED,
	};
	const struct ib_send_wr *bad = NULL;

	KUNIT_ASSERT_EQ(test, siw_post_send(&f->qp->base, &wr, &bad), 0);
}

/**
 * struct st_frames - what the peer read, FPDU by FPDU
 * @buf: the octets
 * @len: octets at @buf
 * @nmsg: messages whose last FPDU arrived
 * @nfpdu: FPDUs of each of them
 * @max: the largest FPDU of each, in octets on the wire
 */
struct st_frames {
	u8 *buf;
	u32 len;
	u32 nmsg;
	u32 nfpdu[2];
	u32 max[2];
};

/*
 * Walk the whole FPDUs in @fr (CRC, no markers: RFC 5044 section 6)
 * from @*pos, counting each message's FPDUs by the DDP L bit
 */
static void st_frames_walk(struct st_frames *fr, u32 *pos)
{
	u32 ulpdu, wire;

	while (fr->nmsg < ARRAY_SIZE(fr->nfpdu) && *pos + 3 <= fr->len) {
		ulpdu = fr->buf[*pos] << 8 | fr->buf[*pos + 1];
		wire = ALIGN(2 + ulpdu, 4) + 4;
		if (*pos + wire > fr->len)
			return;
		fr->nfpdu[fr->nmsg]++;
		fr->max[fr->nmsg] = max(fr->max[fr->nmsg], wire);
		/* the DDP header's first octet: T, L, reserved, DV */
		if (fr->buf[*pos + 2] & 0x40)
			fr->nmsg++;
		*pos += wire;
	}
}

/*
 * One read of what the peer's end has into @buf + *@len, fed to @rx:
 * false once the connection ended, @cap octets came or @end passed
 */
static bool st_peer_take(struct st_fixture *f, struct siw_engine_rx *rx,
			 u8 *buf, u32 *len, u32 cap, unsigned long end)
{
	struct kvec iov = { .iov_base = buf + *len, .iov_len = cap - *len };
	struct msghdr msg = { };
	int rv;

	if (*len >= cap || !time_before(jiffies, end))
		return false;
	rv = kernel_recvmsg(f->peer, &msg, &iov, 1, iov.iov_len, MSG_DONTWAIT);
	if (rv == -EAGAIN) {
		msleep(20);
		return true;
	}
	if (rv <= 0)
		return false;
	siw_engine_rx_feed(rx, buf + *len, rv);
	*len += rv;
	return true;
}

/*
 * The peer reads its end until two messages arrived whole (or
 * ST_WAIT_MS passed), and checks them with a receive engine: valid
 * framing and CRCs, the lengths that were sent
 */
static void st_peer_frames(struct kunit *test, struct st_fixture *f,
			   struct st_frames *fr, u32 cap)
{
	unsigned long end = jiffies + msecs_to_jiffies(ST_WAIT_MS);
	struct eng_peer *p = eng_peer_new(test, ST_MSG);
	struct siw_engine_rx *rx = kunit_kzalloc(test, sizeof(*rx),
						 GFP_KERNEL);
	u32 pos = 0;

	fr->buf = kunit_kmalloc(test, cap, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, rx && fr->buf);
	eng_peer_reset(p, 2);
	eng_rx_start(rx, p, 1, false, f->s->conn.crc);
	while (fr->nmsg < 2 &&
	       st_peer_take(f, rx, fr->buf, &fr->len, cap, end))
		st_frames_walk(fr, &pos);
	KUNIT_ASSERT_EQ_MSG(test, fr->nmsg, 2U, "the peer got %u of 2 Sends",
			    fr->nmsg);
	KUNIT_EXPECT_FALSE(test, siw_engine_rx_stopped(rx));
	KUNIT_ASSERT_EQ(test, p->ndone, 2U);
	KUNIT_EXPECT_EQ(test, p->done_len[0], 64U);
	KUNIT_EXPECT_EQ(test, p->done_len[1], (u32)ST_MSG);
	KUNIT_EXPECT_FALSE(test, p->bad);
}

/* Loopback's MTU goes down to @mtu (st_exit() restores it); the work sends */
static void st_lower_mtu(struct kunit *test, struct st_fixture *f, int mtu)
{
	struct net_device *lo = init_net.loopback_dev;
	int rv;

	INIT_WORK(&f->s->tx_work, siw_stx_work);
	rtnl_lock();
	f->lo_mtu = lo->mtu;
	rv = dev_set_mtu(lo, mtu);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, rv, 0);
}

/*
 * The path MTU goes down under a connected stream: a Send posted after
 * it is cut into FPDUs that each fit a TCP segment of the new MSS
 * (RFC 5044 section 4.1: an FPDU should fit one segment; MULPDU follows
 * the EMSS as it changes), not the MSS the stream started with.
 */
static void stream_fpdu_follows_mss(struct kunit *test)
{
	struct st_fixture *f = test->priv;
	struct st_frames fr = { };
	struct ib_wc wc;
	u32 mss;
	int i;

	/* the stream started with an MSS that takes the Send whole */
	KUNIT_ASSERT_GT(test, f->s->tx.mulpdu, (u32)ST_MSG + 64);
	st_lower_mtu(test, f, ST_LOW_MTU);

	/* TCP takes the device's new MTU at its next send: a short one */
	st_post_send(test, f, 64);
	st_post_send(test, f, ST_MSG);
	st_peer_frames(test, f, &fr, 4 * ST_MSG);
	/* the work completes the Sends after their last octets went out */
	flush_work(&f->s->tx_work);
	mss = READ_ONCE(tcp_sk(f->ours->sk)->mss_cache);
	kunit_info(test, "MSS now %u; the Send came in %u FPDUs of at most %u octets",
		   mss, fr.nfpdu[1], fr.max[1]);
	KUNIT_EXPECT_LE(test, mss, (u32)ST_LOW_MTU - 40);
	KUNIT_EXPECT_LE_MSG(test, fr.max[1], mss,
			    "an FPDU larger than a segment");
	KUNIT_EXPECT_GE(test, fr.nfpdu[1], DIV_ROUND_UP(ST_MSG, mss));

	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ_MSG(test, siw_poll_cq(&f->cq->base, 1, &wc), 1,
				    "Send %d did not complete", i);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_SEND);
		KUNIT_EXPECT_EQ(test, wc.wr_id, ST_SEND_WRID + (i ? ST_MSG : 64));
	}
}

/*
 * A short Send, which brings TCP to a new MSS, then a long one; the peer
 * checks what arrives, and both complete once the work sent their last
 * octets
 */
static void st_two_sends(struct kunit *test, struct st_fixture *f,
			 struct st_frames *fr)
{
	struct ib_wc wc;
	int i;

	st_post_send(test, f, 64);
	st_post_send(test, f, ST_MSG);
	st_peer_frames(test, f, fr, 4 * ST_MSG);
	flush_work(&f->s->tx_work);
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ_MSG(test, siw_poll_cq(&f->cq->base, 1, &wc), 1,
				    "Send %d did not complete", i);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	}
}

struct st_room {
	const char *name;
	u32 mss;
};

static const struct st_room st_room_cases[] = {
	{ "MTU 576", 536 },
	{ "MTU 1500", 1448 },
	{ "MTU 9000", 8948 },
	{ "loopback", 65483 },
};

SIW_DDP_CASE_DESC(st_room);
KUNIT_ARRAY_PARAM(st_room, st_room_cases, st_room_desc);

/*
 * An FPDU sized to the EMSS (the MSS: RFC 5044 section 5.1) fits it
 * whole, markers or not, wherever it starts
 */
static void stream_fpdu_room(struct kunit *test)
{
	const struct st_room *c = test->param_value;
	u32 room = c->mss;
	u32 with = siw_mpa_mulpdu(room, true);
	u32 without = siw_mpa_mulpdu(room, false);
	u32 pos;

	/* an FPDU of the largest ULPDU fits, markers or not, wherever it starts */
	for (pos = 0; pos < SIW_MPA_MARKER_PERIOD; pos += 4) {
		KUNIT_EXPECT_LE(test, siw_mpa_fpdu_wire_len(pos, true, with),
				room);
		KUNIT_EXPECT_LE(test, siw_mpa_fpdu_wire_len(pos, false, without),
				room);
	}
}

/*
 * A message of several FPDUs goes to TCP as one batch: the FPDUs are cut
 * ahead, the framing octets of each kept while the engine frames the
 * next, and all of them handed over together. The peer checks every
 * FPDU (framing, CRC, the message); the FPDU counter counts each one.
 */
static void stream_tx_batch(struct kunit *test)
{
	struct st_fixture *f = test->priv;
	struct st_frames fr = { };
	u32 batch, sent;

	st_lower_mtu(test, f, ST_BATCH_MTU);
	st_two_sends(test, f, &fr);
	mutex_lock(&f->s->tx_mutex);
	batch = f->s->tx_nfpdu;
	mutex_unlock(&f->s->tx_mutex);
	sent = siw_stats_sum(f->sdev->stats, SIW_STAT_TX_FPDUS);
	kunit_info(test, "the Send came in %u FPDUs, the last batch held %u",
		   fr.nfpdu[1], batch);
	KUNIT_EXPECT_GE(test, fr.nfpdu[1], 4U);
	KUNIT_EXPECT_EQ_MSG(test, batch, fr.nfpdu[1],
			    "the Send's FPDUs did not go to TCP as one batch");
	KUNIT_EXPECT_EQ(test, sent, fr.nfpdu[0] + fr.nfpdu[1]);
	/* CRCs on, no message long enough for references: all of it staged */
	KUNIT_EXPECT_EQ(test, siw_stats_sum(f->sdev->stats,
					    SIW_STAT_TX_STAGED_OCTETS),
			siw_stats_sum(f->sdev->stats, SIW_STAT_TX_OCTETS));
	KUNIT_EXPECT_EQ(test, siw_stats_sum(f->sdev->stats,
					    SIW_STAT_TX_COPY_OCTETS), 0ULL);
	KUNIT_EXPECT_GE(test, siw_stats_sum(f->sdev->stats,
					    SIW_STAT_TX_STAGED_OCTETS),
			(u64)(64 + ST_MSG));
}

/*
 * CRCs off: the stream copies the FPDUs into its pages and hands those
 * over, as with CRCs on; TCP copies none of them. The peer gets the
 * same checked FPDUs.
 */
static void stream_tx_stage_crc_off(struct kunit *test)
{
	struct st_fixture *f = test->priv;
	struct siw_stats __percpu *st = f->sdev->stats;
	struct st_frames fr = { };
	u64 octets, staged, copied;

	f->s->conn.crc = false;
	siw_engine_tx_init(&f->s->tx, false, false,
			   READ_ONCE(tcp_sk(f->ours->sk)->mss_cache));
	st_lower_mtu(test, f, ST_BATCH_MTU);

	st_two_sends(test, f, &fr);
	octets = siw_stats_sum(st, SIW_STAT_TX_OCTETS);
	staged = siw_stats_sum(st, SIW_STAT_TX_STAGED_OCTETS);
	copied = siw_stats_sum(st, SIW_STAT_TX_COPY_OCTETS);
	kunit_info(test, "%llu octets, %llu staged, %llu copied by TCP",
		   octets, staged, copied);
	KUNIT_EXPECT_GE(test, octets, (u64)(64 + ST_MSG));
	KUNIT_EXPECT_EQ(test, staged, octets);
	KUNIT_EXPECT_EQ(test, copied, 0);
}

/*
 * TCP holds @pg (the test's reference in @f->held[@i], as an skb would
 * hold one), or, with @pg NULL, lets go of what @f->held[@i] held
 */
static void st_hold(struct st_fixture *f, unsigned int i, struct page *pg)
{
	if (f->held[i])
		put_page(f->held[i]);
	if (pg)
		get_page(pg);
	f->held[i] = pg;
}

/*
 * The stage the next batch takes once the present one is full: its
 * head page, or NULL if there is none
 */
static struct page *st_stage_next(struct kunit *test, struct st_fixture *f)
{
	struct siw_engine_stage *sg;

	f->s->stage.used = f->s->stage.size;
	sg = siw_stx_stage_start(f->s);
	KUNIT_EXPECT_NOT_NULL(test, sg);
	if (!sg)
		return NULL;
	KUNIT_EXPECT_EQ(test, sg->used, 0U);
	return virt_to_head_page(sg->buf);
}

/*
 * Stage pages are used again once TCP let go of them, in a ring of
 * allocations (here 2, set by a KUnit hook): a full stage TCP still holds gives
 * way to the next of the ring, fresh pages if TCP holds that one too;
 * one TCP let go of comes back without an allocation, the full one
 * itself first. An skb's hold is played by a page reference of the
 * test's, on pages TCP never had (TCP's own skbs may be freed late, on
 * the CPU that sent them).
 */
static void stream_tx_stage_ring(struct kunit *test)
{
	struct st_fixture *f = test->priv;
	struct siw_stats __percpu *st = f->sdev->stats;
	struct st_frames fr = { };
	struct page *a, *b, *c;
	u64 allocs;

	f->ring_was = siw_stx_stage_ring_swap(2);
	f->ring_set = true;
	/* CRCs on: the Sends are staged, at an MSS the stage takes */
	st_lower_mtu(test, f, ST_LOW_MTU);
	st_two_sends(test, f, &fr);
	KUNIT_ASSERT_NOT_NULL(test, f->s->stage.buf);

	mutex_lock(&f->s->tx_mutex);
	/* both entries of the ring fresh: the one TCP had held as well */
	st_hold(f, 0, virt_to_head_page(f->s->stage.buf));
	b = st_stage_next(test, f);
	st_hold(f, 1, b);
	allocs = siw_stats_sum(st, SIW_STAT_TX_STAGE_ALLOCS);
	a = st_stage_next(test, f);
	if (!a || !b)
		goto out;
	KUNIT_EXPECT_PTR_NE(test, a, b);
	KUNIT_EXPECT_EQ(test, siw_stats_sum(st, SIW_STAT_TX_STAGE_ALLOCS),
			allocs + 1);
	allocs++;

	/* a full, b still held: b's pages are left, fresh ones taken */
	st_hold(f, 0, a);
	c = st_stage_next(test, f);
	KUNIT_EXPECT_PTR_NE_MSG(test, c, b, "a stage TCP holds was reused");
	KUNIT_EXPECT_PTR_NE(test, c, a);
	KUNIT_EXPECT_EQ(test, siw_stats_sum(st, SIW_STAT_TX_STAGE_ALLOCS),
			allocs + 1);
	allocs++;
	/* the ring let go of b: the test's reference is the last */
	KUNIT_EXPECT_EQ(test, page_ref_count(b), 1);
	st_hold(f, 1, NULL);
	b = c;

	/* b full and held, TCP let go of a: a comes back */
	st_hold(f, 1, b);
	st_hold(f, 0, NULL);
	c = st_stage_next(test, f);
	KUNIT_EXPECT_PTR_EQ_MSG(test, c, a,
				"the stage TCP let go of did not come back");
	/* a full and let go of: used again at once */
	c = st_stage_next(test, f);
	KUNIT_EXPECT_PTR_EQ_MSG(test, c, a,
				"a full stage TCP let go of was not reused");
	/* TCP let go of b too, a held: b comes back */
	st_hold(f, 0, a);
	st_hold(f, 1, NULL);
	c = st_stage_next(test, f);
	KUNIT_EXPECT_PTR_EQ_MSG(test, c, b,
				"the stage TCP let go of did not come back");
	KUNIT_EXPECT_EQ_MSG(test, siw_stats_sum(st, SIW_STAT_TX_STAGE_ALLOCS),
			    allocs, "pages allocated where a stage was free");
out:
	mutex_unlock(&f->s->tx_mutex);
	st_hold(f, 0, NULL);
	st_hold(f, 1, NULL);
}

/*
 * A process's doorbell on an idle stream sends the whole message it
 * starts, a Send of several FPDUs included, and completes it: nothing
 * of it is left to the transmit work, which here never runs.
 */
static void stream_doorbell_sends_message(struct kunit *test)
{
	struct st_fixture *f = test->priv;
	struct st_frames fr = { };
	struct ib_wc wc;
	int i;

	st_lower_mtu(test, f, ST_BATCH_MTU);
	/* the work does nothing: what reaches the peer, a doorbell sent */
	INIT_WORK(&f->s->tx_work, st_tx_work_unrun);

	/* the short Send brings TCP to the new MSS before the long one */
	st_post_send(test, f, 64);
	siw_qp_sq_send(f->qp);
	st_post_send(test, f, ST_MSG);
	siw_qp_sq_send(f->qp);
	st_peer_frames(test, f, &fr, 4 * ST_MSG);
	kunit_info(test, "the doorbell sent a Send of %u FPDUs", fr.nfpdu[1]);
	KUNIT_EXPECT_GE(test, fr.nfpdu[1], 4U);
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ_MSG(test, siw_poll_cq(&f->cq->base, 1, &wc), 1,
				    "Send %d did not complete", i);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, wc.wr_id, ST_SEND_WRID + (i ? ST_MSG : 64));
	}
}

/* Post a signalled READ of @len octets into the region's start */
static void st_post_read(struct kunit *test, struct st_fixture *f, u32 len)
{
	struct ib_sge sge = {
		.addr = ST_IOVA, .length = len, .lkey = f->stag,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = ST_WRID, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_RDMA_READ,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = 0x1000, .rkey = 0x4200,
	};
	const struct ib_send_wr *bad = NULL;

	KUNIT_ASSERT_EQ(test, siw_post_send(&f->qp->base, &wr.wr, &bad), 0);
}

/* Nothing of ours waits in TCP's queue: all of it was sent */
static void st_expect_all_sent(struct kunit *test, struct st_fixture *f)
{
	const struct tcp_sock *tp = tcp_sk(f->ours->sk);
	u32 queued = READ_ONCE(tp->write_seq) - READ_ONCE(tp->snd_nxt);

	KUNIT_EXPECT_EQ_MSG(test, queued, 0U,
			    "%u octets stayed in TCP's queue after the run",
			    queued);
}

/*
 * The peer reads the stream's Read Request, one FPDU (CRC, no markers),
 * off its end and decodes it into @rr
 */
static void st_peer_rreq(struct kunit *test, struct st_fixture *f,
			 struct siw_rdmap_rreq *rr)
{
	const u32 ulpdu = SIW_DDP_UNTAGGED_HLEN + SIW_RDMAP_RREQ_LEN;
	const u32 want = ALIGN(2 + ulpdu, 4) + 4;
	unsigned long end = jiffies + msecs_to_jiffies(ST_WAIT_MS);
	struct msghdr msg = { };
	struct kvec iov;
	u32 got = 0;
	u8 buf[64];
	int rv;

	while (got < want && time_before(jiffies, end)) {
		iov = (struct kvec){ .iov_base = buf + got,
				     .iov_len = want - got };
		rv = kernel_recvmsg(f->peer, &msg, &iov, 1, want - got,
				    MSG_DONTWAIT);
		if (rv == -EAGAIN) {
			msleep(20);
			continue;
		}
		KUNIT_ASSERT_GT(test, rv, 0);
		got += rv;
	}
	KUNIT_ASSERT_EQ_MSG(test, got, want, "no Read Request from the stream");
	KUNIT_ASSERT_EQ(test, (u32)(buf[0] << 8 | buf[1]), ulpdu);
	/* the RDMAP control octet, the DDP header's second */
	KUNIT_ASSERT_EQ(test, buf[3] & 0xf, SIW_RDMAP_READ_REQ);
	siw_rdmap_rreq_decode(buf + 2 + SIW_DDP_UNTAGGED_HLEN, rr);
}

/* Frame one segment, header @h and @len octets at @data, onto @w */
static void st_put_segment(struct kunit *test, struct eng_wire *w,
			   struct siw_mpa_tx *mtx, const struct siw_ddp_hdr *h,
			   const u8 *data, u32 len)
{
	struct siw_mpa_fpdu mf = { };
	u8 u[SIW_DDP_UNTAGGED_HLEN + 64];
	ssize_t n;
	int hl;

	hl = siw_ddp_hdr_encode(h, u, sizeof(u));
	KUNIT_ASSERT_GT(test, hl, 0);
	KUNIT_ASSERT_LE(test, len, (u32)(sizeof(u) - hl));
	if (len)
		memcpy(u + hl, data, len);
	n = siw_mpa_fpdu_build(&mf, mtx, u, hl + len, w->buf + w->len,
			       w->size - w->len);
	KUNIT_ASSERT_GT(test, n, 0L);
	w->len += n;
}

/* The three ways octets pass between a region and the wire */
enum st_dir {
	ST_SEND,	/* a Send of ours from the region */
	ST_RRESP,	/* our Read Response to the peer's Read, from it */
	ST_WRITE,	/* the peer's Write into it */
};

/**
 * struct st_geom - a region whose pages are not the kernel's
 * @name: the case
 * @dir: which way the octets go
 * @shift: log2 of the region's page size
 * @npages: the region's pages, all of them used
 * @kpages: kernel pages they are spread over: region page i lies in
 *	kernel page i % @kpages, at its (i / @kpages)th slot, so that
 *	consecutive region pages are never adjacent in memory
 */
struct st_geom {
	const char *name;
	enum st_dir dir;
	u8 shift;
	u32 npages;
	u32 kpages;
};

static const struct st_geom st_geom_cases[] = {
	{ "Send, two 512-octet pages", ST_SEND, 9, 2, 2 },
	{ "Send, 320 pages of 128 octets", ST_SEND, 7, 320, 16 },
	{ "Send, a page of two kernel pages", ST_SEND, PAGE_SHIFT + 1, 1, 1 },
	{ "Read Response, two 512-octet pages", ST_RRESP, 9, 2, 2 },
	{ "Read Response, 320 pages of 128 octets", ST_RRESP, 7, 320, 16 },
	{ "Read Response, a page of two kernel pages", ST_RRESP,
	  PAGE_SHIFT + 1, 1, 1 },
	{ "peer's Write, two 512-octet pages", ST_WRITE, 9, 2, 2 },
	{ "peer's Write, 320 pages of 128 octets", ST_WRITE, 7, 320, 16 },
	{ "peer's Write, a page of two kernel pages", ST_WRITE,
	  PAGE_SHIFT + 1, 1, 1 },
};

SIW_DDP_CASE_DESC(st_geom);
KUNIT_ARRAY_PARAM(st_geom, st_geom_cases, st_geom_desc);

/*
 * The next completion, or false after ST_WAIT_MS: a Send sent without a
 * copy completes once the peer acknowledged it, which the work, run
 * again, sees (the fixture's socket has no write-space callback)
 */
static bool st_wait_wc(struct st_fixture *f, struct ib_wc *wc)
{
	unsigned long end = jiffies + msecs_to_jiffies(ST_WAIT_MS);

	while (siw_poll_cq(&f->cq->base, 1, wc) != 1) {
		if (time_after(jiffies, end))
			return false;
		schedule_work(&f->s->tx_work);
		flush_work(&f->s->tx_work);
		msleep(20);
	}
	return true;
}

/* What region page @i holds (the fill of the memory around is ST_FILL) */
static u8 st_geom_val(u32 i)
{
	u8 v = i * 37 + 5;

	return v == ST_FILL ? v + 1 : v;
}

/* Where region page @i of @c starts in @mem */
static u8 *st_geom_at(const struct st_geom *c, u8 *mem, u32 i)
{
	size_t stride = max_t(size_t, PAGE_SIZE, BIT(c->shift));

	return mem + (i % c->kpages) * stride + (i / c->kpages) * BIT(c->shift);
}

/*
 * A consumer maps its pages with a page size of its own (nvme-rdma,
 * iSER and rtrs map 4 KiB pages, also on a kernel of 64 KiB pages;
 * here the region's pages are smaller than the kernel's, or larger).
 * Every access stops at the end of the region's page and at the end of
 * the kernel page: a Send and a Read Response carry the region's octets
 * in order and nothing of the memory between its pages; a peer's Write
 * lands in the region's pages and nowhere else. The region of 320 pages
 * takes more segments than a stream starts with, the Read Response more
 * than its length in kernel pages.
 */
static void stream_region_pages(struct kunit *test)
{
	const struct st_geom *c = test->param_value;
	struct st_fixture *f = test->priv;
	const u32 pg = BIT(c->shift), len = c->npages * pg;
	size_t size = c->kpages * max_t(size_t, PAGE_SIZE, pg);
	struct siw_engine_seg seg = { .kind = SIW_ENGINE_SEG_KVA, .len = len };
	struct siw_engine_msg m = { };
	struct siw_rdmap_rreq rr = {
		.sink_stag = eng_stag(1, 0x77), .sink_to = ST_RR_SINK_TO,
		.len = len,
	};
	struct eng_peer *p = eng_peer_new(test, len);
	u8 *mem, *data, *got = NULL, *at;
	struct eng_wire *w;
	struct ib_wc wc;
	u32 i;

	mem = kunit_kmalloc(test, size, GFP_KERNEL);
	data = kunit_kmalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, mem && data);
	memset(mem, ST_FILL, size);
	for (i = 0; i < c->npages; i++) {
		memset(data + i * pg, st_geom_val(i), pg);
		if (c->dir != ST_WRITE)
			memset(st_geom_at(c, mem, i), st_geom_val(i), pg);
	}
	/* the region registered again to those pages, as map_mr_sg leaves them */
	KUNIT_ASSERT_LE(test, c->npages, f->mr->max_pages);
	KUNIT_ASSERT_EQ(test, siw_mem_invalidate(&f->sdev->mem, &f->pd, f->stag,
						 false), 0);
	for (i = 0; i < c->npages; i++)
		f->mr->map_pbl[i] = (u64)(uintptr_t)st_geom_at(c, mem, i);
	f->mr->map_npages = c->npages;
	f->mr->map_shift = c->shift;
	f->mr->map_off = 0;
	f->mr->base.length = len;
	KUNIT_ASSERT_EQ(test, siw_mem_fastreg(f->mr, &f->pd, f->stag,
					      ST_ACCESS), 0);
	INIT_WORK(&f->s->tx_work, siw_stx_work);

	switch (c->dir) {
	case ST_SEND: {
		struct ib_sge sge = {
			.addr = ST_IOVA, .length = len, .lkey = f->stag,
		};
		struct ib_send_wr wr = {
			.wr_id = ST_SEND_WRID, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED,
		};
		const struct ib_send_wr *bad = NULL;

		eng_peer_reset(p, 1);
		KUNIT_ASSERT_EQ(test, siw_post_send(&f->qp->base, &wr, &bad),
				0);
		st_peer_read_into(test, f, p, true);
		flush_work(&f->s->tx_work);
		KUNIT_ASSERT_EQ_MSG(test, p->ndone, 1U, "the Send did not arrive");
		KUNIT_EXPECT_EQ(test, p->done_len[0], len);
		got = p->rbuf;
		KUNIT_ASSERT_TRUE_MSG(test, st_wait_wc(f, &wc),
				      "the Send did not complete");
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		break;
	}
	case ST_RRESP:
		rr.src_stag = f->stag;
		rr.src_to = ST_IOVA;
		m.opcode = SIW_RDMAP_READ_REQ;
		m.rreq = &rr;
		eng_region_set(p, 1, 0x77, ST_RR_SINK_TO, len,
			       IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE,
			       &eng_pd_a, true, false);
		w = st_peer_frame(test, &m, 4096, 9000);
		/* no CM endpoint to tell, should the stream end */
		f->s->closed_told = true;
		st_peer_put(test, f, w->buf, w->len);
		st_receive_octets(f, w->len);
		KUNIT_ASSERT_FALSE(test, siw_engine_rx_stopped(&f->s->rx));
		st_peer_read_into(test, f, p, true);
		flush_work(&f->s->tx_work);
		KUNIT_EXPECT_EQ(test, p->nterm, 0U);
		KUNIT_ASSERT_EQ_MSG(test, p->ndone, 1U, "no Read Response");
		KUNIT_EXPECT_EQ(test, p->done[0].opcode, SIW_RDMAP_READ_RESP);
		got = p->reg[0].mem;
		break;
	case ST_WRITE:
		m.opcode = SIW_RDMAP_WRITE;
		m.stag = f->stag;
		m.to = ST_IOVA;
		seg.addr = data;
		m.sgl = (struct siw_engine_sgl){ .seg = &seg, .nseg = 1 };
		w = st_peer_frame(test, &m, 2 * len + 4096, 9000);
		st_peer_put(test, f, w->buf, w->len);
		st_receive_octets(f, w->len);
		KUNIT_EXPECT_FALSE(test, siw_engine_rx_stopped(&f->s->rx));
		break;
	}
	KUNIT_EXPECT_FALSE(test, p->bad);
	KUNIT_EXPECT_TRUE(test, eng_peer_guards_ok(p));
	if (got)
		KUNIT_EXPECT_TRUE_MSG(test, !memcmp(got, data, len),
				      "the peer got other octets than the region's");
	/* the region's pages hold theirs, the memory between them its fill */
	for (i = 0; i < c->npages; i++) {
		at = st_geom_at(c, mem, i);
		KUNIT_EXPECT_TRUE_MSG(test, !memchr_inv(at, st_geom_val(i), pg),
				      "region page %u", i);
		memset(at, ST_FILL, pg);
	}
	KUNIT_EXPECT_TRUE_MSG(test, !memchr_inv(mem, ST_FILL, size),
			      "octets outside the region's pages changed");
}

/**
 * struct st_unchecked - a Send whose one SGE names more than it may
 * @name: the case
 * @other_index: its lkey names no region (else the region, beyond its end)
 */
struct st_unchecked {
	const char *name;
	bool other_index;
};

static const struct st_unchecked st_unchecked_cases[] = {
	{ "an lkey that names no region", true },
	{ "the region's lkey, beyond its end", false },
};

SIW_DDP_CASE_DESC(st_unchecked);
KUNIT_ARRAY_PARAM(st_unchecked, st_unchecked_cases, st_unchecked_desc);

/*
 * A work request's SGEs are checked before anything is sized from them:
 * a Send of 256 MiB that its lkey does not grant completes with a local
 * protection error and leaves the stream's segment array as it was
 * (it used to be sized for the unchecked length first: 2 MiB of
 * segments for this one, 32 MiB for a process's six SGEs of 4 GiB).
 */
static void stream_send_sized_after_check(struct kunit *test)
{
	const struct st_unchecked *c = test->param_value;
	struct st_fixture *f = test->priv;
	struct ib_sge sge = {
		.addr = ST_IOVA, .length = SZ_256M,
		.lkey = c->other_index ? f->stag + (1 << SIW_STAG_INDEX_SHIFT) :
					 f->stag,
	};
	struct ib_send_wr wr = {
		.wr_id = ST_SEND_WRID, .sg_list = &sge, .num_sge = 1,
		.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED,
	};
	const struct ib_send_wr *bad = NULL;
	u32 seg_max = f->s->seg_max;
	struct ib_wc wc;

	INIT_WORK(&f->s->tx_work, siw_stx_work);
	/* no CM endpoint to tell when the stream ends on the error */
	f->s->closed_told = true;
	KUNIT_ASSERT_EQ(test, siw_post_send(&f->qp->base, &wr, &bad), 0);
	KUNIT_ASSERT_TRUE_MSG(test, st_wait_wc(f, &wc),
			      "the Send did not complete");
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_PROT_ERR);
	KUNIT_EXPECT_EQ_MSG(test, f->s->seg_max, seg_max,
			    "an unchecked length sized the segment array");
}

/**
 * struct st_empty - the peer's answer to a Read of ours
 * @name: the case
 * @len: octets the Read asks for (at most 64)
 * @empty: an empty segment with a forged STag and TO comes first; with
 *	@len octets to come, it is not the last
 * @bad_to: the segment with the octets names another TO of the sink
 */
struct st_empty {
	const char *name;
	u32 len;
	bool empty;
	bool bad_to;
};

static const struct st_empty st_empty_cases[] = {
	{ "zero-length Read, answered under a forged STag and TO", 0, true,
	  false },
	{ "an empty segment under a forged STag and TO, then the octets", 64,
	  true, false },
	{ "the octets at another TO of the sink", 64, false, true },
};

SIW_DDP_CASE_DESC(st_empty);
KUNIT_ARRAY_PARAM(st_empty, st_empty_cases, st_empty_desc);

/*
 * An empty segment of a Read Response places nothing, and its STag and
 * TO go unchecked (RFC 5041 section 5.2), whichever layer looks: the
 * Read completes. A segment with octets must name the sink at the
 * offset the response has reached (the Read Request's sink): at any other
 * TO, even of the same sink, the stream stops (DDP tagged, base or
 * bounds) and nothing is placed.
 */
static void stream_read_resp_empty(struct kunit *test)
{
	const struct st_empty *c = test->param_value;
	struct st_fixture *f = test->priv;
	struct siw_ddp_hdr h = { .opcode = SIW_RDMAP_READ_RESP,
				 .tagged = true };
	struct eng_wire *w = eng_wire_new(test, 512);
	struct siw_rdmap_rreq rr;
	struct siw_mpa_tx mtx;
	struct ib_wc wc;
	u8 data[64];

	st_post_read(test, f, c->len);
	flush_work(&f->s->tx_work);
	siw_stx_work(&f->s->tx_work);
	st_peer_rreq(test, f, &rr);
	KUNIT_ASSERT_EQ(test, rr.len, c->len);

	memset(data, ST_RR_DATA, sizeof(data));
	siw_mpa_tx_init(&mtx, false, true);
	if (c->empty) {
		h.stag = eng_stag(0x3a5, 0x9c);
		h.to = rr.sink_to ^ 0xfff0000000ULL;
		KUNIT_ASSERT_NE(test, h.stag, rr.sink_stag);
		h.last = !c->len;
		st_put_segment(test, w, &mtx, &h, NULL, 0);
	}
	if (c->len) {
		h.stag = rr.sink_stag;
		h.to = rr.sink_to + (c->bad_to ? c->len : 0);
		h.last = true;
		st_put_segment(test, w, &mtx, &h, data, c->len);
	}
	st_peer_put(test, f, w->buf, w->len);
	st_receive_octets(f, w->len);
	if (c->bad_to) {
		KUNIT_EXPECT_TRUE(test, siw_engine_rx_stopped(&f->s->rx));
		siw_ddp_expect(test, siw_engine_rx_error(&f->s->rx),
			       &(struct siw_ddp_triple)T_DDP_T_BOUNDS);
		KUNIT_EXPECT_TRUE(test, st_all(f->page, 0, PAGE_SIZE,
					       ST_FILL));
		return;
	}
	/* (a stopped stream's work would send a Terminate, then close) */
	KUNIT_ASSERT_FALSE_MSG(test, siw_engine_rx_stopped(&f->s->rx),
			       "the response stopped the stream");
	/* the transmit work retires the READ the response completed */
	flush_work(&f->s->tx_work);
	siw_stx_work(&f->s->tx_work);
	KUNIT_ASSERT_EQ_MSG(test, siw_poll_cq(&f->cq->base, 1, &wc), 1,
			    "the READ did not complete");
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wr_id, ST_WRID);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_READ);
	KUNIT_EXPECT_TRUE(test, st_all(f->page, 0, c->len, ST_RR_DATA));
	KUNIT_EXPECT_TRUE(test, st_all(f->page, c->len, PAGE_SIZE - c->len,
				       ST_FILL));
	KUNIT_EXPECT_EQ(test, READ_ONCE(f->qp->state), SIW_QP_RTS);
}

/*
 * Short messages the transmit work finds queued go to TCP back to back,
 * each but the last with MSG_MORE where the next fits the segment: three
 * short Sends leave in one segment, and nothing is held back once the
 * run ended. The peer checks each (framing, CRC, length).
 */
static void stream_work_shares_segments(struct kunit *test)
{
	struct st_fixture *f = test->priv;
	const struct tcp_sock *tp = tcp_sk(f->ours->sk);
	unsigned long end = jiffies + msecs_to_jiffies(ST_WAIT_MS);
	struct eng_peer *p = eng_peer_new(test, ST_MSG);
	struct siw_engine_rx *rx = kunit_kzalloc(test, sizeof(*rx),
						 GFP_KERNEL);
	u8 *buf = kunit_kmalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct ib_wc wc;
	u32 segs, len = 0;
	int i;

	KUNIT_ASSERT_TRUE(test, rx && buf);
	/* the kick of each post runs the work that does nothing */
	for (i = 0; i < 3; i++)
		st_post_send(test, f, 64);
	flush_work(&f->s->tx_work);
	segs = READ_ONCE(tp->data_segs_out);
	siw_stx_work(&f->s->tx_work);
	st_expect_all_sent(test, f);
	segs = READ_ONCE(tp->data_segs_out) - segs;
	kunit_info(test, "three Sends left in %u segments", segs);
	KUNIT_EXPECT_EQ_MSG(test, segs, 1U,
			    "the queued Sends did not share a segment");

	eng_peer_reset(p, 3);
	eng_rx_start(rx, p, 1, false, true);
	while (p->ndone < 3 && st_peer_take(f, rx, buf, &len, PAGE_SIZE, end))
		;
	KUNIT_ASSERT_EQ_MSG(test, p->ndone, 3U, "the peer got %u of 3 Sends",
			    p->ndone);
	KUNIT_EXPECT_FALSE(test, siw_engine_rx_stopped(rx));
	KUNIT_EXPECT_FALSE(test, p->bad);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, p->done_len[i], 64U);
		KUNIT_ASSERT_EQ_MSG(test, siw_poll_cq(&f->cq->base, 1, &wc), 1,
				    "Send %d did not complete", i);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	}
}

/*
 * The work pushed a message with MSG_MORE for the short one queued
 * behind it, which then could not start (a fenced Send behind an
 * unanswered READ): the run still ends with everything sent. Without the
 * final push TCP would hold the Read Request until some later send.
 */
static void stream_work_pushes_held_segment(struct kunit *test)
{
	struct st_fixture *f = test->priv;
	const struct tcp_sock *tp = tcp_sk(f->ours->sk);
	const struct ib_send_wr *bad = NULL;
	struct ib_sge sge = {
		.addr = ST_IOVA, .length = 64, .lkey = f->stag,
	};
	struct ib_send_wr wr = {
		.wr_id = ST_SEND_WRID, .sg_list = &sge, .num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED | IB_SEND_FENCE,
	};
	u32 segs;

	st_post_read(test, f, 64);
	KUNIT_ASSERT_EQ(test, siw_post_send(&f->qp->base, &wr, &bad), 0);
	flush_work(&f->s->tx_work);
	segs = READ_ONCE(tp->data_segs_out);
	siw_stx_work(&f->s->tx_work);
	/* the READ went, the Send waits for its response */
	KUNIT_EXPECT_EQ(test, f->s->sq_next, 1U);
	segs = READ_ONCE(tp->data_segs_out) - segs;
	KUNIT_EXPECT_EQ_MSG(test, segs, 1U, "the Read Request left in %u segments",
			    segs);
	st_expect_all_sent(test, f);
}

/*
 * Where the receive work goes (siw_srx_pick_cpu()): never the callback's
 * own CPU, only CPUs of both masks, streams spread by key. Built on the
 * first min(nr_cpu_ids, 4) CPUs, whatever the guest has.
 */
static void stream_rx_pick_cpu(struct kunit *test)
{
	unsigned int m = min_t(unsigned int, nr_cpu_ids, 4), cpu, key;
	struct cpumask *a, *b;

	if (m < 2)
		kunit_skip(test, "one CPU: nothing to pick");
	a = kunit_kzalloc(test, cpumask_size(), GFP_KERNEL);
	b = kunit_kzalloc(test, cpumask_size(), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	for (cpu = 0; cpu < m; cpu++) {
		cpumask_set_cpu(cpu, a);
		cpumask_set_cpu(cpu, b);
	}
	/* CPU 0 receives: the others in turn, key by key */
	for (key = 0; key < 2 * m; key++)
		KUNIT_EXPECT_EQ_MSG(test, siw_srx_pick_cpu(a, b, 0, key),
				    1 + key % (m - 1), "key %u", key);
	/* CPU 0 not in the first mask: the same CPUs */
	cpumask_clear_cpu(0, a);
	for (key = 0; key < 2 * m; key++)
		KUNIT_EXPECT_EQ_MSG(test, siw_srx_pick_cpu(a, b, 0, key),
				    1 + key % (m - 1), "key %u", key);
	/* the last CPU isolated (not in the second mask): never picked */
	cpumask_clear_cpu(m - 1, b);
	for (key = 0; key < 2 * m; key++)
		KUNIT_EXPECT_EQ_MSG(test, siw_srx_pick_cpu(a, b, 0, key),
				    m > 2 ? 1 + key % (m - 2) : nr_cpu_ids,
				    "key %u", key);
	/* nothing but the callback's own CPU: none */
	cpumask_clear(a);
	cpumask_set_cpu(1, a);
	cpumask_set_cpu(1, b);
	KUNIT_EXPECT_EQ(test, siw_srx_pick_cpu(a, b, 1, 0), nr_cpu_ids);
	KUNIT_EXPECT_EQ(test, siw_srx_pick_cpu(a, b, 1, 7), nr_cpu_ids);
	/* and the masks disjoint: none either */
	cpumask_clear(b);
	cpumask_set_cpu(0, b);
	KUNIT_EXPECT_EQ(test, siw_srx_pick_cpu(a, b, 0, 3), nr_cpu_ids);
}

/* Entries of the send ring in stream_sq_complete_batch (a power of 2) */
#define ST_RETIRE_RING	32
#define ST_RETIRE_N	20

/* Write send ring entry @i as siw_post_send() does, signalled or not */
static void st_sq_entry(struct siw_qp *qp, u32 i, bool signalled)
{
	struct siw_wqe *e = (struct siw_wqe *)qp->sq.ring + (i & (qp->sq.size - 1));

	memset(e, 0, sizeof(*e));
	e->id = ST_SEND_WRID + i;
	e->opcode = SIW_OP_SEND;
	/* as the poster's release: the contents before the VALID flag */
	smp_store_release(&e->flags, SIW_WQE_VALID |
			  (signalled ? SIW_WQE_SIGNALLED : 0));
}

/* The next completion is entry @i's, with @status and @bytes */
static void st_expect_wc(struct kunit *test, struct st_fixture *f, u32 i,
			 enum ib_wc_status status, u32 bytes)
{
	struct ib_wc wc;

	KUNIT_ASSERT_EQ_MSG(test, siw_poll_cq(&f->cq->base, 1, &wc), 1,
			    "no completion for entry %u", i);
	KUNIT_EXPECT_EQ(test, wc.wr_id, ST_SEND_WRID + i);
	KUNIT_EXPECT_EQ(test, wc.status, status);
	KUNIT_EXPECT_EQ(test, wc.byte_len, bytes);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_SEND);
}

/*
 * siw_sq_complete() retires many work requests at once (what
 * siw_stx_retire() hands it): each with its own status and length, in
 * order, only the signalled and the failed ones on the CQ, every entry
 * handed back; it stops at an entry not posted, and in ERROR it leaves
 * the ring to the flush.
 */
static void stream_sq_complete_batch(struct kunit *test)
{
	struct st_fixture *f = test->priv;
	struct siw_sq_done done[ST_RETIRE_N];
	struct siw_qp *qp = f->qp;
	struct ib_wc wc;
	u32 i;

	/* a larger ring of the consumer's; no doorbell rings in this case */
	qp->sq.ring = kunit_kcalloc(test, ST_RETIRE_RING,
				    sizeof(struct siw_wqe), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, qp->sq.ring);
	qp->sq.size = ST_RETIRE_RING;
	for (i = 0; i < ST_RETIRE_N; i++) {
		st_sq_entry(qp, i, i % 5 == 4);
		done[i].status = i == 7 ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS;
		done[i].bytes = 100 + i;
	}
	siw_sq_complete(qp, done, ST_RETIRE_N);
	KUNIT_EXPECT_EQ(test, qp->sq.get, (u32)ST_RETIRE_N);
	for (i = 0; i < ST_RETIRE_N; i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    ((struct siw_wqe *)qp->sq.ring)[i].flags, 0,
				    "entry %u was not handed back", i);
	st_expect_wc(test, f, 4, IB_WC_SUCCESS, 104);
	st_expect_wc(test, f, 7, IB_WC_LOC_PROT_ERR, 107);
	st_expect_wc(test, f, 9, IB_WC_SUCCESS, 109);
	st_expect_wc(test, f, 14, IB_WC_SUCCESS, 114);
	st_expect_wc(test, f, 19, IB_WC_SUCCESS, 119);
	KUNIT_EXPECT_EQ(test, siw_poll_cq(&f->cq->base, 1, &wc), 0);

	/* two posted, four asked for: the two retire */
	st_sq_entry(qp, ST_RETIRE_N, false);
	st_sq_entry(qp, ST_RETIRE_N + 1, true);
	siw_sq_complete(qp, done, 4);
	KUNIT_EXPECT_EQ(test, qp->sq.get, (u32)ST_RETIRE_N + 2);
	st_expect_wc(test, f, ST_RETIRE_N + 1, IB_WC_SUCCESS, 101);
	KUNIT_EXPECT_EQ(test, siw_poll_cq(&f->cq->base, 1, &wc), 0);

	/* in ERROR the entry stays, for the flush */
	st_sq_entry(qp, ST_RETIRE_N + 2, true);
	WRITE_ONCE(qp->state, SIW_QP_ERROR);
	siw_sq_complete(qp, done, 1);
	KUNIT_EXPECT_EQ(test, qp->sq.get, (u32)ST_RETIRE_N + 2);
	KUNIT_EXPECT_TRUE(test, siw_sq_posted(qp, 0));
	KUNIT_EXPECT_EQ(test, siw_poll_cq(&f->cq->base, 1, &wc), 0);
	WRITE_ONCE(qp->state, SIW_QP_RTS);
	siw_sq_complete(qp, done, 1);
	st_expect_wc(test, f, ST_RETIRE_N + 2, IB_WC_SUCCESS, 100);
}

static struct kunit_case siw_stream_rx_cpu_cases[] = {
	KUNIT_CASE(stream_rx_pick_cpu),
	{}
};

/*
 * @f->zc_mr: a region of ST_ZC_PAGES pages (@f->zc_pg), filled with
 * ST_ZC_OLD; returns its STag
 */
static u32 st_zc_region(struct kunit *test, struct st_fixture *f)
{
	struct ib_mr *base;
	struct siw_mr *mr;
	unsigned int i;
	u32 stag;

	base = siw_alloc_mr(&f->pd, IB_MR_TYPE_MEM_REG, ST_ZC_PAGES);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(base));
	mr = to_siw_mr(base);
	f->zc_mr = mr;
	base->pd = &f->pd;
	base->iova = ST_ZC_IOVA;
	base->length = ST_ZC_PAGES * PAGE_SIZE;
	base->page_size = PAGE_SIZE;
	for (i = 0; i < ST_ZC_PAGES; i++) {
		f->zc_pg[i] = alloc_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, f->zc_pg[i]);
		memset(page_address(f->zc_pg[i]), ST_ZC_OLD, PAGE_SIZE);
		mr->map_pbl[i] = (u64)(uintptr_t)page_address(f->zc_pg[i]);
	}
	mr->map_npages = ST_ZC_PAGES;
	mr->map_off = 0;
	stag = (mr->stag & ~SIW_STAG_KEY_MASK) | 0x2c;
	KUNIT_ASSERT_EQ(test, siw_mem_fastreg(mr, &f->pd, stag, ST_ACCESS), 0);
	return stag;
}

/*
 * The work runs, every 20 ms, until the Send completes (or ST_WAIT_MS
 * passed): the fixture has no socket callbacks that would queue it
 */
static int st_zc_wait_wc(struct st_fixture *f, struct ib_wc *wc)
{
	unsigned long end = jiffies + msecs_to_jiffies(ST_WAIT_MS);
	int n;

	for (;;) {
		queue_work(system_wq, &f->s->tx_work);
		flush_work(&f->s->tx_work);
		n = siw_poll_cq(&f->cq->base, 1, wc);
		if (n || time_after(jiffies, end))
			return n;
		msleep(20);
	}
}

/*
 * A completion means the buffer is free: a Send large enough to go to
 * TCP by page reference completes while the peer has not read a single
 * octet (TCP on loopback acknowledges on enqueue), the consumer at once
 * overwrites every page, and what the peer then reads is the Send as
 * it was posted, whole, with a good CRC. Sent by reference with a
 * completion on the acknowledgment alone, the peer's queued skbs would
 * still point at the pages and it would read the new octets.
 */
static void stream_zc_completion_frees_buffer(struct kunit *test)
{
	const u32 len = ST_ZC_PAGES * PAGE_SIZE;
	struct st_fixture *f = test->priv;
	u64 zc0 = siw_stats_sum(f->sdev->stats, SIW_STAT_TX_ZCOPY_OCTETS);
	struct siw_engine_rx *rx;
	struct ib_sge sge = { .addr = ST_ZC_IOVA, .length = len };
	struct ib_send_wr wr = {
		.wr_id = ST_ZC_WRID, .sg_list = &sge, .num_sge = 1,
		.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED,
	};
	const struct ib_send_wr *bad = NULL;
	struct eng_peer *p;
	struct ib_wc wc;
	u32 got = 0, i;
	u8 *buf;

	KUNIT_ASSERT_GE(test, READ_ONCE(tcp_sk(f->ours->sk)->mss_cache),
			(u32)PAGE_SIZE);
	sge.lkey = st_zc_region(test, f);
	INIT_WORK(&f->s->tx_work, siw_stx_work);
	KUNIT_ASSERT_EQ(test, siw_post_send(&f->qp->base, &wr, &bad), 0);

	KUNIT_ASSERT_EQ_MSG(test, st_zc_wait_wc(f, &wc), 1,
			    "the Send did not complete");
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wr_id, ST_ZC_WRID);
	/* the consumer reuses its buffer the moment it completed */
	for (i = 0; i < ST_ZC_PAGES; i++)
		memset(page_address(f->zc_pg[i]), ST_ZC_NEW, PAGE_SIZE);
	zc0 = siw_stats_sum(f->sdev->stats, SIW_STAT_TX_ZCOPY_OCTETS) - zc0;
	KUNIT_EXPECT_EQ_MSG(test, zc0, (u64)len,
			    "the Send did not go by reference");

	/* only now does the peer read */
	p = eng_peer_new(test, len);
	rx = kunit_kzalloc(test, sizeof(*rx), GFP_KERNEL);
	buf = kunit_kmalloc(test, 2 * len, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, rx && buf);
	eng_peer_reset(p, 1);
	eng_rx_start(rx, p, 1, false, f->s->conn.crc);
	while (!p->ndone && !siw_engine_rx_stopped(rx) &&
	       st_peer_take(f, rx, buf, &got, 2 * len,
			    jiffies + msecs_to_jiffies(ST_WAIT_MS)))
		;
	KUNIT_EXPECT_FALSE_MSG(test, siw_engine_rx_stopped(rx),
			       "the peer stopped: a bad CRC or framing");
	KUNIT_ASSERT_EQ(test, p->ndone, 1U);
	KUNIT_EXPECT_EQ(test, p->done_len[0], len);
	KUNIT_EXPECT_TRUE_MSG(test, !memchr_inv(p->rbuf, ST_ZC_OLD, len),
			      "the peer read octets written after the completion");
}

/*
 * Over loopback the kernel copies the pages of a Send sent by reference
 * as the peer's socket receives it, and tells the stream so: the next
 * Send of the same size is copied by the stream and completes as well.
 */
static void stream_zc_stops_after_copy(struct kunit *test)
{
	const u32 len = ST_ZC_PAGES * PAGE_SIZE;
	struct st_fixture *f = test->priv;
	struct ib_sge sge = { .addr = ST_ZC_IOVA, .length = len };
	struct ib_send_wr wr = {
		.wr_id = ST_ZC_WRID, .sg_list = &sge, .num_sge = 1,
		.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED,
	};
	const struct ib_send_wr *bad = NULL;
	u64 zc[3];
	struct ib_wc wc;
	int i;

	KUNIT_ASSERT_GE(test, READ_ONCE(tcp_sk(f->ours->sk)->mss_cache),
			(u32)PAGE_SIZE);
	sge.lkey = st_zc_region(test, f);
	INIT_WORK(&f->s->tx_work, siw_stx_work);
	KUNIT_EXPECT_FALSE(test, siw_zc_copied(f->s));
	for (i = 0; i < 2; i++) {
		zc[i] = siw_stats_sum(f->sdev->stats, SIW_STAT_TX_ZCOPY_OCTETS);
		KUNIT_ASSERT_EQ(test, siw_post_send(&f->qp->base, &wr, &bad), 0);
		KUNIT_ASSERT_EQ_MSG(test, st_zc_wait_wc(f, &wc), 1,
				    "Send %d did not complete", i);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	}
	zc[2] = siw_stats_sum(f->sdev->stats, SIW_STAT_TX_ZCOPY_OCTETS);
	KUNIT_EXPECT_EQ_MSG(test, zc[1] - zc[0], (u64)len,
			    "the first Send did not go by reference");
	KUNIT_EXPECT_TRUE(test, siw_zc_copied(f->s));
	KUNIT_EXPECT_EQ_MSG(test, zc[2] - zc[1], 0ULL,
			    "the second Send went by reference too");
}

static struct kunit_suite siw_stream_rx_cpu_suite = {
	.name = "siw_stream_rx_cpu",
	.test_cases = siw_stream_rx_cpu_cases,
};

/*
 * Small messages framed whole at their start (siw_stream_tx_small.c):
 * what the peer reads is, octet for octet, what the transmit engine's
 * general path frames for the same message (CRC on and off; Send, Send
 * with Invalidate, Send with Solicited Event, RDMA Write; inline data or
 * 1 to 3 SGEs of the region; 0, 1, 63, 64 octets, one FPDU of the
 * MULPDU and one more, which goes the general way).
 */
static const u8 st_small_ops[] = {
	SIW_RDMAP_SEND, SIW_RDMAP_SEND_INV, SIW_RDMAP_SEND_SE, SIW_RDMAP_WRITE,
};

#define ST_SMALL_SIZES	6
#define ST_SMALL_LAYOUTS 4	/* 0: inline; 1 to 3: SGEs */
#define ST_SMALL_CASES	(2 * ARRAY_SIZE(st_small_ops) * ST_SMALL_LAYOUTS * \
			 ST_SMALL_SIZES)
#define ST_SMALL_TO	0x7700000ULL
#define ST_SMALL_RKEY	0x1234abcd
#define ST_SMALL_SGE_AT	1365	/* SGE k starts at k times this */
#define ST_RESUME_N	64	/* Sends against a full send buffer */
#define ST_RESUME_LEN	1000	/* the first one's length; each one more */

static const char * const st_small_size_names[] = {
	"0", "1", "63", "64", "one FPDU", "one FPDU + 1",
};

struct st_small {
	u8 opcode;
	u8 size;
	u8 nsge;
	bool crc;
};

static void st_small_decode(unsigned long i, struct st_small *c)
{
	c->crc = i & 1;
	i >>= 1;
	c->size = i % ST_SMALL_SIZES;
	i /= ST_SMALL_SIZES;
	c->nsge = i % ST_SMALL_LAYOUTS;
	c->opcode = st_small_ops[i / ST_SMALL_LAYOUTS];
}

static const void *st_small_gen_params(const void *prev, char *desc)
{
	unsigned long i = (unsigned long)prev;
	struct st_small c;

	if (i >= ST_SMALL_CASES)
		return NULL;
	st_small_decode(i, &c);
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s, %s octets, %s%s, crc %s",
		 siw_rdmap_opinfo(c.opcode)->name,
		 st_small_size_names[c.size], c.nsge ? "SGEs: " : "inline",
		 c.nsge ? (c.nsge == 1 ? "1" : c.nsge == 2 ? "2" : "3") : "",
		 c.crc ? "on" : "off");
	return (const void *)(i + 1);
}

/* TCP takes up the loopback's new MTU now, as it would at its next send */
static void st_sync_mss(struct kunit *test, struct st_fixture *f)
{
	struct kvec iov = { };
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };

	KUNIT_ASSERT_EQ(test, kernel_sendmsg(f->ours, &msg, &iov, 0, 0), 0);
	KUNIT_ASSERT_LT(test, READ_ONCE(tcp_sk(f->ours->sk)->mss_cache),
			(u32)ST_LOW_MTU);
}

/* The peer reads @len octets into @buf, or fails after ST_WAIT_MS */
static void st_peer_read_exact(struct kunit *test, struct st_fixture *f,
			       u8 *buf, u32 len)
{
	unsigned long end = jiffies + msecs_to_jiffies(ST_WAIT_MS);
	struct msghdr msg = { };
	struct kvec iov;
	u32 got = 0;
	int rv;

	while (got < len && time_before(jiffies, end)) {
		iov = (struct kvec){ .iov_base = buf + got,
				     .iov_len = len - got };
		rv = kernel_recvmsg(f->peer, &msg, &iov, 1, len - got,
				    MSG_DONTWAIT);
		if (rv > 0)
			got += rv;
		else if (rv == -EAGAIN)
			msleep(20);
		else
			break;
	}
	KUNIT_ASSERT_EQ_MSG(test, got, len, "the peer read %u of %u octets",
			    got, len);
}

static void stream_small_wire(struct kunit *test)
{
	unsigned long i = (unsigned long)test->param_value - 1;
	static const u32 sizes[] = { 0, 1, 63, 64 };
	struct st_fixture *f = test->priv;
	struct siw_engine_txd d = { .max = SIW_ENGINE_TX_PIECES };
	u8 *mem = page_address(f->page);
	struct siw_engine_seg seg[3];
	struct siw_engine_msg m = { };
	const struct ib_send_wr *bad;
	struct siw_engine_tx *tx;
	struct ib_sge sge[3];
	struct ib_rdma_wr wr = { };
	struct eng_wire *w;
	struct st_small c;
	u32 len, limit, n, k, at = 0;
	struct ib_wc wc;
	u8 *got;
	int rv;

	st_small_decode(i, &c);
	tx = kunit_kzalloc(test, sizeof(*tx), GFP_KERNEL);
	d.piece = kunit_kcalloc(test, d.max, sizeof(*d.piece), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, tx && d.piece);
	st_lower_mtu(test, f, ST_LOW_MTU);
	st_sync_mss(test, f);
	f->qp->sq.caps.max_sge = 3;
	f->qp->sq.caps.max_inline = SIW_DEV_MAX_INLINE;
	f->s->conn.crc = c.crc;
	siw_engine_tx_init(&f->s->tx, false, c.crc,
			   READ_ONCE(tcp_sk(f->ours->sk)->mss_cache));
	siw_engine_tx_init(tx, false, c.crc,
			   READ_ONCE(tcp_sk(f->ours->sk)->mss_cache));
	limit = tx->mulpdu - (c.opcode == SIW_RDMAP_WRITE ?
			      SIW_DDP_TAGGED_HLEN : SIW_DDP_UNTAGGED_HLEN);
	len = c.size < ARRAY_SIZE(sizes) ? sizes[c.size] :
	      limit + (c.size - ARRAY_SIZE(sizes));
	if (!c.nsge && len > SIW_DEV_MAX_INLINE)
		kunit_skip(test, "longer than inline data can be");
	for (k = 0; k < PAGE_SIZE; k++)
		mem[k] = (u8)(k * 13 + (k >> 8) + i);

	/* the SGEs, apart in the region's page, and the same as segments */
	for (k = 0; k < max_t(u32, c.nsge, 1); k++) {
		n = k + 1 >= c.nsge ? len - at : len / (c.nsge + 1);
		sge[k] = (struct ib_sge){
			.addr = ST_IOVA + k * ST_SMALL_SGE_AT,
			.length = n, .lkey = f->stag,
		};
		seg[k] = (struct siw_engine_seg){
			.addr = mem + k * ST_SMALL_SGE_AT, .len = n,
			.kind = SIW_ENGINE_SEG_KVA,
		};
		at += n;
	}
	if (!c.nsge)
		sge[0].addr = (u64)(uintptr_t)mem;
	wr.wr = (struct ib_send_wr){
		.wr_id = ST_SEND_WRID, .sg_list = sge,
		.num_sge = max_t(u32, c.nsge, 1),
		.send_flags = IB_SEND_SIGNALED |
			      (c.nsge ? 0 : IB_SEND_INLINE),
	};
	m = (struct siw_engine_msg){
		.opcode = c.opcode,
		.sgl = { .seg = seg, .nseg = max_t(u32, c.nsge, 1) },
	};
	switch (c.opcode) {
	case SIW_RDMAP_WRITE:
		wr.wr.opcode = IB_WR_RDMA_WRITE;
		wr.remote_addr = ST_SMALL_TO;
		wr.rkey = ST_SMALL_RKEY;
		m.stag = ST_SMALL_RKEY;
		m.to = ST_SMALL_TO;
		break;
	case SIW_RDMAP_SEND_INV:
		wr.wr.opcode = IB_WR_SEND_WITH_INV;
		wr.wr.ex.invalidate_rkey = ST_SMALL_RKEY;
		m.inval_stag = ST_SMALL_RKEY;
		break;
	case SIW_RDMAP_SEND_SE:
		wr.wr.send_flags |= IB_SEND_SOLICITED;
		fallthrough;
	default:
		wr.wr.opcode = IB_WR_SEND;
		break;
	}

	/* what the general path frames */
	w = eng_wire_new(test, 4 * ST_LOW_MTU);
	KUNIT_ASSERT_EQ(test, siw_engine_tx_msg(tx, &m), 0);
	while ((rv = siw_engine_tx_next(tx, &d)) > 0)
		KUNIT_ASSERT_TRUE(test, eng_wire_put(w, &d));
	KUNIT_ASSERT_EQ(test, rv, 0);

	KUNIT_ASSERT_EQ(test, siw_post_send(&f->qp->base, &wr.wr, &bad), 0);
	flush_work(&f->s->tx_work);
	got = kunit_kzalloc(test, w->len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, got);
	st_peer_read_exact(test, f, got, w->len);
	KUNIT_EXPECT_EQ(test, memcmp(got, w->buf, w->len), 0);
	KUNIT_ASSERT_EQ_MSG(test, siw_poll_cq(&f->cq->base, 1, &wc), 1,
			    "no completion of the work request");
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wr_id, ST_SEND_WRID);
	KUNIT_EXPECT_EQ(test, f->s->tx.msn[SIW_DDP_QN_SEND],
			tx->msn[SIW_DDP_QN_SEND]);
	KUNIT_EXPECT_EQ(test, f->s->tx.mpa.pos, tx->mpa.pos);
	KUNIT_EXPECT_EQ(test, READ_ONCE(f->qp->state), SIW_QP_RTS);
}

/*
 * A region read for a small message is read under the guarantee of
 * siw_mr_get_page(): once revoked (or revoked and registered again)
 * after its check, nothing is copied; a Send from a region invalidated
 * before the transmit work reached it fails with a local protection
 * error and nothing of it goes out.
 */
static void stream_small_revoked(struct kunit *test)
{
	struct st_fixture *f = test->priv;
	u8 *dst = kunit_kzalloc(test, 64, GFP_KERNEL);
	enum siw_mem_err err;
	struct siw_mr *mr;
	struct ib_wc wc;
	u64 gen;

	KUNIT_ASSERT_NOT_NULL(test, dst);
	mr = siw_mr_get_local(&f->sdev->mem, &f->pd, f->stag, ST_IOVA, 64, 0,
			      &gen, &err);
	KUNIT_ASSERT_NOT_NULL(test, mr);
	KUNIT_EXPECT_EQ(test, siw_mr_fetch(mr, gen, ST_IOVA, dst, 64, NULL), 0);
	KUNIT_EXPECT_EQ(test, dst[0], (u8)ST_FILL);
	memset(dst, 0, 64);
	KUNIT_EXPECT_EQ(test, siw_mr_fetch(mr, gen, ST_IOVA + PAGE_SIZE - 8,
					   dst, 64, NULL), -ERANGE);
	st_change(test, f, ST_INVAL);
	KUNIT_EXPECT_EQ(test, siw_mr_fetch(mr, gen, ST_IOVA, dst, 64, NULL),
			-EACCES);
	KUNIT_ASSERT_EQ(test, siw_mem_fastreg(f->mr, &f->pd, f->stag,
					      ST_ACCESS), 0);
	KUNIT_EXPECT_EQ(test, siw_mr_fetch(mr, gen, ST_IOVA, dst, 64, NULL),
			-EACCES);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(dst, 0, 64));
	siw_mr_put(mr);

	/* posted, then the region goes before the work runs */
	st_post_send(test, f, 64);
	st_change(test, f, ST_INVAL);
	/* no CM endpoint to tell when the stream ends on the error */
	f->s->closed_told = true;
	siw_stx_work(&f->s->tx_work);
	KUNIT_ASSERT_EQ_MSG(test, siw_poll_cq(&f->cq->base, 1, &wc), 1,
			    "the Send did not complete");
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_PROT_ERR);
	/* the engine never framed it: its MSN was not taken */
	KUNIT_EXPECT_EQ(test, f->s->tx.msn[SIW_DDP_QN_SEND], 1U);
}

/*
 * Post Send @i of stream_small_resumes() (@len + @i octets, only the last
 * one signalled: the CQ holds fewer); returns false if the SQ is full
 */
static bool st_post_resume(struct kunit *test, struct st_fixture *f, u32 i)
{
	struct ib_sge sge = {
		.addr = ST_IOVA, .length = ST_RESUME_LEN + i, .lkey = f->stag,
	};
	struct ib_send_wr wr = {
		.wr_id = ST_SEND_WRID + i, .sg_list = &sge, .num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = i + 1 < ST_RESUME_N ? 0 : IB_SEND_SIGNALED,
	};
	const struct ib_send_wr *bad;
	int rv = siw_post_send(&f->qp->base, &wr, &bad);

	KUNIT_ASSERT_TRUE(test, !rv || rv == -ENOMEM);
	return !rv;
}

/*
 * Small messages framed at their start meet a full send buffer (ours
 * and the peer's receive buffer at their minimum, the peer not reading):
 * TCP takes an FPDU in part or not at all, the run stops, and a later
 * run sends the rest of it, then the messages behind it. The peer then
 * reads: it gets every Send once, in order, whole (framing and CRC of
 * all, length and octets of the first ENG_MAX_DONE), and the last one
 * completes.
 */
static void stream_small_resumes(struct kunit *test)
{
	struct st_fixture *f = test->priv;
	unsigned long end = jiffies + msecs_to_jiffies(ST_WAIT_MS);
	struct eng_peer *p = eng_peer_new(test, ST_MSG);
	struct siw_engine_rx *rx = kunit_kzalloc(test, sizeof(*rx),
						 GFP_KERNEL);
	u32 cap = ST_RESUME_N * (ST_RESUME_LEN + ST_RESUME_N + 64);
	u8 *buf = kunit_kmalloc(test, cap, GFP_KERNEL);
	struct sock *sk = f->ours->sk;
	u8 *mem = page_address(f->page);
	u32 i, posted = 0, len = 0;
	struct ib_wc wc;

	KUNIT_ASSERT_TRUE(test, rx && buf);
	st_lower_mtu(test, f, ST_LOW_MTU);
	st_sync_mss(test, f);
	for (i = 0; i < PAGE_SIZE; i++)
		mem[i] = (u8)(i * 7 + (i >> 8));
	lock_sock(sk);
	sk->sk_userlocks |= SOCK_SNDBUF_LOCK;
	WRITE_ONCE(sk->sk_sndbuf, SOCK_MIN_SNDBUF);
	release_sock(sk);
	lock_sock(f->peer->sk);
	f->peer->sk->sk_userlocks |= SOCK_RCVBUF_LOCK;
	WRITE_ONCE(f->peer->sk->sk_rcvbuf, SOCK_MIN_RCVBUF);
	release_sock(f->peer->sk);

	/* the SQ is short: post again as Sends retire, until a run stalls */
	for (i = 0; i < ST_RESUME_N; i++) {
		while (posted < ST_RESUME_N && st_post_resume(test, f, posted))
			posted++;
		flush_work(&f->s->tx_work);
		siw_stx_work(&f->s->tx_work);
		if (siw_stats_sum(f->sdev->stats, SIW_STAT_TX_STALLS))
			break;
	}
	KUNIT_ASSERT_GT_MSG(test, siw_stats_sum(f->sdev->stats,
						SIW_STAT_TX_STALLS), 0ULL,
			    "the send buffer never filled");

	eng_peer_reset(p, ST_RESUME_N);
	eng_rx_start(rx, p, 1, false, true);
	while (p->ndone < ST_RESUME_N &&
	       st_peer_take(f, rx, buf, &len, cap, end)) {
		while (posted < ST_RESUME_N && st_post_resume(test, f, posted))
			posted++;
		siw_stx_work(&f->s->tx_work);
	}
	flush_work(&f->s->tx_work);
	KUNIT_ASSERT_EQ_MSG(test, p->ndone, ST_RESUME_N,
			    "the peer got %u of %u Sends", p->ndone,
			    ST_RESUME_N);
	KUNIT_EXPECT_FALSE(test, siw_engine_rx_stopped(rx));
	KUNIT_EXPECT_FALSE(test, p->bad);
	for (i = 0; i < min(ST_RESUME_N, ENG_MAX_DONE); i++) {
		KUNIT_EXPECT_EQ(test, p->done_len[i], ST_RESUME_LEN + i);
		KUNIT_EXPECT_EQ_MSG(test, p->done_sum[i],
				    crc32c(0, mem, ST_RESUME_LEN + i),
				    "Send %u arrived with other octets", i);
	}
	KUNIT_ASSERT_EQ_MSG(test, siw_poll_cq(&f->cq->base, 1, &wc), 1,
			    "the last Send did not complete");
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wr_id, ST_SEND_WRID + ST_RESUME_N - 1);
	KUNIT_EXPECT_EQ(test, siw_poll_cq(&f->cq->base, 1, &wc), 0);
}

static struct kunit_case siw_stream_cases[] = {
	KUNIT_CASE(stream_send_fits),
	KUNIT_CASE_PARAM(stream_send_too_long, st_long_gen_params),
	KUNIT_CASE_PARAM(stream_term_on_stop, st_term_gen_params),
	KUNIT_CASE_PARAM(stream_read_resp_checked_source, st_rr_gen_params),
	KUNIT_CASE_PARAM(stream_send_buffer_checked, st_recv_rv_gen_params),
	KUNIT_CASE_PARAM(stream_region_pages, st_geom_gen_params),
	KUNIT_CASE_PARAM(stream_send_sized_after_check,
			 st_unchecked_gen_params),
	KUNIT_CASE_PARAM(stream_read_resp_empty, st_empty_gen_params),
	KUNIT_CASE(stream_stop_races_read_req),
	KUNIT_CASE(stream_fpdu_follows_mss),
	KUNIT_CASE_PARAM(stream_fpdu_room, st_room_gen_params),
	KUNIT_CASE(stream_tx_batch),
	KUNIT_CASE(stream_tx_stage_crc_off),
	KUNIT_CASE(stream_tx_stage_ring),
	KUNIT_CASE(stream_doorbell_sends_message),
	KUNIT_CASE(stream_work_shares_segments),
	KUNIT_CASE(stream_work_pushes_held_segment),
	KUNIT_CASE(stream_sq_complete_batch),
	KUNIT_CASE(stream_zc_completion_frees_buffer),
	KUNIT_CASE(stream_zc_stops_after_copy),
	KUNIT_CASE_PARAM(stream_small_wire, st_small_gen_params),
	KUNIT_CASE(stream_small_revoked),
	KUNIT_CASE(stream_small_resumes),
	{}
};

static struct kunit_suite siw_stream_suite = {
	.name = "siw_stream",
	.init = st_init,
	.exit = st_exit,
	.test_cases = siw_stream_cases,
};

kunit_test_suites(&siw_stream_suite, &siw_stream_rx_cpu_suite);
