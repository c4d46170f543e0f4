#!/usr/bin/python3
"""make bench: A/B benchmarks of the base and series kernels.

Applies the series (scripts/tree), builds the two kernels (bench-base: the
pinned base plus the measurement-only patches, and series), then runs every
workload on both in rounds, round 0 being a warm-up. AB=simultaneous runs
the two kernels' guests (and KUnit images) at the same time, floating over
the host's CPUs (AB_PIN=1: one host CPU each), meeting before every
workload step;
AB=sequential runs them one after the other, alternating which goes first.
Every measurement is appended to results.jsonl in
bench/results/<UTC timestamp>/, and bench/compare.py turns that into
report.md, summary.json and plots.

Environment: ROUNDS (default 5 measured rounds), QUICK=1 (a smoke run of
every workload: 1 measured round, short durations), FAMILIES (subset of
"static icount kunit kunit-retpoline dma_map_benchmark fio xdp"), MODES
(subset of the guest modes; intel-switch and smmuv3-switch only when
named), AA=1 (the
series on both sides: an A/A run), BASE and SERIES (the two sides: any ref
scripts/build takes, e.g. BASE=patch:12 SERIES=patch:13 for one patch's
effect), AB, AB_PIN, HOSTCPU=1 (host CPU per fio I/O), XDP_GEN_TYPE (the
XDP load generator NIC's group type; default identity, empty: as booted),
APPEND (more guest kernel arguments), KUNIT_GLOB (the KUnit timing cases).
Modes intel-switch and smmuv3-switch: SW_MODES, SW_JOBS, SW_XDP, SWITCH, FIO_FILE,
FLUSH_PROBES, FLUSH_SPANS, PAIR (see MODE_PARTS).

Family icount counts instead of timing: dma_map_benchmark under QEMU -icount
shift=0, where the guest clock advances one ns per instruction, so the
per-call figures are instructions executed, the same in every boot for a
single-page map or unmap. One boot per kernel and mode (intel-strict,
intel-lazy), recorded as round 1. BASE=patch:N-1 SERIES=patch:N
FAMILIES=icount gives one patch's count.

bench/run.py --ingest OUTDIR: results.jsonl of bench/hw-run's raw output.
"""
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from parse import (dmabench_points, fio_ios, fio_jobs, kunit_timings, tx_rates,  # noqa: E402
                   xdp_generator, xdp_pps)

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUICK = os.environ.get('QUICK', '0') == '1'
ROUNDS = int(os.environ.get('ROUNDS', '1' if QUICK else '5'))
FAMILIES = os.environ.get('FAMILIES', 'static icount kunit kunit-retpoline dma_map_benchmark fio xdp tx').split()
# AA=1: an A/A run, the series kernel on both sides (labelled base and
# series as usual): what the method reports when nothing changed.
AA = os.environ.get('AA', '0') == '1'
KERNELS = {'base': os.environ.get('BASE') or ('series' if AA else 'bench-base'),
           'series': os.environ.get('SERIES') or 'series'}
# AB: simultaneous (both kernels' guests at once, one host CPU each) or
# sequential (one guest after the other, each with the whole host).
AB = os.environ.get('AB', 'simultaneous')
# AB_PIN=1: each simultaneous guest held on one host CPU (taskset), the
# CPUs swapped every two rounds; by default both float over the host's
# CPUs: in A/A runs of 4 rounds (fio and XDP, intel-strict) held guests
# gave intervals 1.3-4x wider (Documentation/benchmarks.md).
AB_PIN = os.environ.get('AB_PIN', '0') == '1'
if AB not in ('simultaneous', 'sequential'):
    raise SystemExit(f'bench: AB={AB}: simultaneous or sequential')
# HOSTCPU=1: the host CPU time of each guest's QEMU threads over each fio
# job, per completed I/O, split into the TCG vCPU threads (guest code, and
# QEMU's emulation of the invalidation queue, run in the vCPU that writes
# its tail register) and QEMU's other threads (the main loop runs the NVMe
# model, whose DMA is translated through the vIOMMU there; AIO workers).
# With intel-pt the device's DMA bypasses the vIOMMU, so qemu(mode) -
# qemu(intel-pt) is QEMU's translation cost per I/O.
HOSTCPU = os.environ.get('HOSTCPU', '0') == '1'
APPEND = os.environ.get('APPEND', '')

# Guest points. dma_map_benchmark modes: 0 single, 1 sg, 2 IOVA link.
DMAB_POINTS = [f'{m}:{g}:{t}' for t in (1, 2)
               for m, gs in ((0, (1, 16, 256)), (1, (16, 256)), (2, (16, 256, 512)))
               for g in gs]
DMAB_SG_POINTS = [p for p in DMAB_POINTS if p.startswith('1:')]
# Family icount: the points, and the modes it runs in (when in MODES).
ICOUNT_POINTS = '0:1:1 0:16:1 1:16:1 1:256:1 2:16:1 2:512:1'
ICOUNT_MODES = ('intel-strict', 'intel-lazy', 'smmuv3-strict')
XDP_ACTIONS = 'drop tx redirect'
# The load generator NIC's IOMMU group type: bench/guest/xdp.sh holds it in
# passthrough unless XDP_GEN_TYPE is passed on, so that only the NICs under
# test follow the boot's mode.
XDP_GEN = [f'XDP_GEN_TYPE={os.environ["XDP_GEN_TYPE"]}'] if 'XDP_GEN_TYPE' in os.environ else []
# The fio jobs: the sections of bench/fio/fastpath.fio.
with open(os.path.join(TOP, 'bench', 'fio', 'fastpath.fio')) as _f:
    FIO_JOBS = [m.group(1) for m in re.finditer(r'^\[([^\]]+)\]$', _f.read(), re.M)
                if m.group(1) != 'global']

