# Helpers for the dma-fastpath guest scripts (busybox sh). Source, do not run.

# ifname_by_mac MAC: the interface name of a NIC.
ifname_by_mac() {
	for d in /sys/class/net/*; do
		[ "$(cat "$d/address" 2>/dev/null)" = "$1" ] && { basename "$d"; return 0; }
	done
	return 1
}

# pktgen_send DEV DSTMAC COUNT SIZE [FRAGS]: send COUNT packets of SIZE bytes
# from DEV, their data in FRAGS page fragments besides the linear part (0: one
# piece; more than 0: virtio-net adds them with an indirect descriptor table).
pktgen_send() {
	local dev=$1 mac=$2 count=$3 size=$4 frags=${5:-0}
	echo "rem_device_all" > /proc/net/pktgen/kpktgend_0
	echo "add_device $dev" > /proc/net/pktgen/kpktgend_0
	local pg=/proc/net/pktgen/$dev
	echo "count $count" > $pg
	echo "pkt_size $size" > $pg
	echo "frags $frags" > $pg
	echo "delay 0" > $pg
	echo "dst 10.99.0.1" > $pg
	echo "dst_mac $mac" > $pg
	echo "start" > /proc/net/pktgen/pgctrl
}

NIC_XDP_MAC=${NIC_XDP_MAC:-52:54:00:00:00:10}
NIC_GEN_MAC=${NIC_GEN_MAC:-52:54:00:00:00:11}
NIC_REDIR_MAC=${NIC_REDIR_MAC:-52:54:00:00:00:12}
