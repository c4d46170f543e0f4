#!/bin/sh
# Guest side of the XDP benchmark: pktgen on the generator NIC floods the
# XDP NIC through a QEMU hub while dfp_xdp runs ACTION (drop, tx, redirect to
# the third NIC) for XDP_SECONDS and counts the frames its program saw.
# One line per action: "xdp action=<a> packets=<n> secs=<s> pps=<p>".
. /usr/share/dfp/bench/lib.sh
secs=${XDP_SECONDS:-5}
xdp=$(ifname_by_mac $NIC_XDP_MAC) && gen=$(ifname_by_mac $NIC_GEN_MAC) &&
	red=$(ifname_by_mac $NIC_REDIR_MAC) || { echo "NICs missing" >&2; exit 1; }
for i in $xdp $gen $red; do ip link set $i up; done
rc=0
for action in "$@"; do
	a=$action
	[ "$a" = redirect ] && a=redirect:$red
	# pktgen count 0 runs until stopped; let it reach its rate first.
	pktgen_send "$gen" $NIC_XDP_MAC 0 60 &
	pg=$!
	sleep 1
	dfp_xdp "$xdp" "$a" "$secs" || { echo "xdp action=$action error"; rc=1; }
	echo stop > /proc/net/pktgen/pgctrl
	wait $pg
done
exit $rc
