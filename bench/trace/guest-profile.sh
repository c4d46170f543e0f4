#!/bin/sh
# Guest half of bench/trace/profile (busybox sh, run from the host share).
#
#   guest-profile.sh BT_SCRIPT SECONDS FREQ SPLIT WORKLOAD_COMMAND
#
# SPLIT=0 runs the workload once under both perf and bpftrace; SPLIT=1 runs
# it twice, under perf alone and then under bpftrace alone.
# Needs the host root filesystem at /host (scripts/vm with VM_HOSTFS=1): perf
# and bpftrace are the host's, run with chroot /host, with this guest's /proc,
# /sys, /dev, debugfs and tracefs mounted inside the chroot and a tmpfs at
# /host/tmp (the share is read-only). Writes to /out:
#   kallsyms            this kernel's symbols (for perf report on the host)
#   dma.bt              the bpftrace script as run (blocks of absent functions removed)
#   probes.txt          which functions were probed and which were skipped
#   bpftrace.txt/.err   histograms printed by bpftrace at exit, its messages
#   perf.data           perf record -e cpu-clock -a -g
#   perf-record.log     perf's messages
#   workload.txt        the workload's output (fio.json for fio workloads);
#                       with SPLIT=1 also workload-perf.txt (fio-perf.json)
#   versions.txt        kernel, perf and bpftrace versions
set -eu
bt=$1 secs=$2 freq=$3 split=$4 cmd=$5
H=/host
say() { echo "profile[guest]: $*"; }
fail() { echo "profile[guest]: ERROR: $*" >&2; exit 1; }

grep -q " $H 9p " /proc/mounts || fail "no host share at $H (boot with VM_HOSTFS=1)"
[ -x $H/usr/bin/perf ] || fail "no perf on the host (run: scripts/deps)"
[ -x $H/usr/bin/bpftrace ] || fail "no bpftrace on the host (run: scripts/deps)"

# The tmpfs below hides the host's /tmp, where a checkout may be: the
# bpftrace script is read before it is mounted.
cp "$bt" /tmp/dma.bt.in || fail "cannot read $bt"
bt=/tmp/dma.bt.in
say "mounting /proc /sys /dev debugfs tracefs and a tmpfs inside $H"
mount -t proc proc $H/proc
mount -t sysfs sysfs $H/sys
mount -t debugfs debugfs $H/sys/kernel/debug
mount -t tracefs tracefs $H/sys/kernel/tracing
mount -o bind /dev $H/dev
mount -t tmpfs tmpfs $H/tmp
mkdir -p $H/tmp/out $H/tmp/work
mount -o bind /out $H/tmp/out
# Undo the mounts on the way out, so the guest can power off cleanly.
cleanup() {
	for m in $H/tmp/out $H/tmp $H/dev $H/sys/kernel/tracing $H/sys/kernel/debug $H/sys $H/proc; do
		umount $m 2>/dev/null || umount -l $m 2>/dev/null || true
	done
}
trap cleanup EXIT

echo 0 > /proc/sys/kernel/kptr_restrict
echo -1 > /proc/sys/kernel/perf_event_paranoid
cat /proc/kallsyms > /out/kallsyms
{
	echo "kernel: $(uname -r) $(cat /proc/cmdline)"
	echo "perf: $(chroot $H perf --version 2>&1)"
	echo "bpftrace: $(chroot $H bpftrace --version 2>&1)"
} > /out/versions.txt
cat /out/versions.txt

# Keep the blocks of functions this kernel has as text symbols and that are
# not on the kprobe blacklist.
bl=/sys/kernel/debug/kprobes/blacklist
awk '$2 == "t" || $2 == "T" { print $3 }' /proc/kallsyms > /tmp/syms
: > /tmp/blacklist
if [ -r $bl ]; then awk '{ print $2 }' $bl > /tmp/blacklist; fi
: > /out/probes.txt
for f in $(awk '/^\/\/ @probe / { print $3 }' "$bt"); do
	if grep -qx "$f" /tmp/blacklist; then
		echo "skip $f (kprobe blacklist)" >> /out/probes.txt
	elif grep -qx "$f" /tmp/syms; then
		echo "probe $f" >> /out/probes.txt
	else
		echo "skip $f (not in /proc/kallsyms)" >> /out/probes.txt
	fi
