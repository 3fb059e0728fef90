// SPDX-License-Identifier: GPL-2.0
/*
 * Guest helper of reuse.sh: once a work request completed, its buffer is
 * the consumer's again, and what the consumer writes there afterwards
 * must never reach the peer.
 *
 *   reuse [-s] [-t SECONDS] [-w WINDOW] server ADDR PORT MODE SIZE COUNT
 *   reuse [-s] [-t SECONDS] [-w WINDOW] client ADDR PORT MODE SIZE COUNT
 *
 * MODE send: the client registers one buffer of SIZE octets. For message
 * i it fills it with pattern i, posts one Send, waits for its completion
 * and at once overwrites the whole buffer with 0xff, before it does
 * anything else. The server checks every octet of each message against
 * pattern i.
 *
 * MODE write: the same with an RDMA Write into slot i % WINDOW of a
 * region the server registered; after the Write completed and the buffer
 * was overwritten, a small Send carrying i tells the server to check the
 * slot.
 *
 * In both the server answers each message with a small Send, and the
 * client keeps at most WINDOW (4) messages unanswered: the server's
 * receives, or its slots.
 *
 * MODE read: COUNT rounds. In round r the server fills a region of SIZE
 * octets with pattern A(r), registers it for remote read and sends its
 * address and key. The client posts an RDMA Read of all of it into a
 * zeroed sink and right behind it a Send that has the server deregister
 * the region (ibv_dereg_mr) and then fill it with pattern B(r). The
 * Read must complete with exactly A(r), or in error (the QP goes to
 * error then, and the client connects again for the next round); no
 * octet of B(r) may reach the sink either way.
 *
 * Every wait is bounded: after SECONDS (default 120) the program gives
 * up, and exits. -s: poll the completion queue without sleeping.
 *
 * The server (send, write) or the client (read) prints one "result:"
 * line. Exit status 0 only when no message or round was wrong and
 * nothing failed; a Read that completes in error is not a failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

enum mode { M_SEND, M_WRITE, M_READ };
static const char *const mode_name[] = { "send", "write", "read" };

/* Control messages (Sends of a struct ctl) */
enum { CTL_INFO = 1, CTL_ACK, CTL_DATA, CTL_GO, CTL_DONE };

struct ctl {
	uint32_t type;
	uint32_t seq;
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
};

#define MAX_WINDOW	16
#define NCTL		16			/* control Sends in flight */
#define NRECV		(MAX_WINDOW + 4)	/* control receives */
#define NSTASH		(NCTL + NRECV + MAX_WINDOW)
#define SQ_DEPTH	(NCTL + 4)
#define CQ_DEPTH	(SQ_DEPTH + NRECV + MAX_WINDOW + 8)

/* What a work request is, in the upper half of its wr_id */
enum { K_DATA = 1, K_CTL_SEND, K_CTL_RECV, K_MSG_RECV };
#define WR_ID(k, i)	((uint64_t)(k) << 32 | (uint32_t)(i))
#define WR_KIND(id)	((unsigned int)((id) >> 32))
#define WR_IDX(id)	((uint32_t)(id))

/* One connection: its id, verbs objects and control buffers */
struct ep {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
	struct ibv_mr *ctl_mr;
	struct ibv_mr *mr[2];
	struct ctl ctl[NCTL + NRECV];	/* send slots, then receive slots */
	unsigned long ctl_posted, ctl_done;
	/* completions taken while waiting for room, returned first */
	struct ibv_wc stash[NSTASH];
	unsigned int nstash;
};

static struct rdma_event_channel *ch;
static struct rdma_cm_id *pending;	/* a connect request not yet taken */
static long long deadline;		/* CLOCK_MONOTONIC, ms */
static bool spin;
static unsigned int window = 4;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Milliseconds left until @end, and never past the deadline */
static int left_until(long long end)
{
	long long l = (end < deadline ? end : deadline) - now_ms();

	return l < 0 ? 0 : l > INT_MAX ? INT_MAX : (int)l;
}

static int left_ms(void)
{
	return left_until(deadline);
}

/*
 * The patterns: 64-bit words mixed from a sequence number and the word's
 * index, so that every octet depends on both
 */
