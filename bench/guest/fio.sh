#!/bin/sh
# Guest side of the fio benchmark: the jobs of fastpath.fio (FIO_JOBS: one
# of them) on the NVMe disk, JSON to /out/fio.json. With AB_SYNC=1 each job
# runs on its own, started with the other guest's (ab_sync), its JSON in
# /out/fio-JOB.json. RUNTIME/RAMP in seconds from the environment.
set -e
. /usr/share/dfp/bench/lib.sh
export DEV=/dev/nvme0n1 RUNTIME=${RUNTIME:-5} RAMP=${RAMP:-1}
jobfile=/usr/share/dfp/bench/fio/fastpath.fio
[ -b $DEV ] || { echo "no $DEV" >&2; exit 1; }
if [ "${AB_SYNC:-0}" = 1 ]; then
	for job in ${FIO_JOBS:-$(sed -n 's/^\[\(.*\)\]$/\1/p' $jobfile | grep -v '^global$')}; do
		ab_sync "fio-$job"
		fio --output-format=json --output="/out/fio-$job.json" --section="$job" $jobfile
	done
else
	fio --output-format=json --output=/out/fio.json ${FIO_JOBS:+--section=$FIO_JOBS} $jobfile
fi
echo "fio: done"