# Which guest parts run in which IOMMU mode (one boot per mode and kernel).
# intel-switch boots intel-strict and switches the IOMMU groups of the disk
# and the NICs between DMA (strict), DMA-FQ (lazy) and identity (pt) at run
# time (bench/guest/modes.sh): the three modes on one QEMU instance,
# seconds apart, in an order rotated per round; recorded as modes
# switch-strict, switch-lazy and switch-pt. SW_MODES (group types), SW_JOBS
# (fio jobs), SW_XDP (XDP actions), SWITCH (the devices that follow the
# mode, of nvme xdp gen redir), FIO_FILE (a job file of bench/fio).
# FLUSH_PROBES=FUNCS counts kprobe hits on functions that issue an IOTLB
# invalidation (VT-d: cache_tag_flush_range) per fio I/O; FLUSH_SPANS=1
# (VT-d) counts the invalidations per I/O by the size of the aligned block
# each covers: both trap or trace every invalidation, so their IOPS are
# not comparable with other runs. PAIR=1: two NVMe disks read at once, one
# in each of two SW_MODES, swapped within the round; a mode's IOPS is the
# geometric mean of its two runs (workload JOB:pair), so both modes see
# the same moments of the host. smmuv3-switch does the same in the arm64
# guest (boots smmuv3-strict), recorded as smmuv3-switch-strict etc.
MODE_PARTS = {
    'intel-strict': ['dmabench', 'fio', 'xdp', 'tx'],
    'intel-lazy': ['dmabench', 'fio', 'xdp', 'tx'],
    'intel-pt': ['fio', 'xdp', 'tx'],
    'amd-strict': ['dmabench-sg', 'fio'],
    'amd-lazy': ['fio'],
    'none': ['fio'],
    'intel-switch': ['switch'],
    'smmuv3-switch': ['switch'],
    'smmuv3-strict': ['dmabench', 'fio', 'xdp', 'tx'],
    'smmuv3-lazy': ['dmabench', 'fio', 'xdp', 'tx'],
    'smmuv3-pt': ['fio', 'xdp', 'tx'],
}
# The arm64 guest's modes (qemu-system-aarch64 -M virt with an SMMUv3;
# kernels and initramfs built with ARCH=arm64).
ARM64_MODES = ('smmuv3-strict', 'smmuv3-lazy', 'smmuv3-pt', 'smmuv3-switch')
# The QEMU trace events each vIOMMU's boots record (both kernels alike), for
# counts per request the disk completed in each fio job, beside its IOPS:
# invalidations_per_io (SMMUv3 TLBI commands, VT-d page-selective
# descriptors, AMD INVALIDATE_IOMMU_PAGES), syncs_per_io (CMD_SYNC, wait
# descriptors, COMPLETION_WAIT), iotlb_misses_per_io (VT-d, AMD: the
# translations the vIOMMU walked for the disk, QEMU's IOTLB fills on its
# source id) and, VT-d, invalidated_kib_per_io (the aligned blocks the
# descriptors cover) and queue_invalidations (VT-d: the descriptors in the
# disk's domain that cover a page of one of its queues, whose translations
# the disk uses all the time; from QEMU's NVMe queue-creation events).
# Passthrough modes translate nothing: not traced.
NVME_QUEUE_TRACE = ('pci_nvme_create_sq,pci_nvme_create_cq,pci_nvme_mmio_aqattr,'
                    'pci_nvme_mmio_asqaddr*,pci_nvme_mmio_acqaddr*')
VIOMMU_TRACE = {
    'smmuv3-strict': 'smmuv3_cmdq_opcode',
    'smmuv3-lazy': 'smmuv3_cmdq_opcode',
    'intel-strict': 'vtd_inv_desc_iotlb_pages,vtd_inv_desc_wait_sw,'
                    'vtd_inv_desc_wait_irq,vtd_iotlb_page_update,' + NVME_QUEUE_TRACE,
    'intel-lazy': 'vtd_inv_desc_iotlb_pages,vtd_inv_desc_wait_sw,'
                  'vtd_inv_desc_wait_irq,vtd_iotlb_page_update,' + NVME_QUEUE_TRACE,
    'amd-strict': 'amdvi_pages_inval,amdvi_completion_wait,amdvi_cache_update',
    'amd-lazy': 'amdvi_pages_inval,amdvi_completion_wait,amdvi_cache_update',
}
DEFAULT_MODES = [m for m in MODE_PARTS if not m.endswith('-switch')]
PART_FAMILY = {'dmabench': ('dma_map_benchmark',), 'dmabench-sg': ('dma_map_benchmark',),
               'fio': ('fio',), 'xdp': ('xdp',), 'tx': ('tx',), 'switch': ('fio', 'xdp')}
SW_MODES = os.environ.get('SW_MODES', 'DMA DMA-FQ identity').split()
SW_NAMES = {'DMA': 'strict', 'DMA-FQ': 'lazy', 'identity': 'pt'}
SW_JOBS = os.environ.get('SW_JOBS', 'randread-4k-qd32 seqread-128k-qd8')
SW_XDP = os.environ.get('SW_XDP', 'tx redirect')
SWITCH = os.environ.get('SWITCH', 'nvme xdp redir')
PAIR = os.environ.get('PAIR', '0') == '1'
if set(SW_MODES) - set(SW_NAMES) or (PAIR and len(SW_MODES) != 2):
    raise SystemExit('bench: SW_MODES: group types of DMA DMA-FQ identity (two with PAIR=1)')
# A group type in bench/guest/modes.sh's file and step names, longest first
# (DMA-FQ before DMA).
SW_TYPE = '|'.join(sorted(SW_NAMES, key=len, reverse=True))

if QUICK:
    TIMES = dict(SECONDS_PER_POINT='1', RUNTIME='2', RAMP='1', XDP_SECONDS='2', TX_SECONDS='2')
else:
    TIMES = dict(SECONDS_PER_POINT='2', RUNTIME='5', RAMP='1', XDP_SECONDS='5', TX_SECONDS='5')

T0 = time.time()
# Where the guests' disk images live: memory (1 GiB each, sparse).
DISK_DIR = os.environ.get('BENCH_DISK_DIR', '/dev/shm' if os.path.isdir('/dev/shm') else
                          os.path.join(TOP, 'build', 'guest'))


def ref_name(ref):
    """A ref as a file name, as scripts/lib.sh ref_name makes it."""
    return re.sub(r'[^A-Za-z0-9._-]', '_', re.sub(r'[:/]', '-', ref))


def ref_commit(ref):
    """The commit of a ref, as scripts/lib.sh ref_commit resolves it."""
    if ref.startswith('patch:'):
        commits = sh(['git', '-C', 'build/linux', 'rev-list', '--reverse', 'base..series'],
                     capture=True).stdout.split()
        n = int(ref[len('patch:'):])
        if not 1 <= n <= len(commits):
            raise SystemExit(f'bench: {ref}: the series has {len(commits)} patches')
        return commits[n - 1]
    name = f'refs/tags/{ref}' if ref in ('base', 'series', 'bench-base') else ref.removeprefix('rev:')
    return sh(['git', '-C', 'build/linux', 'rev-parse', f'{name}^{{commit}}'], capture=True).stdout.strip()


def obj_dir(kernel, arch_tag=''):
    """build/obj-NAME of a side's kernel (relative to TOP); arch_tag
    'arm64-' for the arm64 guest's."""
    return os.path.join('build', f'obj-{arch_tag}{ref_name(KERNELS[kernel])}')


def log(msg):
    el = int(time.time() - T0)
    print(f'[bench {el // 60:3d}m{el % 60:02d}s] {msg}', flush=True)


def sh(cmd, env=None, check=True, capture=False):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run(cmd, cwd=TOP, env=e, text=True,
                       stdout=subprocess.PIPE if capture else None,
                       stderr=subprocess.STDOUT if capture else None)
    if check and r.returncode:
        raise SystemExit(f'bench: {" ".join(cmd)} failed ({r.returncode})')
    return r


class Results:
    def __init__(self, path):
        self.path = path
        self.failures = []

    def add(self, family, workload, mode, kernel, rnd, metric, value, unit, better):
        rec = dict(family=family, workload=workload, mode=mode, kernel=kernel,
                   round=rnd, metric=metric, value=value, unit=unit, better=better)
        with open(self.path, 'a') as f:
            f.write(json.dumps(rec) + '\n')


