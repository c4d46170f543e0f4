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
# (sections of FIO_FILE, default fastpath.fio, may be empty), XDP_ACTIONS,
# XDP_SECONDS, MODES (group types: DMA DMA-FQ identity), SWITCH (below),
# FLUSH_PROBES (below).
set -e
. /usr/share/dfp/bench/lib.sh
export DEV=/dev/nvme0n1 RUNTIME=${RUNTIME:-5} RAMP=${RAMP:-1}
rounds=${ROUNDS:-5}
modes=${MODES:?set by bench/iommu-modes}
jobs=${FIO_JOBS?set by bench/iommu-modes}
fio_file=/usr/share/dfp/bench/fio/${FIO_FILE:-fastpath.fio}
[ -f "$fio_file" ] || { echo "modes: no $fio_file" >&2; exit 1; }
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

# FLUSH_PROBES: kernel functions that issue an IOTLB invalidation (for
# VT-d cache_tag_flush_range, cache_tag_flush_all). Each gets a kprobe
# event, enabled with tracing off: the kprobe's hit count in kprobe_profile
# still counts every call, and nothing is written to the trace buffer. Each
# fio run then also writes /out/r<round>-<mode>-<job>.flush: the I/Os the
# disk completed during the run ("ios N") and each probe's calls ("FUNC N").
# A kprobe costs a trap per call: count in runs of their own, not in the
# runs whose IOPS are compared.
tr=/sys/kernel/tracing
probes=""
if [ -n "${FLUSH_PROBES:-}" ]; then
	grep -q " $tr tracefs " /proc/mounts || mount -t tracefs tracefs $tr
	echo 0 > $tr/tracing_on
	for f in $FLUSH_PROBES; do
		if ! grep -q " [tT] $f\$" /proc/kallsyms; then
			echo "modes: FLUSH_PROBES: no function $f in this kernel" >&2
			exit 1
		fi
		echo "p:kprobes/dfp_$f $f" >> $tr/kprobe_events
		echo 1 > $tr/events/kprobes/dfp_$f/enable
		probes="$probes $f"
	done
	echo "modes: counting calls of$probes"
fi
disk=$(basename $DEV)

# counts: the disk's completed I/Os (reads + writes) and each probe's hits.
counts() {
	awk '{ print "ios", $1 + $5 }' /sys/block/$disk/stat
	for f in $probes; do
		awk -v e="dfp_$f" -v f="$f" '$1 == e { print f, $2 }' $tr/kprobe_profile
	done
}

# fio_run JOB OUT: one fio job, JSON to OUT.json; with probes the counts'
# differences over the run to OUT.flush.
fio_run() {
	[ -z "$probes" ] || counts > /tmp/counts.before
	fio --output-format=json --output="$2.json" --section="$1" "$fio_file"
	[ -z "$probes" ] && return 0
	counts | awk 'NR == FNR { before[$1] = $2; next } { print $1, $2 - before[$1] }' \
		/tmp/counts.before - > "$2.flush"
}

# Warm-up, not recorded: the first run after boot is the slowest (caches,
# QEMU's translated code), and round 1 would charge it to its first mode.
echo "modes: warm-up ($(date +%T))"
[ -z "$jobs" ] || fio --output=/dev/null --section="${jobs%% *}" "$fio_file"
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
			fio_run "$j" "/out/r$r-$m-$j"
		done
		if [ -n "$xdp_actions" ]; then
			echo "modes: round $r/$rounds $m xdp $xdp_actions ($(date +%T))"
			/usr/share/dfp/bench/xdp.sh $xdp_actions > "/out/r$r-$m-xdp.txt"
		fi
	done
	r=$((r + 1))
done
echo "modes: done"
