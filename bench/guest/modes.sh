#!/bin/sh
# Guest side of make bench's mode intel-switch: strict, lazy and
# passthrough in ONE boot.
# The IOMMU groups of the NVMe disk and of the three virtio-net NICs are
# switched at run time (unbind the driver, write the group's type, bind
# again), so the modes are compared on the same QEMU instance, same guest
# memory layout, minutes apart at most. Each round runs every mode once, in
# an order rotated per round; in each mode every fio job of FIO_JOBS
# (JSON to /out/r<round>-<mode>-<job>.json) and, with XDP_ACTIONS, the XDP
# benchmark (bench/guest/xdp.sh; its lines to /out/r<round>-<mode>-xdp.txt).
# Environment (bench/run.py sets it): ROUNDS, ROUND_FIRST (the first
# round's number: names and the rotation of the modes), RUNTIME, RAMP, FIO_JOBS
# (sections of FIO_FILE, default fastpath.fio, may be empty), XDP_ACTIONS,
# XDP_SECONDS, MODES (group types: DMA DMA-FQ identity), SWITCH (below),
# FLUSH_PROBES (below), FLUSH_SPANS (below), PAIR (below).
#
# PAIR=1: two NVMe disks (serials dfp0001 "a" and dfp0002 "b", scripts/vm
# VM_NVME2), in the two modes of MODES at once, read by one fio per disk
# started together, so that both modes see the same moments of the host.
# A round runs each fio job twice, the modes swapped between the disks
# (a in the first mode and b in the second, then the other way round; the
# order alternates per round), so that neither disk nor its place on the
# bus favours a mode. JSON to /out/r<round>-<disk>-<mode>-<job>.json.
set -e
. /usr/share/dfp/bench/lib.sh
export DEV=/dev/nvme0n1 RUNTIME=${RUNTIME:-5} RAMP=${RAMP:-1}
rounds=${ROUNDS:-5}
first=${ROUND_FIRST:-1}
last=$((first + rounds - 1))
modes=${MODES:?set by bench/run.py}
jobs=${FIO_JOBS?set by bench/run.py}
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
switch=${SWITCH:?set by bench/run.py}
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
# VT-d cache_tag_flush_range, which cache_tag_flush_all jumps to: probing
# both counts a flush-queue flush twice). Each gets a kprobe
# event, enabled with tracing off: the kprobe's hit count in kprobe_profile
# still counts every call, and nothing is written to the trace buffer. Each
# fio run then also writes /out/r<round>-<mode>-<job>.flush: the I/Os the
# disk completed during the run ("ios N") and each probe's calls ("FUNC N").
# A kprobe costs a trap per call: count in runs of their own, not in the
# runs whose IOPS are compared.
tr=/sys/kernel/tracing
mount_tracefs() {
	grep -q " $tr tracefs " /proc/mounts || mount -t tracefs tracefs $tr
}
probes=""
if [ -n "${FLUSH_PROBES:-}" ]; then
	mount_tracefs
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
# FLUSH_SPANS=1 (VT-d): each fio run also records intel-iommu's
# cache_tag_flush_range trace event and writes /out/r<round>-<mode>-<job>.spans:
# "ios N" and, per invalidation size, "mask M COUNT" (M: log2 of the 4K pages
# the invalidation covers; "mask all" for a domain-wide one). The event is
# written to the trace buffer on every invalidation: count in runs of their
# own, as with FLUSH_PROBES.
spans_ev=$tr/events/intel_iommu/cache_tag_flush_range
if [ "${FLUSH_SPANS:-0}" = 1 ]; then
	mount_tracefs
	[ -d $spans_ev ] || { echo "modes: FLUSH_SPANS: no $spans_ev (VT-d only)" >&2; exit 1; }
	echo 16384 > $tr/buffer_size_kb
	# FLUSH_PROBES turns tracing off (its counts need no buffer); the
	# event needs it on
	echo 1 > $tr/tracing_on
	echo "modes: recording the IOTLB invalidations' sizes"
fi
disk=$(basename $DEV)

# disk_ios: the I/Os (reads + writes) the disk has completed.
disk_ios() {
	awk '{ print $1 + $5 }' /sys/block/$disk/stat
}

# counts: the disk's completed I/Os and each probe's hits.
counts() {
	echo "ios $(disk_ios)"
	for f in $probes; do
		awk -v e="dfp_$f" -v f="$f" '$1 == e { print f, $2 }' $tr/kprobe_profile
	done
}

# spans OUT: the I/Os since /tmp/ios.before and the recorded invalidations
# by size (a lost event would undercount: the buffer's overrun is checked).
spans() {
	local overrun
	overrun=$(awk '/^overrun:/ { print $2 }' $tr/per_cpu/cpu*/stats | awk '{ n += $1 } END { print n + 0 }')
	[ "$overrun" = 0 ] || echo "modes: FLUSH_SPANS: $overrun trace events lost" >&2
	{
		echo "ios $(( $(disk_ios) - $(cat /tmp/ios.before) ))"
		echo "lost $overrun"
		sed -n 's/.* cache_tag_flush_range: .* \[0x0-0xffffffffffffffff\] .*/all/p
			s/.* cache_tag_flush_range: .* mask 0x\([0-9a-f]*\)$/\1/p' $tr/trace |
			sort | uniq -c | while read -r n m; do
				[ "$m" = all ] && echo "mask all $n" || echo "mask $((0x$m)) $n"
			done
	}  > "$1"
}

