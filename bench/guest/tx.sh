#!/bin/sh
# Guest side of the transmit benchmark: the XDP NIC, in the IOMMU mode the
# guest was booted in, sends for TX_SECONDS (after a second to get going)
#   frags: pktgen frames of 1400 bytes in four pieces (the linear part and
#          three page fragments), which virtio-net adds with an indirect
#          descriptor table, to a MAC address no NIC of the hub has;
#   tcp:   one TCP stream (busybox nc, bytes from /dev/zero) to the
#          generator NIC, held in passthrough (hold_generator) and moved
#          into a network namespace of its own, so that the stream crosses
#          the QEMU hub instead of the loopback.
# WORKLOADS picks (default "frags tcp"). One line per workload:
# "tx workload=<w> packets=<n> bytes=<b> secs=<s> pps=<p> mbps=<m>", counted
# by the sending NIC, after one "tx generator group=<type>" line; and
# /out/tx-<w>.ios, the packets it sent in the step and its PCI address, from
# which make bench counts the vIOMMU's invalidations and waits per packet.
. ${DFP_SHARE:-/usr/share/dfp}/bench/lib.sh
secs=${TX_SECONDS:-5}
out=${DFP_OUT:-/out}
NOBODY_MAC=52:54:00:00:00:99

g=$(hold_generator) || exit 1
echo "tx generator $g"
xdp=$(ifname_by_mac $NIC_XDP_MAC) && gen=$(ifname_by_mac $NIC_GEN_MAC) ||
	{ echo "NICs missing" >&2; exit 1; }
# Both: a hub port whose NIC has no receive buffers (down) stalls the hub.
ip link set $xdp up && ip link set $gen up || exit 1
stats=/sys/class/net/$xdp/statistics

# measure WORKLOAD: the step, counted by the sending NIC; the traffic runs.
measure() {
	local p0 b0 t0 p1 b1 t1
	ab_sync "tx-$1"
	p0=$(cat $stats/tx_packets) b0=$(cat $stats/tx_bytes) t0=$(cut -d' ' -f1 /proc/uptime)
	sleep $secs
	p1=$(cat $stats/tx_packets) b1=$(cat $stats/tx_bytes) t1=$(cut -d' ' -f1 /proc/uptime)
	{ echo "ios $((p1 - p0))"; echo "pci $(pci_of_mac $NIC_XDP_MAC)"; } > $out/tx-$1.ios
	awk -v w=$1 -v p=$((p1 - p0)) -v b=$((b1 - b0)) -v t0=$t0 -v t1=$t1 'BEGIN {
		s = t1 - t0
		printf "tx workload=%s packets=%d bytes=%d secs=%.2f pps=%d mbps=%.1f\n",
			w, p, b, s, p / s, b * 8 / s / 1e6 }'
}

tx_frags() {
	pktgen_send $xdp $NOBODY_MAC 0 1400 3 &
	sleep 1
	measure frags
	echo stop > /proc/net/pktgen/pgctrl
	wait
}

# netns_of_own PID: PID runs in a network namespace other than ours.
netns_of_own() {
	[ "$(readlink /proc/$1/ns/net)" != "$(readlink /proc/self/ns/net)" ]
}

# listening PID: a TCP socket listens on port 5001 in PID's network namespace
# (an IPv6 one where the kernel has IPv6: nc then listens on ::).
listening() {
	nsenter -t $1 -n cat /proc/net/tcp /proc/net/tcp6 2> /dev/null |
		grep -qE ':1389 0+:0000 0A'
}

tx_tcp() {
	local ns rc=0 recv send
	unshare -n true 2> /dev/null || {
		echo "tx workload=tcp skipped: no network namespaces (CONFIG_NET_NS)"; return 0; }
	# A network namespace held by a sleeping process; the generator NIC
	# goes back to the initial one when it ends.
	unshare -n sleep 3600 &
	ns=$!
	wait_for netns_of_own $ns &&
		ip link set $gen netns $ns &&
		nsenter -t $ns -n sh -c "ip link set lo up && ip link set $gen up &&
			ip addr add 10.99.1.2/24 dev $gen" &&
		ip addr add 10.99.1.1/24 dev $xdp || { kill $ns; return 1; }
	# The receiver reads until the sender closes (a plain nc -l would close
	# at the end of its own stdin).
	printf '#!/bin/sh\nexec cat > /dev/null\n' > /tmp/tx-sink
	chmod +x /tmp/tx-sink
	nsenter -t $ns -n nc -l -p 5001 -e /tmp/tx-sink &
	recv=$!
	wait_for listening $ns || rc=1
	cat /dev/zero | nc 10.99.1.2 5001 &
	send=$!
	sleep 1
	kill -0 $send 2> /dev/null || { echo "tx tcp: no connection" >&2; rc=1; }
	[ $rc = 1 ] || measure tcp
	kill $send $recv $ns 2> /dev/null
	wait
	ip addr del 10.99.1.1/24 dev $xdp
	wait_for ifname_by_mac $NIC_GEN_MAC > /dev/null
	return $rc
}

rc=0
for w in ${WORKLOADS:-frags tcp}; do
	case $w in
	frags) tx_frags || { echo "tx workload=frags error"; rc=1; } ;;
	tcp) tx_tcp || { echo "tx workload=tcp error"; rc=1; } ;;
	*) echo "tx: unknown workload $w" >&2; rc=1 ;;
	esac
done
exit $rc
