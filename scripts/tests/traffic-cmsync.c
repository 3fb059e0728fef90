// SPDX-License-Identifier: GPL-2.0
/*
 * Guest helper of traffic.sh, preloaded (LD_PRELOAD) into both ends of a
 * perftest run with -R. perftest's server calls rdma_listen() only after
 * its socket handshake with the client, which connects right after that
 * same handshake; under emulation the client often comes first, is
 * refused, and perftest 4.5's retry then crashes in librdmacm (perftest
 * issue #93). With TRAFFIC_CM_SYNC=FILE in the environment, a successful
 * rdma_listen() creates FILE, and rdma_connect() waits (up to 60 s) until
 * FILE exists. Both ends run in one guest, so they share the file.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	typeof(rdma_listen) *real = dlsym(RTLD_NEXT, "rdma_listen");
	const char *flag = getenv("TRAFFIC_CM_SYNC");
	int ret, fd;

	ret = real(id, backlog);
	if (!ret && flag) {
		fd = open(flag, O_CREAT | O_WRONLY, 0644);
		if (fd >= 0)
			close(fd);
	}
	return ret;
}

int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *param)
{
	typeof(rdma_connect) *real = dlsym(RTLD_NEXT, "rdma_connect");
	const char *flag = getenv("TRAFFIC_CM_SYNC");
	int i;

	for (i = 0; flag && i < 600 && access(flag, F_OK); i++)
		usleep(100000);
	return real(id, param);
}
