// SPDX-License-Identifier: GPL-2.0
/*
 * The XDP programs of dfp_xdp (dfp_xdp.c loads them): dfp_xdp_count counts
 * every frame in slot 0 of a per-CPU array, then returns the action the
 * loader chose (XDP_REDIRECT: bpf_redirect() to the target's ifindex);
 * dfp_xdp_pass returns XDP_PASS, for the redirect target.
 *
 * Built with clang -target bpf -O2 -g; no CO-RE, so the kernel needs no BTF
 * of its own (CONFIG_DEBUG_INFO_BTF).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} dfp_count SEC(".maps");

/* Set by the loader before the load (read-only to the program). */
const volatile __u32 dfp_action = XDP_PASS;
const volatile __u32 dfp_redirect_ifindex;

SEC("xdp")
int dfp_xdp_count(struct xdp_md *ctx)
{
	__u32 key = 0;
	__u64 *n;

	n = bpf_map_lookup_elem(&dfp_count, &key);
	if (n)
		(*n)++;
	if (dfp_action == XDP_REDIRECT)
		return bpf_redirect(dfp_redirect_ifindex, 0);
	return dfp_action;
}

SEC("xdp")
int dfp_xdp_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
