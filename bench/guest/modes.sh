#!/bin/sh
# Guest side of bench/iommu-modes: strict, lazy and passthrough in ONE boot.
# The IOMMU groups of the NVMe disk and of the three virtio-net NICs are
# switched at run time (unbind the driver, write the group's type, bind
# again), so the modes are compared on the same QEMU instance, same guest
# memory layout, minutes apart at most. Each round runs every mode once, in
# an order rotated per round; in each mode every fio job of FIO_JOBS
# (JSON to /out/r<round>-<mode>-<job>.json) and, with XDP_ACTIONS, the XDP
# benchmark (bench/guest/xdp.sh; its lines to /out/r<round>-<mode>-xdp.txt).
# Environment (bench/iommu-modes sets it): ROUNDS, RUNTIME, RAMP, FIO_JOBS
# (sections of fastpath.fio, may be empty), XDP_ACTIONS, XDP_SECONDS, MODES
# (group types: DMA DMA-FQ identity), SWITCH (below).
set -e
. /usr/share/dfp/bench/lib.sh
export DEV=/dev/nvme0n1 RUNTIME=${RUNTIME:-5} RAMP=${RAMP:-1}
rounds=${ROUNDS:-5}
modes=${MODES:?set by bench/iommu-modes}
jobs=${FIO_JOBS?set by bench/iommu-modes}
xdp_actions=${XDP_ACTIONS:-}

have_nics() {
	ifname_by_mac $NIC_XDP_MAC > /dev/null && ifname_by_mac $NIC_GEN_MAC > /dev/null &&
		ifname_by_mac $NIC_REDIR_MAC > /dev/null
}

# Device list, "BDF:DRIVER" (the BDF has colons: split at the last one).
# SWITCH names the devices whose groups follow the mode (nvme, and with XDP
# the NICs xdp, gen, redir); the others stay as booted (strict), to tell
# which device's mode an effect follows. The generator NIC (gen), when not
# named, is held in passthrough by bench/guest/xdp.sh (XDP_GEN_TYPE).
[ -b $DEV ] || { echo "no $DEV" >&2; exit 1; }
switch=${SWITCH:?set by bench/iommu-modes}
devs=""
for d in $switch; do
	case $d in
	nvme) devs="$devs $(basename "$(readlink /sys/class/nvme/nvme0/device)"):nvme" ;;
	xdp) [ -z "$xdp_actions" ] || devs="$devs $(pci_of_mac $NIC_XDP_MAC):virtio-pci" ;;
	gen)
		[ -z "$xdp_actions" ] && continue
		devs="$devs $(pci_of_mac $NIC_GEN_MAC):virtio-pci"
		export XDP_GEN_TYPE=
		;;
	redir) [ -z "$xdp_actions" ] || devs="$devs $(pci_of_mac $NIC_REDIR_MAC):virtio-pci" ;;
	*) echo "modes: SWITCH: unknown device $d" >&2; exit 1 ;;
	esac
done

set_mode() {
	local d
	for d in $devs; do
		set_group_type "${d%:*}" "${d##*:}" "$1" || return 1
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
