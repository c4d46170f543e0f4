#!/bin/sh
# Guest side of bench/iommu-modes: strict, lazy and passthrough in ONE boot.
# The IOMMU groups of the NVMe disk and of the three virtio-net NICs are
# switched at run time (unbind the driver, write the group's type, bind
# again), so the modes are compared on the same QEMU instance, same guest
# memory layout, minutes apart at most. Each round runs every mode once, in
# an order rotated per round; in each mode every fio job of FIO_JOBS
# (JSON to /out/r<round>-<mode>-<job>.json) and, with XDP_ACTIONS, the XDP
# benchmark (bench/guest/xdp.sh; its lines to /out/r<round>-<mode>-xdp.txt).
# Environment: ROUNDS, RUNTIME, RAMP, FIO_JOBS (sections of fastpath.fio,
# may be empty), XDP_ACTIONS, XDP_SECONDS, MODES (group types: DMA DMA-FQ
# identity), SWITCH (below).
set -e
. /usr/share/dfp/bench/lib.sh
export DEV=/dev/nvme0n1 RUNTIME=${RUNTIME:-5} RAMP=${RAMP:-1}
rounds=${ROUNDS:-5}
modes=${MODES:-"DMA DMA-FQ identity"}
jobs=${FIO_JOBS-"randread-4k-qd32 seqread-128k-qd8"}
xdp_actions=${XDP_ACTIONS:-}

# pci_of_mac MAC: the PCI device (BDF) under a NIC's virtio device.
pci_of_mac() {
	local n
	n=$(ifname_by_mac "$1") || return 1
	basename "$(readlink -f "/sys/class/net/$n/device/..")"
}

# set_type BDF DRIVER TYPE: give the device's group a new default domain.
set_type() {
	local bdf=$1 drv=$2 type=$3 grp
	grp=/sys/bus/pci/devices/$bdf/iommu_group
	[ "$(cat $grp/type)" = "$type" ] && return 0
	echo "$bdf" > /sys/bus/pci/drivers/$drv/unbind
	if ! echo "$type" > $grp/type; then
		echo "modes: writing $type to $grp/type failed" >&2
		echo "$bdf" > /sys/bus/pci/drivers/$drv/bind
		return 1
	fi
	echo "$bdf" > /sys/bus/pci/drivers/$drv/bind
	[ "$(cat $grp/type)" = "$type" ] || {
		echo "modes: $bdf: group type $(cat $grp/type), wanted $type" >&2; return 1; }
}

# wait_for TEST...: up to 30 s for a condition after a bind.
wait_for() {
	local i=0
	until "$@"; do
		i=$((i + 1))
		[ $i -le 300 ] || { echo "modes: timed out waiting for: $*" >&2; return 1; }
		sleep 0.1
	done
}

have_nics() {
	ifname_by_mac $NIC_XDP_MAC > /dev/null && ifname_by_mac $NIC_GEN_MAC > /dev/null &&
		ifname_by_mac $NIC_REDIR_MAC > /dev/null
}

# Device list, "BDF:DRIVER" (the BDF has colons: split at the last one).
# SWITCH names the devices whose groups follow the mode (default all: nvme,
# and with XDP the NICs xdp, gen, redir); the others stay as booted (strict),
# to tell which device's mode an effect follows.
[ -b $DEV ] || { echo "no $DEV" >&2; exit 1; }
switch=${SWITCH:-"nvme xdp gen redir"}
devs=""
for d in $switch; do
	case $d in
	nvme) devs="$devs $(basename "$(readlink /sys/class/nvme/nvme0/device)"):nvme" ;;
	xdp) [ -z "$xdp_actions" ] || devs="$devs $(pci_of_mac $NIC_XDP_MAC):virtio-pci" ;;
	gen) [ -z "$xdp_actions" ] || devs="$devs $(pci_of_mac $NIC_GEN_MAC):virtio-pci" ;;
	redir) [ -z "$xdp_actions" ] || devs="$devs $(pci_of_mac $NIC_REDIR_MAC):virtio-pci" ;;
	*) echo "modes: SWITCH: unknown device $d" >&2; exit 1 ;;
	esac
done

set_mode() {
	local d
	for d in $devs; do
		set_type "${d%:*}" "${d##*:}" "$1" || return 1
	done
	wait_for test -b $DEV
	[ -z "$xdp_actions" ] || wait_for have_nics
}

# Warm-up, not recorded: the first run after boot is the slowest (caches,
# QEMU's translated code), and round 1 would charge it to its first mode.
echo "modes: warm-up ($(date +%T))"
[ -z "$jobs" ] || fio --output=/dev/null --section="${jobs%% *}" /usr/share/dfp/bench/fio/fastpath.fio
[ -z "$xdp_actions" ] || XDP_SECONDS=1 /usr/share/dfp/bench/xdp.sh ${xdp_actions%% *} > /dev/null
r=1
while [ $r -le "$rounds" ]; do
	# rotate: round 1 "a b c", round 2 "b c a", ...
	set -- $modes
	k=1
	while [ $k -lt $(( (r - 1) % $# + 1 )) ]; do
		first=$1; shift; set -- "$@" "$first"; k=$((k + 1))
	done
	for m in "$@"; do
		set_mode "$m"
		for j in $jobs; do
			echo "modes: round $r/$rounds $m $j ($(date +%T))"
			fio --output-format=json --output="/out/r$r-$m-$j.json" \
				--section="$j" /usr/share/dfp/bench/fio/fastpath.fio
		done
		if [ -n "$xdp_actions" ]; then
			echo "modes: round $r/$rounds $m xdp $xdp_actions ($(date +%T))"
			/usr/share/dfp/bench/xdp.sh $xdp_actions > "/out/r$r-$m-xdp.txt"
		fi
	done
	r=$((r + 1))
done
echo "modes: done"