static uint64_t pat_word(uint64_t seq, uint64_t w)
{
	uint64_t x = (seq << 32) + w + 0x6a09e667f3bcc909ULL;

	x = (x ^ (x >> 31)) * 0x7fb5d329728ea185ULL;
	x = (x ^ (x >> 27)) * 0x81dadef4bc2dd44dULL;
	return x ^ (x >> 33);
}

static void fill(void *buf, size_t size, uint64_t seq)
{
	uint64_t *p = buf;
	size_t w;

	for (w = 0; w < size / 8; w++)
		p[w] = pat_word(seq, w);
}

struct damage {
	size_t wrong;	/* octets that differ from the pattern */
	size_t first;	/* offset of the first of them */
	size_t ff;	/* of them, 0xff (the sender's overwrite) */
};

/* Compare @buf with pattern @seq, octet by octet where a word differs */
static void compare(const void *buf, size_t size, uint64_t seq,
		    struct damage *d)
{
	const uint64_t *p = buf;
	size_t w, o;

	memset(d, 0, sizeof(*d));
	for (w = 0; w < size / 8; w++) {
		uint64_t want = pat_word(seq, w), got = p[w];

		if (got == want)
			continue;
		for (o = 0; o < 8; o++) {
			uint8_t g = got >> (8 * o), x = want >> (8 * o);

			if (g == x)
				continue;
			if (!d->wrong)
				d->first = w * 8 + o;
			d->wrong++;
			if (g == 0xff)
				d->ff++;
		}
	}
}

/*
 * The next completion from the CQ, or 0 when none came in time, -1 on
 * failure
 */
static int poll_wc(struct ep *e, struct ibv_wc *wc)
{
	struct pollfd pfd = { .events = POLLIN };
	struct ibv_cq *cq;
	void *ctx;
	int n;

	for (;;) {
		n = ibv_poll_cq(e->cq, 1, wc);
		if (n == 0 && spin) {
			if (!left_ms())
				return 0;
			continue;
		}
		if (n == 0) {
			if (ibv_req_notify_cq(e->cq, 0))
				return -1;
			n = ibv_poll_cq(e->cq, 1, wc);
		}
		if (n < 0)
			return -1;
		if (n == 1) {
			if (WR_KIND(wc->wr_id) == K_CTL_SEND)
				e->ctl_done++;
			return 1;
		}
		pfd.fd = e->cc->fd;
		n = poll(&pfd, 1, left_ms());
		if (n == 0)
			return 0;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (ibv_get_cq_event(e->cc, &cq, &ctx))
			return -1;
		ibv_ack_cq_events(cq, 1);
	}
}

/* The next completion: a stashed one first */
static int wait_wc(struct ep *e, struct ibv_wc *wc, bool stashed)
{
	if (stashed && e->nstash) {
		*wc = e->stash[0];
		memmove(e->stash, e->stash + 1, --e->nstash * sizeof(*wc));
		return 1;
	}
	return poll_wc(e, wc);
}

/* wait_wc, saying why when nothing came; 0 when one came */
static int wait_for(struct ep *e, struct ibv_wc *wc, bool stashed,
		    const char *what)
{
	int r = wait_wc(e, wc, stashed);

	if (r == 0)
		fprintf(stderr, "timed out waiting for %s\n", what);
	else if (r < 0)
		perror("polling the CQ");
	return r == 1 ? 0 : -1;
}

static int next_wc(struct ep *e, struct ibv_wc *wc, const char *what)
{
	return wait_for(e, wc, true, what);
}

static const char *kind_name(uint64_t wr_id)
{
	switch (WR_KIND(wr_id)) {
	case K_DATA:
		return "data";
	case K_CTL_SEND:
		return "control send";
	case K_CTL_RECV:
		return "control receive";
	case K_MSG_RECV:
		return "message receive";
	}
	return "?";
}

static void wc_error(const struct ibv_wc *wc)
{
	fprintf(stderr, "%s %u: %s (vendor error %u)\n", kind_name(wc->wr_id),
		WR_IDX(wc->wr_id), ibv_wc_status_str(wc->status),
		wc->vendor_err);
}

