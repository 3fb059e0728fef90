// SPDX-License-Identifier: GPL-2.0
/*
 * Guest helper of hostile.sh: the rdma_cm end on our siw device that
 * hostile-peer.py attacks, as a server or as a client.
 *
 *   hostile-target listen ADDR PORT LIMIT
 *   hostile-target connect ADDR PORT TOTAL LIMIT
 *
 * listen: takes connections on ADDR:PORT, one at a time, until one whose
 * connection request carries the private data "hostile-peer: stop" has
 * been served. connect: connects TOTAL times, one after the other, to
 * the peer listening on ADDR:PORT, whatever the peer answers.
 *
 * For each connection it registers a region of REGION octets with remote
 * write and read, a read sink of SINK octets and receives of RECV
 * octets; every one of them sits between guard zones that nothing may
 * write. Once established it sends the peer the region's address, rkey
 * and length (big-endian u64, u32, u32) in one Send. A Send from the
 * peer that starts with "HTRD" asks for an RDMA Read: rkey (u32), address
 * (u64), length (u32) and a fill octet follow; the target reads that
 * many octets into its sink, and the read, if it succeeds, must have
 * brought exactly LENGTH fill octets. It polls its completions
 * (reposting receives) until the connection ends, whatever the peer
 * does, at most LIMIT seconds; a connect must end in ESTABLISHED or an
 * error event within LIMIT too. Then it checks every guard, tears the
 * connection down and takes the next.
 *
 * Prints "listening" once it listens (listen) and a "result:" line at
 * the end; exits 0 when every connection ended within LIMIT with its
 * guards intact and every successful read brought what was asked, 1
 * otherwise (the first failure says which and where).
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <rdma/rdma_cma.h>

#define REGION	8192
#define SINK	2048
#define RECV	256
#define NRECV	8
#define GUARD	4096
#define GUARD_VAL	0xa5

/* guard | region | guard | sink | guard | (recv | guard) x NRECV */
#define SINK_OFF	(GUARD + REGION + GUARD)
#define RECV_OFF	(SINK_OFF + SINK + GUARD)
#define MEM_LEN		(RECV_OFF + NRECV * (RECV + GUARD))

#define WR_INFO		1000
#define WR_READ		1001
#define STOP_PD		"hostile-peer: stop"

struct conn {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr_region;
	struct ibv_mr *mr_sink;
	struct ibv_mr *mr_recv;
	struct ibv_mr *mr_info;
	unsigned char *mem;
	unsigned char info[16];
	bool qp;
	/* the read in flight: its length and fill octet */
	bool reading;
	uint32_t read_len;
	unsigned char read_fill;
	/*
	 * A request that came before the completion of the read before it:
	 * a receive completes at once, a read when the send queue's work
	 * gets to it, so the two may come in either order
	 */
	unsigned char next[21];
	bool next_due;
};

/* what the connections came to */
static struct {
	long established, rejected, unreachable, connect_error;
	long disconnected, accept_failed, reads, reads_failed;
} st;

/* the first failure, reported at the end */
static char failure[256];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned char *recv_buf(struct conn *c, int i)
{
	return c->mem + RECV_OFF + i * (RECV + GUARD);
}

static int post_recv(struct conn *c, int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)recv_buf(c, i), .length = RECV,
		.lkey = c->mr_recv->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(c->id->qp, &wr, &bad);
}

/* Where a guard octet was changed, or -1 */
static long guard_damage(const struct conn *c)
{
	long off[NRECV + 3], i, j;
	int n = 0;

	off[n++] = 0;
	off[n++] = GUARD + REGION;
	off[n++] = SINK_OFF + SINK;
	for (i = 0; i < NRECV; i++)
		off[n++] = RECV_OFF + i * (RECV + GUARD) + RECV;
	for (i = 0; i < n; i++)
		for (j = 0; j < GUARD; j++)
			if (c->mem[off[i] + j] != GUARD_VAL)
				return off[i] + j;
	return -1;
}