done
awk -v keep="$(awk '$1 == "probe" { printf " %s ", $2 }' /out/probes.txt)" '
	/^\/\/ @probe / { drop = index(keep, " " $3 " ") == 0; if (drop) next }
	/^\/\/ @end/ { if (drop) { drop = 0; next } }
	drop { next }
	/\/\/ @for / { f = $NF; if (index(keep, " " f " ") == 0) next }
	{ print }' "$bt" > /out/dma.bt
cat /out/probes.txt
grep -q '^probe ' /out/probes.txt || fail "none of the traced functions exist in this kernel"

start_bpftrace() {
	say "starting bpftrace (its start-up is slow under TCG)"
	HOME=/tmp/work chroot $H bpftrace /tmp/out/dma.bt > /out/bpftrace.txt 2> /out/bpftrace.err &
	btpid=$!
	n=0
	until grep -q 'dfp-profile: probes attached' /out/bpftrace.txt 2>/dev/null; do
		if ! kill -0 $btpid 2>/dev/null; then
			cat /out/bpftrace.err >&2
			fail "bpftrace exited before attaching its probes"
		fi
		n=$((n + 1))
		[ $n -le 180 ] || { kill -INT $btpid; cat /out/bpftrace.err >&2; fail "bpftrace did not attach within 90s"; }
		sleep 0.5
	done
	say "bpftrace attached after ~$((n / 2))s"
}

stop_bpftrace() {
	say "stopping bpftrace"
	kill -INT $btpid
	brc=0
	wait $btpid || brc=$?
	# bpftrace 0.17 warns that every kprobe target "is not traceable" when
	# the kernel has no available_filter_functions (no FUNCTION_TRACER).
	grep -v 'is not traceable' /out/bpftrace.err | sed 's/^/bpftrace: /' | head -n 20
	[ $brc = 0 ] || fail "bpftrace exited with $brc"
	grep -q 'dfp-profile: end of trace' /out/bpftrace.txt || fail "bpftrace did not print its maps"
}

start_perf() {
	say "starting perf record -e cpu-clock -F $freq -a -g"
	HOME=/tmp/work chroot $H perf record -e cpu-clock -F "$freq" -a -g -N \
		-o /tmp/work/perf.data > /out/perf-record.log 2>&1 &
	perfpid=$!
	sleep 2
	kill -0 $perfpid 2>/dev/null || { cat /out/perf-record.log >&2; fail "perf record exited at start"; }
}

stop_perf() {
	say "stopping perf"
	kill -INT $perfpid
	prc=0
	wait $perfpid || prc=$?
	cp $H/tmp/work/perf.data /out/perf.data
	tail -n 3 /out/perf-record.log
	# perf record re-raises the SIGINT it stopped on: 130 is a clean stop.
	[ $prc = 0 ] || [ $prc = 130 ] || fail "perf record exited with $prc"
}

# run_workload OUTPUT: the workload, its output to /out/OUTPUT; sets wrc.
run_workload() {
	say "workload ($secs s): $cmd"
	set +e
	sh -c "$cmd" > /out/$1 2>&1
	wrc=$?
	set -e
	tail -n 5 /out/$1
	say "workload exit status $wrc"
}

if [ "$split" = 1 ]; then
	# Two runs of the workload: perf alone, then bpftrace alone, so the
	# perf profile does not include the probes' cost.
	start_perf
	run_workload workload-perf.txt
	stop_perf
	[ -f /out/fio.json ] && mv /out/fio.json /out/fio-perf.json
	[ $wrc = 0 ] || exit $wrc
	start_bpftrace
	run_workload workload.txt
	stop_bpftrace
else
	start_bpftrace
	start_perf
	run_workload workload.txt
	stop_perf
	stop_bpftrace
fi
exit $wrc
