#!/bin/sh
# Guest side of the fio benchmark: all jobs of fastpath.fio on the NVMe disk,
# JSON to /out/fio.json. RUNTIME/RAMP in seconds from the environment.
set -e
export DEV=/dev/nvme0n1 RUNTIME=${RUNTIME:-5} RAMP=${RAMP:-1}
[ -b $DEV ] || { echo "no $DEV" >&2; exit 1; }
fio --output-format=json --output=/out/fio.json ${FIO_JOBS:+--section=$FIO_JOBS} \
	/usr/share/dfp/bench/fio/fastpath.fio
echo "fio: done"