static int post_recv(struct ep *e, uint64_t wr_id, void *buf, uint32_t len,
		     uint32_t lkey)
{
	struct ibv_sge sge = { (uintptr_t)buf, len, lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	if (ibv_post_recv(e->id->qp, &wr, &bad)) {
		perror("ibv_post_recv");
		return -1;
	}
	return 0;
}

static int post_ctl_recv(struct ep *e, unsigned int slot)
{
	return post_recv(e, WR_ID(K_CTL_RECV, slot), &e->ctl[NCTL + slot],
			 sizeof(struct ctl), e->ctl_mr->lkey);
}

static const struct ctl *ctl_of(struct ep *e, const struct ibv_wc *wc)
{
	return &e->ctl[NCTL + WR_IDX(wc->wr_id)];
}

static int post_send(struct ep *e, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;

	if (ibv_post_send(e->id->qp, wr, &bad)) {
		perror("ibv_post_send");
		return -1;
	}
	return 0;
}

/*
 * A control message. Its slot is free once the Sends before it that
 * used it completed; completions taken while waiting for that are
 * stashed for the caller.
 */
static int send_ctl(struct ep *e, uint32_t type, uint32_t seq, uint64_t addr,
		    uint32_t rkey, uint32_t len)
{
	struct ibv_send_wr wr = { .num_sge = 1, .opcode = IBV_WR_SEND };
	struct ibv_sge sge;
	struct ctl *c;

	while (e->ctl_posted - e->ctl_done >= NCTL) {
		struct ibv_wc wc;

		if (e->nstash == NSTASH) {
			fprintf(stderr, "too many completions stashed\n");
			return -1;
		}
		if (wait_for(e, &wc, false, "room for a control send"))
			return -1;
		e->stash[e->nstash++] = wc;
	}
	c = &e->ctl[e->ctl_posted % NCTL];
	*c = (struct ctl){ type, seq, addr, rkey, len };
	sge = (struct ibv_sge){ (uintptr_t)c, sizeof(*c), e->ctl_mr->lkey };
	wr.wr_id = WR_ID(K_CTL_SEND, e->ctl_posted);
	wr.sg_list = &sge;
	if (post_send(e, &wr))
		return -1;
	e->ctl_posted++;
	return 0;
}

/* The next CM event of @id of type @want; a connect request is kept */
static int cm_wait(struct rdma_cm_id *id, enum rdma_cm_event_type want,
		   int ms)
{
	long long end = now_ms() + ms;
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	enum rdma_cm_event_type type;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *eid;
	int status;

	for (;;) {
		if (rdma_get_cm_event(ch, &ev)) {
			if (errno != EAGAIN) {
				perror("rdma_get_cm_event");
				return -1;
			}
			if (poll(&pfd, 1, left_until(end)) == 0) {
				fprintf(stderr, "timed out waiting for %s\n",
					rdma_event_str(want));
				return -1;
			}
			continue;
		}
		type = ev->event;
		eid = ev->id;
		status = ev->status;
		rdma_ack_cm_event(ev);
		if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
			if (!pending) {
				pending = eid;
			} else {
				rdma_reject(eid, NULL, 0);
				rdma_destroy_id(eid);
			}
			if (want == type)
				return 0;
			continue;
		}
		if (eid != id)
			continue;
		if (type == want)
			return 0;
		fprintf(stderr, "%s (status %d) while waiting for %s\n",
			rdma_event_str(type), status, rdma_event_str(want));
		return -1;
	}
}

static void ep_free(struct ep *e)
{
	unsigned int i;

	if (e->id && e->id->qp)
		rdma_destroy_qp(e->id);
	for (i = 0; i < 2; i++)
		if (e->mr[i])
			ibv_dereg_mr(e->mr[i]);
	if (e->ctl_mr)
		ibv_dereg_mr(e->ctl_mr);
	if (e->cq)
		ibv_destroy_cq(e->cq);
	if (e->cc)
		ibv_destroy_comp_channel(e->cc);
	if (e->pd)
		ibv_dealloc_pd(e->pd);
	if (e->id)
		rdma_destroy_id(e->id);
	free(e);
}

/* Disconnect (bounded) and free */
static void ep_close(struct ep *e)
{
	if (!rdma_disconnect(e->id))
		cm_wait(e->id, RDMA_CM_EVENT_DISCONNECTED, 5000);
	ep_free(e);
}

