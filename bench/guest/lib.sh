# Shared by the guest benchmark scripts (busybox sh). Source, do not run.
. ${DFP_SHARE:-/usr/share/dfp}/lib.sh

# bind_edu: bind the spare edu PCI device (or the device DMAB_BDF names) to
# the dma_map_benchmark driver.
bind_edu() {
	local d
	for d in /sys/bus/pci/devices/${DMAB_BDF:-*}; do
		[ -z "${DMAB_BDF:-}" ] || [ -e "$d" ] || break
		[ -n "${DMAB_BDF:-}" ] || { [ "$(cat $d/vendor)" = 0x1234 ] && [ "$(cat $d/device)" = 0x11e8 ]; } || continue
		[ -e $d/driver ] && [ "$(basename "$(readlink $d/driver)")" = dma_map_benchmark ] && return 0
		[ -e $d/driver ] && echo "$(basename $d)" > $d/driver/unbind
		echo dma_map_benchmark > $d/driver_override
		echo "$(basename $d)" > /sys/bus/pci/drivers/dma_map_benchmark/bind
		return $?
	done
	echo "no edu device${DMAB_BDF:+ (no PCI device $DMAB_BDF)}" >&2
	return 1
}

# ab_sync NAME: with AB_SYNC=1 (make bench's simultaneous A/B guests: one
# base and one series guest running the same workloads), report that step
# NAME is reached (/out/sync/NAME.ready) and wait until the host starts it
# in both guests at once (/out/sync/NAME.go). After 300 s without a go the
# step runs anyway, and the host records the pair as not simultaneous.
# AB_PREFIX is put before NAME (a script run more than once in a boot).
# A step ends where the next one is reached: the host reads its CPU time
# there (HOSTCPU=1) and its vIOMMU counts close; each part (all.sh) is
# followed by "end-PART", the boot by "end".
ab_sync() {
	[ "${AB_SYNC:-0}" = 1 ] || return 0
	local n="${AB_PREFIX:-}$1" i=0
	mkdir -p ${DFP_OUT:-/out}/sync
	: > "${DFP_OUT:-/out}/sync/$n.ready"
	until [ -e "${DFP_OUT:-/out}/sync/$n.go" ]; do
		i=$((i + 1))
		[ $i -le 6000 ] || { echo "ab_sync $n: no go from the host" >&2; return 0; }
		sleep 0.05
	done
}

# pci_of_mac MAC: the PCI device (BDF) under a NIC's virtio device.
pci_of_mac() {
	local n
	n=$(ifname_by_mac "$1") || return 1
	basename "$(readlink -f "/sys/class/net/$n/device/..")"
}

# wait_for TEST...: up to 30 s for a condition (after a bind).
wait_for() {
	local i=0
	until "$@"; do
		i=$((i + 1))
		[ $i -le 300 ] || { echo "timed out waiting for: $*" >&2; return 1; }
		sleep 0.1
	done
}

# set_group_type BDF DRIVER TYPE: give the device's IOMMU group a new
# default domain (DMA, DMA-FQ, identity): unbind the driver, write the
# group's type, bind again, read the type back.
set_group_type() {
	local bdf=$1 drv=$2 type=$3 grp
	grp=/sys/bus/pci/devices/$bdf/iommu_group
	[ "$(cat $grp/type)" = "$type" ] && return 0
	echo "$bdf" > /sys/bus/pci/drivers/$drv/unbind
	if ! echo "$type" > $grp/type; then
		echo "$bdf: writing $type to $grp/type failed" >&2
		echo "$bdf" > /sys/bus/pci/drivers/$drv/bind
		return 1
	fi
	echo "$bdf" > /sys/bus/pci/drivers/$drv/bind
	[ "$(cat $grp/type)" = "$type" ] || {
		echo "$bdf: group type $(cat $grp/type), wanted $type" >&2; return 1; }
}

# hold_generator: put the generator NIC's IOMMU group at XDP_GEN_TYPE
# (default identity, passthrough; empty: as booted) and print
# "group=<type>" ("group=none" without an IOMMU group). The generator is
# the test bed's load source or sink (a remote host in a real setup), not
# the path under test: its own mappings must not change with the mode
# measured.
hold_generator() {
	local gen_type=${XDP_GEN_TYPE-identity} bdf grp
	bdf=$(pci_of_mac $NIC_GEN_MAC) || { echo "NICs missing" >&2; return 1; }
	grp=/sys/bus/pci/devices/$bdf/iommu_group
	[ -e $grp ] || { echo "group=none"; return 0; }
	if [ -n "$gen_type" ]; then
		set_group_type "$bdf" virtio-pci "$gen_type" &&
			wait_for ifname_by_mac $NIC_GEN_MAC > /dev/null || return 1
	fi
	echo "group=$(cat $grp/type)"
}
