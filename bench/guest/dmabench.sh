#!/bin/sh
# Guest side of the dma_map_benchmark workloads. Each argument is a point
# MODE:GRANULE:THREADS (MODE 0 single, 1 sg, 2 IOVA link); one output line
# per point: "point=MODE:GRANULE:THREADS <the tool's ns: line>".
. /usr/share/dfp/bench/lib.sh
bind_edu || exit 1
secs=${SECONDS_PER_POINT:-2}
rc=0
for p in "$@"; do
	IFS=: read m g t <<-EOF2
	$p
	EOF2
	line=$(dma_map_benchmark -m "$m" -g "$g" -t "$t" -s "$secs" 2>&1 | grep '^ns:') || true
	if [ -z "$line" ]; then
		echo "point=$p error"
		rc=1
	else
		echo "point=$p $line"
	fi
done
exit $rc
