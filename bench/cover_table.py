#!/usr/bin/env python3
"""The A/B table of the cover letter, from one `make bench` result directory.

    bench/cover_table.py [RESULTDIR]      (default: bench/results/latest)

Prints plain text (at most 72 columns) for Documentation/cover-table.txt,
which scripts/export puts into the cover letter (`make cover` does both).
Rows are a fixed choice of what the series is judged by: fio and XDP per
IOMMU mode, with strict mode's share of lazy mode, dma_map_benchmark, the
KUnit map_sg timing per format and the static indirect-call count. Each
cell is `median +- spread` over the measured rounds (spread = half of
max - min), then the change of the medians and the Mann-Whitney p. A row
missing from the run is left out; the run, its rounds and the two commits
are named in the table's first lines.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GUEST_MODES = ("intel-strict", "intel-lazy", "intel-pt")

# (section, family, workload, mode(s), metric, label)
ROWS = [
    ("fio on NVMe, IOPS", "fio", "randread-4k-qd32", GUEST_MODES, "iops",
     "4K randread QD32"),
    ("fio on NVMe, IOPS", "fio", "randwrite-4k-qd32", GUEST_MODES, "iops",
     "4K randwrite QD32"),
    ("fio on NVMe, IOPS", "fio", "seqread-128k-qd8", GUEST_MODES, "iops",
     "128K seqread QD8"),
    ("fio on NVMe, IOPS", "fio", "seqread-1m-qd4", GUEST_MODES, "iops",
     "1M seqread QD4"),
    ("fio on NVMe, mean latency us", "fio", "randread-4k-qd1", GUEST_MODES,
     "lat_mean_us", "4K randread QD1"),
    ("XDP on virtio-net, pps", "xdp", "tx", GUEST_MODES, "pps", "XDP_TX"),
    ("XDP on virtio-net, pps", "xdp", "redirect", GUEST_MODES, "pps",
     "XDP_REDIRECT"),
    ("dma_map_benchmark, p50 ns", "dma_map_benchmark", "single-1p-1t",
     GUEST_MODES[:2], "map_p50_ns", "single 4K map"),
    ("dma_map_benchmark, p50 ns", "dma_map_benchmark", "single-1p-1t",
     GUEST_MODES[:2], "unmap_p50_ns", "single 4K unmap"),
    ("dma_map_benchmark, p50 ns", "dma_map_benchmark", "sg-256p-1t",
     GUEST_MODES[:1], "map_p50_ns", "sg 256 pages map"),
    ("dma_map_benchmark, p50 ns", "dma_map_benchmark", "iova-link-512p-1t",
     GUEST_MODES[:2], "map_p50_ns", "IOVA link 512 pages"),
    ("dma_map_benchmark, mean ns of a map plus its unmap", "dma_map_benchmark",
     "sg-256p-1t", GUEST_MODES[:1], "map_unmap_avg_ns", "sg 256 pages"),
    ("dma_map_benchmark, mean ns of a map plus its unmap", "dma_map_benchmark",
     "iova-link-512p-1t", GUEST_MODES[:1], "map_unmap_avg_ns",
     "IOVA link 512 pages"),
    ("dma_map_benchmark under QEMU -icount, instructions per call",
     "icount", "single-1p-1t", GUEST_MODES[:2], "map_p50_insns",
     "single 4K map"),
    ("dma_map_benchmark under QEMU -icount, instructions per call",
     "icount", "single-1p-1t", GUEST_MODES[:2], "unmap_p50_insns",
     "single 4K unmap"),
    ("dma_map_benchmark under QEMU -icount, instructions per call",
     "icount", "sg-256p-1t", GUEST_MODES[:1], "map_p50_insns",
     "sg 256 pages map"),
    ("dma_map_benchmark under QEMU -icount, instructions per call",
     "icount", "iova-link-512p-1t", GUEST_MODES[:1], "map_p50_insns",
     "IOVA link 512 pages"),
    ("KUnit under UML, fastest batch ns", "kunit", "amdv1/map_sg_256x4K",
     ("uml",), "min_ns", "map_sg 256x4K amdv1"),
    ("KUnit under UML, fastest batch ns", "kunit", "vtdss/map_sg_256x4K",
     ("uml",), "min_ns", "map_sg 256x4K vtdss"),
    ("KUnit under UML, fastest batch ns", "kunit", "x86_64/map_sg_256x4K",
     ("uml",), "min_ns", "map_sg 256x4K x86_64"),
    ("KUnit under UML, fastest batch ns", "kunit", "vtdss/map_4K",
     ("uml",), "min_ns", "map 4K vtdss"),
    ("Indirect calls reachable from the DMA API (vmlinux)", "static",
     "indirect-calls", ("-",), "count", "all entry points"),
]


def cell(st):
    """median+-spread; decimals by the median's size (3 significant)."""
    m, sp = st["median"], st["spread"]
    if m is None:
        return "-"
    if float(m).is_integer() and float(sp).is_integer():
        d = 0
    else:
        d = 0 if abs(m) >= 100 else 1 if abs(m) >= 10 else 2
    return f"{m:.{d}f}+-{sp:.{d}f}"


def load(resultdir):
    records = compare.load_records(os.path.join(resultdir, compare.RESULTS))
    groups, _ = compare.group_records(records, keep_warmup=False)
    rows = compare.build_rows(groups, 0.05)
    return {(r["family"], r["workload"], r["mode"], r["metric"]): r
            for r in rows}


def main(argv):
    resultdir = argv[1] if len(argv) > 1 else os.path.join(
        TOP, "bench", "results", "latest")
    resultdir = os.path.realpath(resultdir)
    rows = load(resultdir)
    try:
        meta = json.load(open(os.path.join(resultdir, "meta.json")))
    except (OSError, ValueError):
        meta = {}
    out = []
    kernels = meta.get("kernels") or {}
    run = os.path.basename(resultdir)
    out.append(f"make bench {run}: {meta.get('rounds', '?')} rounds of each "
               "kernel, interleaved")
    for k in ("base", "series"):
        if k in kernels:
            ref, _, commit = str(kernels[k]).partition(" ")
            out.append(f"  {k}: {ref} {commit[:12]}")
    out.append("QEMU TCG guest, 2 vCPUs, intel-iommu strict, lazy, passthrough")
    out.append("Cells: median+-half the range; p: Mann-Whitney U.")
    section = None
    for sec, fam, wl, modes, metric, label in ROWS:
        lines = []
        for mode in modes:
            r = rows.get((fam, wl, mode, metric))
            if r is None:
                continue
            name = label if mode in ("-", "uml") else \
                f"{label} {mode.split('-', 1)[1]}"
            p = "" if r["p"] is None else f"p={r['p']:.2g}"
            lines.append(f"  {name:24.24} {cell(r['base']):>13} "
                         f"{cell(r['series']):>13} "
                         f"{compare.fmt_pct(r['change_pct']):>7} {p}".rstrip())
            lr = r.get("lazy_ratio")
            if lr and lr.get("base") and lr.get("series") and \
                    r["better"] == "higher":
                lines.append(f"  {'  strict/lazy':24} {lr['base']:>13.2f} "
                             f"{lr['series']:>13.2f}")
        if not lines:
            continue
        if sec != section:
            out.append("")
            out.append(f"{sec}:")
            out.append(f"  {'':24} {'base':>13} {'series':>13} {'change':>7}")
            section = sec
        out.extend(lines)
    if section is None:
        print(f"cover_table.py: no chosen row in {resultdir}", file=sys.stderr)
        return 2
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
