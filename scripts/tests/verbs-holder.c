// SPDX-License-Identifier: GPL-2.0
/*
 * Guest helper of verbs.sh: open an RDMA device, create a PD, CQs, an
 * MR, an SRQ and QPs (one on the SRQ), post to their rings, say
 * "ready" and wait to be killed, holding all of it.
 *
 *   verbs-holder DEVICE [NQP]
 */
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
