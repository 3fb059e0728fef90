// SPDX-License-Identifier: GPL-2.0
/*
 * Guest helper of cm-robust.sh: many rdma_cm connections at once, and
 * the ways a consumer gives up on one, all on one asynchronous event
 * channel.
 *
 *   cm-robust-cm client ADDR PORT TOTAL INFLIGHT [EXPECT [EARLY]]
 *   cm-robust-cm server ADDR PORT TOTAL [ON_REQUEST]
 *
 * client: TOTAL connections to ADDR:PORT, at most INFLIGHT under way at
 * a time; each resolves, gets a QP and connects; on DISCONNECTED, a
 * failed connect or DEVICE_REMOVAL its QP and id are destroyed. The
 * server disconnects each as soon as it is established: the side that
 * closes first keeps the connection's address pair in TIME-WAIT, and a
 * new connect from a port rdma_cm happens to pick again (at random)
 * would fail against it, while a listener takes a new SYN in place of
 * a TIME-WAIT one. EXPECT decides the exit status: "ok" (the
 * default: every one established and disconnected), "fail" (every one
 * ended by a failed connect, none established) or "any" (every one
 * ended, however). EARLY gives up during setup: "destroy" destroys the
 * QP and id as soon as rdma_connect() returned; "exit" exits once all
 * TOTAL rdma_connect() calls returned, leaving the rest to the kernel.
 *
 * server: listens on ADDR:PORT ("listening" once it does) and ends after
 * TOTAL requests were dealt with. ON_REQUEST: "accept" (the default;
 * disconnect each once established; exit 0 when each was established
 * and disconnected), "destroy" (the
 * request's id is destroyed unaccepted, which makes iw_cm reject it),
 * "hold" (never answered, until the process is killed) or "late" (the
 * first request is held, with a QP, and only accepted when the next one
 * arrives, after its connection died; that accept must fail; every
 * later request is accepted as with "accept"; exit 0 when the late
 * accept failed and each of the others was established and
 * disconnected).
 *
 * Both print the count of each event seen and a "result:" line.
 */
#include <errno.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rdma_cma.h>

struct conn {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	bool qp;
	bool established;
};

struct run {
	struct rdma_event_channel *ch;
	struct rdma_addrinfo *dst;
	int total;
	int inflight;
	int started;
	int connects;
	int live;
	int done;
	int established;
	int disconnected;
	int failed;
	int removed;
	int call_failed;
	int events[RDMA_CM_EVENT_TIMEWAIT_EXIT + 1];
	struct conn *held;	/* "late": the first request */
	bool late_failed;	/* "late": its accept failed */
};

static void conn_free(struct conn *c)
{
	if (c->qp)
		rdma_destroy_qp(c->id);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	free(c);
}

static int conn_qp(struct conn *c)
{
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	c->pd = ibv_alloc_pd(c->id->verbs);
	if (!c->pd)
		return -1;
	c->cq = ibv_create_cq(c->id->verbs, 4, NULL, NULL, 0);
	if (!c->cq)
		return -1;
	attr.send_cq = c->cq;
	attr.recv_cq = c->cq;
	if (rdma_create_qp(c->id, c->pd, &attr))
		return -1;
	c->qp = true;
	return 0;
}

static struct rdma_conn_param conn_param = {
	.responder_resources = 1,
	.initiator_depth = 1,
};

/* A connection ended: @how counts it */
static void conn_end(struct run *r, struct conn *c, int *how)
{
	(*how)++;
	r->done++;
	r->live--;
	conn_free(c);
}

/* The events that end a connection, on either side */
static void conn_ended(struct run *r, struct conn *c,
		       enum rdma_cm_event_type type)
{
	switch (type) {
	case RDMA_CM_EVENT_DISCONNECTED:
		conn_end(r, c, &r->disconnected);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		conn_end(r, c, &r->failed);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		conn_end(r, c, &r->removed);
		break;
	default:
		break;
	}
}

static void client_start(struct run *r)
{
	struct conn *c = calloc(1, sizeof(*c));

	r->started++;
	r->live++;
	if (!c || rdma_create_id(r->ch, &c->id, c, RDMA_PS_TCP) ||
	    rdma_resolve_addr(c->id, NULL, r->dst->ai_dst_addr, 5000)) {
		perror("client: create_id/resolve_addr");
		if (c)
			conn_end(r, c, &r->call_failed);
	}
}

static void client_connect(struct run *r, struct conn *c, const char *early)
{
	if (conn_qp(c) || rdma_connect(c->id, &conn_param)) {
		perror("client: QP or rdma_connect");
		conn_end(r, c, &r->call_failed);
		return;
	}
	r->connects++;
	if (!strcmp(early, "destroy")) {
		conn_end(r, c, &r->failed);
	} else if (!strcmp(early, "exit") && r->connects == r->total) {
		printf("result: exiting after %d connects\n", r->connects);
		exit(0);
	}
}

/* The event's id and type are kept; the event is acked before any destroy */
static void client_event(struct run *r, struct rdma_cm_id *id,
			 enum rdma_cm_event_type type, const char *early)
{
	struct conn *c = id->context;

	switch (type) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (rdma_resolve_route(id, 5000))
			conn_end(r, c, &r->call_failed);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		client_connect(r, c, early);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		/* the server disconnects: see the file comment */
		r->established++;
		c->established = true;
		break;
	default:
		conn_ended(r, c, type);
		break;
	}
}

/*
 * "late": accept the held request now that its connection is gone and a
 * new one came; the call must fail, and must not touch the new one
 */