def run_static(res, raw):
    """Indirect calls reachable from the DMA API (scripts/indirect-calls).

    A property of each kernel's vmlinux, not a timing: one record per entry
    point and kernel, as round 1, plus the total as metric "count".
    """
    out = os.path.join(raw, 'indirect-calls.json')
    objs = [obj_dir(k) for k in KERNELS]
    cmd = ['scripts/indirect-calls', '--json', out]
    for k, o in zip(KERNELS, objs):
        cmd += ['--label', k, o]
    r = sh(cmd, check=False, capture=True)
    with open(os.path.join(raw, 'indirect-calls.txt'), 'w') as f:
        f.write(r.stdout)
    if r.returncode or not os.path.exists(out):
        res.failures.append(f'static: scripts/indirect-calls rc {r.returncode}')
        return
    with open(out) as f:
        data = json.load(f)
    for k in KERNELS:
        for entry, e in data[k]['entries'].items():
            if e['count'] is None:   # entry point not in this kernel
                continue
            res.add('static', 'indirect-calls', '-', k, 1, entry, e['count'], '', 'lower')
        res.add('static', 'indirect-calls', '-', k, 1, 'count', data[k]['total'], '', 'lower')
    log('static: indirect calls reachable from the DMA API: ' +
        ', '.join(f'{k} {data[k]["total"]}' for k in KERNELS))


# Hot library routines whose placement QEMU TCG is sensitive to: it does not
# chain translated blocks across guest pages, so a loop straddling a 4K page
# runs several times slower (Documentation/benchmarks.md, memset_orig).
HOT_FUNCS = ('memset_orig', 'memcpy_orig', '__memset', '__memcpy', 'memmove',
             'clear_page_orig', 'clear_page_rep', 'clear_page_erms',
             'rep_movs_alternative')


