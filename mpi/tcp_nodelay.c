/*
 * tcp_nodelay.c - TCP_NODELAY on this process's TCP sockets (see
 * tcp_nodelay.h for why).
 */
#define _POSIX_C_SOURCE 200809L

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "tcp_nodelay.h"

/* Enough for an MPI library's start-up sockets; the loop costs ~0.3 ms. */
enum { DESCRIPTORS_LOOKED_AT = 1024 };

/* Whether fd is a connected-or-listening TCP socket (IPv4 or IPv6). */
static int is_tcp_socket(int fd)
{
	int type;
	socklen_t length = sizeof type;
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0 || type != SOCK_STREAM)
		return 0;	/* not a socket (EBADF, ENOTSOCK), or not a stream */
	struct sockaddr_storage address;
	socklen_t address_length = sizeof address;
	if (getsockname(fd, (struct sockaddr *)&address, &address_length) != 0)
		return 0;
	return address.ss_family == AF_INET || address.ss_family == AF_INET6;
}

int tcp_nodelay_all(void)
{
	const char *off = getenv("TRAIN_MPI_NODELAY");
	if (off && strcmp(off, "0") == 0)
		return 0;
	int changed = 0;
	for (int fd = 0; fd < DESCRIPTORS_LOOKED_AT; fd++) {
		if (!is_tcp_socket(fd))
			continue;
		int on = 0;
		socklen_t length = sizeof on;
		if (getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, &length) == 0 && on)
			continue;	/* already set (Open MPI's TCP transport sets its own) */
		on = 1;
		changed += setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) == 0;
	}
	return changed;
}
