#!/bin/sh
# dma-fastpath guest checks: run in the guest by `make check`, one KTAP
# result per check. Usage: dfp-check.sh [check...]; default: all.
. /usr/share/dfp/lib.sh
n=0 failed=0
checks=${*:-"mode dma_map_smoke edu_dma fio_verify xdp_smoke"}
set -- $checks
echo "KTAP version 1"
echo "1..$#"

result() {	# result NAME RC
	n=$((n + 1))
	if [ "$2" = 0 ]; then
		echo "ok $n $1"
	elif [ "$2" = 4 ]; then
		echo "ok $n $1 # SKIP"
	else
		echo "not ok $n $1"
		failed=$((failed + 1))
	fi
}

# Run check NAME with its output indented, so only our lines are top-level
# KTAP results; its status goes to /tmp/rc.NAME (busybox sh has no PIPESTATUS).
sub() {
	{ "check_$1"; echo $? > "/tmp/rc.$1"; } 2>&1 | sed 's/^/    /'
}

check_mode() { /usr/local/bin/dma_mode_test; }
check_dma_map_smoke() { /usr/local/bin/dma_map_smoke_test; }
# After dma_map_smoke_test: it binds edu to dma_map_benchmark, this to dfp_edu.
check_edu_dma() { /usr/local/bin/dma_edu_test; }

check_fio_verify() {
	local dev=/dev/nvme0n1 out=/tmp/fio-verify.json
	[ -b $dev ] || { echo "# no $dev"; return 1; }
	DEV=$dev SIZE=${FIO_VERIFY_SIZE:-32m} fio --output-format=json \
		--output=$out /usr/share/dfp/fio-verify.fio || { cat $out; return 1; }
	# fio exits non-zero on a verify failure; also check the error counters.
	if grep -q '"error" : [1-9]' $out; then
		grep '"error"' $out
		return 1
	fi
	grep -E '"jobname"|"io_kbytes"' $out | head -12
	return 0
}

check_xdp_smoke() {
	local xdp gen sent=20000 seen out
	xdp=$(ifname_by_mac $NIC_XDP_MAC) || { echo "# no XDP NIC"; return 1; }
	gen=$(ifname_by_mac $NIC_GEN_MAC) || { echo "# no generator NIC"; return 1; }
	ip link set "$xdp" up && ip link set "$gen" up || return 1
	# dfp_xdp attaches a counting XDP_DROP program for 4 s; pktgen sends
	# $sent frames to it from the other NIC on the same QEMU hub.
	dfp_xdp "$xdp" drop 4 > /tmp/xdp.out &
	local pid=$!
	sleep 1
	pktgen_send "$gen" $NIC_XDP_MAC $sent 60
	wait $pid || return 1
	out=$(cat /tmp/xdp.out)
	echo "# $out"
	seen=$(echo "$out" | sed -n 's/.* packets=\([0-9]*\) .*/\1/p')
	echo "# sent $sent, the XDP program counted ${seen:-none}"
	[ -n "$seen" ] && [ "$seen" -ge $((sent * 9 / 10)) ] && [ "$seen" -le $sent ]
}

for c in "$@"; do
	echo "# --- $c ($(date +%T))"
	sub "$c"
	result "$c" "$(cat /tmp/rc.$c 2>/dev/null || echo 1)"
done
echo "# $((n - failed)) passed, $failed failed"
[ $failed = 0 ]
