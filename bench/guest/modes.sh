#!/bin/sh
# Guest side of bench/fio-modes: strict, lazy and passthrough in ONE boot.
# The NVMe disk's IOMMU group is switched at run time (unbind nvme, write
# the group's type, bind again), so the modes are compared on the same
# QEMU instance, same guest memory layout, minutes apart at most. Each
# round runs every mode once, in an order rotated per round, and in each
# mode every job of FIO_JOBS; fio's JSON goes to
# /out/r<round>-<mode>-<job>.json.
# Environment: ROUNDS, RUNTIME, RAMP, FIO_JOBS (sections of fastpath.fio),
# MODES (group types: DMA DMA-FQ identity).
set -e
. /usr/share/dfp/bench/lib.sh
export DEV=/dev/nvme0n1 RUNTIME=${RUNTIME:-5} RAMP=${RAMP:-1}
rounds=${ROUNDS:-5}
modes=${MODES:-"DMA DMA-FQ identity"}
jobs=${FIO_JOBS:-"randread-4k-qd32 seqread-128k-qd8"}

nvme_bdf() {
	basename "$(readlink /sys/class/nvme/nvme0/device)"
}

# set_type TYPE: give the NVMe disk's group a new default domain of TYPE.
set_type() {
	local bdf grp i
	bdf=$(nvme_bdf) || return 1
	grp=/sys/bus/pci/devices/$bdf/iommu_group
	[ "$(cat $grp/type)" = "$1" ] && return 0
	echo "$bdf" > /sys/bus/pci/drivers/nvme/unbind
	if ! echo "$1" > $grp/type; then
		echo "modes: writing $1 to $grp/type failed" >&2
		echo "$bdf" > /sys/bus/pci/drivers/nvme/bind
		return 1
	fi
	echo "$bdf" > /sys/bus/pci/drivers/nvme/bind
	i=0
	while [ ! -b $DEV ]; do
		i=$((i + 1))
		[ $i -le 300 ] || { echo "modes: no $DEV after bind" >&2; return 1; }
		sleep 0.1
	done
	[ "$(cat $grp/type)" = "$1" ] || {
		echo "modes: group type $(cat $grp/type), wanted $1" >&2; return 1; }
}

[ -b $DEV ] || { echo "no $DEV" >&2; exit 1; }
# Warm-up, not recorded: the first run after boot is the slowest (caches,
# QEMU's translated code), and round 1 would charge it to its first mode.
echo "modes: warm-up ($(date +%T))"
fio --output=/dev/null --section="${jobs%% *}" /usr/share/dfp/bench/fio/fastpath.fio
r=1
while [ $r -le "$rounds" ]; do
	# rotate: round 1 "a b c", round 2 "b c a", ...
	set -- $modes
	k=1
	while [ $k -lt $(( (r - 1) % $# + 1 )) ]; do
		first=$1; shift; set -- "$@" "$first"; k=$((k + 1))
	done
	for m in "$@"; do
		set_type "$m"
		for j in $jobs; do
			echo "modes: round $r/$rounds $m $j ($(date +%T))"
			fio --output-format=json --output="/out/r$r-$m-$j.json" \
				--section="$j" /usr/share/dfp/bench/fio/fastpath.fio
		done
	done
	r=$((r + 1))
done
echo "modes: done"
