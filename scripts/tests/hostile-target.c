// SPDX-License-Identifier: GPL-2.0
/*
 * Guest helper of hostile.sh: the rdma_cm server that hostile-peer.py
 * attacks.
 *
 *   hostile-target ADDR PORT TOTAL LIMIT
 *
 * Takes TOTAL connections on ADDR:PORT, one at a time. For each it
 * registers a region of REGION octets with remote write and read, and
 * posts receives of RECV octets; every region and buffer sits between
 * guard zones that nothing may write. Once established it sends the
 * peer the region's address, rkey and length (big-endian u64, u32, u32)
 * in one Send, then polls its completions (reposting receives) until
 * the connection ends, whatever the peer does, at most LIMIT seconds.
 * Then it checks every guard, tears the connection down and takes the
 * next.
 *
 * Prints "listening" once it listens and a "result:" line at the end;
 * exits 0 when every connection ended within LIMIT with its guards
 * intact, 1 otherwise (the first failure says which and where).
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
#define RECV	256
#define NRECV	8
#define GUARD	4096
#define GUARD_VAL	0xa5

/* guard | region | guard | (recv | guard) x NRECV */
#define MEM_LEN	(GUARD + REGION + GUARD + NRECV * (RECV + GUARD))

struct conn {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr_region;
	struct ibv_mr *mr_recv;
	struct ibv_mr *mr_info;
	unsigned char *mem;
	unsigned char info[16];
	bool qp;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned char *recv_buf(struct conn *c, int i)
{
	return c->mem + GUARD + REGION + GUARD + i * (RECV + GUARD);
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
	long off[NRECV + 2], i, j;
	int n = 0;

	off[n++] = 0;
	off[n++] = GUARD + REGION;
	for (i = 0; i < NRECV; i++)
		off[n++] = GUARD + REGION + GUARD + i * (RECV + GUARD) + RECV;
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
	c->mr_recv = ibv_reg_mr(c->pd, recv_buf(c, 0),
				NRECV * (RECV + GUARD), IBV_ACCESS_LOCAL_WRITE);
	c->mr_info = ibv_reg_mr(c->pd, c->info, sizeof(c->info), 0);
	if (!c->mr_region || !c->mr_recv || !c->mr_info)
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
		.wr_id = 1000, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	memcpy(c->info, &hi, 4);
	memcpy(c->info + 4, &lo, 4);
	memcpy(c->info + 8, &rkey, 4);
	memcpy(c->info + 12, &len, 4);
	return ibv_post_send(c->id->qp, &wr, &bad);
}

/* Take completions; repost receives that succeeded */
static void poll_cq(struct conn *c)
{
	struct ibv_wc wc[16];
	int n, i;

	while ((n = ibv_poll_cq(c->cq, 16, wc)) > 0)
		for (i = 0; i < n; i++)
			if (wc[i].opcode == IBV_WC_RECV &&
			    wc[i].status == IBV_WC_SUCCESS)
				post_recv(c, wc[i].wr_id);
}

static void teardown(struct conn *c)
{
	if (c->qp)
		rdma_destroy_qp(c->id);
	if (c->mr_region)
		ibv_dereg_mr(c->mr_region);
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

int main(int argc, char **argv)
{
	struct rdma_conn_param param = {
		.responder_resources = 4, .initiator_depth = 4,
	};
	struct rdma_addrinfo hints = { .ai_flags = RAI_PASSIVE }, *ai;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen_id;
	struct rdma_cm_event *ev;
	struct conn c = { 0 };
	/* requests that came while a connection was under way */
	struct rdma_cm_id *pending[16];
	int npending = 0;
	long total, limit, done = 0, established = 0, bad;
	enum rdma_cm_event_type type;
	double deadline;
	bool ended;

	if (argc != 5) {
		fprintf(stderr, "usage: %s ADDR PORT TOTAL LIMIT\n", argv[0]);
		return 2;
	}
	total = atol(argv[3]);
	limit = atol(argv[4]);
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_getaddrinfo(argv[1], argv[2], &hints, &ai) ||
	    rdma_bind_addr(listen_id, ai->ai_src_addr) ||
	    rdma_listen(listen_id, 8)) {
		perror("listen");
		return 1;
	}
	printf("listening\n");
	fflush(stdout);
	while (done < total) {
		if (npending) {
			c.id = pending[0];
			memmove(pending, pending + 1,
				--npending * sizeof(pending[0]));
		} else {
			ev = next_event(ch, limit * 1000);
			if (!ev) {
				printf("result: FAIL: no connection request within %ld s after %ld connections\n",
				       limit, done);
				return 1;
			}
			type = ev->event;
			c.id = ev->id;
			rdma_ack_cm_event(ev);
			if (type != RDMA_CM_EVENT_CONNECT_REQUEST)
				continue;
		}
		if (setup(&c) || rdma_accept(c.id, &param)) {
			printf("result: FAIL: connection %ld: setup or accept: %s\n",
			       done, strerror(errno));
			return 1;
		}
		/* until the connection ends, whatever the peer does */
		deadline = now() + limit;
		ended = false;
		while (!ended && now() < deadline) {
			poll_cq(&c);
			ev = next_event(ch, 20);
			if (!ev)
				continue;
			type = ev->event;
			if (type == RDMA_CM_EVENT_CONNECT_REQUEST &&
			    npending < 16) {
				pending[npending++] = ev->id;
				rdma_ack_cm_event(ev);
				continue;
			}
			if (ev->id != c.id) {
				rdma_ack_cm_event(ev);
				continue;
			}
			rdma_ack_cm_event(ev);
			if (type == RDMA_CM_EVENT_ESTABLISHED) {
				established++;
				send_info(&c);
			} else if (type == RDMA_CM_EVENT_DISCONNECTED ||
				   type == RDMA_CM_EVENT_REJECTED ||
				   type == RDMA_CM_EVENT_CONNECT_ERROR ||
				   type == RDMA_CM_EVENT_UNREACHABLE) {
				ended = true;
			}
		}
		poll_cq(&c);
		if (!ended) {
			printf("result: FAIL: connection %ld did not end within %ld s\n",
			       done, limit);
			return 1;
		}
		bad = guard_damage(&c);
		if (bad >= 0) {
			printf("result: FAIL: connection %ld: a guard octet changed at offset %ld of the memory\n",
			       done, bad);
			return 1;
		}
		teardown(&c);
		done++;
	}
	printf("result: %ld connections (%ld established), each ended, every guard intact\n",
	       done, established);
	rdma_destroy_id(listen_id);
	rdma_freeaddrinfo(ai);
	rdma_destroy_event_channel(ch);
	return 0;
}
