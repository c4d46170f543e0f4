// SPDX-License-Identifier: GPL-2.0
/*
 * dfp_xdp: attach a minimal XDP program to a NIC, count the packets it sees
 * and report packets per second. Needs no libbpf, no clang and no kernel
 * BTF: the program is assembled here from BPF instructions and attached
 * with BPF_LINK_CREATE, so it works on any kernel with BPF_SYSCALL.
 *
 *   dfp_xdp IFNAME drop|pass|tx|redirect:IFNAME2 SECONDS
 *
 * Prints one line: "xdp action=<a> packets=<n> secs=<s> pps=<p>".
 * Redirect also attaches an XDP_PASS program to the target NIC, as drivers
 * (virtio-net among them) only accept redirected frames when XDP is set up.
 */
#include <errno.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
			    .off = (o), .imm = (i) })

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int map_create(void)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_PERCPU_ARRAY;
	a.key_size = 4;
	a.value_size = 8;
	a.max_entries = 1;
	return sys_bpf(BPF_MAP_CREATE, &a);
}

/*
 * Count into the per-CPU array slot 0, then return the action. For
 * redirect, return bpf_redirect(ifindex, 0).
 */
static int prog_load(int map_fd, int action, int redirect_ifindex)
{
	struct bpf_insn insns[32];
	char log[4096] = "";
	union bpf_attr a;
	int n = 0, fd;

	if (map_fd >= 0) {
		/* *(u32 *)(r10 - 4) = 0; r2 = r10 - 4 */
		insns[n++] = INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, 0);
		insns[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0);
		insns[n++] = INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4);
		/* r1 = map */
		insns[n++] = INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map_fd);
		insns[n++] = INSN(0, 0, 0, 0, 0);
		insns[n++] = INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem);
		/* if (r0) (*(u64 *)r0)++ */
		insns[n++] = INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 3, 0);
		insns[n++] = INSN(BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_1, BPF_REG_0, 0, 0);
		insns[n++] = INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_1, 0, 0, 1);
		insns[n++] = INSN(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_0, BPF_REG_1, 0, 0);
	}
	if (action == XDP_REDIRECT) {
		insns[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, redirect_ifindex);
		insns[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, 0);
		insns[n++] = INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_redirect);
	} else {
		insns[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, action);
	}
	insns[n++] = INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_XDP;
	a.insns = (unsigned long)insns;
	a.insn_cnt = n;
	a.license = (unsigned long)"GPL";
	a.log_buf = (unsigned long)log;
	a.log_size = sizeof(log);
	a.log_level = 1;
	a.expected_attach_type = BPF_XDP;
	fd = sys_bpf(BPF_PROG_LOAD, &a);
	if (fd < 0)
		fprintf(stderr, "dfp_xdp: BPF_PROG_LOAD: %s\n%s\n", strerror(errno), log);
	return fd;
}

static int link_xdp(int prog_fd, int ifindex)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = prog_fd;
	a.link_create.target_ifindex = ifindex;
	a.link_create.attach_type = BPF_XDP;
	return sys_bpf(BPF_LINK_CREATE, &a);
}

static unsigned long long map_sum(int map_fd)
{
	unsigned long long vals[512], sum = 0;
	union bpf_attr a;
	__u32 key = 0;
	long i, ncpu = sysconf(_SC_NPROCESSORS_CONF);

	if (ncpu > 512)
		ncpu = 512;
	memset(vals, 0, sizeof(vals));
	memset(&a, 0, sizeof(a));
	a.map_fd = map_fd;
	a.key = (unsigned long)&key;
	a.value = (unsigned long)vals;
	if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &a))
		return 0;
	for (i = 0; i < ncpu; i++)
		sum += vals[i];
	return sum;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int ifindex, target = 0, action, map_fd, prog_fd, link_fd;
	int pass_fd, pass_link = -1;
	unsigned long long start_count, count;
	double secs, t0, t;

	if (argc != 4) {
		fprintf(stderr, "usage: %s IFNAME drop|pass|tx|redirect:IFNAME2 SECONDS\n",
			argv[0]);
		return 2;
	}
	ifindex = if_nametoindex(argv[1]);
	if (!ifindex) {
		fprintf(stderr, "dfp_xdp: no interface %s\n", argv[1]);
		return 2;
	}
	if (!strcmp(argv[2], "drop")) {
		action = XDP_DROP;
	} else if (!strcmp(argv[2], "pass")) {
		action = XDP_PASS;
	} else if (!strcmp(argv[2], "tx")) {
		action = XDP_TX;
	} else if (!strncmp(argv[2], "redirect:", 9)) {
		action = XDP_REDIRECT;
		target = if_nametoindex(argv[2] + 9);
		if (!target) {
			fprintf(stderr, "dfp_xdp: no interface %s\n", argv[2] + 9);
			return 2;
		}
	} else {
		fprintf(stderr, "dfp_xdp: unknown action %s\n", argv[2]);
		return 2;
	}
	secs = atof(argv[3]);
	if (secs <= 0) {
		fprintf(stderr, "dfp_xdp: bad duration %s\n", argv[3]);
		return 2;
	}

	map_fd = map_create();
	if (map_fd < 0) {
		perror("dfp_xdp: BPF_MAP_CREATE");
		return 1;
	}
	if (target) {
		pass_fd = prog_load(-1, XDP_PASS, 0);
		if (pass_fd < 0)
			return 1;
		pass_link = link_xdp(pass_fd, target);
		if (pass_link < 0) {
			perror("dfp_xdp: attach XDP_PASS to the redirect target");
			return 1;
		}
	}
	prog_fd = prog_load(map_fd, action, target);
	if (prog_fd < 0)
		return 1;
	link_fd = link_xdp(prog_fd, ifindex);
	if (link_fd < 0) {
		perror("dfp_xdp: BPF_LINK_CREATE");
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "dfp_xdp: attached to %s, action %s, %.1f s\n", argv[1], argv[2], secs);

	start_count = map_sum(map_fd);
	t0 = now();
	while (!stop && now() - t0 < secs)
		usleep(10000);
	count = map_sum(map_fd) - start_count;
	t = now() - t0;
	printf("xdp action=%s packets=%llu secs=%.3f pps=%.0f\n",
	       strncmp(argv[2], "redirect:", 9) ? argv[2] : "redirect",
	       count, t, count / t);
	/* Closing the links detaches the programs. */
	close(link_fd);
	if (pass_link >= 0)
		close(pass_link);
	return 0;
}
