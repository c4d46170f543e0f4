#!/bin/sh
# Guest side of the XDP benchmark: pktgen on the generator NIC floods the
# XDP NIC (QEMU hub), xdp-bench runs ACTION (drop, tx, redirect to the third
# NIC) and reports what its program saw. One line per action:
# "xdp action=<a> pps=<packets per second>".
. /usr/share/dfp/bench/lib.sh
secs=${XDP_SECONDS:-5}
xdp=$(ifname_by_mac $NIC_XDP_MAC) && gen=$(ifname_by_mac $NIC_GEN_MAC) &&
	red=$(ifname_by_mac $NIC_REDIR_MAC) || { echo "NICs missing" >&2; exit 1; }
for i in $xdp $gen $red; do ip link set $i up; done
rc=0
for action in "$@"; do
	case $action in
	redirect) cmd="xdp-bench redirect $xdp $red" ;;
	*) cmd="xdp-bench $action $xdp" ;;
	esac
	$cmd -i 1 > /tmp/xdp-$action.log 2>&1 &
	pid=$!
	sleep 1
	# pktgen runs until stopped: count 0 = forever.
	pktgen_send "$gen" $NIC_XDP_MAC 0 60 &
	pg=$!
	sleep "$secs"
	echo stop > /proc/net/pktgen/pgctrl
	wait $pg
	kill -INT $pid
	wait $pid
	cat /tmp/xdp-$action.log >&2
	rx=$(sed -n 's/.*Packets received *: *\([0-9,]*\).*/\1/p' /tmp/xdp-$action.log | tr -d , | tail -n1)
	dur=$(sed -n 's/.*Duration *: *\([0-9.]*\)s.*/\1/p' /tmp/xdp-$action.log | tail -n1)
	if [ -n "$rx" ] && [ -n "$dur" ]; then
		echo "xdp action=$action pps=$(awk -v r="$rx" -v d="$dur" 'BEGIN { printf "%.0f", r / d }') rx=$rx secs=$dur"
	else
		echo "xdp action=$action error"
		rc=1
	fi
done
exit $rc
