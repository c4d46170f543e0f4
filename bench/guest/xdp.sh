#!/bin/sh
# Guest side of the XDP benchmark: pktgen on the generator NIC floods the
# XDP NIC through a QEMU hub while dfp_xdp runs ACTION (drop, tx, redirect to
# the third NIC) for XDP_SECONDS and counts the frames its program saw.
# One line per action: "xdp action=<a> packets=<n> secs=<s> pps=<p>", after
# one "xdp generator group=<type>" line. For tx, /out/xdp-tx.ios: the frames
# the XDP NIC sent back in the step and its PCI address, from which make
# bench counts the vIOMMU's invalidations and waits per frame, as for
# bench/guest/tx.sh. (A redirect's frames are not in the third NIC's
# tx_packets.)
. ${DFP_SHARE:-/usr/share/dfp}/bench/lib.sh
secs=${XDP_SECONDS:-5}
out=${DFP_OUT:-/out}

# The generator NIC is held in passthrough (XDP_GEN_TYPE, see
# hold_generator), so that its own transmit mappings do not change with the
# mode measured.
g=$(hold_generator) || exit 1
echo "xdp generator $g"
xdp=$(ifname_by_mac $NIC_XDP_MAC) && gen=$(ifname_by_mac $NIC_GEN_MAC) &&
	red=$(ifname_by_mac $NIC_REDIR_MAC) || { echo "NICs missing" >&2; exit 1; }
for i in $xdp $gen $red; do ip link set $i up; done

# pin_irqs IFACE CPU: the interrupts of IFACE's virtio device to CPU.
pin_irqs() {
	local v n
	v=$(basename "$(readlink "/sys/class/net/$1/device")")
	for n in $(awk -v v="$v-" 'index($NF, v) == 1 { sub(":", "", $1); print $1 }' /proc/interrupts); do
		echo "$2" > "/proc/irq/$n/smp_affinity_list" || return 1
	done
}
# Where the NICs' interrupts (and so their NAPI polls) run. pktgen's
# kpktgend_0 runs on CPU 0; XDP_IRQ_CPU (default 1, 0 in a guest of one
# CPU) takes the XDP NIC and the redirect target, GEN_IRQ_CPU (default 0)
# the generator. XDP_PIN=0 leaves the boot-time affinity.
[ "$(grep -c '^processor' /proc/cpuinfo)" -gt 1 ] && xcpu=1 || xcpu=0
if [ "${XDP_PIN:-1}" = 1 ]; then
	pin_irqs "$xdp" "${XDP_IRQ_CPU:-$xcpu}" && pin_irqs "$red" "${XDP_IRQ_CPU:-$xcpu}" &&
		pin_irqs "$gen" "${GEN_IRQ_CPU:-0}" || { echo "cannot pin the NICs' interrupts" >&2; exit 1; }
fi
rc=0
for action in "$@"; do
	a=$action
	[ "$a" = redirect ] && a=redirect:$red
	# pktgen count 0 runs until stopped; let it reach its rate first.
	ab_sync "xdp-$action"
	p0=$(cat /sys/class/net/$xdp/statistics/tx_packets)
	pktgen_send "$gen" $NIC_XDP_MAC 0 60 &
	pg=$!
	sleep 1
	dfp_xdp "$xdp" "$a" "$secs" || { echo "xdp action=$action error"; rc=1; }
	echo stop > /proc/net/pktgen/pgctrl
	wait $pg
	[ "$action" != tx ] || { echo "ios $(($(cat /sys/class/net/$xdp/statistics/tx_packets) - p0))"
		echo "pci $(pci_of_mac $NIC_XDP_MAC)"; } > $out/xdp-tx.ios
done
exit $rc
