#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# dfp_xdp end to end on veth pairs, on any machine: for each action (drop,
# pass, tx, redirect to a second pair) dfp_xdp's program on one end counts
# the frames dfp_send_frames sends from the other, and must count every one
# (and at most a few more: IPv6 is turned off on the test links, so the
# kernel sends nothing of its own there). Exit status 4 (skip) without
# root, the ip tool, BPF or veth. DFP_XDP_FRAMES (default 1000) per action.
ksft_skip=4
PATH=$(cd "$(dirname "$0")" && pwd):$PATH
n=${DFP_XDP_FRAMES:-1000}
a=dfpx$$a b=dfpx$$b c=dfpx$$c d=dfpx$$d
tmp=${TMPDIR:-/tmp}/dfp_xdp_veth.$$

skip() { echo "SKIP: $*"; exit $ksft_skip; }
[ "$(id -u)" = 0 ] || skip "needs root"
command -v ip > /dev/null || skip "no ip tool (iproute2 or busybox)"
[ -e /proc/sys/kernel/unprivileged_bpf_disabled ] ||
	skip "kernel without the bpf() syscall (CONFIG_BPF_SYSCALL)"
for p in dfp_xdp dfp_send_frames; do
	command -v $p > /dev/null || { echo "FAIL: $p not built"; exit 1; }
done
# The other end of veth $1 (busybox's ip ignores "peer name" and names it vethN).
peer_of() {
	local i idx
	idx=$(cat /sys/class/net/$1/iflink) || return 1
	for i in /sys/class/net/*; do
		[ "$(cat $i/ifindex)" = "$idx" ] && { echo ${i##*/}; return 0; }
	done
	return 1
}
cleanup() { ip link del $a 2> /dev/null; ip link del $c 2> /dev/null; rm -f $tmp.*; }
trap cleanup EXIT
ip link add $a type veth peer name $b 2> /dev/null ||
	skip "cannot create a veth pair (CONFIG_VETH)"
ip link add $c type veth peer name $d || exit 1
b=$(peer_of $a) && d=$(peer_of $c) || { echo "FAIL: no veth peers"; exit 1; }
for i in $a $b $c $d; do
	f=/proc/sys/net/ipv6/conf/$i/disable_ipv6
	[ -w $f ] && echo 1 > $f
	ip link set $i up || exit 1
done
mac=$(cat /sys/class/net/$a/address)

rc=0
for action in drop pass tx redirect:$c; do
	rm -f $tmp.out $tmp.err
	dfp_xdp $a $action 60 > $tmp.out 2> $tmp.err &
	pid=$!
	i=0
	while ! grep -qs attached $tmp.err && kill -0 $pid 2> /dev/null &&
	      [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if ! grep -qs attached $tmp.err; then
		cat $tmp.err
		kill $pid 2> /dev/null
		wait $pid
		echo "FAIL: $action: dfp_xdp did not attach"
		rc=1
		continue
	fi
	dfp_send_frames $b $mac $n || rc=1
	sleep 0.5
	kill -TERM $pid
	wait $pid || { cat $tmp.err; rc=1; }
	cat $tmp.out
	seen=$(sed -n 's/.* packets=\([0-9]*\) .*/\1/p' $tmp.out)
	if [ -n "$seen" ] && [ "$seen" -ge $n ] && [ "$seen" -le $((n + 10)) ]; then
		echo "ok: $action: sent $n frames, the program counted $seen"
	else
		echo "FAIL: $action: sent $n frames, the program counted ${seen:-none}"
		rc=1
	fi
done
exit $rc
