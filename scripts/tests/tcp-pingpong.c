// SPDX-License-Identifier: GPL-2.0
/*
 * A TCP ping-pong whose two ends spin, for bench.sh's tcp_lat: what a
 * round trip of SIZE octets costs plain TCP on the path the RDMA
 * latency runs take. perftest's latency tests spin in user space (on a
 * completion queue, or on memory for ib_write_lat); here each end spins
 * on recv(MSG_DONTWAIT), so neither ever sleeps in the kernel.
 *
 *   tcp-pingpong -s ADDR PORT              server: one connection, each
 *                                          message echoed until the
 *                                          client closes
 *   tcp-pingpong ADDR PORT SIZE COUNT      client: COUNT round trips of
 *                                          SIZE octets, each echo
 *                                          compared with what was sent
 *
 * The client ends with "SIZE COUNT" on a line of its own, and exits
 * non-zero on any error or a wrong echo. Timing is the caller's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_SIZE 65536

/* spin until len octets arrived; 0 when done, 1 at a clean end of stream
 * before the first octet, -1 on an error
 */
static int recv_all(int fd, unsigned char *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = recv(fd, buf + got, len - got, MSG_DONTWAIT);

		if (n > 0) {
			got += (size_t)n;
		} else if (n == 0) {
			return got ? -1 : 1;
		} else if (errno != EAGAIN && errno != EWOULDBLOCK &&
			   errno != EINTR) {
			perror("recv");
			return -1;
		}
	}
	return 0;
}

static int send_all(int fd, const unsigned char *buf, size_t len)
{
	size_t sent = 0;

	while (sent < len) {
		ssize_t n = send(fd, buf + sent, len - sent, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("send");
			return -1;
		}
		sent += (size_t)n;
	}
	return 0;
}

static int addr_of(const char *ip, const char *port, struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((unsigned short)atoi(port));
	if (inet_pton(AF_INET, ip, &sa->sin_addr) != 1) {
		fprintf(stderr, "tcp-pingpong: bad address %s\n", ip);
		return -1;
	}
	return 0;
}

static void no_delay(int fd)
{
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		perror("TCP_NODELAY");
}

static int server(const char *ip, const char *port)
{
	static unsigned char buf[MAX_SIZE];
	struct sockaddr_in sa;
	int lfd, fd, one = 1, rc;
	size_t size;
	unsigned int hdr;

	if (addr_of(ip, port, &sa))
		return 2;
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 ||
	    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1)) {
		perror("listen");
		return 1;
	}
	fd = accept(lfd, NULL, NULL);
	if (fd < 0) {
		perror("accept");
		return 1;
	}
	close(lfd);
	no_delay(fd);
	/* the client's first four octets give the message size */
	rc = recv_all(fd, (unsigned char *)&hdr, sizeof(hdr));
	size = ntohl(hdr);
	if (rc || size < sizeof(hdr) || size > MAX_SIZE) {
		fprintf(stderr, "tcp-pingpong: no or bad size\n");
		return 1;
	}
	for (;;) {
		rc = recv_all(fd, buf, size);
		if (rc == 1)
			break;
		if (rc || send_all(fd, buf, size))
			return 1;
	}
	close(fd);
	return 0;
}

static int client(const char *ip, const char *port, size_t size,
		  unsigned long count)
{
	static unsigned char out[MAX_SIZE], in[MAX_SIZE];
	struct sockaddr_in sa;
	unsigned long i;
	unsigned int hdr = htonl((unsigned int)size);
	int fd;

	if (addr_of(ip, port, &sa))
		return 2;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("connect");
		return 1;
	}
	no_delay(fd);
	if (send_all(fd, (unsigned char *)&hdr, sizeof(hdr)))
		return 1;
	for (i = 0; i < count; i++) {
		/* every message differs from the one before */
		memset(out, (int)(i & 0xff), size);
		memcpy(out, &i, sizeof(i) < size ? sizeof(i) : size);
		if (send_all(fd, out, size) || recv_all(fd, in, size))
			return 1;
		if (memcmp(in, out, size)) {
			fprintf(stderr, "tcp-pingpong: echo %lu differs\n", i);
			return 1;
		}
	}
	close(fd);
	printf("%zu %lu\n", size, count);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "-s"))
		return server(argv[2], argv[3]);
	if (argc == 5) {
		size_t size = strtoul(argv[3], NULL, 0);

		if (size >= sizeof(unsigned long) && size <= MAX_SIZE)
			return client(argv[1], argv[2], size,
				      strtoul(argv[4], NULL, 0));
	}
	fprintf(stderr,
		"usage: tcp-pingpong -s ADDR PORT | ADDR PORT SIZE COUNT\n");
	return 2;
}