/* Verbs objects for @id; @nctl control receives posted */
static struct ep *ep_new(struct rdma_cm_id *id, unsigned int nctl)
{
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = SQ_DEPTH,
			 .max_recv_wr = NRECV + MAX_WINDOW,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
	};
	struct ep *e = calloc(1, sizeof(*e));
	unsigned int i;

	if (!e) {
		rdma_destroy_id(id);
		return NULL;
	}
	e->id = id;
	e->pd = ibv_alloc_pd(id->verbs);
	e->cc = e->pd ? ibv_create_comp_channel(id->verbs) : NULL;
	e->cq = e->cc ? ibv_create_cq(id->verbs, CQ_DEPTH, NULL, e->cc, 0) :
		NULL;
	if (!e->cq)
		goto fail;
	qa.send_cq = e->cq;
	qa.recv_cq = e->cq;
	if (rdma_create_qp(id, e->pd, &qa))
		goto fail;
	e->ctl_mr = ibv_reg_mr(e->pd, e->ctl, sizeof(e->ctl),
			       IBV_ACCESS_LOCAL_WRITE);
	if (!e->ctl_mr)
		goto fail;
	for (i = 0; i < nctl; i++)
		if (post_ctl_recv(e, i))
			goto fail;
	return e;
fail:
	perror("setting up the connection's verbs objects");
	ep_free(e);
	return NULL;
}

static struct ibv_mr *reg(struct ep *e, int n, void *buf, size_t len,
			  int access)
{
	e->mr[n] = ibv_reg_mr(e->pd, buf, len, access);
	if (!e->mr[n])
		perror("ibv_reg_mr");
	return e->mr[n];
}

static struct rdma_conn_param conn_param = {
	.responder_resources = 1,
	.initiator_depth = 1,
	.retry_count = 7,
};

static struct rdma_cm_id *new_id(void)
{
	struct rdma_cm_id *id;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP)) {
		perror("rdma_create_id");
		return NULL;
	}
	return id;
}

/* A resolved id for @dst, or NULL */
static struct rdma_cm_id *resolve(struct sockaddr *dst)
{
	struct rdma_cm_id *id = new_id();

	if (!id)
		return NULL;
	if (rdma_resolve_addr(id, NULL, dst, 5000) ||
	    cm_wait(id, RDMA_CM_EVENT_ADDR_RESOLVED, 10000) ||
	    rdma_resolve_route(id, 5000) ||
	    cm_wait(id, RDMA_CM_EVENT_ROUTE_RESOLVED, 10000)) {
		perror("resolving the server's address");
		rdma_destroy_id(id);
		return NULL;
	}
	return id;
}

static int connect_ep(struct ep *e)
{
	if (rdma_connect(e->id, &conn_param)) {
		perror("rdma_connect");
		return -1;
	}
	return cm_wait(e->id, RDMA_CM_EVENT_ESTABLISHED, 20000);
}

static int accept_ep(struct ep *e)
{
	if (rdma_accept(e->id, &conn_param)) {
		perror("rdma_accept");
		return -1;
	}
	return cm_wait(e->id, RDMA_CM_EVENT_ESTABLISHED, 20000);
}

static int listen_on(struct sockaddr *addr)
{
	struct rdma_cm_id *id = new_id();

	if (!id || rdma_bind_addr(id, addr) || rdma_listen(id, 4)) {
		perror("listen");
		return -1;
	}
	printf("listening\n");
	fflush(stdout);
	return 0;
}

/* The next connect request, within the deadline */
static struct rdma_cm_id *take_request(void)
{
	struct rdma_cm_id *id;

	if (!pending &&
	    cm_wait(NULL, RDMA_CM_EVENT_CONNECT_REQUEST, left_ms()))
		return NULL;
	id = pending;
	pending = NULL;
	return id;
}

static void *alloc_buf(size_t len)
{
	void *p;

	if (posix_memalign(&p, 4096, len)) {
		fprintf(stderr, "no memory for %zu octets\n", len);
		return NULL;
	}
	memset(p, 0, len);
	return p;
}

/*
 * Send and write, client: the next completion. An answer must be the
 * next one (*acked, counted); the data work request's sets *data_done.
 */
