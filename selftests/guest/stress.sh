#!/bin/sh
# Guest half of `make stress` (and of make check's short stress step), for
# the debug kernel (configs/debug.config). First dma_edu_test's fail_nth
# case (every allocation of the DMA layer's map calls failed in turn), then,
# until STRESS_SECONDS have passed, rounds of:
#   1. fio verify=crc32c, one job per vCPU of mixed 4K..1M I/O on the NVMe
#      disk, while dma_map_benchmark maps and unmaps with a thread per vCPU
#      on edu (single, sg and IOVA-link mode in turn; no IOVA link in
#      passthrough) and pktgen sends on a virtio-net NIC (its TX
#      completions unmap in batches, as NVMe's do);
#   2. fio without verification while failslab and fail_page_alloc fail
#      allocations of the fio tasks (FAULT_PERCENT of them).
# Then: the DMA-API debug entries of the NVMe device are as many as before
# (no mapping leaked), DMA-API debug counted no error, kmemleak finds
# nothing. The host fails the run on any KASAN/DMA-API/kmemleak report in
# the kernel log. Prints the counts of injected faults and verified bytes.
. /usr/share/dfp/lib.sh
. /usr/share/dfp/bench/lib.sh
secs=${STRESS_SECONDS:-60}
pct=${FAULT_PERCENT:-10}
dev=/dev/nvme0n1
dbg=/sys/kernel/debug
[ -b $dev ] || { echo "no $dev"; exit 1; }

# First, fault injection allocation by allocation (fail-nth) into
# dma_map_sgtable(), dma_iova_link_vec() and an unmap batch on the edu
# device (dma_edu_test's fail_nth case; a translating mode only).
nth_fail=0
case "$(cat /proc/cmdline)" in
*dfp.mode=*-pt*|*dfp.mode=none*) echo "# stress: fail-nth: no IOVA in this mode" ;;
*)
	dma_edu_test -t fail_nth > /tmp/nth.out 2>&1 || nth_fail=1
	grep -E '^(ok|not ok)' /tmp/nth.out
	[ $nth_fail = 0 ] || cat /tmp/nth.out
	dmesg | sed -n 's/.*\(fail-nth .*\)/# stress: \1/p'
	;;
esac
bind_edu || exit 1
nvme_bdf=$(basename "$(readlink -f /sys/block/nvme0n1/device/device)")
ncpu=$(nproc)
# The NIC pktgen sends on (to the other NIC of its hub), if the kernel has
# pktgen.
gen=
if [ -d /proc/net/pktgen ] && gen=$(ifname_by_mac $NIC_GEN_MAC) &&
	xdp=$(ifname_by_mac $NIC_XDP_MAC); then
	ip link set "$gen" up && ip link set "$xdp" up || gen=
else
	gen=
fi

dma_streaming() {	# live streaming mappings of the NVMe device (DMA-API debug)
	# Coherent entries are left out: the NVMe driver's DMA pools grow
	# under load and keep their pages.
	grep "$nvme_bdf" $dbg/dma-api/dump 2>/dev/null | grep -v ' coherent ' |
		sed 's/ idx [0-9]*//' | sort
}
dma_entries() { dma_streaming | grep -c . || true; }

fault_setup() {	# fault_setup ATTR: fail $pct% of the fio tasks' allocations
	local a=$dbg/$1
	[ -d $a ] || { echo "no $a (kernel without fault injection)"; return 1; }
	echo $pct > $a/probability
	echo 1 > $a/interval
	echo 1000000000 > $a/times
	echo 0 > $a/space
	echo 0 > $a/verbose
	echo Y > $a/task-filter
	[ -f $a/ignore-gfp-wait ] && echo N > $a/ignore-gfp-wait
	[ -f $a/min-order ] && echo 0 > $a/min-order
	return 0
}

fault_count() {	# injected so far by ATTR
	echo $((1000000000 - $(cat $dbg/$1/times)))
}

fault_setup failslab || exit 1
fault_setup fail_page_alloc || exit 1
dma_streaming > /tmp/dma.before
before=$(dma_entries)
echo "# stress: ${secs}s, $ncpu vCPUs, faults ${pct}%, NVMe $nvme_bdf, DMA-API entries before: $before, pktgen on ${gen:-none}"

