// SPDX-License-Identifier: GPL-2.0
/*
 * Guest helper of verbs.sh: open an RDMA device, create a PD, CQs, an
 * MR, an SRQ and QPs (one on the SRQ), post to their rings, say
 * "ready" and wait to be killed, holding all of it.
 *
 *   verbs-holder DEVICE [NQP]
 *
 * With "flush" instead of NQP: post receives and sends to a QP that
 * never connects, move it to ERR and check that every one completes,
 * in order, with IBV_WC_WR_FLUSH_ERR, that the armed CQ signals, and
 * that a send posted in ERR is flushed at once. Exit status 0 if so.
 *
 * With "overflow": two QPs share one small CQ; flushing more receives
 * of the first than the CQ holds must raise IBV_EVENT_CQ_ERR and put
 * the second QP, which lost nothing yet, in ERR with IBV_EVENT_QP_FATAL
 * (its consumer could otherwise wait for a lost completion forever);
 * once the CQ is polled empty, the second QP's work completes there.
 *
 * With "memcg": create 8 CQs of 64 Ki entries (2 MiB rings), say so and
 * wait to be killed: run in a memory cgroup, the rings must count in
 * its memory.current.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* Poll until @n completions arrived or a second passed */
static int reap(struct ibv_cq *cq, struct ibv_wc *wc, int n)
{
	int got = 0, i;

	for (i = 0; i < 1000 && got < n; i++) {
		int r = ibv_poll_cq(cq, n - got, wc + got);

		if (r < 0)
			return r;
		got += r;
		if (got < n)
			usleep(1000);
	}
	return got;
}

static int check_flushed(struct ibv_wc *wc, int n, const uint64_t *ids)
{
	int i;

	for (i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_WR_FLUSH_ERR || wc[i].wr_id != ids[i]) {
			fprintf(stderr, "completion %d: wr_id %llu status %d\n",
				i, (unsigned long long)wc[i].wr_id, wc[i].status);
			return 1;
		}
	}
	return 0;
}

static int flush_test(struct ibv_context *ctx, struct ibv_pd *pd,
		      struct ibv_mr *mr, char *buf)
{
	struct ibv_qp_init_attr qia = { .qp_type = IBV_QPT_RC };
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };
	struct ibv_sge sge = { (uintptr_t)buf, 64, mr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 }, *rbad;
	struct ibv_send_wr swr = { .sg_list = &sge, .num_sge = 1,
				   .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED }, *sbad;
	static const uint64_t rids[] = { 1, 2, 3 }, sids[] = { 11, 12 };
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	struct ibv_cq *scq, *rcq, *ev_cq;
	struct pollfd pfd;
	struct ibv_wc wc[8];
	void *ev_ctx;
	struct ibv_qp *qp;
	int i;

	if (!ch)
		die("ibv_create_comp_channel");
	scq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	rcq = ibv_create_cq(ctx, 8, NULL, ch, 0);
	if (!scq || !rcq)
		die("ibv_create_cq");
	qia.send_cq = scq;
	qia.recv_cq = rcq;
	qia.cap.max_send_wr = 4;
	qia.cap.max_recv_wr = 4;
	qia.cap.max_send_sge = 1;
	qia.cap.max_recv_sge = 1;
	qp = ibv_create_qp(pd, &qia);
	if (!qp)
		die("ibv_create_qp");
	for (i = 0; i < 3; i++) {
		rwr.wr_id = rids[i];
		if (ibv_post_recv(qp, &rwr, &rbad))
			die("ibv_post_recv");
	}
	for (i = 0; i < 2; i++) {
		swr.wr_id = sids[i];
		if (ibv_post_send(qp, &swr, &sbad))
			die("ibv_post_send");
	}
	if (ibv_req_notify_cq(rcq, 0))
		die("ibv_req_notify_cq");
	if (ibv_modify_qp(qp, &qa, IBV_QP_STATE))
		die("ibv_modify_qp ERR");
	if (reap(rcq, wc, 3) != 3 || check_flushed(wc, 3, rids))
		return 1;
	if (reap(scq, wc, 2) != 2 || check_flushed(wc, 2, sids))
		return 1;
	pfd.fd = ch->fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 2000) != 1 || ibv_get_cq_event(ch, &ev_cq, &ev_ctx) ||
	    ev_cq != rcq) {
		fprintf(stderr, "no completion event\n");
		return 1;
	}
	ibv_ack_cq_events(rcq, 1);
	/* in ERR, a post is flushed at once: how drains complete */
	swr.wr_id = 13;
	if (ibv_post_send(qp, &swr, &sbad))
		die("ibv_post_send in ERR");
	if (reap(scq, wc, 1) != 1 || check_flushed(wc, 1, &swr.wr_id))
		return 1;
	if (ibv_destroy_qp(qp) || ibv_destroy_cq(scq) || ibv_destroy_cq(rcq) ||
	    ibv_destroy_comp_channel(ch))
		die("destroy");
	printf("flushed\n");
	return 0;
}