static int setup(struct conn *c)
{
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = 16, .max_recv_wr = NRECV,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	int i, acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ;

	c->mem = malloc(MEM_LEN);
	if (!c->mem)
		return -1;
	memset(c->mem, GUARD_VAL, MEM_LEN);
	memset(c->mem + GUARD, 0, REGION);
	c->pd = ibv_alloc_pd(c->id->verbs);
	c->cq = c->pd ? ibv_create_cq(c->id->verbs, 64, NULL, NULL, 0) : NULL;
	if (!c->cq)
		return -1;
	c->mr_region = ibv_reg_mr(c->pd, c->mem + GUARD, REGION, acc);
	c->mr_sink = ibv_reg_mr(c->pd, c->mem + SINK_OFF, SINK,
				IBV_ACCESS_LOCAL_WRITE);
	c->mr_recv = ibv_reg_mr(c->pd, recv_buf(c, 0),
				NRECV * (RECV + GUARD), IBV_ACCESS_LOCAL_WRITE);
	c->mr_info = ibv_reg_mr(c->pd, c->info, sizeof(c->info), 0);
	if (!c->mr_region || !c->mr_sink || !c->mr_recv || !c->mr_info)
		return -1;
	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	if (rdma_create_qp(c->id, c->pd, &qa))
		return -1;
	c->qp = true;
	for (i = 0; i < NRECV; i++)
		if (post_recv(c, i))
			return -1;
	return 0;
}

static int send_info(struct conn *c)
{
	uint64_t addr = (uintptr_t)(c->mem + GUARD);
	uint32_t rkey = htonl(c->mr_region->rkey), len = htonl(REGION);
	uint32_t hi = htonl(addr >> 32), lo = htonl((uint32_t)addr);
	struct ibv_sge sge = {
		.addr = (uintptr_t)c->info, .length = sizeof(c->info),
		.lkey = c->mr_info->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = WR_INFO, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	memcpy(c->info, &hi, 4);
	memcpy(c->info + 4, &lo, 4);
	memcpy(c->info + 8, &rkey, 4);
	memcpy(c->info + 12, &len, 4);
	return ibv_post_send(c->id->qp, &wr, &bad);
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

/* The peer asked for an RDMA Read (a Send of at least 21 octets, "HTRD") */
static void start_read(struct conn *c, const unsigned char *m, uint32_t n)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(c->mem + SINK_OFF), .lkey = c->mr_sink->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = WR_READ, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_READ, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;
	uint32_t len;

	if (n < 21 || memcmp(m, "HTRD", 4))
		return;
	if (c->reading) {
		memcpy(c->next, m, sizeof(c->next));
		c->next_due = true;
		return;
	}
	len = get32(m + 16);
	if (len > SINK)
		return;
	wr.wr.rdma.rkey = get32(m + 4);
	wr.wr.rdma.remote_addr = (uint64_t)get32(m + 8) << 32 | get32(m + 12);
	sge.length = len;
	c->read_len = len;
	c->read_fill = m[20];
	/* what a read that placed nothing would leave */
	memset(c->mem + SINK_OFF, c->read_fill ^ 0xff, SINK);
	if (!ibv_post_send(c->id->qp, &wr, &bad))
		c->reading = true;
}

/* A read completed: it must have brought exactly what was asked */
static void read_done(struct conn *c, long n, enum ibv_wc_status status)
{
	const unsigned char *s = c->mem + SINK_OFF;
	uint32_t i;

	c->reading = false;
	if (status != IBV_WC_SUCCESS) {
		st.reads_failed++;
		return;
	}
	st.reads++;
	for (i = 0; i < SINK; i++) {
		unsigned char want = i < c->read_len ? c->read_fill :
				     c->read_fill ^ 0xff;

		if (s[i] != want) {
			if (!failure[0])
				snprintf(failure, sizeof(failure),
					 "connection %ld: a read of %u octets that succeeded left octet %u of the sink at 0x%02x, not 0x%02x",
					 n, c->read_len, i, s[i], want);
			return;
		}
	}
}

/* Take completions; repost receives that succeeded */
static void poll_cq(struct conn *c, long n)
{
	struct ibv_wc wc[16];
	int k, i;

	while ((k = ibv_poll_cq(c->cq, 16, wc)) > 0)
		for (i = 0; i < k; i++) {
			if (wc[i].wr_id == WR_READ) {
				read_done(c, n, wc[i].status);
				if (c->next_due) {
					c->next_due = false;
					start_read(c, c->next,
						   sizeof(c->next));
				}
				continue;
			}
			if (wc[i].opcode != IBV_WC_RECV ||
			    wc[i].status != IBV_WC_SUCCESS)
				continue;
			start_read(c, recv_buf(c, wc[i].wr_id),
				   wc[i].byte_len);
			post_recv(c, wc[i].wr_id);
		}
}

static void teardown(struct conn *c)
{
	if (c->qp)
		rdma_destroy_qp(c->id);
	if (c->mr_region)
		ibv_dereg_mr(c->mr_region);
	if (c->mr_sink)
		ibv_dereg_mr(c->mr_sink);
	if (c->mr_recv)
		ibv_dereg_mr(c->mr_recv);
	if (c->mr_info)
		ibv_dereg_mr(c->mr_info);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	rdma_destroy_id(c->id);
	free(c->mem);
	memset(c, 0, sizeof(*c));
}

/* The next event within @ms, or NULL */
static struct rdma_cm_event *next_event(struct rdma_event_channel *ch, int ms)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&p, 1, ms) <= 0 || rdma_get_cm_event(ch, &ev))
		return NULL;
	return ev;
}