static int client_wc(struct ep *e, unsigned long *acked, bool *data_done)
{
	const struct ctl *c;
	struct ibv_wc wc;

	if (next_wc(e, &wc, data_done ? "the message's completion" :
		    "the server's answer"))
		return -1;
	if (wc.status) {
		wc_error(&wc);
		return -1;
	}
	switch (WR_KIND(wc.wr_id)) {
	case K_DATA:
		if (!data_done)
			return -1;
		*data_done = true;
		break;
	case K_CTL_RECV:
		c = ctl_of(e, &wc);
		if (c->type != CTL_ACK || c->seq != (uint32_t)*acked) {
			fprintf(stderr, "answer %u/%u, expected %lu\n",
				c->type, c->seq, *acked);
			return -1;
		}
		(*acked)++;
		return post_ctl_recv(e, WR_IDX(wc.wr_id));
	}
	return 0;
}

/*
 * Send and write, client: one buffer, refilled for each message and
 * overwritten as soon as the message's work request completed
 */
static int client_stream(struct sockaddr *dst, enum mode mode, size_t size,
			 unsigned long count)
{
	struct ibv_send_wr wr = { .num_sge = 1 };
	unsigned long i = 0, acked = 0;
	struct rdma_cm_id *id;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct ibv_mr *mr;
	uint64_t raddr = 0;
	uint32_t rkey = 0;
	bool data_done;
	struct ep *e;
	void *buf;

	buf = alloc_buf(size);
	id = buf ? resolve(dst) : NULL;
	e = id ? ep_new(id, NRECV) : NULL;
	if (!e)
		return 1;
	mr = reg(e, 0, buf, size, IBV_ACCESS_LOCAL_WRITE);
	if (!mr || connect_ep(e))
		goto fail;
	if (mode == M_WRITE) {
		const struct ctl *c;

		if (next_wc(e, &wc, "the region's address"))
			goto fail;
		c = ctl_of(e, &wc);
		if (wc.status || WR_KIND(wc.wr_id) != K_CTL_RECV ||
		    c->type != CTL_INFO || c->len < window * size) {
			fprintf(stderr, "no region from the server\n");
			goto fail;
		}
		raddr = c->addr;
		rkey = c->rkey;
		if (post_ctl_recv(e, WR_IDX(wc.wr_id)))
			goto fail;
	}
	sge = (struct ibv_sge){ (uintptr_t)buf, size, mr->lkey };
	wr.sg_list = &sge;
	for (i = 0; i < count; i++) {
		while (i - acked >= window)
			if (client_wc(e, &acked, NULL))
				goto fail;
		fill(buf, size, i);
		wr.wr_id = WR_ID(K_DATA, i);
		if (mode == M_SEND) {
			wr.opcode = IBV_WR_SEND;
		} else {
			wr.opcode = IBV_WR_RDMA_WRITE;
			wr.wr.rdma.remote_addr = raddr + (i % window) * size;
			wr.wr.rdma.rkey = rkey;
		}
		if (post_send(e, &wr))
			goto fail;
		data_done = false;
		while (!data_done)
			if (client_wc(e, &acked, &data_done))
				goto fail;
		/* the buffer is ours again: reuse it at once */
		memset(buf, 0xff, size);
		if (mode == M_WRITE && send_ctl(e, CTL_DATA, i, 0, 0, 0))
			goto fail;
	}
	while (acked < count)
		if (client_wc(e, &acked, NULL))
			goto fail;
	printf("client: %s %zu B x%lu: %lu completed and answered\n",
	       mode_name[mode], size, count, acked);
	ep_close(e);
	return 0;
fail:
	printf("client: %s %zu B x%lu: failed at message %lu, %lu answered\n",
	       mode_name[mode], size, count, i, acked);
	ep_close(e);
	return 1;
}