# fio_run JOB OUT: one fio job, JSON to OUT.json; with probes the counts'
# differences over the run to OUT.flush.
fio_run() {
	[ -z "$probes" ] || counts > /tmp/counts.before
	if [ "${FLUSH_SPANS:-0}" = 1 ]; then
		echo > $tr/trace
		disk_ios > /tmp/ios.before
		echo 1 > $spans_ev/enable
	fi
	fio --output-format=json --output="$2.json" --section="$1" "$fio_file"
	if [ "${FLUSH_SPANS:-0}" = 1 ]; then
		echo 0 > $spans_ev/enable
		spans "$2.spans"
	fi
	[ -z "$probes" ] && return 0
	counts | awk 'NR == FNR { before[$1] = $2; next } { print $1, $2 - before[$1] }' \
		/tmp/counts.before - > "$2.flush"
}

# pair_bdf SERIAL: the PCI device of the NVMe controller with that serial.
pair_bdf() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ "$(tr -d ' ' < $c/serial)" = "$1" ] || continue
		basename "$(readlink -f $c/device)"
		return 0
	done
	echo "modes: PAIR: no NVMe disk with serial $1 (scripts/vm VM_NVME2)" >&2
	return 1
}

# pair_dev BDF: its namespace's block device (names can move on a rebind).
pair_dev() {
	local n
	for n in /sys/bus/pci/devices/$1/nvme/nvme*/nvme*n1; do
		[ -e "$n" ] && { echo "/dev/${n##*/}"; return 0; }
	done
	return 1
}

# pair_run ROUND MODE_A MODE_B: every job once on both disks at the same
# time, disk a in MODE_A and b in MODE_B.
pair_run() {
	local r=$1 ma=$2 mb=$3 j da db pa pb rc
	set_group_type $pair_a nvme $ma && set_group_type $pair_b nvme $mb || return 1
	wait_for pair_dev $pair_a > /dev/null && wait_for pair_dev $pair_b > /dev/null || return 1
	da=$(pair_dev $pair_a) db=$(pair_dev $pair_b)
	for j in $jobs; do
		ab_sync "r$r-$ma-$mb-$j"
		echo "modes: round $r/$last a $ma b $mb $j ($(date +%T))"
		DEV=$da fio --output-format=json --output="/out/r$r-a-$ma-$j.json" \
			--section="$j" "$fio_file" & pa=$!
		DEV=$db fio --output-format=json --output="/out/r$r-b-$mb-$j.json" \
			--section="$j" "$fio_file" & pb=$!
		rc=0
		wait $pa || rc=1
		wait $pb || rc=1
		[ $rc = 0 ] || { echo "modes: PAIR: fio failed ($j)" >&2; return 1; }
	done
}

if [ "${PAIR:-0}" = 1 ]; then
	set -- $modes
	[ $# = 2 ] || { echo "modes: PAIR needs two MODES, not: $modes" >&2; exit 1; }
	[ -z "$xdp_actions$probes" ] || {
		echo "modes: PAIR runs fio only (no XDP_ACTIONS, FLUSH_PROBES)" >&2; exit 1; }
	m1=$1 m2=$2
	pair_a=$(pair_bdf dfp0001)
	pair_b=$(pair_bdf dfp0002)
	echo "modes: pair: a $pair_a, b $pair_b, $m1 against $m2 ($(date +%T))"
	# warm-up (not recorded): both disks once
	for bdf in $pair_a $pair_b; do
		DEV=$(pair_dev $bdf) fio --output=/dev/null --section="${jobs%% *}" "$fio_file"
	done
	r=$first
	while [ $r -le "$last" ]; do
		if [ $((r % 2)) = 1 ]; then
			pair_run $r $m1 $m2 && pair_run $r $m2 $m1
		else
			pair_run $r $m2 $m1 && pair_run $r $m1 $m2
		fi || exit 1
		r=$((r + 1))
	done
	ab_sync end
	echo "modes: done"
	exit 0
fi

# Warm-up, not recorded: the first run after boot is the slowest (caches,
# QEMU's translated code), and round 1 would charge it to its first mode.
echo "modes: warm-up ($(date +%T))"
[ -z "$jobs" ] || fio --output=/dev/null --section="${jobs%% *}" "$fio_file"
[ -z "$xdp_actions" ] || AB_SYNC=0 XDP_SECONDS=1 /usr/share/dfp/bench/xdp.sh ${xdp_actions%% *} > /dev/null
r=$first
while [ $r -le "$last" ]; do
	# rotate: round 1 "a b c", round 2 "b c a", ...
	set -- $modes
	k=1
	while [ $k -lt $(( (r - 1) % $# + 1 )) ]; do
		head1=$1; shift; set -- "$@" "$head1"; k=$((k + 1))
	done
	for m in "$@"; do
		set_mode "$m"
		for j in $jobs; do
			ab_sync "r$r-$m-$j"
			echo "modes: round $r/$last $m $j ($(date +%T))"
			fio_run "$j" "/out/r$r-$m-$j"
		done
		if [ -n "$xdp_actions" ]; then
			echo "modes: round $r/$last $m xdp $xdp_actions ($(date +%T))"
			AB_PREFIX="r$r-$m-" /usr/share/dfp/bench/xdp.sh $xdp_actions > "/out/r$r-$m-xdp.txt"
		fi
	done
	r=$((r + 1))
done
ab_sync end
echo "modes: done"