/* requests that came while a connection was under way (listen) */
static struct rdma_cm_id *pending[16];
static bool pending_stop[16];
static int npending;

/*
 * Serve connection @n until it ends, at most @limit seconds: send the
 * region's description once established, take completions. Returns
 * whether it ended.
 */
static bool serve(struct rdma_event_channel *ch, struct conn *c, long n,
		  long limit)
{
	double deadline = now() + limit;
	enum rdma_cm_event_type type;
	struct rdma_cm_event *ev;
	bool stop;

	while (now() < deadline) {
		poll_cq(c, n);
		ev = next_event(ch, 20);
		if (!ev)
			continue;
		type = ev->event;
		if (type == RDMA_CM_EVENT_CONNECT_REQUEST && npending == 16) {
			/* more than the peer ever has under way: refused */
			struct rdma_cm_id *id = ev->id;

			rdma_reject(id, NULL, 0);
			rdma_ack_cm_event(ev);
			rdma_destroy_id(id);
			continue;
		}
		if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
			stop = ev->param.conn.private_data_len >=
				       strlen(STOP_PD) &&
			       !memcmp(ev->param.conn.private_data, STOP_PD,
				       strlen(STOP_PD));
			pending_stop[npending] = stop;
			pending[npending++] = ev->id;
			rdma_ack_cm_event(ev);
			continue;
		}
		if (ev->id != c->id) {
			rdma_ack_cm_event(ev);
			continue;
		}
		rdma_ack_cm_event(ev);
		switch (type) {
		case RDMA_CM_EVENT_ESTABLISHED:
			st.established++;
			send_info(c);
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			st.disconnected++;
			poll_cq(c, n);
			return true;
		case RDMA_CM_EVENT_REJECTED:
			st.rejected++;
			return true;
		case RDMA_CM_EVENT_UNREACHABLE:
			st.unreachable++;
			return true;
		case RDMA_CM_EVENT_CONNECT_ERROR:
			st.connect_error++;
			return true;
		default:
			break;
		}
	}
	return false;
}

/* After connection @n: were the guards kept? Tears it down. */
static bool finish(struct conn *c, long n)
{
	long bad = guard_damage(c);

	teardown(c);
	if (bad >= 0 && !failure[0])
		snprintf(failure, sizeof(failure),
			 "connection %ld: a guard octet changed at offset %ld of the memory",
			 n, bad);
	return !failure[0];
}

static int report(long done, const char *what)
{
	printf("%ld connections %s: %ld established, %ld rejected, %ld unreachable, %ld connect errors, ",
	       done, what, st.established, st.rejected, st.unreachable,
	       st.connect_error);
	printf("%ld disconnected, %ld accepts failed; %ld reads brought what was asked, %ld failed\n",
	       st.disconnected, st.accept_failed, st.reads, st.reads_failed);
	if (failure[0]) {
		printf("result: FAIL: %s\n", failure);
		return 1;
	}
	printf("result: %ld connections, each ended, every guard intact\n",
	       done);
	return 0;
}