def text_layout(objdir):
    """{function: [page offset, size, straddles a 4K page]} of HOT_FUNCS."""
    out = sh(['nm', '-S', os.path.join(objdir, 'vmlinux')], capture=True, check=False).stdout
    layout = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[3] in HOT_FUNCS:
            addr, size = int(parts[0], 16), int(parts[1], 16)
            layout[parts[3]] = [addr % 4096, size, addr // 4096 != (addr + size - 1) // 4096]
    return layout


KUNIT_GLOB = os.environ.get('KUNIT_GLOB', '*.test_time_*')


def kunit_image(kernel, retpoline):
    """The UML image scripts/kunit built for kernel (KUNIT_NODEBUG=1)."""
    return os.path.join(TOP, 'build', f'kunit-{ref_name(KERNELS[kernel])}{"-retpoline" if retpoline else ""}-nodebug',
                        'linux')


def parse_kunit(res, text, mode, kernel, rnd):
    """The '# timing:' lines of the KUnit timing cases; their number."""
    t = kunit_timings(text)
    for fmt, case, avg, mn in t:
        res.add('kunit', f'{fmt}/{case}', mode, kernel, rnd, 'avg_ns', avg, 'ns', 'lower')
        res.add('kunit', f'{fmt}/{case}', mode, kernel, rnd, 'min_ns', mn, 'ns', 'lower')
    return len(t)


def run_kunit(res, kernel, rnd, raw, retpoline=False):
    """generic_pt KUnit timing cases under UML; '# timing:' lines.

    Built as the timing image of scripts/lib.sh (KUNIT_NODEBUG=1): without
    CONFIG_DEBUG_GENERIC_PT, whose self-checks cost as much as the work on
    the small cases; functions on 64 bytes, so that where a function lands
    does not move another's time; x86_64's code generation for globals
    and struct page. With retpoline, UML is built with GCC's retpoline
    thunks (mode uml-retpoline): what an indirect call costs a retpolined
    x86 kernel, measured natively. scripts/kunit builds the image and runs
    it (the warm-up round, and every round with AB=sequential)."""
    mode = 'uml-retpoline' if retpoline else 'uml'
    out = os.path.join(raw, f'kunit-r{rnd}-{kernel}{"-retpoline" if retpoline else ""}.log')
    # kunit.py takes the suite.test glob as a positional argument.
    r = sh(['scripts/kunit', KERNELS[kernel], KUNIT_GLOB, '--raw_output=kunit'],
           env={'KUNIT_SLOW': '1', 'KUNIT_NODEBUG': '1',
                'KUNIT_RETPOLINE': '1' if retpoline else '0'},
           check=False, capture=True)
    with open(out, 'w') as f:
        f.write(r.stdout)
    n = parse_kunit(res, r.stdout, mode, kernel, rnd)
    if r.returncode or n == 0:
        res.failures.append(f'kunit {mode} {kernel} round {rnd}: rc {r.returncode}, {n} timing lines ({out})')


def run_kunit_pair(res, order, cpus, rnd, raw, retpoline=False):
    """The two kernels' KUnit timing images at the same time
    (AB=simultaneous; each held on its own host CPU with AB_PIN=1), started
    in `order`: the images the warm-up round built, run as kunit.py runs
    them."""
    mode = 'uml-retpoline' if retpoline else 'uml'
    procs = {}
    for k in order:
        out = os.path.join(raw, f'kunit-r{rnd}-{k}{"-retpoline" if retpoline else ""}.log')
        pin = ['taskset', '-c', str(cpus[k])] if AB_PIN else []
        cmd = pin + [kunit_image(k, retpoline), 'mem=1G', 'console=tty',
               'kunit_shutdown=halt', f'kunit.filter_glob={KUNIT_GLOB}', 'kunit.enable=1']
        f = open(out, 'w')
        procs[k] = (subprocess.Popen(cmd, cwd=TOP, stdin=subprocess.DEVNULL, stdout=f,
                                     stderr=subprocess.STDOUT), f, out)
    for k in order:
        p, f, out = procs[k]
        try:
            rc = p.wait(timeout=600)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = p.wait()
        f.close()
        n = parse_kunit(res, open(out, errors='replace').read(), mode, k, rnd)
        if rc or n == 0:
            res.failures.append(f'kunit {mode} {k} round {rnd}: rc {rc}, {n} timing lines ({out})')


def parse_dmabench(res, text, mode, kernel, rnd):
    for wl, kv in dmabench_points(text):
        for key in ('map_p50', 'map_p99', 'unmap_p50', 'unmap_p99', 'map_avg', 'unmap_avg'):
            res.add('dma_map_benchmark', wl, mode, kernel, rnd, key + '_ns', kv.get(key), 'ns', 'lower')
        # A map and its unmap together (means add up; medians do not).
        both = (kv['map_avg'] + kv['unmap_avg']
                if 'map_avg' in kv and 'unmap_avg' in kv else None)
        res.add('dma_map_benchmark', wl, mode, kernel, rnd, 'map_unmap_avg_ns', both, 'ns', 'lower')


def run_icount(res, mode, kernel, raw):
    """dma_map_benchmark under QEMU -icount shift=0: instructions per call.

    The p50 of the map and unmap of each point, as round 1 (one boot: a
    single-page map or unmap executes the same instructions in every boot;
    the benchmark keeps the pages of its sg and IOVA-link lists physically
    apart, so those points count the same in every boot too)."""
    rundir = os.path.join(raw, f'icount-{mode}-{kernel}')
    shutil.rmtree(rundir, ignore_errors=True)
    cmd = ['scripts/vm', '-k', KERNELS[kernel], '-t', '900', '-a', 'dma_debug=off', mode, '--',
           'env', 'SECONDS_PER_POINT=1', '/usr/share/dfp/bench/dmabench.sh'] + ICOUNT_POINTS.split()
    r = sh(cmd, env=dict(VM_RUN_DIR=rundir, VM_ICOUNT='0', VM_TCG_THREAD='single'),
           check=False, capture=True)
    with open(os.path.join(rundir, 'host.log'), 'w') as f:
        f.write(r.stdout)
    n = 0
    for wl, kv in dmabench_points(r.stdout):
        if not kv:
            continue
        for key in ('map_p50', 'unmap_p50'):
            res.add('icount', wl, mode, kernel, 1, key + '_insns', kv.get(key), 'insns', 'lower')
        n += 1
    if r.returncode or n != len(ICOUNT_POINTS.split()):
        res.failures.append(f'icount {mode} {kernel}: rc {r.returncode}, {n} points ({rundir})')


def parse_fio(res, path, mode, kernel, rnd):
    for name, d in fio_jobs(path):
        res.add('fio', name, mode, kernel, rnd, 'iops', round(d['iops'], 1), 'IOPS', 'higher')
        res.add('fio', name, mode, kernel, rnd, 'lat_mean_us', round(d['lat_mean_us'], 2), 'us', 'lower')
        res.add('fio', name, mode, kernel, rnd, 'lat_p99_us',
                None if d['lat_p99_us'] is None else round(d['lat_p99_us'], 2), 'us', 'lower')


def parse_xdp(res, text, mode, kernel, rnd):
    """The pps of each action in bench/guest/xdp.sh's output."""
    for action, pps in xdp_pps(text):
        res.add('xdp', action, mode, kernel, rnd, 'pps', pps, 'pps', 'higher')


def parse_tx(res, text, mode, kernel, rnd):
    """The packet and bit rates of each workload of bench/guest/tx.sh."""
    for workload, pps, mbps in tx_rates(text):
        res.add('tx', workload, mode, kernel, rnd, 'pps', pps, 'pps', 'higher')
        res.add('tx', workload, mode, kernel, rnd, 'mbps', mbps, 'Mbit/s', 'higher')


def nvme_timeouts(rundir):
    p = os.path.join(rundir, 'console.log')
    return os.path.exists(p) and re.search(r'nvme.*timeout, aborting',
                                           open(p, errors='replace').read()) is not None


def mttcg_int3(rundir):
    """The guest took the int3 Oops multi-threaded TCG causes while the
    kernel patches its text (seen at boot and when XDP attaches)."""
    con = os.path.join(rundir, 'console.log')
    return os.path.exists(con) and 'Oops: int3' in open(con, errors='replace').read()


def guest_cmd(mode, parts, kernel, rnd, raw, attempt, sync):
    """scripts/vm command line, environment and run directory of one boot."""
    rundir = os.path.join(raw, f'r{rnd}-{mode}-{kernel}' + ('' if attempt == 1 else f'-try{attempt}'))
    shutil.rmtree(rundir, ignore_errors=True)
    points = DMAB_SG_POINTS if 'dmabench-sg' in parts else DMAB_POINTS
    # Multi-threaded TCG: under single-threaded TCG the emulated NVMe lost
    # completions at QD32 in 3 of 6 boots, multi-threaded in 0 of 3 (see
    # Documentation/testing.md). make check keeps thread=single, which
    # never took the boot-time int3 Oops that MTTCG sometimes takes.
    # VM_ICOUNT=SHIFT (scripts/vm): counted, not timed; QEMU's -icount runs
    # single-threaded TCG only. With it, XDP's pps is a path length.
    env = dict(TIMES, VM_RUN_DIR=rundir, VM_TIMEOUT='900',
               VM_TCG_THREAD='single' if os.environ.get('VM_ICOUNT') else 'multi')
    if mode in VIOMMU_TRACE:
        env['VM_TRACE'] = VIOMMU_TRACE[mode]
    # Every boot gets a fresh, empty disk image in memory, one per kernel (two
    # guests at once: QEMU locks an image). One image kept for the whole
    # run filled with fio's writes and fragmented on the host's disk, and
    # every fio job slowed down from round to round (an A/A run's 128K
    # reads, 4640 and 4225 IOPS in the warm-up, 1741 and 2726 in round 4).
    for var, name in (('VM_DISK_IMG', 'nvme'), ('VM_NVME2', 'nvme2')):
        if var == 'VM_NVME2' and not ('switch' in parts and PAIR):
            continue
        img = os.path.join(DISK_DIR, f'dfp-{name}-{os.getpid()}-{kernel}.img')
        if os.path.exists(img):
            os.unlink(img)
        env[var] = img
    genv = [f'{k}={v}' for k, v in TIMES.items()] + [f'AB_SYNC={int(sync)}'] + XDP_GEN + \
        (['XDP_IRQ_CPU=0'] if os.environ.get('VM_SMP') == '1' else [])
    if parts == ['switch']:
        boot_mode = mode.replace('-switch', '-strict')
        genv += ['ROUNDS=1', f'ROUND_FIRST={rnd}',
                 f'FIO_JOBS={SW_JOBS if "fio" in FAMILIES else ""}',
                 f'XDP_ACTIONS={SW_XDP if "xdp" in FAMILIES and not PAIR else ""}',
                 f'MODES={" ".join(SW_MODES)}', f'SWITCH={SWITCH}',
                 f'FIO_FILE={os.environ.get("FIO_FILE", "fastpath.fio")}',
                 f'FLUSH_PROBES={os.environ.get("FLUSH_PROBES", "")}',
                 f'FLUSH_SPANS={os.environ.get("FLUSH_SPANS", "0")}', f'PAIR={int(PAIR)}',
                 '/usr/share/dfp/bench/modes.sh']
    else:
        boot_mode = mode
        gparts = ' '.join('dmabench' if p.startswith('dmabench') else p for p in parts)
        genv += [f'PARTS={gparts}', f'DMABENCH_POINTS={" ".join(points)}',
                 f'XDP_ACTIONS={XDP_ACTIONS}', '/usr/share/dfp/bench/all.sh']
    # nvme_core.io_timeout: a completion the emulated NVMe loses (see
    # parse_guest) costs 5 s instead of 30 before the abort recovers it.
    cmd = ['scripts/vm', '-k', KERNELS[kernel], '-a',
           f'dma_debug=off nvme_core.io_timeout=5 {APPEND}'.strip(), boot_mode, '--', 'env'] + genv
    return cmd, env, rundir


def testbed_fault(rundir, parts):
    """A fault of the test bed, not a measurement: NVMe I/O timeouts or the
    MTTCG int3 Oops. Such a boot is run once more."""
    return (('fio' in parts or 'switch' in parts) and nvme_timeouts(rundir)) or mttcg_int3(rundir)


def per_io_counts(path):
    """(I/Os, {name: count}) of a .flush or .spans file of
    bench/guest/modes.sh: "ios N" and "FUNC N" (FLUSH_PROBES) or "mask M N"
    (FLUSH_SPANS: M, log2 of the 4K pages an invalidation covers, or
    "all"); None when events were lost."""
    ios, counts = 0, {}
    with open(path) as f:
        lines = [line.split() for line in f]
    for w in lines:
        if w[:1] == ['ios']:
            ios = int(w[1])
        elif w[:1] == ['lost']:
            if int(w[1]):
                return None
        elif w[:1] == ['mask']:
            counts['all' if w[1] == 'all' else f'{4 << int(w[1])}K'] = int(w[2])
        elif len(w) == 2:
            counts[w[0]] = int(w[1])
    return ios, counts


def switch_step(stem):
    """(group type, job) of modes.sh's one-disk run r<ROUND>-<TYPE>-<JOB> (a
    step name, or a file name without its extension), or None."""
    m = re.fullmatch(rf'r\d+-({SW_TYPE})-(.+)', stem)
    return m.groups() if m else None


def switch_mode(boot, gtype):
    """The mode one boot of intel-switch or smmuv3-switch records for IOMMU
    group type gtype: switch-strict, ... and smmuv3-switch-strict, ...."""
    prefix = '' if boot == 'intel-switch' else boot.removesuffix('-switch') + '-'
    return f'{prefix}switch-{SW_NAMES[gtype]}'


def parse_switch(res, out, kernel, rnd, boot='intel-switch'):
    """The files bench/guest/modes.sh wrote for one boot of intel-switch or
    smmuv3-switch (boot)."""
    files = sorted(os.listdir(out)) if os.path.isdir(out) else []
    pair = {}
    for f in files:
        path = os.path.join(out, f)
        m = re.fullmatch(rf'r\d+-([ab])-({SW_TYPE})-(.+)\.json', f)
        if m:
            try:
                pair.setdefault((m.group(3), m.group(2)), []).append(fio_jobs(path)[0][1]['iops'])
            except (ValueError, KeyError, IndexError) as e:
                res.failures.append(f'switch {kernel} round {rnd}: bad JSON in {path}: {e}')
            continue
        stem, ext = os.path.splitext(f)
        step = switch_step(stem)
        if not step or ext not in ('.json', '.flush', '.spans', '.txt'):
            continue
        (gtype, job), ext = step, ext[1:]
        mode = switch_mode(boot, gtype)
        if ext == 'json':
            try:
                parse_fio(res, path, mode, kernel, rnd)
            except (ValueError, KeyError) as e:
                res.failures.append(f'switch {kernel} round {rnd}: bad JSON in {path}: {e}')
        elif ext == 'txt' and job == 'xdp':
            with open(path) as fh:
                text = fh.read()
            # The load generator's NIC must be where SWITCH puts it.
            want = gtype if 'gen' in SWITCH.split() else 'identity'
            if xdp_generator(text) != want:
                res.failures.append(f'switch {kernel} round {rnd}: {f}: generator group '
                                    f'{xdp_generator(text)}, wanted {want}')
                continue
            parse_xdp(res, text, mode, kernel, rnd)
        elif ext in ('flush', 'spans'):
            got = per_io_counts(path)
            if got is None:
                res.failures.append(f'switch {kernel} round {rnd}: {f}: trace events lost')
                continue
            ios, counts = got
            res.add('fio', job, mode, kernel, rnd, 'invalidations_per_io',
                    sum(counts.values()) / ios if ios else None, 'per I/O', 'lower')
            if ext == 'spans':
                for size, c in counts.items():
                    res.add('fio', job, mode, kernel, rnd, f'invalidations_{size}_per_io',
                            c / ios if ios else None, 'per I/O', 'lower')
    for (job, t), v in sorted(pair.items()):
        res.add('fio', f'{job}:pair', switch_mode(boot, t), kernel, rnd, 'iops',
                round((v[0] * v[1]) ** 0.5, 1) if len(v) == 2 else None, 'IOPS', 'higher')


def parse_guest(res, rundir, rc, mode, parts, kernel, rnd):
    if rc:
        res.failures.append(f'guest {mode} {kernel} round {rnd}: rc {rc} ({rundir})')
    out = os.path.join(rundir, 'out')
    if 'switch' in parts:
        parse_switch(res, out, kernel, rnd, mode)
        return
    if any(p.startswith('dmabench') for p in parts):
        p = os.path.join(out, 'dmabench.txt')
        parse_dmabench(res, open(p).read() if os.path.exists(p) else '', mode, kernel, rnd)
    if 'fio' in parts and nvme_timeouts(rundir):
        # The emulated NVMe lost completions (QEMU, seen under host load):
        # the I/O waited for the timeout and abort, so this run's fio figures
        # measure the timeout, not the mapping path. Record them as missing.
        res.failures.append(f'fio {mode} {kernel} round {rnd}: NVMe I/O timeouts '
                            f'in the guest, results discarded ({rundir})')
        for job in FIO_JOBS:
            for metric, unit, better in (('iops', 'IOPS', 'higher'), ('lat_mean_us', 'us', 'lower'),
                                         ('lat_p99_us', 'us', 'lower')):
                res.add('fio', job, mode, kernel, rnd, metric, None, unit, better)
    elif 'fio' in parts:
        # One fio.json, or (simultaneous guests) one fio-JOB.json per job.
        paths = [os.path.join(out, 'fio.json')] + [os.path.join(out, f'fio-{j}.json') for j in FIO_JOBS]
        for path in (p for p in paths if os.path.exists(p)):
            try:
                parse_fio(res, path, mode, kernel, rnd)
            except (ValueError, KeyError) as e:
                res.failures.append(f'fio {mode} {kernel} round {rnd}: bad JSON in {path}: {e}')
    if 'xdp' in parts:
        p = os.path.join(out, 'xdp.txt')
        parse_xdp(res, open(p).read() if os.path.exists(p) else '', mode, kernel, rnd)
    if 'tx' in parts:
        p = os.path.join(out, 'tx.txt')
        parse_tx(res, open(p).read() if os.path.exists(p) else '', mode, kernel, rnd)


CLK_TCK = os.sysconf('SC_CLK_TCK')


def thread_times(pid):
    """{tid: (comm, CPU seconds)} of every thread of a process."""
    out = {}
    for tid in os.listdir(f'/proc/{pid}/task'):
        try:
            with open(f'/proc/{pid}/task/{tid}/stat') as f:
                s = f.read()
        except OSError:
            continue
        # comm may hold spaces ("CPU 0/TCG"); utime and stime are fields
        # 14 and 15 of stat
        fields = s[s.rindex(')') + 2:].split()
        out[tid] = (s[s.index('(') + 1:s.rindex(')')], (int(fields[11]) + int(fields[12])) / CLK_TCK)
    return out


def cpu_split(before, after):
    """(vCPU threads' CPU seconds, other threads') between two snapshots."""
    vcpu = other = 0.0
    for tid, (comm, t1) in after.items():
        d = t1 - before.get(tid, (comm, 0.0))[1]
        if re.match(r'CPU \d+/TCG', comm):
            vcpu += d
        else:
            other += d
    return vcpu, other


def find_qemu(rundir):
    """PID of the QEMU scripts/vm started for rundir, or None (yet)."""
    needle = os.path.join(rundir, 'console.log')
    for pid in filter(str.isdigit, os.listdir('/proc')):
        try:
            with open(f'/proc/{pid}/comm') as f:
                comm = f.read().strip()
            with open(f'/proc/{pid}/cmdline', 'rb') as f:
                cmd = f.read().decode(errors='replace')
        except OSError:
            continue
        if comm.startswith('qemu-system') and needle in cmd:
            return int(pid)
    return None


def record_hostcpu(res, b, step, cpu, mode, kernel, rnd):
    """HOSTCPU=1: a fio step's CPU seconds (vcpu, other) per completed I/O
    (the step's JSON, out/STEP.json) as family hostcpu."""
    path = os.path.join(b['rundir'], 'out', f'{step}.json')
    sw = switch_step(step)
    if step.startswith('fio-'):
        job = step[len('fio-'):]
    elif sw:
        mode, job = switch_mode(mode, sw[0]), sw[1]
    else:
        return
    if not os.path.exists(path):
        return
    try:
        ios, _ = fio_ios(path)
    except (ValueError, KeyError, IndexError):
        return
    if ios:
        res.add('hostcpu', job, mode, kernel, rnd, 'vcpu_us_per_io', round(cpu[0] * 1e6 / ios, 2),
                'us', 'lower')
        res.add('hostcpu', job, mode, kernel, rnd, 'qemu_us_per_io', round(cpu[1] * 1e6 / ios, 2),
                'us', 'lower')


def pci_sid(bdf):
    """The PCI source id (bus << 8 | devfn) of "0000:00:03.0", else None."""
    m = re.fullmatch(r'(?:[0-9a-f]+:)?([0-9a-f]{2}):([0-9a-f]{2})\.([0-7])', bdf or '')
    return (int(m[1], 16) << 8 | int(m[2], 16) << 3 | int(m[3])) if m else None


def nvme_queues(path, end):
    """The pages [lo, hi) of the NVMe queues created in bytes [0, end) of a
    QEMU trace (NVME_QUEUE_TRACE): the admin queues from the registers
    (entries of AQATTR's sizes, 0-based), each I/O queue from its creation
    command (qsize 0-based; 64-byte submission, 16-byte completion entries),
    rounded out to 4 KiB: the DMA API maps a queue's whole pages."""
    q, regs = [], {}
    with open(path, 'rb') as f:
        while f.tell() < end:
            raw = f.readline()
            if not raw:
                break
            if b'pci_nvme_' not in raw:
                continue
            line = raw.decode(errors='replace')
            m = re.search(r'pci_nvme_create_([sc])q .*addr=0x([0-9a-f]+), .*qsize=(\d+)', line)
            if m:
                q.append((int(m[2], 16), (int(m[3]) + 1) * (64 if m[1] == 's' else 16)))
                continue
            m = re.search(r'pci_nvme_mmio_(aqattr|a[sc]qaddr)(_hi)? .*=0x([0-9a-f]+)$', line.strip())
            if m:
                regs[m[1]] = int(m[3], 16)
    if 'aqattr' in regs:
        for reg, size, shift in (('asqaddr', 64, 0), ('acqaddr', 16, 16)):
            if reg in regs:
                q.append((regs[reg], ((regs['aqattr'] >> shift & 0xfff) + 1) * size))
    return [(a & ~0xfff, (a + n + 0xfff) & ~0xfff) for a, n in q]


def viommu_counts(path, start, end, sid=None, queues=()):
    """Counts in bytes [start, end) of a QEMU trace of VIOMMU_TRACE's events:
    dict invalidations, syncs, misses (IOTLB fills for source id sid, every
    source without one), kib (KiB the VT-d descriptors cover) and qinv (VT-d
    descriptors that cover a page of `queues`, pages [lo, hi), in a domain
    sid's fills name; in any domain when the step had none)."""
    with open(path, 'rb') as f:
        f.seek(start)
        text = f.read(end - start).decode(errors='replace')
    c = dict(invalidations=0, syncs=0, misses=0, kib=0, qinv=0)
    domains, blocks = set(), []
    for line in text.splitlines():
        if 'smmuv3_cmdq_opcode' in line:
            if 'CMD_TLBI_' in line:
                c['invalidations'] += 1
            elif 'CMD_SYNC' in line:
                c['syncs'] += 1
        elif 'vtd_inv_desc_iotlb_pages' in line:
            c['invalidations'] += 1
            m = re.search(r'domain 0x([0-9a-f]+) addr 0x([0-9a-f]+) mask 0x([0-9a-f]+)', line)
            if m:
                c['kib'] += 4 << int(m[3], 16)
                blocks.append((int(m[1], 16), int(m[2], 16), 4096 << int(m[3], 16)))
        elif re.search(r'vtd_inv_desc_wait_(sw|irq)\b', line):
            c['syncs'] += 1
        elif 'vtd_iotlb_page_update' in line:
            m = re.search(r'sid 0x([0-9a-f]+) .*domain 0x([0-9a-f]+)', line)
            if sid is None or (m and int(m[1], 16) == sid):
                c['misses'] += 1
                if m:
                    domains.add(int(m[2], 16))
        elif 'amdvi_pages_inval' in line:
            c['invalidations'] += 1
        elif re.search(r'amdvi_completion_wait\b', line):
            c['syncs'] += 1
        elif 'amdvi_cache_update' in line:
            m = re.search(r'devid: ([0-9a-f]{2}):([0-9a-f]{2})\.([0-7])', line)
            if sid is None or (m and pci_sid(f'{m[1]}:{m[2]}.{m[3]}') == sid):
                c['misses'] += 1
    c['qinv'] = sum(1 for dom, addr, size in blocks
                    if (not domains or dom in domains)
                    and any(addr < hi and lo < addr + size for lo, hi in queues))
    return c


def record_viommu(res, b, step, start, mode, kernel, rnd):
    """The vIOMMU's events of step STEP (trace.log from byte start to here)
    per request the device handled in it (out/STEP.ios: "ios N" and its PCI
    address, "pci 0000:00:03.0"): a fio step's requests the disk completed,
    a tx or xdp step's packets the NIC sent (bench/guest/tx.sh, xdp.sh), as
    the metrics of VIOMMU_TRACE of family fio (per_io), tx or xdp (per_pkt)."""
    trace = os.path.join(b['rundir'], 'trace.log')
    path = os.path.join(b['rundir'], 'out', f'{step}.ios')
    family, _, job = step.partition('-')
    if family not in ('fio', 'tx', 'xdp') or not os.path.exists(trace) or not os.path.exists(path):
        return
    end = os.path.getsize(trace)
    # The requests over the whole step, fio's ramp included (fio's own
    # count leaves the ramp out; the trace does not), written by the guest
    # before it reached the next step.
    with open(path) as f:
        kv = dict(line.split(None, 1) for line in f.read().splitlines() if ' ' in line)
    if not kv.get('ios', '').strip().isdigit():
        return
    ios = int(kv['ios'])
    if not ios:
        return
    if mode.startswith('intel-') and family == 'fio' and 'nvme_queues' not in b:
        b['nvme_queues'] = nvme_queues(trace, start)
    c = viommu_counts(trace, start, end, pci_sid(kv.get('pci', '').strip()),
                      b.get('nvme_queues', ()))
    per, unit = ('io', 'per I/O') if family == 'fio' else ('pkt', 'per packet')
    for key, metric in (('invalidations', 'invalidations'), ('syncs', 'syncs')):
        res.add(family, job, mode, kernel, rnd, f'{metric}_per_{per}', round(c[key] / ios, 3),
                unit, 'lower')
    if not mode.startswith('smmuv3-'):
        res.add(family, job, mode, kernel, rnd, f'iotlb_misses_per_{per}',
                round(c['misses'] / ios, 3), unit, 'lower')
    if mode.startswith('intel-'):
        res.add(family, job, mode, kernel, rnd, f'invalidated_kib_per_{per}',
                round(c['kib'] / ios, 2), 'KiB', 'lower')
    if mode.startswith('intel-') and family == 'fio' and b.get('nvme_queues'):
        res.add(family, job, mode, kernel, rnd, 'queue_invalidations', c['qinv'],
                'in the step', 'lower')


def run_pair(res, mode, parts, order, cpus, rnd, raw, attempt=1):
    """The boots of the kernels in `order` at the same time: one QEMU per
    kernel, started in that order, each held on its own host CPU (taskset)
    with AB_PIN=1 (AB=simultaneous: both kernels; AB=sequential: one).

    The guests meet at every workload step (bench/guest/lib.sh ab_sync):
    the host starts a step in both when both have reached it, so the two
    kernels run each fio job, XDP action and dma_map_benchmark point at the
    same moments of the host. Recorded per boot (family testbed): the
    QEMU process tree's CPU time over its wall time (the guest's share of
    the host), and per pair the steps started together and the longest
    wait of one guest for the other."""
    boots = {}
    for k in order:
        cmd, env, rundir = guest_cmd(mode, parts, k, rnd, raw, attempt, sync=True)
        os.makedirs(os.path.join(rundir, 'out', 'sync'), exist_ok=True)
        e = dict(os.environ)
        e.update(env)
        logf = open(os.path.join(rundir, 'host.log'), 'w')
        pin = ['taskset', '-c', str(cpus[k])] if AB_PIN else []
        p = subprocess.Popen(pin + cmd, cwd=TOP, env=e, text=True,
                             stdout=logf, stderr=subprocess.STDOUT)
        boots[k] = dict(p=p, rundir=rundir, log=logf, t0=time.time(), rc=None, ru=None,
                        sync=os.path.join(rundir, 'out', 'sync'), pid=None, open=None,
                        trace_open=None)
    started, alone, waits, ready_at = 0, 0, [], {}
    while any(b['rc'] is None for b in boots.values()):
        for k, b in boots.items():
            if b['rc'] is None:
                pid, status, ru = os.wait4(b['p'].pid, os.WNOHANG)
                if pid:
                    b['rc'] = os.waitstatus_to_exitcode(status)
                    b['p'].returncode = b['rc']
                    b['ru'], b['wall'] = ru, time.time() - b['t0']
        now = time.time()
        steps = {}
        for k, b in boots.items():
            if HOSTCPU and b['pid'] is None and b['rc'] is None:
                b['pid'] = find_qemu(b['rundir'])
            try:
                names = os.listdir(b['sync'])
            except OSError:
                continue
            for n in names:
                if n.endswith('.ready') and n[:-6] + '.go' not in names:
                    steps.setdefault(n[:-6], set()).add(k)
                    ready_at.setdefault((n[:-6], k), now)
                    # The step this guest ran last ends here: its vIOMMU's
                    # events, HOSTCPU's CPU time.
                    if b['trace_open']:
                        record_viommu(res, b, *b['trace_open'], mode, k, rnd)
                        b['trace_open'] = None
                    if b['open'] and b['pid']:
                        try:
                            cpu = cpu_split(b['open'][1], thread_times(b['pid']))
                            record_hostcpu(res, b, b['open'][0], cpu, mode, k, rnd)
                        except OSError:
                            pass
                        b['open'] = None
        for step, ks in steps.items():
            others_gone = all(boots[o]['rc'] is not None for o in boots if o not in ks)
            if len(ks) == len(boots) or others_gone:
                for k in ks:
                    trace = os.path.join(boots[k]['rundir'], 'trace.log')
                    if mode in VIOMMU_TRACE and step.startswith(('fio-', 'tx-', 'xdp-')):
                        boots[k]['trace_open'] = (step, os.path.getsize(trace)
                                                  if os.path.exists(trace) else 0)
                    if HOSTCPU and boots[k]['pid']:
                        try:
                            boots[k]['open'] = (step, thread_times(boots[k]['pid']))
                        except OSError:
                            pass
                    open(os.path.join(boots[k]['sync'], step + '.go'), 'w').close()
                if len(ks) == len(boots):
                    started += 1
                    t = [ready_at[(step, k)] for k in ks]
                    waits.append(max(t) - min(t))
                else:
                    alone += 1
        time.sleep(0.02)
    for k, b in boots.items():
        b['log'].close()
    if attempt == 1 and any(testbed_fault(b['rundir'], parts) for b in boots.values()):
        log(f'  test-bed fault in a guest (NVMe I/O timeouts or MTTCG int3): '
            f'repeating the {mode} pair once')
        return run_pair(res, mode, parts, order, cpus, rnd, raw, attempt + 1)
    for k, b in boots.items():
        cpu = b['ru'].ru_utime + b['ru'].ru_stime
        res.add('testbed', 'guest-cpu-share', mode, k, rnd, 'cpu_share',
                round(cpu / b['wall'], 3), 'CPU', 'higher')
        res.add('testbed', 'guest-wall', mode, k, rnd, 'wall_s', round(b['wall'], 1), 's', 'lower')
        parse_guest(res, b['rundir'], b['rc'], mode, parts, k, rnd)
        # The guest's last step (XDP's redirect) ends with the guest
        if b['trace_open']:
            record_viommu(res, b, *b['trace_open'], mode, k, rnd)
    if alone:
        res.failures.append(f'guest {mode} round {rnd}: {alone} steps ran in one guest alone '
                            f'(the other had ended)')
    log(f'  {started} steps started together, longest wait {max(waits, default=0):.2f} s; '
        + ', '.join(f'{k} {boots[k]["wall"]:.0f} s' for k in order))


def ingest(outdir):
    """bench/run.py --ingest OUTDIR: results.jsonl and meta.json of the raw
    output bench/hw-run left in OUTDIR/raw/r<round>-<mode>-<kernel>/, one
    boot per kernel (not paired by round)."""
    raw = os.path.join(outdir, 'raw')
    path = os.path.join(outdir, 'results.jsonl')
    if os.path.exists(path):
        os.unlink(path)
    res = Results(path)
    runs = 0
    kernels = {}
    for name in sorted(os.listdir(raw)):
        m = re.fullmatch(r'r(\d+)-(.+)-(base|series)', name)
        if not m:
            continue
        rundir = os.path.join(raw, name)
        out = os.path.join(rundir, 'out')
        files = os.listdir(out) if os.path.isdir(out) else []
        parts = [p for p, f in (('dmabench', r'dmabench\.txt'), ('fio', r'fio(-.*)?\.json'),
                                ('xdp', r'xdp\.txt'), ('tx', r'tx\.txt')) if any(re.fullmatch(f, x) for x in files)]
        rc = int(open(os.path.join(rundir, 'rc')).read().strip() or 1) \
            if os.path.exists(os.path.join(rundir, 'rc')) else 1
        parse_guest(res, rundir, rc, m.group(2), parts, m.group(3), int(m.group(1)))
        runs += 1
        cmdline = os.path.join(rundir, 'cmdline')
        if os.path.exists(cmdline):
            kernels[m.group(3)] = open(cmdline).read().strip()
    with open(os.path.join(outdir, 'meta.json'), 'w') as f:
        json.dump(dict(design='one boot per kernel (bench/hw-run)', paired=False,
                       kernel_cmdlines=kernels), f, indent=1)
    for fail in res.failures:
        print(f'ingest: {fail}')
    print(f'ingest: {runs} runs into {path}')
    return 1 if runs == 0 else 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == '--ingest':
        return ingest(sys.argv[2])
    ts = datetime.datetime.now(datetime.timezone.utc).strftime('%Y%m%dT%H%M%SZ')
    rdir = os.environ.get('BENCH_DIR') or os.path.join(TOP, 'bench', 'results', ts)
    raw = os.path.join(rdir, 'raw')
    os.makedirs(raw, exist_ok=True)
    res = Results(os.path.join(rdir, 'results.jsonl'))
    modes = os.environ.get('MODES', ' '.join(DEFAULT_MODES)).split()
    if set(modes) - set(MODE_PARTS):
        raise SystemExit(f'bench: MODES: of {" ".join(MODE_PARTS)}')
    log(f'results in {os.path.relpath(rdir, TOP)}; {"A/A (series on both sides), " if AA else ""}'
        f'guests {AB}; rounds: warm-up + {ROUNDS}; '
        f'families: {" ".join(FAMILIES)}; modes: {" ".join(modes)}{"; QUICK" if QUICK else ""}')

    log('applying the series (make tree)')
    sh(['scripts/tree'])
    guest = any(f in FAMILIES for f in ('static', 'icount', 'dma_map_benchmark', 'fio', 'xdp', 'tx'))
    arm64 = guest and any(m in ARM64_MODES for m in modes)
    if guest:
        for k, ref in KERNELS.items():
            for env, what in [({}, '')] + ([({'ARCH': 'arm64'}, 'arm64 ')] if arm64 else []):
                log(f'building the {what}{k} kernel ({ref})')
                sh(['scripts/build', ref], env=env)
                # A commit before the benchmark's uapi has no guest tests of
                # its own: scripts/vm boots it with the series' initramfs.
                if sh(['scripts/initramfs', ref], env=env, check=False).returncode:
                    log(f'no initramfs of {ref}: its guests boot the series one')
                    sh(['scripts/build', 'series'], env=env)
                    sh(['scripts/initramfs', 'series'], env=env)
    hashes = {k: ref_commit(ref) for k, ref in KERNELS.items()}
    meta = dict(date=ts, rounds=ROUNDS, warmup_rounds=1, quick=QUICK, ab=AB, aa=AA,
                command=' '.join(f'{k}={os.environ[k]}' for k in
                                 ('AA', 'BASE', 'SERIES', 'AB', 'AB_PIN', 'HOSTCPU', 'VM_SMP', 'ROUNDS',
                                  'QUICK', 'FAMILIES', 'MODES', 'XDP_GEN_TYPE', 'APPEND', 'KUNIT_GLOB',
                                  'SW_MODES', 'SW_JOBS', 'SW_XDP', 'SWITCH', 'FIO_FILE',
                                  'FLUSH_PROBES', 'FLUSH_SPANS', 'PAIR')
                                 if k in os.environ) + ' make bench',
                kernels={k: f'{KERNELS[k]} {hashes[k]}' for k in KERNELS},
                cpus=os.cpu_count(),
                qemu=sh(['qemu-system-x86_64', '--version'], capture=True).stdout.splitlines()[0],
                times=TIMES)
    if guest:
        meta['text_layout'] = {k: text_layout(os.path.join(TOP, obj_dir(k))) for k in KERNELS}
        for fn in HOT_FUNCS:
            sides = [k for k in KERNELS if meta['text_layout'][k].get(fn, [0, 0, False])[2]]
            if sides:
                log(f'WARNING: {fn} straddles a 4K page in the {"/".join(sides)} kernel: '
                    f'guest timings of the two kernels are not comparable under TCG '
                    f'(see Documentation/benchmarks.md)')
    with open(os.path.join(rdir, 'meta.json'), 'w') as f:
        json.dump(meta, f, indent=1)
    os.makedirs(os.path.join(rdir, 'configs'), exist_ok=True)
    for k in KERNELS:
        for tag in [''] + (['arm64-'] if arm64 else []):
            cfg = os.path.join(TOP, obj_dir(k, tag), '.config')
            if os.path.exists(cfg):
                shutil.copy(cfg, os.path.join(rdir, 'configs', f'{k}{"-" + tag[:-1] if tag else ""}.config'))

    if 'static' in FAMILIES:
        log('static: indirect calls on the DMA fast path (objdump of both vmlinux)')
        run_static(res, raw)

    if 'icount' in FAMILIES:
        for mode in (m for m in ICOUNT_MODES if m in modes):
            for k in KERNELS:
                log(f'icount: {mode} {k}: instructions per dma_map_benchmark call')
                run_icount(res, mode, k, raw)

    for rnd in range(ROUNDS + 1):
        order = ['base', 'series'] if rnd % 2 == 0 else ['series', 'base']
        tag = 'warm-up' if rnd == 0 else f'{rnd}/{ROUNDS}'
        # Start order flips every round, host CPUs every two.
        cpus = {k: (i + rnd // 2) % 2 for i, k in enumerate(KERNELS)}
        for fam, retpoline in (('kunit', False), ('kunit-retpoline', True)):
            if fam not in FAMILIES:
                continue
            if AB == 'simultaneous' and rnd > 0:
                log(f'round {tag}: {fam} timing, {" and ".join(order)} at once')
                run_kunit_pair(res, order, cpus, rnd, raw, retpoline)
                continue
            for k in order:
                log(f'round {tag}: {fam} timing, {k}')
                run_kunit(res, k, rnd, raw, retpoline)
        for mode in modes:
            parts = [p for p in MODE_PARTS[mode] if set(PART_FAMILY[p]) & set(FAMILIES)]
            if not parts:
                continue
            if AB == 'simultaneous':
                where = f' ({", ".join(f"{k} on CPU {cpus[k]}" for k in KERNELS)})' if AB_PIN else ''
                log(f'round {tag}: {mode}, {" and ".join(order)} at once{where}: {" ".join(parts)}')
                run_pair(res, mode, parts, order, cpus, rnd, raw)
                continue
            for k in order:
                log(f'round {tag}: {mode} {k}: {" ".join(parts)}')
                run_pair(res, mode, parts, [k], cpus, rnd, raw)

    for k in KERNELS:
        for name in ('nvme', 'nvme2'):
            img = os.path.join(DISK_DIR, f'dfp-{name}-{os.getpid()}-{k}.img')
            if os.path.exists(img):
                os.unlink(img)
    log('comparing')
    r = sh(['/usr/bin/python3', 'bench/compare.py', rdir], check=False)
    latest = os.path.join(TOP, 'bench', 'results', 'latest')
    if os.path.islink(latest) or not os.path.exists(latest):
        if os.path.islink(latest):
            os.unlink(latest)
        os.symlink(os.path.relpath(rdir, os.path.dirname(latest)), latest)
    for f in res.failures:
        log(f'FAILED: {f}')
    log(f'done: {os.path.relpath(rdir, TOP)}/report.md')
    return 1 if (res.failures or r.returncode) else 0


if __name__ == '__main__':
    sys.exit(main())
