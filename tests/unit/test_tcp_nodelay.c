/*
 * test_tcp_nodelay.c - mpi/tcp_nodelay.h: TCP_NODELAY is set on this
 * process's TCP stream sockets (connected and listening, IPv4), and on
 * nothing else: a Unix stream socket, a UDP socket, a pipe and a file keep
 * what they had; TRAIN_MPI_NODELAY=0 turns it off.
 */
#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include "unit.h"
#include "tcp_nodelay.h"

static int nodelay(int fd)
{
	int on = -1;
	socklen_t length = sizeof on;
	ck_assert_int_eq(getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, &length), 0);
	return on != 0;
}

/* A loopback TCP connection: *listener, *client and *server (accepted). */
static void loopback_pair(int *listener, int *client, int *server)
{
	*listener = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(*listener, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = 0 };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(*listener, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(listen(*listener, 1), 0);
	socklen_t length = sizeof a;
	ck_assert_int_eq(getsockname(*listener, (struct sockaddr *)&a, &length), 0);
	*client = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(*client, 0);
	ck_assert_int_eq(connect(*client, (struct sockaddr *)&a, sizeof a), 0);
	*server = accept(*listener, NULL, NULL);
	ck_assert_int_ge(*server, 0);
}

START_TEST(sets_tcp_and_nothing_else)
{
	unsetenv("TRAIN_MPI_NODELAY");
	int listener, client, server;
	loopback_pair(&listener, &client, &server);
	ck_assert(!nodelay(client));	/* Linux's default: Nagle on */
	ck_assert(!nodelay(server));
	int unix_pair[2], pipe_ends[2];
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, unix_pair), 0);
	ck_assert_int_eq(pipe(pipe_ends), 0);
	int udp = socket(AF_INET, SOCK_DGRAM, 0);
	ck_assert_int_ge(udp, 0);
	int file = open("/dev/null", O_RDONLY);
	ck_assert_int_ge(file, 0);
	int flags_before = fcntl(file, F_GETFL);

	ck_assert_int_eq(tcp_nodelay_all(), 3);	/* listener, client, server */
	ck_assert(nodelay(client));
	ck_assert(nodelay(server));
	ck_assert(nodelay(listener));
	/* the Unix socket has no TCP level to set, the UDP one no Nagle */
	int on = 0;
	socklen_t length = sizeof on;
	ck_assert_int_ne(getsockopt(unix_pair[0], IPPROTO_TCP, TCP_NODELAY, &on, &length), 0);
	ck_assert_int_eq(fcntl(file, F_GETFL), flags_before);
	/* a second call finds them all set already */
	ck_assert_int_eq(tcp_nodelay_all(), 0);
	/* and the connection still carries bytes */
	ck_assert_int_eq(write(client, "ab", 2), 2);
	char got[2];
	ck_assert_int_eq(read(server, got, 2), 2);
	ck_assert(got[0] == 'a' && got[1] == 'b');
	int fds[] = { listener, client, server, unix_pair[0], unix_pair[1],
		pipe_ends[0], pipe_ends[1], udp, file };
	for (size_t i = 0; i < sizeof fds / sizeof *fds; i++)
		close(fds[i]);
}
END_TEST

START_TEST(turned_off_by_the_environment)
{
	int listener, client, server;
	loopback_pair(&listener, &client, &server);
	setenv("TRAIN_MPI_NODELAY", "0", 1);
	ck_assert_int_eq(tcp_nodelay_all(), 0);
	ck_assert(!nodelay(client));
	setenv("TRAIN_MPI_NODELAY", "1", 1);	/* anything else leaves it on */
	ck_assert_int_eq(tcp_nodelay_all(), 3);
	ck_assert(nodelay(client));
	unsetenv("TRAIN_MPI_NODELAY");
	close(listener);
	close(client);
	close(server);
}
END_TEST

static Suite *tcp_nodelay_suite(void)
{
	Suite *s = suite_create("tcp_nodelay");
	TCase *tc = tcase_create("sockets");
	tcase_add_test(tc, sets_tcp_and_nothing_else);
	tcase_add_test(tc, turned_off_by_the_environment);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(tcp_nodelay_suite)
