// SPDX-License-Identifier: GPL-2.0
/*
 * dfp_xdp: attach a minimal XDP program to a NIC, count the packets it sees
 * and report packets per second. The programs are BPF C (dfp_xdp.bpf.c,
 * clang -target bpf), embedded here as a bpftool skeleton and loaded with
 * libbpf; the program is attached with a BPF link (BPF_LINK_CREATE). No
 * CO-RE: it needs BPF_SYSCALL, not the kernel's own BTF.
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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "dfp_xdp.skel.h"

/* libbpf's warnings (a verifier log among them) only, on stderr. */
static int print_warnings(enum libbpf_print_level level, const char *fmt,
			  va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

/* The frames counted so far: slot 0 of the per-CPU array, summed. */
static unsigned long long map_sum(struct bpf_map *map)
{
	unsigned long long *vals, sum = 0;
	int i, ncpu = libbpf_num_possible_cpus();
	__u32 key = 0;

	if (ncpu <= 0)
		return 0;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return 0;
	if (!bpf_map__lookup_elem(map, &key, sizeof(key), vals,
				  ncpu * sizeof(*vals), 0))
		for (i = 0; i < ncpu; i++)
			sum += vals[i];
	free(vals);
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
	struct bpf_link *link = NULL, *pass_link = NULL;
	struct dfp_xdp_bpf *skel;
	int ifindex, target = 0, action, err, rc = 1;
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

	libbpf_set_print(print_warnings);
	skel = dfp_xdp_bpf__open();
	if (!skel) {
		perror("dfp_xdp: open the BPF object");
		return 1;
	}
	skel->rodata->dfp_action = action;
	skel->rodata->dfp_redirect_ifindex = target;
	bpf_program__set_autoload(skel->progs.dfp_xdp_pass, target != 0);
	err = dfp_xdp_bpf__load(skel);
	if (err) {
		fprintf(stderr, "dfp_xdp: load the XDP programs: %s\n",
			strerror(-err));
		goto out;
	}
	if (target) {
		pass_link = bpf_program__attach_xdp(skel->progs.dfp_xdp_pass,
						    target);
		if (!pass_link) {
			perror("dfp_xdp: attach XDP_PASS to the redirect target");
			goto out;
		}
	}
	link = bpf_program__attach_xdp(skel->progs.dfp_xdp_count, ifindex);
	if (!link) {
		perror("dfp_xdp: BPF_LINK_CREATE");
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "dfp_xdp: attached to %s, action %s, %.1f s\n", argv[1], argv[2], secs);

	start_count = map_sum(skel->maps.dfp_count);
	t0 = now();
	while (!stop && now() - t0 < secs)
		usleep(10000);
	count = map_sum(skel->maps.dfp_count) - start_count;
	t = now() - t0;
	printf("xdp action=%s packets=%llu secs=%.3f pps=%.0f\n",
	       strncmp(argv[2], "redirect:", 9) ? argv[2] : "redirect",
	       count, t, count / t);
	rc = 0;
out:
	/* Destroying the links detaches the programs. */
	bpf_link__destroy(link);
	bpf_link__destroy(pass_link);
	dfp_xdp_bpf__destroy(skel);
	return rc;
}
