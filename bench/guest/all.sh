#!/bin/sh
# One guest boot of `make bench`: run the benchmark parts named in $PARTS
# (dmabench fio xdp) for the IOMMU mode the guest was booted in. Outputs go
# to /out (dmabench.txt, fio.json, xdp.txt).
rc=0
for part in $PARTS; do
	echo "bench: $part ($(date +%T))"
	case $part in
	dmabench) /usr/share/dfp/bench/dmabench.sh $DMABENCH_POINTS > /out/dmabench.txt || rc=1 ;;
	fio) /usr/share/dfp/bench/fio.sh || rc=1 ;;
	xdp) /usr/share/dfp/bench/xdp.sh $XDP_ACTIONS > /out/xdp.txt || rc=1 ;;
	*) echo "unknown part $part"; rc=1 ;;
	esac
done
exit $rc
