#!/bin/sh
# One guest boot of `make bench`: run the benchmark parts named in $PARTS
# (dmabench fio xdp tx) for the IOMMU mode the guest was booted in. Outputs go
# to /out, or DFP_OUT (dmabench.txt, fio.json, xdp.txt, tx.txt); the scripts are in
# /usr/share/dfp, or DFP_SHARE (bench/hw-run on a machine of its own).
. ${DFP_SHARE:-/usr/share/dfp}/bench/lib.sh
rc=0
for part in $PARTS; do
	echo "bench: $part ($(date +%T))"
	case $part in
	dmabench) ${DFP_SHARE:-/usr/share/dfp}/bench/dmabench.sh $DMABENCH_POINTS > ${DFP_OUT:-/out}/dmabench.txt || rc=1 ;;
	fio) ${DFP_SHARE:-/usr/share/dfp}/bench/fio.sh || rc=1 ;;
	xdp) ${DFP_SHARE:-/usr/share/dfp}/bench/xdp.sh $XDP_ACTIONS > ${DFP_OUT:-/out}/xdp.txt || rc=1 ;;
	tx) ${DFP_SHARE:-/usr/share/dfp}/bench/tx.sh > ${DFP_OUT:-/out}/tx.txt || rc=1 ;;
	*) echo "unknown part $part"; rc=1 ;;
	esac
	# The part's last step ends here, not where the next part's first step
	# is reached after its setup (whose unmaps would count as that step's)
	ab_sync "end-$part"
done
ab_sync end
exit $rc