/* Wait up to 5 s for an async event; returns its type, or -1 */
static int async_event(struct ibv_context *ctx, struct ibv_async_event *ev)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };

	if (poll(&pfd, 1, 5000) != 1 || ibv_get_async_event(ctx, ev))
		return -1;
	return ev->event_type;
}

static int overflow_test(struct ibv_context *ctx, struct ibv_pd *pd,
			 struct ibv_mr *mr, char *buf)
{
	struct ibv_qp_init_attr qia = { .qp_type = IBV_QPT_RC };
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT };
	struct ibv_sge sge = { (uintptr_t)buf, 64, mr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 }, *rbad;
	struct ibv_send_wr swr = { .sg_list = &sge, .num_sge = 1,
				   .opcode = IBV_WR_SEND, .wr_id = 777,
				   .send_flags = IBV_SEND_SIGNALED }, *sbad;
	int got_cq_err = 0, got_fatal = 0, n, i, t;
	struct ibv_qp_init_attr init;
	struct ibv_async_event ev;
	struct ibv_qp *qp1, *qp2;
	struct ibv_wc wc[64];
	struct ibv_cq *cq;

	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	if (!cq)
		die("ibv_create_cq");
	n = cq->cqe;
	if (n > 32) {
		fprintf(stderr, "CQ of %d entries asked for 4\n", n);
		return 1;
	}
	qia.send_cq = cq;
	qia.recv_cq = cq;
	qia.cap.max_send_wr = 4;
	qia.cap.max_recv_wr = n + 4;
	qia.cap.max_send_sge = 1;
	qia.cap.max_recv_sge = 1;
	qp1 = ibv_create_qp(pd, &qia);
	qp2 = ibv_create_qp(pd, &qia);
	if (!qp1 || !qp2)
		die("ibv_create_qp");
	if (ibv_modify_qp(qp1, &qa, IBV_QP_STATE) ||
	    ibv_modify_qp(qp2, &qa, IBV_QP_STATE))
		die("ibv_modify_qp INIT");
	for (i = 0; i < n + 2; i++) {
		rwr.wr_id = i + 1;
		if (ibv_post_recv(qp1, &rwr, &rbad))
			die("ibv_post_recv");
	}
	rwr.wr_id = 100;
	if (ibv_post_recv(qp2, &rwr, &rbad))
		die("ibv_post_recv");
	qa.qp_state = IBV_QPS_ERR;
	if (ibv_modify_qp(qp1, &qa, IBV_QP_STATE))
		die("ibv_modify_qp ERR");
	for (i = 0; i < 4 && !(got_cq_err && got_fatal); i++) {
		t = async_event(ctx, &ev);
		if (t < 0)
			break;
		if (t == IBV_EVENT_CQ_ERR && ev.element.cq == cq)
			got_cq_err = 1;
		if (t == IBV_EVENT_QP_FATAL && ev.element.qp == qp2)
			got_fatal = 1;
		printf("async event %s\n", ibv_event_type_str(t));
		ibv_ack_async_event(&ev);
	}
	if (!got_cq_err || !got_fatal) {
		fprintf(stderr, "CQ of %d overflowed: CQ_ERR %s, QP_FATAL on the other QP %s\n",
			n, got_cq_err ? "seen" : "missing",
			got_fatal ? "seen" : "missing");
		return 1;
	}
	if (ibv_query_qp(qp2, &qa, IBV_QP_STATE, &init) ||
	    qa.qp_state != IBV_QPS_ERR) {
		fprintf(stderr, "the other QP is in state %d, not ERR\n",
			qa.qp_state);
		return 1;
	}
	/* the consumer empties the CQ: work of the failed QP completes */
	while (ibv_poll_cq(cq, 64, wc) > 0)
		;
	if (ibv_post_send(qp2, &swr, &sbad))
		die("ibv_post_send in ERR");
	if (reap(cq, wc, 1) != 1 || check_flushed(wc, 1, &swr.wr_id))
		return 1;
	if (ibv_destroy_qp(qp1) || ibv_destroy_qp(qp2) || ibv_destroy_cq(cq))
		die("destroy");
	printf("overflow of a CQ of %d: CQ_ERR, the other QP in ERR\n", n);
	return 0;
}

