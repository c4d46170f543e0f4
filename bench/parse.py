"""One parser per output format of the guest and KUnit workloads, shared by
bench/run.py's workloads, its ingest of bench/hw-run's output, the fio summary
of bench/trace/profile and the timing table of scripts/kunit.

  fio JSON (--output-format=json)    fio_jobs(path), fio_ios(path)
  dma_map_benchmark point lines      dmabench_points(text)
  XDP counter lines                  xdp_pps(text), xdp_generator(text)
  KUnit '# timing:' lines            kunit_timings(text)
"""
import json
import re


def fio_side(job):
    """The direction of a fio JSON job that did the I/O: its read figures if
    it read anything, else its write figures."""
    return job['read'] if job['read']['io_bytes'] else job['write']


def fio_jobs(path):
    """[(job name, figures of the direction that did the I/O)] of a fio JSON
    file: 'iops', 'lat_mean_us', 'lat_p99_us' (None when absent)."""
    with open(path) as f:
        data = json.load(f)
    out = []
    for job in data['jobs']:
        d = fio_side(job)
        clat = d.get('clat_ns', {})
        p99 = clat.get('percentile', {}).get('99.000000')
        out.append((job['jobname'], {'iops': d['iops'], 'lat_mean_us': clat.get('mean', 0) / 1000,
                                     'lat_p99_us': p99 / 1000 if p99 else None}))
    return out


def fio_ios(path):
    """(I/Os completed, seconds run) of the first job of a fio JSON file."""
    with open(path) as f:
        j = json.load(f)['jobs'][0]
    return j['read']['total_ios'] + j['write']['total_ios'], j['job_runtime'] / 1000.0


DMAB_NAMES = {'0': 'single', '1': 'sg', '2': 'iova-link'}


def dmabench_points(text):
    """(workload, {figure: value}) per "point=MODE:PAGES:THREADS ..." line of
    bench/guest/dmabench.sh; the dict is empty for a point that failed."""
    for m in re.finditer(r'^point=(\d+):(\d+):(\d+) (.*)$', text, re.M):
        mm, g, t, rest = m.groups()
        yield (f'{DMAB_NAMES[mm]}-{g}p-{t}t',
               {k: int(v) for k, v in re.findall(r'(\w+)=(\d+)', rest)})


def xdp_pps(text):
    """(action, pps or None for an action that failed) per line of
    bench/guest/xdp.sh."""
    return [(m.group(1), int(m.group(2)) if m.group(2) else None)
            for m in re.finditer(r'xdp action=(\w+) (?:packets=\d+ secs=[\d.]+ pps=(\d+)|error)', text)]


def tx_rates(text):
    """(workload, pps, Mbit/s; both None for a workload that failed) per
    line of bench/guest/tx.sh (a skipped workload has none)."""
    return [(m.group(1), int(m.group(2)) if m.group(2) else None,
             float(m.group(3)) if m.group(3) else None)
            for m in re.finditer(r'^tx workload=(\w+) (?:packets=\d+ bytes=\d+ secs=[\d.]+ '
                                 r'pps=(\d+) mbps=([\d.]+)|error)$', text, re.M)]


def xdp_generator(text):
    """The load generator NIC's IOMMU group type xdp.sh reported, or None."""
    m = re.search(r'^xdp generator group=(\S+)$', text, re.M)
    return m.group(1) if m else None


def kunit_timings(text):
    """(format, case, avg_ns, min_ns) per '# timing:' line of the KUnit
    timing cases."""
    return [(f, c, int(a), int(mn)) for f, c, _, a, mn in re.findall(
        r'# timing: fmt=(\S+) case=(\S+) iters=(\d+) avg_ns=(\d+) min_ns=(\d+)', text)]