/* Send and write, server: check each message, answer it */
static int server_stream(struct sockaddr *addr, enum mode mode, size_t size,
			 unsigned long count)
{
	unsigned long i = 0, wrong = 0, errors = 0, ffs = 0;
	struct rdma_cm_id *id;
	struct damage d;
	struct ibv_wc wc;
	struct ibv_mr *mr;
	struct ep *e;
	uint8_t *bufs;
	unsigned int k;

	bufs = alloc_buf(window * size);
	if (!bufs || listen_on(addr))
		return 1;
	id = take_request();
	e = id ? ep_new(id, mode == M_WRITE ? NRECV : 0) : NULL;
	if (!e)
		return 1;
	mr = reg(e, 0, bufs, window * size, IBV_ACCESS_LOCAL_WRITE |
		 (mode == M_WRITE ? IBV_ACCESS_REMOTE_WRITE : 0));
	if (!mr)
		goto fail;
	for (k = 0; mode == M_SEND && k < window; k++)
		if (post_recv(e, WR_ID(K_MSG_RECV, k), bufs + k * size, size,
			      mr->lkey))
			goto fail;
	if (accept_ep(e))
		goto fail;
	if (mode == M_WRITE &&
	    send_ctl(e, CTL_INFO, 0, (uintptr_t)bufs, mr->rkey, window * size))
		goto fail;
	while (i < count) {
		uint8_t *msg;

		if (next_wc(e, &wc, "a message"))
			goto fail;
		if (wc.status) {
			wc_error(&wc);
			goto fail;
		}
		switch (WR_KIND(wc.wr_id)) {
		case K_MSG_RECV:
			msg = bufs + WR_IDX(wc.wr_id) * size;
			break;
		case K_CTL_RECV:
			if (ctl_of(e, &wc)->type != CTL_DATA ||
			    ctl_of(e, &wc)->seq != i) {
				fprintf(stderr, "message %lu: control %u/%u\n",
					i, ctl_of(e, &wc)->type,
					ctl_of(e, &wc)->seq);
				goto fail;
			}
			msg = bufs + (i % window) * size;
			break;
		default:
			continue;
		}
		compare(msg, size, i, &d);
		if (mode == M_SEND && wc.byte_len != size) {
			printf("message %lu: %u octets, not %zu\n", i,
			       wc.byte_len, size);
			if (!d.wrong)
				d.wrong = 1;
		}
		if (d.wrong) {
			if (wrong < 5)
				printf("message %lu: %zu of %zu octets wrong, the first at %zu; %zu of them 0xff (overwritten)\n",
				       i, d.wrong, size, d.first, d.ff);
			wrong++;
			ffs += d.ff;
		}
		if (mode == M_SEND) {
			if (post_recv(e, wc.wr_id, msg, size, mr->lkey))
				goto fail;
		} else if (post_ctl_recv(e, WR_IDX(wc.wr_id))) {
			goto fail;
		}
		if (send_ctl(e, CTL_ACK, i, 0, 0, 0))
			goto fail;
		i++;
	}
	/* the client disconnects once it has every answer */
	cm_wait(e->id, RDMA_CM_EVENT_DISCONNECTED, 10000);
	ep_free(e);
	goto out;
fail:
	errors++;
	ep_close(e);
out:
	printf("result: %s %zu B x%lu: %lu received, %lu wrong (%lu octets 0xff), %lu errors\n",
	       mode_name[mode], size, count, i, wrong, ffs, errors);
	return wrong || errors || i != count;
}

/*
 * Read, client: COUNT rounds, each a Read of the server's region with
 * the Send that has the server deregister and overwrite it right behind;
 * connects again after a round that put the QP in error
 */