static void server_late_accept(struct run *r)
{
	struct conn *c = r->held;

	r->held = NULL;
	if (rdma_accept(c->id, &conn_param)) {
		printf("late accept: failed: %s\n", strerror(errno));
		r->late_failed = true;
		conn_end(r, c, &r->failed);
		return;
	}
	printf("late accept: succeeded\n");
	conn_end(r, c, &r->call_failed);
}

static void server_request(struct run *r, struct rdma_cm_id *id,
			   const char *mode)
{
	bool late = !strcmp(mode, "late");
	struct conn *c;

	if (late && r->held)
		server_late_accept(r);
	if (!strcmp(mode, "hold")) {
		printf("request %d\n", r->started + 1);
		fflush(stdout);
		r->started++;
		return;
	}
	if (!strcmp(mode, "destroy")) {
		rdma_destroy_id(id);
		r->started++;
		r->done++;
		return;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		rdma_reject(id, NULL, 0);
		rdma_destroy_id(id);
		return;
	}
	c->id = id;
	id->context = c;
	r->started++;
	r->live++;
	if (late && r->started == 1) {
		if (conn_qp(c)) {
			perror("server: QP");
			conn_end(r, c, &r->call_failed);
			return;
		}
		r->held = c;
		printf("request 1\n");
		return;
	}
	if (conn_qp(c) || rdma_accept(id, &conn_param)) {
		perror("server: QP or rdma_accept");
		conn_end(r, c, &r->call_failed);
	}
}

static void server_event(struct run *r, struct rdma_cm_id *listen,
			 struct rdma_cm_id *id, enum rdma_cm_event_type type,
			 const char *mode)
{
	struct conn *c = id->context;

	if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
		server_request(r, id, mode);
		return;
	}
	if (id == listen) {
		if (type == RDMA_CM_EVENT_DEVICE_REMOVAL)
			r->removed++;
		return;
	}
	switch (type) {
	case RDMA_CM_EVENT_ESTABLISHED:
		r->established++;
		c->established = true;
		/* cm-robust.sh pulls a device out from here on */
		if (r->established == 10)
			printf("established 10\n");
		if ((!strcmp(mode, "accept") || !strcmp(mode, "late")) &&
		    rdma_disconnect(id))
			perror("server: rdma_disconnect");
		break;
	default:
		conn_ended(r, c, type);
		break;
	}
}

static void report(const struct run *r)
{
	int i;

	printf("events:");
	for (i = 0; i <= RDMA_CM_EVENT_TIMEWAIT_EXIT; i++)
		if (r->events[i])
			printf(" %s=%d", rdma_event_str(i), r->events[i]);
	printf("\nresult: established %d disconnected %d failed %d removed %d call-failed %d of %d\n",
	       r->established, r->disconnected, r->failed, r->removed,
	       r->call_failed, r->total);
}

/* One event: counted, acked, then handled (a handler may destroy its id) */
static int next_event(struct run *r, struct rdma_cm_id **id,
		      enum rdma_cm_event_type *type)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(r->ch, &ev)) {
		perror("rdma_get_cm_event");
		return -1;
	}
	*id = ev->id;
	*type = ev->event;
	if (*type <= RDMA_CM_EVENT_TIMEWAIT_EXIT)
		r->events[*type]++;
	rdma_ack_cm_event(ev);
	return 0;
}

static int client(struct run *r, const char *expect, const char *early)
{
	enum rdma_cm_event_type type;
	struct rdma_cm_id *id;

	while (r->done < r->total) {
		while (r->started < r->total && r->live < r->inflight)
			client_start(r);
		if (r->done == r->total)
			break;
		if (next_event(r, &id, &type))
			return 1;
		client_event(r, id, type, early);
	}
	report(r);
	if (!strcmp(expect, "fail"))
		return !(r->failed == r->total && !r->established);
	if (!strcmp(expect, "any"))
		return 0;
	return !(r->established == r->total && r->disconnected == r->total);
}

static int server(struct run *r, const char *mode)
{
	enum rdma_cm_event_type type;
	struct rdma_cm_id *listen, *id;

	if (rdma_create_id(r->ch, &listen, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listen, r->dst->ai_src_addr) ||
	    rdma_listen(listen, 128)) {
		perror("server: listen");
		return 1;
	}
	printf("listening\n");
	fflush(stdout);
	while (r->done < r->total && !r->removed) {
		if (next_event(r, &id, &type))
			return 1;
		server_event(r, listen, id, type, mode);
	}
	report(r);
	rdma_destroy_id(listen);
	if (!strcmp(mode, "accept"))
		return !(r->established == r->total &&
			 r->disconnected == r->total);
	if (!strcmp(mode, "late"))
		return !(r->late_failed && r->established == r->total - 1 &&
			 r->disconnected == r->total - 1);
	return r->done != r->total;
}

int main(int argc, char **argv)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP };
	struct run r = { 0 };
	bool srv;

	if (argc < 5) {
		fprintf(stderr, "usage: %s client ADDR PORT TOTAL INFLIGHT [EXPECT [EARLY]]\n"
			"       %s server ADDR PORT TOTAL [ON_REQUEST]\n",
			argv[0], argv[0]);
		return 2;
	}
	srv = !strcmp(argv[1], "server");
	if (srv)
		hints.ai_flags = RAI_PASSIVE;
	if (rdma_getaddrinfo(argv[2], argv[3], &hints, &r.dst)) {
		perror("rdma_getaddrinfo");
		return 2;
	}
	r.total = atoi(argv[4]);
	r.ch = rdma_create_event_channel();
	if (!r.ch) {
		perror("rdma_create_event_channel");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (srv)
		return server(&r, argc > 5 ? argv[5] : "accept");
	if (argc < 6)
		return 2;
	r.inflight = atoi(argv[5]);
	return client(&r, argc > 6 ? argv[6] : "ok",
		      argc > 7 ? argv[7] : "none");
}
