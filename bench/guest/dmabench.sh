#!/bin/sh
# Guest side of the dma_map_benchmark workloads. Each argument is a point
# MODE:GRANULE:THREADS (MODE 0 single, 1 sg, 2 IOVA link); one output line
# per point: "point=MODE:GRANULE:THREADS <the tool's ns: line>".
# IOVA link is measured the way the kernel's users link their pages: with
# one dma_iova_link_vec() call (the tool's mode 3) where the kernel has it,
# with one dma_iova_link() per page (mode 2) where the tool does not know
# mode 3 (a kernel without dma_iova_link_vec()).
. ${DFP_SHARE:-/usr/share/dfp}/bench/lib.sh
bind_edu || exit 1
secs=${SECONDS_PER_POINT:-2}
rc=0
for p in "$@"; do
	IFS=: read m g t <<-EOF2
	$p
	EOF2
	ab_sync "dmabench-$m-$g-$t"
	if [ "$m" = 2 ]; then
		out=$(dma_map_benchmark -m 3 -g "$g" -t "$t" -s "$secs" 2>&1) || true
		case "$out" in
		*'invalid map mode'*)
			out=$(dma_map_benchmark -m 2 -g "$g" -t "$t" -s "$secs" 2>&1) || true ;;
		esac
	else
		out=$(dma_map_benchmark -m "$m" -g "$g" -t "$t" -s "$secs" 2>&1) || true
	fi
	line=$(echo "$out" | grep '^ns:') || true
	if [ -z "$line" ]; then
		echo "point=$p error"
		rc=1
	else
		echo "point=$p $line"
	fi
done
exit $rc