static int run_listen(const char *addr, const char *port, long limit)
{
	struct rdma_conn_param param = {
		.responder_resources = 4, .initiator_depth = 4,
	};
	struct rdma_addrinfo hints = { .ai_flags = RAI_PASSIVE }, *ai;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen_id;
	struct rdma_cm_event *ev;
	struct conn c = { 0 };
	long done = 0;
	bool stop = false;

	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_getaddrinfo(addr, port, &hints, &ai) ||
	    rdma_bind_addr(listen_id, ai->ai_src_addr) ||
	    rdma_listen(listen_id, 16)) {
		perror("listen");
		return 1;
	}
	printf("listening\n");
	fflush(stdout);
	while (!stop) {
		if (npending) {
			c.id = pending[0];
			stop = pending_stop[0];
			npending--;
			memmove(pending, pending + 1,
				npending * sizeof(pending[0]));
			memmove(pending_stop, pending_stop + 1,
				npending * sizeof(pending_stop[0]));
		} else {
			ev = next_event(ch, limit * 1000);
			if (!ev) {
				snprintf(failure, sizeof(failure),
					 "no connection request within %ld s after %ld connections",
					 limit, done);
				break;
			}
			c.id = ev->id;
			stop = ev->event == RDMA_CM_EVENT_CONNECT_REQUEST &&
			       ev->param.conn.private_data_len >=
				       strlen(STOP_PD) &&
			       !memcmp(ev->param.conn.private_data, STOP_PD,
				       strlen(STOP_PD));
			if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
				rdma_ack_cm_event(ev);
				continue;
			}
			rdma_ack_cm_event(ev);
		}
		if (setup(&c)) {
			snprintf(failure, sizeof(failure),
				 "connection %ld: setup: %s", done,
				 strerror(errno));
			break;
		}
		/*
		 * A peer that sent its request and left (or whose request
		 * the module refuses at accept) makes the accept fail: that
		 * connection ended
		 */
		if (rdma_accept(c.id, &param)) {
			st.accept_failed++;
		} else if (!serve(ch, &c, done, limit)) {
			snprintf(failure, sizeof(failure),
				 "connection %ld did not end within %ld s",
				 done, limit);
			break;
		}
		if (!finish(&c, done))
			break;
		done++;
	}
	return report(done, "served");
}

/* Wait for @want on @id (address and route resolution) */
static int wait_for(struct rdma_event_channel *ch, struct rdma_cm_id *id,
		    enum rdma_cm_event_type want, long limit)
{
	double deadline = now() + limit;
	struct rdma_cm_event *ev;
	enum rdma_cm_event_type type;

	while (now() < deadline) {
		ev = next_event(ch, 100);
		if (!ev)
			continue;
		type = ev->event;
		if (ev->id != id) {
			rdma_ack_cm_event(ev);
			continue;
		}
		rdma_ack_cm_event(ev);
		return type == want ? 0 : -1;
	}
	return -1;
}

static int run_connect(const char *addr, const char *port, long total,
		       long limit)
{
	struct rdma_addrinfo hints = { 0 }, *ai;
	struct rdma_event_channel *ch;
	struct conn c = { 0 };
	char pd[32];
	struct rdma_conn_param param = {
		.responder_resources = 4, .initiator_depth = 4,
		.private_data = pd,
	};
	long done;

	ch = rdma_create_event_channel();
	if (!ch || rdma_getaddrinfo(addr, port, &hints, &ai)) {
		perror("connect");
		return 1;
	}
	for (done = 0; done < total; done++) {
		if (rdma_create_id(ch, &c.id, NULL, RDMA_PS_TCP) ||
		    rdma_resolve_addr(c.id, NULL, ai->ai_dst_addr, 5000) ||
		    wait_for(ch, c.id, RDMA_CM_EVENT_ADDR_RESOLVED, limit) ||
		    rdma_resolve_route(c.id, 5000) ||
		    wait_for(ch, c.id, RDMA_CM_EVENT_ROUTE_RESOLVED, limit) ||
		    setup(&c)) {
			snprintf(failure, sizeof(failure),
				 "connection %ld: resolution or setup failed: %s",
				 done, strerror(errno));
			break;
		}
		param.private_data_len = snprintf(pd, sizeof(pd),
						  "hostile-target %ld", done);
		if (rdma_connect(c.id, &param)) {
			snprintf(failure, sizeof(failure),
				 "connection %ld: rdma_connect: %s", done,
				 strerror(errno));
			break;
		}
		if (!serve(ch, &c, done, limit)) {
			snprintf(failure, sizeof(failure),
				 "connection %ld did not end within %ld s",
				 done, limit);
			break;
		}
		if (!finish(&c, done))
			break;
	}
	if (c.id)
		teardown(&c);
	rdma_freeaddrinfo(ai);
	return report(done, "made");
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 5 && !strcmp(argv[1], "listen"))
		return run_listen(argv[2], argv[3], atol(argv[4]));
	if (argc == 6 && !strcmp(argv[1], "connect"))
		return run_connect(argv[2], argv[3], atol(argv[4]),
				   atol(argv[5]));
	fprintf(stderr, "usage: %s listen ADDR PORT LIMIT\n"
		"       %s connect ADDR PORT TOTAL LIMIT\n", argv[0], argv[0]);
	return 2;
}
