# Shared by the guest benchmark scripts (busybox sh). Source, do not run.
. /usr/share/dfp/lib.sh

# bind_edu: bind the spare edu PCI device to the dma_map_benchmark driver.
bind_edu() {
	local d
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat $d/vendor)" = 0x1234 ] && [ "$(cat $d/device)" = 0x11e8 ] || continue
		[ -e $d/driver ] && [ "$(basename "$(readlink $d/driver)")" = dma_map_benchmark ] && return 0
		[ -e $d/driver ] && echo "$(basename $d)" > $d/driver/unbind
		echo dma_map_benchmark > $d/driver_override
		echo "$(basename $d)" > /sys/bus/pci/drivers/dma_map_benchmark/bind
		return $?
	done
	echo "no edu device" >&2
	return 1
}
