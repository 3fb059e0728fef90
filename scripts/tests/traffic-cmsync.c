// SPDX-License-Identifier: GPL-2.0
/*
 * Guest helper of traffic.sh and perf-lib.sh, preloaded (LD_PRELOAD) into
 * both ends of a perftest run with -R. Such a run sets up two rdma_cm
 * connections, each after a socket handshake of the two ends: the server
 * calls rdma_listen() only after that handshake, and the client connects
 * right after the same handshake; under emulation the client often comes
 * first, is refused, and perftest 4.5's retry then crashes in librdmacm
 * (perftest issue #93). With TRAFFIC_CM_SYNC=FILE in the environment,
 * every successful rdma_listen() appends one octet to FILE, and a
 * process's N-th rdma_connect() waits (up to 60 s) until FILE holds N
 * octets: the N-th connection waits for the N-th listen. Both ends run in
 * one guest, so they share the file. One connection per listen, as
 * perftest makes them without -q.
 *
 * observe.sh preloads it into an rping client with TRAFFIC_CM_HOLD=FILE
 * too: the client's connection, once established, stays idle (its event
 * handed over only when FILE exists, or after 45 s) while the script
 * reads both ends' QP attributes; otherwise the pings end the connection
 * within a second of its start, and a slow read finds no QP.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	typeof(rdma_listen) *real = dlsym(RTLD_NEXT, "rdma_listen");
	const char *flag = getenv("TRAFFIC_CM_SYNC");
	int ret, fd;

	ret = real(id, backlog);
	if (!ret && flag) {
		fd = open(flag, O_CREAT | O_WRONLY | O_APPEND, 0644);
		if (fd >= 0) {
			/* short of an octet, the connect waits out its 60 s */
			if (write(fd, "l", 1) != 1)
				perror("traffic-cmsync: write");
			close(fd);
		}
	}
	return ret;
}

/* the octets in FILE: the server's listens so far */
static long listens(const char *flag)
{
	struct stat st;

	return stat(flag, &st) ? 0 : (long)st.st_size;
}

int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *param)
{
	typeof(rdma_connect) *real = dlsym(RTLD_NEXT, "rdma_connect");
	const char *flag = getenv("TRAFFIC_CM_SYNC");
	static long connects;
	int i;

	connects++;
	for (i = 0; flag && i < 600 && listens(flag) < connects; i++)
		usleep(100000);
	return real(id, param);
}

int rdma_get_cm_event(struct rdma_event_channel *channel,
		      struct rdma_cm_event **event)
{
	typeof(rdma_get_cm_event) *real = dlsym(RTLD_NEXT, "rdma_get_cm_event");
	const char *hold = getenv("TRAFFIC_CM_HOLD");
	struct stat st;
	int ret, i;

	ret = real(channel, event);
	if (ret || !hold || (*event)->event != RDMA_CM_EVENT_ESTABLISHED)
		return ret;
	for (i = 0; i < 450 && stat(hold, &st); i++)
		usleep(100000);
	return ret;
}