static int client_read(struct sockaddr *dst, size_t size, unsigned long count)
{
	unsigned long rounds = 0, as_a = 0, failed = 0, with_b = 0, other = 0;
	unsigned long conns = 0, conn_fails = 0, errors = 0;
	struct ctl info = { 0 };
	bool have_info, said_done = false;
	uint8_t *sink, *a, *b;
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .num_sge = 1, .sg_list = &sge,
				  .opcode = IBV_WR_RDMA_READ };
	struct rdma_cm_id *id;
	struct ibv_wc wc;
	struct ibv_mr *mr;
	struct ep *e;
	size_t o;

	sink = alloc_buf(size);
	a = alloc_buf(size);
	b = alloc_buf(size);
	if (!sink || !a || !b)
		return 1;
	while (!said_done) {
		if (!left_ms()) {
			fprintf(stderr, "out of time after %lu rounds\n",
				rounds);
			errors++;
			break;
		}
		id = resolve(dst);
		e = id ? ep_new(id, NRECV) : NULL;
		mr = e ? reg(e, 0, sink, size, IBV_ACCESS_LOCAL_WRITE) : NULL;
		if (!mr || connect_ep(e)) {
			if (e)
				ep_free(e);
			if (++conn_fails == 5) {
				errors++;
				break;
			}
			usleep(200000);
			continue;
		}
		conns++;
		have_info = false;
		while (rounds < count) {
			int read_st = -1, go_st = -1;
			size_t nb = 0, no = 0;

			while (!have_info) {
				if (next_wc(e, &wc, "the region's address")) {
					errors++;
					goto broken;
				}
				if (wc.status)
					goto broken;
				if (WR_KIND(wc.wr_id) != K_CTL_RECV)
					continue;
				info = *ctl_of(e, &wc);
				have_info = true;
				if (post_ctl_recv(e, WR_IDX(wc.wr_id)))
					goto broken;
			}
			have_info = false;
			if (info.type != CTL_INFO || info.len != size) {
				fprintf(stderr, "control %u, %u octets\n",
					info.type, info.len);
				errors++;
				goto broken;
			}
			memset(sink, 0, size);
			fill(a, size, 2ULL * info.seq);
			fill(b, size, 2ULL * info.seq + 1);
			sge = (struct ibv_sge){ (uintptr_t)sink, size,
						mr->lkey };
			wr.wr_id = WR_ID(K_DATA, info.seq);
			wr.wr.rdma.remote_addr = info.addr;
			wr.wr.rdma.rkey = info.rkey;
			if (post_send(e, &wr) ||
			    send_ctl(e, CTL_GO, info.seq, 0, 0, 0))
				goto broken;
			while (read_st < 0 || go_st < 0) {
				if (next_wc(e, &wc, "the Read")) {
					errors++;
					goto broken;
				}
				switch (WR_KIND(wc.wr_id)) {
				case K_DATA:
					read_st = wc.status;
					break;
				case K_CTL_SEND:
					if (wc.wr_id == WR_ID(K_CTL_SEND,
							      e->ctl_posted - 1))
						go_st = wc.status;
					break;
				case K_CTL_RECV:
					if (wc.status) {
						go_st = go_st < 0 ? 1 : go_st;
						break;
					}
					info = *ctl_of(e, &wc);
					have_info = true;
					if (post_ctl_recv(e, WR_IDX(wc.wr_id)))
						go_st = 1;
					break;
				}
			}
			rounds++;
			/*
			 * Octets of A are right; unwritten ones (0) are
			 * right after a failed Read; anything else is wrong,
			 * octets of B the worst
			 */
			for (o = 0; o < size; o++) {
				if (sink[o] == a[o] || (read_st && !sink[o]))
					continue;
				if (sink[o] == b[o])
					nb++;
				else
					no++;
			}
			if (nb || no) {
				if (with_b + other < 5)
					printf("round %u: Read %s, %zu octets of B, %zu otherwise wrong\n",
					       info.seq,
					       read_st ? "failed" : "completed",
					       nb, no);
				if (nb)
					with_b++;
				else
					other++;
			} else if (read_st) {
				failed++;
			} else {
				as_a++;
			}
			if (read_st || go_st)
				goto broken;
		}
		if (!send_ctl(e, CTL_DONE, 0, 0, 0, 0)) {
			while (e->ctl_done != e->ctl_posted &&
			       !next_wc(e, &wc, "the last Send"))
				;
		}
		said_done = true;
broken:
		ep_close(e);
	}
	printf("result: read %zu B x%lu: %lu rounds, %lu read A, %lu failed cleanly, %lu with octets of B, %lu otherwise wrong, %lu connections, %lu errors\n",
	       size, count, rounds, as_a, failed, with_b, other, conns,
	       errors);
	return with_b || other || errors || rounds != count;
}

/*
 * Read, server: each round a region of pattern A registered, its key
 * sent; on the client's word deregistered and overwritten with B
 */