static int memcg_test(struct ibv_context *ctx)
{
	int n;

	for (n = 0; n < 8; n++)
		if (!ibv_create_cq(ctx, 65536, NULL, NULL, 0))
			die("ibv_create_cq");
	printf("made %d CQs of 64 Ki entries\n", n);
	fflush(stdout);
	pause();
	return 0;
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr qia = { .qp_type = IBV_QPT_RC };
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT };
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_recv_wr rwr = { 0 }, *bad;
	struct ibv_sge sge;
	struct ibv_srq *srq;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_pd *pd;
	int i, n = argc > 2 ? atoi(argv[2]) : 4;
	static char buf[65536];

	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			break;
	if (!list || !list[i])
		die("no such device");
	ctx = ibv_open_device(list[i]);
	if (!ctx)
		die("ibv_open_device");
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("ibv_alloc_pd");
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!mr)
		die("ibv_reg_mr");
	if (argc > 2 && !strcmp(argv[2], "flush"))
		return flush_test(ctx, pd, mr, buf);
	if (argc > 2 && !strcmp(argv[2], "memcg"))
		return memcg_test(ctx);
	if (argc > 2 && !strcmp(argv[2], "overflow"))
		return overflow_test(ctx, pd, mr, buf);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!cq)
		die("ibv_create_cq");
	srq = ibv_create_srq(pd, &sia);
	if (!srq)
		die("ibv_create_srq");
	sge.addr = (uintptr_t)buf;
	sge.length = 512;
	sge.lkey = mr->lkey;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	qia.send_cq = cq;
	qia.recv_cq = cq;
	qia.cap.max_send_wr = 16;
	qia.cap.max_recv_wr = 16;
	qia.cap.max_send_sge = 2;
	qia.cap.max_recv_sge = 2;
	for (i = 0; i < n; i++) {
		struct ibv_qp *qp;

		qia.srq = i == 0 ? srq : NULL;
		qp = ibv_create_qp(pd, &qia);
		if (!qp)
			die("ibv_create_qp");
		if (ibv_modify_qp(qp, &qa, IBV_QP_STATE))
			die("ibv_modify_qp");
		if (!qia.srq && ibv_post_recv(qp, &rwr, &bad))
			die("ibv_post_recv");
	}
	if (ibv_post_srq_recv(srq, &rwr, &bad))
		die("ibv_post_srq_recv");
	printf("ready\n");
	fflush(stdout);
	pause();
	return 0;
}
