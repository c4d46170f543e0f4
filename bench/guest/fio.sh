#!/bin/sh
# Guest side of the fio benchmark: the jobs of fastpath.fio (FIO_JOBS: one
# of them) on the NVMe disk (FIO_DEV: another block device, or a file),
# JSON to /out/fio.json. With AB_SYNC=1 each job runs on its own, started
# with the other guest's (ab_sync), its JSON in /out/fio-JOB.json and the
# requests the disk completed over the whole job, ramp included, and the
# disk's PCI address in /out/fio-JOB.ios.
# RUNTIME/RAMP in seconds from the environment.
set -e
. ${DFP_SHARE:-/usr/share/dfp}/bench/lib.sh
export DEV=${FIO_DEV:-/dev/nvme0n1} RUNTIME=${RUNTIME:-5} RAMP=${RAMP:-1}
jobfile=${DFP_SHARE:-/usr/share/dfp}/bench/fio/fastpath.fio
[ -b "$DEV" ] || [ -n "${FIO_DEV:-}" ] || { echo "no $DEV" >&2; exit 1; }
# disk_ios: requests the block device completed (reads + writes), ramp
# included, for counts per I/O over a whole step (fio-JOB.ios).
disk_ios() {
	[ -b "$DEV" ] && awk '{ print $1 + $5 }' "/sys/block/${DEV##*/}/stat" || echo 0
}
# disk_pci: "pci ADDRESS" of the disk's PCI function (the source id of its
# DMA in the vIOMMU's trace), nothing for a file or a non-PCI device.
disk_pci() {
	[ -b "$DEV" ] || return 0
	p=$(readlink -f "/sys/block/${DEV##*/}/device/device" 2>/dev/null) || return 0
	case ${p##*/} in *:*:*.*) echo "pci ${p##*/}" ;; esac
}
if [ "${AB_SYNC:-0}" = 1 ]; then
	for job in ${FIO_JOBS:-$(sed -n 's/^\[\(.*\)\]$/\1/p' $jobfile | grep -v '^global$')}; do
		ab_sync "fio-$job"
		ios=$(disk_ios)
		fio --output-format=json --output="${DFP_OUT:-/out}/fio-$job.json" --section="$job" $jobfile
		{ echo "ios $(($(disk_ios) - ios))"; disk_pci; } > "${DFP_OUT:-/out}/fio-$job.ios"
	done
else
	fio --output-format=json --output=${DFP_OUT:-/out}/fio.json ${FIO_JOBS:+--section=$FIO_JOBS} $jobfile
fi
echo "fio: done"