static int server_read(struct sockaddr *addr, size_t size)
{
	unsigned long rounds = 0, conns = 0, dereg_fails = 0, errors = 0;
	struct rdma_cm_id *id;
	bool done = false;
	struct ibv_wc wc;
	struct ibv_mr *mr;
	uint32_t r = 0;
	uint8_t *region;
	struct ep *e;

	region = alloc_buf(size);
	if (!region || listen_on(addr))
		return 1;
	while (!done) {
		id = take_request();
		if (!id) {
			errors++;
			break;
		}
		e = ep_new(id, NRECV);
		if (!e || accept_ep(e)) {
			if (e)
				ep_free(e);
			continue;
		}
		conns++;
		for (;;) {
			const struct ctl *c = NULL;

			fill(region, size, 2ULL * r);
			mr = ibv_reg_mr(e->pd, region, size,
					IBV_ACCESS_LOCAL_WRITE |
					IBV_ACCESS_REMOTE_READ);
			if (!mr) {
				perror("ibv_reg_mr");
				errors++;
				break;
			}
			if (send_ctl(e, CTL_INFO, r, (uintptr_t)region,
				     mr->rkey, size)) {
				ibv_dereg_mr(mr);
				break;
			}
			while (!c) {
				if (next_wc(e, &wc, "the client's word")) {
					errors++;
					break;
				}
				if (wc.status)
					break;
				if (WR_KIND(wc.wr_id) == K_CTL_RECV)
					c = ctl_of(e, &wc);
			}
			if (ibv_dereg_mr(mr)) {
				perror("ibv_dereg_mr");
				dereg_fails++;
			} else if (c && c->type == CTL_GO) {
				/* gone: the region is ours to write again */
				fill(region, size, 2ULL * r + 1);
			}
			if (!c)
				break;
			if (c->type == CTL_DONE) {
				done = true;
				break;
			}
			if (c->type != CTL_GO || c->seq != r) {
				fprintf(stderr, "round %u: control %u/%u\n", r,
					c->type, c->seq);
				errors++;
				break;
			}
			rounds++;
			r++;
			if (post_ctl_recv(e, WR_IDX(wc.wr_id)))
				break;
		}
		ep_close(e);
		if (errors)
			break;
	}
	printf("server: read %zu B: %lu rounds, %lu connections, %lu failed deregistrations, %lu errors\n",
	       size, rounds, conns, dereg_fails, errors);
	return dereg_fails || errors || !done;
}

static int sockaddr_of(const char *addr, const char *port,
		       struct sockaddr_storage *ss)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_flags = AI_NUMERICHOST };
	struct addrinfo *res;

	if (getaddrinfo(addr, port, &hints, &res)) {
		fprintf(stderr, "bad address %s:%s\n", addr, port);
		return -1;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return 0;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-s] [-t SECONDS] [-w WINDOW] server|client ADDR PORT send|write|read SIZE COUNT\n",
		prog);
	exit(2);
}

int main(int argc, char **argv)
{
	struct sockaddr_storage ss;
	unsigned long count;
	unsigned int limit = 120;
	enum mode mode;
	bool server;
	size_t size;
	const char *prog = argv[0];
	int opt, flags;

	while ((opt = getopt(argc, argv, "st:w:")) != -1) {
		switch (opt) {
		case 's':
			spin = true;
			break;
		case 't':
			limit = strtoul(optarg, NULL, 0);
			break;
		case 'w':
			window = strtoul(optarg, NULL, 0);
			break;
		default:
			usage(prog);
		}
	}
	argv += optind;
	argc -= optind;
	if (argc != 6 || !limit || !window || window > MAX_WINDOW)
		usage(prog);
	server = !strcmp(argv[0], "server");
	if (!server && strcmp(argv[0], "client"))
		usage(prog);
	for (mode = M_SEND; mode <= M_READ; mode++)
		if (!strcmp(argv[3], mode_name[mode]))
			break;
	size = strtoul(argv[4], NULL, 0);
	count = strtoul(argv[5], NULL, 0);
	if (mode > M_READ || !size || size % 8 ||
	    size > UINT32_MAX / MAX_WINDOW || !count || count > UINT32_MAX)
		usage(prog);
	if (sockaddr_of(argv[1], argv[2], &ss))
		return 2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	deadline = now_ms() + limit * 1000LL;
	/* the last resort, should a call block where it should not */
	alarm(limit + 15);
	ch = rdma_create_event_channel();
	if (!ch) {
		perror("rdma_create_event_channel");
		return 1;
	}
	flags = fcntl(ch->fd, F_GETFL);
	if (fcntl(ch->fd, F_SETFL, flags | O_NONBLOCK)) {
		perror("fcntl");
		return 1;
	}
	if (mode == M_READ)
		return server ? server_read((struct sockaddr *)&ss, size) :
				client_read((struct sockaddr *)&ss, size, count);
	if (server)
		return server_stream((struct sockaddr *)&ss, mode, size, count);
	return client_stream((struct sockaddr *)&ss, mode, size, count);
}
