// SPDX-License-Identifier: GPL-2.0
/*
 * Guest helper of traffic.sh: a Send the peer closes right behind must
 * still be received.
 *
 *   close-after-send server ADDR PORT LEN
 *   close-after-send client ADDR PORT LEN
 *
 * server: listens on ADDR:PORT (prints "listening"), posts one receive
 * of LEN octets before it accepts the one connection, and waits for its
 * completion; exit 0 only when it completed with success, LEN octets,
 * and the buffer holds the client's pattern.
 *
 * client: connects, sends LEN octets of a pattern in one Send, waits for
 * the Send's completion and disconnects at once, so that its TCP FIN
 * follows the message's last segment closely: the receiver must take
 * everything the peer sent before its FIN, also while it is still
 * placing the message (RFC 5040 6: a graceful close delivers what was
 * sent before it).
 *
 * Both print a "result:" line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

static unsigned char pattern(size_t i)
{
	return (unsigned char)(i * 13 + (i >> 9) + 7);
}

static struct rdma_cm_id *endpoint(const char *addr, const char *port,
				   int passive)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP };
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_all = 1,
	};
	struct rdma_addrinfo *res;
	struct rdma_cm_id *id;

	if (passive)
		hints.ai_flags = RAI_PASSIVE;
	if (rdma_getaddrinfo(addr, port, &hints, &res)) {
		perror("rdma_getaddrinfo");
		return NULL;
	}
	if (rdma_create_ep(&id, res, NULL, &attr)) {
		perror("rdma_create_ep");
		id = NULL;
	}
	rdma_freeaddrinfo(res);
	return id;
}

static int server(const char *addr, const char *port, size_t len)
{
	struct rdma_cm_id *listen, *id;
	struct ibv_wc wc;
	struct ibv_mr *mr;
	unsigned char *buf;
	size_t i;

	listen = endpoint(addr, port, 1);
	if (!listen || rdma_listen(listen, 1)) {
		perror("listen");
		return 1;
	}
	printf("listening\n");
	fflush(stdout);
	if (rdma_get_request(listen, &id)) {
		perror("rdma_get_request");
		return 1;
	}
	buf = calloc(1, len);
	mr = buf ? rdma_reg_msgs(id, buf, len) : NULL;
	if (!mr || rdma_post_recv(id, NULL, buf, len, mr) ||
	    rdma_accept(id, NULL)) {
		perror("setup");
		return 1;
	}
	if (rdma_get_recv_comp(id, &wc) != 1) {
		perror("rdma_get_recv_comp");
		return 1;
	}
	printf("receive: status %d (%s), %u octets of %zu\n", wc.status,
	       ibv_wc_status_str(wc.status), wc.byte_len, len);
	if (wc.status != IBV_WC_SUCCESS || wc.byte_len != len) {
		printf("result: FAIL\n");
		return 1;
	}
	for (i = 0; i < len; i++) {
		if (buf[i] != pattern(i)) {
			printf("octet %zu: %u, not %u\nresult: FAIL\n", i,
			       buf[i], pattern(i));
			return 1;
		}
	}
	printf("result: ok\n");
	rdma_disconnect(id);
	return 0;
}

static int client(const char *addr, const char *port, size_t len)
{
	struct rdma_cm_id *id = endpoint(addr, port, 0);
	unsigned char *buf = malloc(len);
	struct ibv_wc wc;
	struct ibv_mr *mr;
	size_t i;

	if (!id || !buf)
		return 1;
	for (i = 0; i < len; i++)
		buf[i] = pattern(i);
	mr = rdma_reg_msgs(id, buf, len);
	if (!mr || rdma_connect(id, NULL)) {
		perror("connect");
		return 1;
	}
	if (rdma_post_send(id, NULL, buf, len, mr, 0) ||
	    rdma_get_send_comp(id, &wc) != 1 || wc.status != IBV_WC_SUCCESS) {
		printf("send failed\nresult: FAIL\n");
		return 1;
	}
	rdma_disconnect(id);
	printf("result: ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	size_t len;

	if (argc != 5) {
		fprintf(stderr, "usage: %s server|client ADDR PORT LEN\n",
			argv[0]);
		return 2;
	}
	len = strtoul(argv[4], NULL, 0);
	if (!len)
		return 2;
	if (!strcmp(argv[1], "server"))
		return server(argv[2], argv[3], len);
	return client(argv[2], argv[3], len);
}