end=$(($(date +%s) + secs))
round=0 verified_kb=0 fio_fail=0 bench_fail=0 pkts=0 frag_pkts=0
while [ "$(date +%s)" -lt "$end" ]; do
	round=$((round + 1))
	# IOVA-link mode (2) needs a translating domain: not in passthrough.
	case "$(cat /proc/cmdline)" in
	*dfp.mode=*-pt*|*dfp.mode=none*) mode=$((round % 2)) ;;
	*) mode=$((round % 3)) ;;
	esac
	dma_map_benchmark -m $mode -g 16 -t $ncpu -s 8 > /tmp/bench.out 2>&1 &
	bpid=$!
	# Odd rounds, the first among them, send frames in 4 pieces: an
	# indirect descriptor table each, unmapped into the TX completion's
	# batch and freed by its flush.
	if [ $((round % 2)) = 1 ]; then frags=3 size=1400; else frags=0 size=60; fi
	[ -z "$gen" ] || pktgen_send "$gen" $NIC_XDP_MAC 0 $size $frags &
	JOBS=$ncpu DEV=$dev SIZE=64m fio --output-format=json --output=/tmp/verify.json \
		/usr/share/dfp/stress-verify.fio > /tmp/verify.log 2>&1
	rc=$?
	wait $bpid || { bench_fail=$((bench_fail + 1)); cat /tmp/bench.out; }
	if [ -n "$gen" ]; then
		echo stop > /proc/net/pktgen/pgctrl
		wait
		sent=$(sed -n 's/.*pkts-sofar: \([0-9]*\).*/\1/p' /proc/net/pktgen/$gen)
		pkts=$((pkts + ${sent:-0}))
		[ $frags = 0 ] || frag_pkts=$((frag_pkts + ${sent:-0}))
	fi
	if [ $rc != 0 ] || grep -q '"error" : [1-9]' /tmp/verify.json; then
		fio_fail=$((fio_fail + 1))
		echo "# round $round: fio verify FAILED (rc $rc)"
		cat /tmp/verify.log; grep '"error"' /tmp/verify.json
	fi
	kb=$(sed -n 's/.*"io_kbytes" : \([0-9]*\).*/\1/p' /tmp/verify.json | awk '{ s += $1 } END { print s + 0 }')
	verified_kb=$((verified_kb + kb))

	# Fault injection for the fio tasks only (make-it-fail is inherited).
	DEV=$dev RUNTIME=8 sh -c 'echo 1 > /proc/self/make-it-fail;
		exec fio --output-format=json --output=/tmp/faults.json \
			/usr/share/dfp/stress-faults.fio' > /tmp/faults.log 2>&1
	echo "# round $round: verify ${kb} KiB ok=$((rc == 0)), injected so far: failslab $(fault_count failslab), fail_page_alloc $(fault_count fail_page_alloc)"
done

sleep 1	# let the last completions and the flush queue drain
after=$(dma_entries)
errors=$(cat $dbg/dma-api/error_count 2>/dev/null || echo 0)
leaks=0
if [ -f $dbg/kmemleak ]; then
	echo scan > $dbg/kmemleak; sleep 1; echo scan > $dbg/kmemleak
	leaks=$(grep -c '^unreferenced object' $dbg/kmemleak)
	[ "$leaks" = 0 ] || head -40 $dbg/kmemleak
fi
inj=$(($(fault_count failslab) + $(fault_count fail_page_alloc)))
echo "# stress: $round rounds, $((verified_kb / 1024)) MiB written and verified, fio verify failures $fio_fail, dma_map_benchmark failures $bench_fail, virtio-net frames sent $pkts ($frag_pkts of them in 4 pieces)"
echo "# stress: injected faults: failslab $(fault_count failslab), fail_page_alloc $(fault_count fail_page_alloc)"
echo "# stress: NVMe DMA-API entries before $before, after $after; DMA-API errors $errors; kmemleak $leaks"
ok=1
[ $fio_fail = 0 ] && [ $bench_fail = 0 ] && [ $nth_fail = 0 ] || ok=0
if [ "$after" != "$before" ]; then
	echo "# stress: NVMe streaming mappings before/after differ:"
	dma_streaming | diff /tmp/dma.before - | head -20
	ok=0
fi
[ "$errors" = 0 ] || ok=0
[ "$leaks" = 0 ] || ok=0
[ $inj -gt 0 ] || { echo "# stress: no fault was injected"; ok=0; }
[ -z "$gen" ] || [ $pkts -gt 0 ] || { echo "# stress: pktgen sent nothing"; ok=0; }
[ $ok = 1 ] && echo "# stress: PASS" || echo "# stress: FAIL"
[ $ok = 1 ]
