#!/usr/bin/env python3
"""Compare `make bench` results of the base and series kernels.

Usage: python3 bench/compare.py RESULTDIR [--no-plots] [--alpha 0.05] [--keep-warmup]

Reads RESULTDIR/results.jsonl (one JSON object per line):

    {"family": "fio", "workload": "randread-4k-qd32", "mode": "intel-strict",
     "kernel": "base", "round": 1, "metric": "iops", "value": 19234.5,
     "unit": "IOPS", "better": "higher"}

and writes:

    RESULTDIR/report.md       header + one Markdown table per family
    RESULTDIR/summary.json    {"<family>.<workload>.<mode>.<metric>": {...}}
    RESULTDIR/plots/*.png     <family>.png, and <family>-ratio.png for fio/xdp

The same tables go to stdout as aligned plain text.  Round 0 is a warm-up
and is dropped unless --keep-warmup.  "value": null marks a failed run and
is counted as missing.  Exit status: 0, or 2 on missing/empty/malformed
input (the message names the line).

Only the standard library, scipy (Mann-Whitney U) and matplotlib (Agg,
plots only) are used.
"""

import argparse
import gzip
import json
import math
import os
import re
import statistics
import sys

RESULTS = "results.jsonl"
REPORT = "report.md"
SUMMARY = "summary.json"
META = "meta.json"
PLOTDIR = "plots"

KERNELS = ("base", "series")
BETTER = ("higher", "lower")
FIELDS = ("family", "workload", "mode", "kernel", "round", "metric", "value",
          "unit", "better")
# Families whose rows get a "ratio to pt" column and a -ratio.png plot.
RATIO_FAMILIES = ("fio", "xdp", "tx")
PT_MODE = "intel-pt"
# Preferred family order in the report; others follow in order of appearance.
FAMILY_ORDER = ("kunit", "dma_map_benchmark", "icount", "fio", "xdp", "tx", "static")
MIN_N = 3  # fewer values than this on a side: no significance test


class InputError(Exception):
    """Bad or missing input; main() turns it into exit status 2."""


# --------------------------------------------------------------------------
# Loading


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def load_records(path):
    """Parse and validate results.jsonl; return a list of dicts.

    Each returned dict has the FIELDS plus "line" (1-based line number).
    Blank lines are ignored.  Raises InputError naming the line on any
    problem.
    """
    if not os.path.isfile(path) and os.path.isfile(path + ".gz"):
        path += ".gz"      # a committed run keeps its records compressed
    if not os.path.isfile(path):
        raise InputError(f"{path}: no such file")
    records = []
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="strict") as f:
        try:
            lines = f.readlines()
        except UnicodeDecodeError as e:
            raise InputError(f"{path}: not UTF-8 text ({e})") from None
    for lineno, text in enumerate(lines, 1):
        if not text.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            rec = json.loads(text)
        except ValueError as e:
            raise InputError(f"{where}: malformed JSON: {e}") from None
        if not isinstance(rec, dict):
            raise InputError(f"{where}: expected a JSON object, got "
                             f"{type(rec).__name__}")
        missing = [k for k in FIELDS if k not in rec]
        if missing:
            raise InputError(f"{where}: missing field(s): {', '.join(missing)}")
        for k in ("family", "workload", "mode", "metric"):
            if not isinstance(rec[k], str) or not rec[k]:
                raise InputError(f"{where}: '{k}' must be a non-empty string, "
                                 f"got {rec[k]!r}")
        if not isinstance(rec["unit"], str):
            raise InputError(f"{where}: 'unit' must be a string, got "
                             f"{rec['unit']!r}")
        if rec["kernel"] not in KERNELS:
            raise InputError(f"{where}: 'kernel' must be one of "
                             f"{'/'.join(KERNELS)}, got {rec['kernel']!r}")
        if rec["better"] not in BETTER:
            raise InputError(f"{where}: 'better' must be one of "
                             f"{'/'.join(BETTER)}, got {rec['better']!r}")
        rnd = rec["round"]
        if not isinstance(rnd, int) or isinstance(rnd, bool) or rnd < 0:
            raise InputError(f"{where}: 'round' must be an integer >= 0, "
                             f"got {rnd!r}")
        val = rec["value"]
        if val is not None and (not _is_number(val) or not math.isfinite(val)):
            raise InputError(f"{where}: 'value' must be a finite number or "
                             f"null, got {val!r}")
        out = {k: rec[k] for k in FIELDS}
        out["value"] = None if val is None else float(val)
        out["line"] = lineno
        records.append(out)
    if not records:
        raise InputError(f"{path}: empty (no records)")
    return records


def load_meta(resultdir):
    """Return (meta dict or None, problem string or None)."""
    path = os.path.join(resultdir, META)
    if not os.path.exists(path):
        return None, None
    try:
        with open(path, encoding="utf-8") as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        return None, f"{META} unreadable: {e}"
    if not isinstance(meta, dict):
        return None, f"{META} is not a JSON object; ignored"
    return meta, None


# --------------------------------------------------------------------------
# Grouping and statistics


def row_key(rec):
    return (rec["family"], rec["workload"], rec["mode"], rec["metric"])


def summary_key(family, workload, mode, metric):
    """Key of a row in summary.json.

    Generic: "<family>.<workload>.<mode>.<metric>".  For family "static"
    (mode "-"): "static.<workload>", plus ".<metric>" unless the metric is
    "count".  A static row with a real mode falls back to the generic key.
    """
    if family == "static" and mode == "-":
        key = f"static.{workload}"
        return key if metric == "count" else f"{key}.{metric}"
    return f"{family}.{workload}.{mode}.{metric}"


def side_stats(values):
    """Stats of one side: values are the non-null measurements."""
    if not values:
        return {"n": 0, "median": None, "min": None, "max": None,
                "spread": None}
    lo, hi = min(values), max(values)
    return {"n": len(values), "median": statistics.median(values),
            "min": lo, "max": hi, "spread": (hi - lo) / 2.0}


def change_pct(base, series):
    if base is None or series is None:
        return None
    if base == 0:
        return 0.0 if series == 0 else None
    return (series - base) / abs(base) * 100.0


def mann_whitney_p(a, b):
    """Two-sided Mann-Whitney U p-value, or None with too few values."""
    if len(a) < MIN_N or len(b) < MIN_N:
        return None
    from scipy.stats import mannwhitneyu  # imported lazily, see check_deps()
    p = float(mannwhitneyu(a, b, alternative="two-sided").pvalue)
    if math.isnan(p):
        # Degenerate input (e.g. all values tied): no evidence of a change.
        p = 1.0
    return p


def sig_mark(p, alpha):
    if p is None:
        return "n/a"
    if p < alpha / 5.0:
        return "**"
    if p < alpha:
        return "*"
    return ""


def verdict(better, base, series, p, alpha):
    """'+' series better, '-' series worse, '=' not significant.

    With too few values for a test the direction of the raw change is
    given in parentheses: '(+)', '(-)', '(=)'; '' when a side has no data.
    """
    if base is None or series is None:
        return ""
    if series == base:
        direction = "="
    elif (series > base) == (better == "higher"):
        direction = "+"
    else:
        direction = "-"
    if p is None:
        return f"({direction})"
    return direction if p < alpha else "="


# The rows a reader looks at first, in every IOMMU mode they were run in:
# the report's first table. An A/A run (one kernel on both sides) should
# leave each of these unmarked and its interval within HEADLINE_BAND.
HEADLINE = (("fio", "randread-4k-qd32", "iops"), ("fio", "seqread-128k-qd8", "iops"),
            ("xdp", "tx", "pps"), ("xdp", "redirect", "pps"),
            ("dma_map_benchmark", "single-1p-1t", "map_p50_ns"),
            ("dma_map_benchmark", "single-1p-1t", "unmap_p50_ns"),
            ("dma_map_benchmark", "sg-256p-1t", "map_p50_ns"),
            ("dma_map_benchmark", "sg-256p-1t", "unmap_p50_ns"))
HEADLINE_MODES = ("intel-strict", "intel-lazy", "intel-pt")
HEADLINE_BAND = 0.05
CI_LEVEL = 0.95
BOOTSTRAP_RESAMPLES = 4000


def ratio_interval(by_round, values):
    """series/base ratio with a 95% interval, or None.

    Paired where both kernels have a value in the same round (the two
    guests of a round run at the same moments, or one right after the
    other), at least MIN_N such rounds and all values positive: the
    geometric mean of the per-round ratios, with a Student t interval on
    their logarithms. Otherwise, with MIN_N values on each side: the ratio
    of the medians with a percentile bootstrap interval (seeded, so a
    report is reproducible)."""
    rounds = sorted(set(by_round["base"]) & set(by_round["series"])) if by_round else []
    pairs = [(by_round["base"][r], by_round["series"][r]) for r in rounds]
    if len(pairs) >= MIN_N and all(b > 0 and s > 0 for b, s in pairs):
        from scipy.stats import t as student_t
        logs = [math.log(s / b) for b, s in pairs]
        n = len(logs)
        mean = statistics.fmean(logs)
        half = (student_t.ppf(0.5 + CI_LEVEL / 2, n - 1)
                * statistics.stdev(logs) / math.sqrt(n))
        return {"ratio": math.exp(mean), "low": math.exp(mean - half),
                "high": math.exp(mean + half), "method": "paired", "n": n}
    b, s = values["base"], values["series"]
    if len(b) < MIN_N or len(s) < MIN_N or statistics.median(b) <= 0:
        return None
    import random
    rng = random.Random(1)
    boots = []
    for _ in range(BOOTSTRAP_RESAMPLES):
        mb = statistics.median(rng.choices(b, k=len(b)))
        if mb > 0:
            boots.append(statistics.median(rng.choices(s, k=len(s))) / mb)
    boots.sort()
    lo = boots[int((1 - CI_LEVEL) / 2 * (len(boots) - 1))]
    hi = boots[int((1 + CI_LEVEL) / 2 * (len(boots) - 1))]
    return {"ratio": statistics.median(s) / statistics.median(b), "low": lo,
            "high": hi, "method": "bootstrap", "n": min(len(b), len(s))}


def interval_mark(ci):
    """'<>1' when the interval excludes 1 (a change), '' when it holds 1."""
    if ci is None:
        return "n/a"
    return "<>1" if ci["low"] > 1 or ci["high"] < 1 else ""


def group_records(records, keep_warmup):
    """Group the records used into rows; return (groups, info).

    groups is an ordered list of (key, group); all input checks that need
    more than one line (consistency, nothing but warm-up) happen here.
    """
    used = [r for r in records if keep_warmup or r["round"] != 0]
    if not used:
        raise InputError("no measurement records: every record is round 0 "
                         "(warm-up); rerun with --keep-warmup to use them")

    groups = {}      # row key -> values/missing per kernel, unit, better
    order = []
    fam_first = {}
    seen = {}        # (key, kernel, round) -> line, for duplicate detection
    duplicates = []
    rounds_by_family = {}
    for r in used:
        key = row_key(r)
        g = groups.get(key)
        if g is None:
            g = groups[key] = {
                "values": {"base": [], "series": []},
                "by_round": {"base": {}, "series": {}},
                "missing": {"base": 0, "series": 0},
                "unit": r["unit"], "better": r["better"], "line": r["line"],
            }
            order.append(key)
            fam_first.setdefault(key[0], len(fam_first))
        for attr in ("unit", "better"):
            if r[attr] != g[attr]:
                raise InputError(
                    f"line {r['line']}: '{attr}' is {r[attr]!r} but line "
                    f"{g['line']} says {g[attr]!r} for "
                    f"{'/'.join(key)}")
        k = r["kernel"]
        if r["value"] is None:
            g["missing"][k] += 1
        else:
            g["values"][k].append(r["value"])
            g["by_round"][k].setdefault(r["round"], r["value"])
        dkey = (key, k, r["round"])
        if dkey in seen:
            duplicates.append((r["line"], seen[dkey]))
        else:
            seen[dkey] = r["line"]
        rounds_by_family.setdefault(key[0], set()).add(r["round"])

    def fam_rank(f):
        if f in FAMILY_ORDER:
            return (0, FAMILY_ORDER.index(f))
        return (1, fam_first[f])

    # Rows of one family stay together; within it, order of first appearance.
    pos = {key: i for i, key in enumerate(order)}
    order.sort(key=lambda key: (fam_rank(key[0]), pos[key]))

    info = {
        "records": len(records),
        "used": len(used),
        "warmup_dropped": len(records) - len(used),
        "rounds_by_family": {f: sorted(v) for f, v in rounds_by_family.items()},
        "duplicates": duplicates,
    }
    return [(key, groups[key]) for key in order], info


def build_rows(groups, alpha, paired=True):
    """Statistics of each grouped row (needs scipy); return the rows."""
    rows = []
    for key, g in groups:
        family, workload, mode, metric = key
        b = side_stats(g["values"]["base"])
        s = side_stats(g["values"]["series"])
        p = mann_whitney_p(g["values"]["base"], g["values"]["series"])
        ci = ratio_interval(g["by_round"] if paired else None, g["values"])
        rows.append({
            "family": family, "workload": workload, "mode": mode,
            "metric": metric, "unit": g["unit"], "better": g["better"],
            "base": b, "series": s,
            "missing": dict(g["missing"]),
            "change_pct": change_pct(b["median"], s["median"]),
            "p": p, "sig": sig_mark(p, alpha),
            "verdict": verdict(g["better"], b["median"], s["median"], p,
                               alpha),
            "ratio": None,
            "lazy_ratio": None, "lazy_ci": None,
            "ci": ci, "ci_mark": interval_mark(ci),
            "_by_round": g["by_round"], "_values": g["values"],
        })
    add_pt_ratios(rows)
    add_lazy_ratios(rows, paired)
    return rows


def add_ratios(rows, field, reference_mode):
    """r[field] = median(r) / median(ref) per kernel, for the fio/xdp rows
    whose reference_mode(mode) names a mode with a row of the same family,
    workload and metric; None on both sides leaves r[field] unset."""
    by_key = {}
    for r in rows:
        if r["family"] in RATIO_FAMILIES:
            by_key[(r["family"], r["workload"], r["mode"], r["metric"])] = r
    for r in rows:
        if r["family"] not in RATIO_FAMILIES:
            continue
        ref_mode = reference_mode(r["mode"])
        ref = ref_mode and by_key.get((r["family"], r["workload"], ref_mode,
                                       r["metric"]))
        if not ref:
            continue
        ratio = {}
        for k in KERNELS:
            num, den = r[k]["median"], ref[k]["median"]
            ratio[k] = None if num is None or not den else num / den
        if ratio["base"] is not None or ratio["series"] is not None:
            r[field] = ratio


def add_pt_ratios(rows):
    """ratio = median(mode) / median(its passthrough mode, pt_mode_of()),
    same workload/metric/kernel."""
    add_ratios(rows, "ratio", pt_mode_of)


def pt_mode_of(mode):
    """The passthrough mode a mode's ratio is taken to: switch-pt (and
    smmuv3-switch-pt) for the modes of one boot, smmuv3-pt for the arm64
    guest's, else intel-pt."""
    if "switch-" in mode:
        return mode[:mode.index("switch-")] + "switch-pt"
    if mode.startswith("smmuv3-"):
        return "smmuv3-pt"
    return PT_MODE


def lazy_mode_of(mode):
    """The lazy mode of a strict one (X-strict -> X-lazy), else None."""
    return mode[:-len("-strict")] + "-lazy" if mode.endswith("-strict") else None


def add_lazy_ratios(rows, paired=True):
    """lazy_ratio = median(X-strict) / median(X-lazy): what strict mode keeps
    of lazy mode's throughput, same workload/metric/kernel and IOMMU X.
    lazy_ci: per kernel, strict/lazy with its interval, paired by round as
    series/base is (ratio_interval): in one boot that switches modes, and
    with PAIR=1 at the same moments, a round's two modes share the host's
    slow and fast moments; not paired when the run's rounds are not."""
    add_ratios(rows, "lazy_ratio", lazy_mode_of)
    by_key = {(r["family"], r["workload"], r["mode"], r["metric"]): r
              for r in rows if r["family"] in RATIO_FAMILIES}
    for r in rows:
        lazy = (r["family"] in RATIO_FAMILIES and lazy_mode_of(r["mode"])
                and by_key.get((r["family"], r["workload"],
                                lazy_mode_of(r["mode"]), r["metric"])))
        if not lazy:
            continue
        ci = {k: ratio_interval(
                  {"base": lazy["_by_round"][k], "series": r["_by_round"][k]}
                  if paired else None,
                  {"base": lazy["_values"][k], "series": r["_values"][k]})
              for k in KERNELS}
        if any(ci.values()):
            r["lazy_ci"] = ci


# --------------------------------------------------------------------------
# Formatting


def fmt_num(x, ref=None):
    """Compact number: integers as such, else ~5 significant digits.

    ref, if given, fixes the number of decimals (so a spread lines up with
    its median).
    """
    if x is None:
        return "-"
    basis = abs(ref) if ref is not None else abs(x)
    if x == int(x) and (ref is None or ref == int(ref)) and abs(x) < 1e15:
        return str(int(x))
    if basis == 0:
        decimals = 3
    else:
        decimals = max(0, min(6, 4 - int(math.floor(math.log10(basis)))))
    return f"{x:.{decimals}f}"


def fmt_med(st):
    if st["median"] is None:
        return "-"
    m = st["median"]
    return f"{fmt_num(m)} ± {fmt_num(st['spread'], ref=m)}"


def fmt_range(st):
    if st["median"] is None:
        return "-"
    return f"{fmt_num(st['min'])}..{fmt_num(st['max'])}"


def fmt_pct(x):
    return "-" if x is None else f"{x:+.1f}%"


def fmt_p(p):
    return "-" if p is None else f"{p:.3g}"


def fmt_ratio(ratio):
    if ratio is None:
        return ""
    return " / ".join("-" if ratio[k] is None else f"{ratio[k]:.2f}"
                      for k in KERNELS)


def fmt_ci(ci):
    if ci is None:
        return "-"
    return f"{ci['ratio']:.3f} [{ci['low']:.3f}, {ci['high']:.3f}]"


def fmt_n(row):
    return f"{row['base']['n']}/{row['series']['n']}"


def fmt_missing(row):
    return f"{row['missing']['base']}/{row['missing']['series']}"


def fmt_rounds(rounds):
    """[1,2,3,5] -> '1-3,5'."""
    parts = []
    start = prev = None
    for r in rounds:
        if start is None:
            start = prev = r
        elif r == prev + 1:
            prev = r
        else:
            parts.append(f"{start}-{prev}" if start != prev else f"{start}")
            start = prev = r
    if start is not None:
        parts.append(f"{start}-{prev}" if start != prev else f"{start}")
    return ",".join(parts)


def by_family(rows):
    fams = {}
    for r in rows:
        fams.setdefault(r["family"], []).append(r)
    return fams


def header_lines(resultdir, info, alpha, keep_warmup, meta, meta_problem):
    """Header facts as (label, value) pairs, shared by stdout and report."""
    rbf = info["rounds_by_family"]
    all_rounds = sorted({x for v in rbf.values() for x in v})
    per_fam = "; ".join(f"{f}: {len(v)} ({fmt_rounds(v)})"
                        for f, v in rbf.items())
    facts = [
        ("Result dir", os.path.abspath(resultdir)),
        ("Rounds used", f"{len(all_rounds)} (rounds {fmt_rounds(all_rounds)}"
                        f"; per family: {per_fam})"),
        ("Warm-up (round 0) discarded",
         "no (--keep-warmup)" if keep_warmup
         else f"yes ({info['warmup_dropped']} records dropped)"),
        ("Records", f"{info['records']} read, {info['used']} used"),
        ("Significance level alpha", f"{alpha:g}"),
    ]
    if info["duplicates"]:
        line, first = info["duplicates"][0]
        facts.append(("Duplicate records",
                      f"{len(info['duplicates'])} repeat a (row, kernel, "
                      f"round) already seen (first: line {line} repeats line "
                      f"{first}); all values kept"))
    if meta_problem:
        facts.append(("meta.json", meta_problem))
    if meta:
        for k, v in meta.items():
            facts.append((f"meta: {k}",
                          v if isinstance(v, str) else json.dumps(v)))
    return facts


DEFINITIONS = [
    "Cells are `median ± spread`, with spread = (max − min) / 2 (half the "
    "range of the values), over the rounds used; min..max is shown too.",
    "change = (series − base) / |base| × 100 on the medians (signed).",
    "sig: two-sided Mann–Whitney U test of base vs series values; `*` p < "
    "alpha, `**` p < alpha/5, blank not significant, `n/a` fewer than "
    f"{MIN_N} values on a side.",
    f"s/b [{CI_LEVEL:.0%} CI]: series ÷ base with a {CI_LEVEL:.0%} interval: "
    "paired by round (geometric mean of the per-round ratios, t interval "
    f"of their logarithms) when at least {MIN_N} rounds have both, else "
    "the ratio of the medians with a percentile bootstrap interval; "
    "`<>1` marks an interval that excludes 1.",
    "+/-: `+` series significantly better (given the metric's better "
    "direction), `-` significantly worse, `=` not significant; in "
    "parentheses, the raw direction of an untested (`n/a`) change.",
    "n: values used (base/series); missing: failed runs (`null` values) "
    "in the rounds used (base/series).",
    f"ratio to pt (fio, xdp): median of this mode ÷ median of the same "
    f"workload, metric and kernel in mode {PT_MODE} (switch-pt for the "
    f"switch- modes, switched in one boot; smmuv3-pt for the arm64 guest's "
    f"smmuv3- modes), as base / series; blank without pt data.",
    "strict/lazy (fio, xdp): for an X-strict mode, its median ÷ the median "
    "of X-lazy, same workload, metric and kernel, as base / series; the "
    "section Strict against lazy gives it per kernel with an interval, "
    "paired by round like s/b (in one boot for the switch- modes).",
]

MD_COLUMNS = ["workload", "mode", "metric", "unit", "better",
              "base median ± spread", "base min..max",
              "series median ± spread", "series min..max",
              "change", "s/b [95% CI]", "CI", "sig", "p", "+/-", "n b/s",
              "missing b/s", "ratio to pt b / s", "strict/lazy b / s"]

TXT_COLUMNS = ["workload", "mode", "metric", "unit", "base", "series",
               "change", "s/b [95% CI]", "CI", "sig", "p", "+/-", "n b/s", "miss", "ratio to pt",
               "strict/lazy"]
TXT_RIGHT = {"base", "series", "change", "p", "n b/s", "miss"}


def md_escape(s):
    return str(s).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def md_row_cells(r):
    return [r["workload"], r["mode"], r["metric"], r["unit"], r["better"],
            fmt_med(r["base"]), fmt_range(r["base"]),
            fmt_med(r["series"]), fmt_range(r["series"]),
            fmt_pct(r["change_pct"]), fmt_ci(r["ci"]), r["ci_mark"], r["sig"], fmt_p(r["p"]), r["verdict"],
            fmt_n(r), fmt_missing(r), fmt_ratio(r["ratio"]),
            fmt_ratio(r["lazy_ratio"])]


def txt_row_cells(r):
    return [r["workload"], r["mode"], r["metric"], r["unit"],
            fmt_med(r["base"]), fmt_med(r["series"]),
            fmt_pct(r["change_pct"]), fmt_ci(r["ci"]), r["ci_mark"], r["sig"], fmt_p(r["p"]), r["verdict"],
            fmt_n(r), fmt_missing(r), fmt_ratio(r["ratio"]),
            fmt_ratio(r["lazy_ratio"])]


def headline_rows(rows):
    by = {(r["family"], r["workload"], r["metric"], r["mode"]): r for r in rows}
    return [by[h + (m,)] for h in HEADLINE for m in HEADLINE_MODES
            if h + (m,) in by]


def within_band(ci):
    return (ci is not None and ci["low"] >= 1 - HEADLINE_BAND
            and ci["high"] <= 1 + HEADLINE_BAND)


def headline_lines(rows):
    """Plain-text lines of the headline table (report and stdout)."""
    hl = headline_rows(rows)
    if not hl:
        return []
    out = [f"Headline rows: series/base [{CI_LEVEL:.0%} CI]; `<>1`: the interval "
           f"excludes 1; band: the interval within ±{HEADLINE_BAND:.0%}", ""]
    width = max(len(f"{r['family']} {r['workload']} {r['metric']} {r['mode']}") for r in hl)
    for r in hl:
        name = f"{r['family']} {r['workload']} {r['metric']} {r['mode']}"
        out.append(f"    {name:<{width}}  {fmt_ci(r['ci']):>24}  {r['ci_mark']:>3}  "
                   f"{'in band' if within_band(r['ci']) else 'OUT of band'}")
    n_in = sum(within_band(r["ci"]) for r in hl)
    n_marked = sum(r["ci_mark"] == "<>1" for r in hl)
    out += ["", f"{len(hl)} headline rows: {n_marked} marked, {n_in} in band"]
    return out


def lazy_lines(rows):
    """Plain-text lines of the strict/lazy intervals (report and stdout)."""
    lr = [r for r in rows if r["lazy_ci"]]
    if not lr:
        return []
    out = [f"Strict against lazy: X-strict ÷ X-lazy per kernel [{CI_LEVEL:.0%} "
           "CI], paired by round like s/b", ""]
    width = max(len(f"{r['family']} {r['workload']} {r['metric']} {r['mode']}") for r in lr)
    for r in lr:
        name = f"{r['family']} {r['workload']} {r['metric']} {r['mode']}"
        out.append(f"    {name:<{width}}  " + "  ".join(
            f"{k} {fmt_ci(r['lazy_ci'][k])}" for k in KERNELS))
    return out


def render_markdown(rows, facts):
    out = ["# dma-fastpath benchmark comparison: base vs series", ""]
    for label, value in facts:
        out.append(f"- **{md_escape(label)}**: {md_escape(value)}")
    out += ["", "Definitions:", ""]
    out += [f"- {d}" for d in DEFINITIONS]
    hl = headline_lines(rows)
    if hl:
        out += ["", "## Headline rows", ""]
        out += [hl[0], ""] + ["```"] + hl[2:-2] + ["```", "", hl[-1]]
    ll = lazy_lines(rows)
    if ll:
        out += ["", "## Strict against lazy", "", ll[0], "", "```"] + ll[2:] + ["```"]
    for family, frows in by_family(rows).items():
        out += ["", f"## {md_escape(family)}", ""]
        out.append("| " + " | ".join(MD_COLUMNS) + " |")
        out.append("|" + "|".join(
            "---:" if c in ("base median ± spread", "series median ± spread",
                            "change", "p", "n b/s", "missing b/s")
            else "---" for c in MD_COLUMNS) + "|")
        for r in frows:
            out.append("| " + " | ".join(md_escape(c) for c in md_row_cells(r))
                       + " |")
    return "\n".join(out) + "\n"


def render_text(rows, facts):
    out = []
    for label, value in facts:
        if label.startswith("meta: ") or label in ("Records",):
            continue  # kept short on the terminal; all of it is in report.md
        out.append(f"{label}: {value}")
    out.append("spread = (max-min)/2; change = series vs base; "
               "sig: * p<alpha, ** p<alpha/5 (Mann-Whitney U); "
               "+/-: + better, - worse, = not significant")
    hl = headline_lines(rows)
    if hl:
        out += [""] + hl
    ll = lazy_lines(rows)
    if ll:
        out += [""] + ll
    for family, frows in by_family(rows).items():
        cells = [TXT_COLUMNS] + [txt_row_cells(r) for r in frows]
        widths = [max(len(str(c[i])) for c in cells)
                  for i in range(len(TXT_COLUMNS))]
        out += ["", f"== {family} =="]
        for line in cells:
            parts = []
            for i, c in enumerate(line):
                c = str(c)
                parts.append(c.rjust(widths[i]) if TXT_COLUMNS[i] in TXT_RIGHT
                             else c.ljust(widths[i]))
            out.append("  ".join(parts).rstrip())
    return "\n".join(out) + "\n"


def build_summary(rows):
    summary = {}
    for r in rows:
        key = summary_key(r["family"], r["workload"], r["mode"], r["metric"])
        if key in summary:
            raise InputError(f"two rows map to summary key {key!r}")
        entry = {
            "base": r["base"]["median"], "series": r["series"]["median"],
            "change_pct": r["change_pct"], "p": r["p"],
            "better": r["better"], "unit": r["unit"],
            "sig": r["sig"], "verdict": r["verdict"],
            "n_base": r["base"]["n"], "n_series": r["series"]["n"],
            "missing_base": r["missing"]["base"],
            "missing_series": r["missing"]["series"],
            "ratio": None, "ratio_ci_low": None, "ratio_ci_high": None,
            "ratio_ci_method": None, "ratio_excludes_1": None,
            "headline": any((r["family"], r["workload"], r["metric"]) == h
                            and r["mode"] in HEADLINE_MODES for h in HEADLINE),
        }
        if r["ci"] is not None:
            entry.update(ratio=r["ci"]["ratio"], ratio_ci_low=r["ci"]["low"],
                         ratio_ci_high=r["ci"]["high"],
                         ratio_ci_method=r["ci"]["method"],
                         ratio_excludes_1=r["ci_mark"] == "<>1")
        if r["family"] in RATIO_FAMILIES:
            entry["ratio_to_pt"] = r["ratio"]
            if r["lazy_ratio"] is not None:
                entry["ratio_to_lazy"] = r["lazy_ratio"]
            if r["lazy_ci"]:
                entry["ratio_to_lazy_ci"] = r["lazy_ci"]
        summary[key] = entry
    return summary


# --------------------------------------------------------------------------
# Plots


def safe_name(s):
    return re.sub(r"[^A-Za-z0-9._-]", "_", s) or "_"


def _panels(rows):
    """Split rows into subplots by (metric, unit), first-appearance order."""
    panels = {}
    for r in rows:
        panels.setdefault((r["metric"], r["unit"]), []).append(r)
    return panels


def _figure(plt, panels, title):
    ngroups = max(len(v) for v in panels.values())
    width = min(40.0, max(7.0, 0.55 * ngroups + 2.5))
    height = 3.6 * len(panels) + 0.8
    fig, axes = plt.subplots(len(panels), 1, figsize=(width, height),
                             squeeze=False)
    fig.suptitle(title)
    return fig, [a[0] for a in axes]


def _label(r, with_workload=True):
    return f"{r['workload']}\n{r['mode']}" if with_workload else r["mode"]


# Bar width and colours shared by every plot.
BAR_WIDTH = 0.38
KERNEL_COLORS = {"base": "#7f7f7f", "series": "#1f77b4"}


def _xaxis(ax, xs, prow):
    """One labelled tick per row; labels turn when there are many."""
    ax.set_xlim(-0.75, len(xs) - 0.25)  # sane bar width for 1-2 groups
    ax.set_xticks(xs)
    ax.set_xticklabels([_label(r) for r in prow],
                       rotation=45 if len(prow) > 4 else 0,
                       ha="right" if len(prow) > 4 else "center",
                       fontsize=8)


def _finish(fig, path):
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(path, dpi=72)


def plot_family(plt, family, rows, path):
    panels = _panels(rows)
    fig, axes = _figure(plt, panels,
                        f"{family}: base vs series (median, bars min..max)")
    w, colors = BAR_WIDTH, KERNEL_COLORS
    for ax, ((metric, unit), prow) in zip(axes, panels.items()):
        xs = list(range(len(prow)))
        for i, k in enumerate(KERNELS):
            hs, lo, hi, pos = [], [], [], []
            for x, r in zip(xs, prow):
                st = r[k]
                if st["median"] is None:
                    continue
                pos.append(x + (i - 0.5) * w)
                hs.append(st["median"])
                lo.append(st["median"] - st["min"])
                hi.append(st["max"] - st["median"])
            ax.bar(pos, hs, w, yerr=[lo, hi], capsize=2, label=k,
                   color=colors[k], error_kw={"elinewidth": 0.8})
        for x, r in zip(xs, prow):
            tops = [r[k]["max"] for k in KERNELS if r[k]["max"] is not None]
            if not tops or r["change_pct"] is None:
                continue
            mark = "" if r["sig"] == "n/a" else r["sig"]
            ax.annotate(f"{r['change_pct']:+.1f}%{mark}", (x, max(tops)),
                        xytext=(0, 3), textcoords="offset points",
                        ha="center", va="bottom", fontsize=7)
        _xaxis(ax, xs, prow)
        better = prow[0]["better"]
        ax.set_ylabel(f"{metric} [{unit}]" if unit else metric)
        ax.set_title(f"{metric} ({better} is better)", fontsize=10)
        ax.margins(y=0.12)
        ax.legend(fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    _finish(fig, path)
    plt.close(fig)


def plot_ratio(plt, family, rows, path):
    prows = [r for r in rows if r["ratio"] is not None and not r["mode"].endswith("-pt")]
    if not prows:
        return False
    panels = _panels(prows)
    fig, axes = _figure(plt, panels,
                        f"{family}: median / median in {PT_MODE} "
                        f"(same workload, metric, kernel)")
    w, colors = BAR_WIDTH, KERNEL_COLORS
    for ax, ((metric, unit), prow) in zip(axes, panels.items()):
        xs = list(range(len(prow)))
        for i, k in enumerate(KERNELS):
            pos = [x + (i - 0.5) * w for x, r in zip(xs, prow)
                   if r["ratio"][k] is not None]
            hs = [r["ratio"][k] for r in prow if r["ratio"][k] is not None]
            bars = ax.bar(pos, hs, w, label=k, color=colors[k])
            ax.bar_label(bars, fmt="%.2f", fontsize=7, padding=1)
        ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
        _xaxis(ax, xs, prow)
        ax.set_ylabel(f"ratio to {PT_MODE}")
        ax.set_title(f"{metric} ({prow[0]['better']} is better)", fontsize=10)
        ax.margins(y=0.12)
        ax.legend(fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    _finish(fig, path)
    plt.close(fig)
    return True


def write_plots(resultdir, rows):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plotdir = os.path.join(resultdir, PLOTDIR)
    os.makedirs(plotdir, exist_ok=True)
    written = []
    for family, frows in by_family(rows).items():
        path = os.path.join(plotdir, f"{safe_name(family)}.png")
        plot_family(plt, family, frows, path)
        written.append(path)
        if family in RATIO_FAMILIES:
            rpath = os.path.join(plotdir, f"{safe_name(family)}-ratio.png")
            if plot_ratio(plt, family, frows, rpath):
                written.append(rpath)
            else:
                print(f"note: no {PT_MODE} data for {family}; "
                      f"{os.path.basename(rpath)} not written", file=sys.stderr)
    return written


# --------------------------------------------------------------------------
# Main


def check_deps(plots):
    """Fail early (exit 2) when a needed Debian package is not importable."""
    need = [("scipy.stats", "python3-scipy")]
    if plots:
        need.append(("matplotlib", "python3-matplotlib (or use --no-plots)"))
    for mod, pkg in need:
        try:
            __import__(mod)
        except ImportError:
            raise InputError(f"cannot import {mod} with {sys.executable}; "
                             f"install {pkg}, or run with the Debian "
                             f"/usr/bin/python3") from None


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="compare.py",
        description="Compare base vs series results of `make bench`.")
    ap.add_argument("resultdir", help="directory holding results.jsonl")
    ap.add_argument("--no-plots", action="store_true",
                    help="do not write plots/*.png")
    ap.add_argument("--alpha", type=float, default=0.05,
                    help="significance level (default 0.05)")
    ap.add_argument("--keep-warmup", action="store_true",
                    help="also use round 0 (normally a discarded warm-up)")
    args = ap.parse_args(argv)
    if not 0 < args.alpha < 1:
        ap.error("--alpha must be between 0 and 1")
    return args


def main(argv=None):
    args = parse_args(argv)
    try:
        if not os.path.isdir(args.resultdir):
            raise InputError(f"{args.resultdir}: not a directory")
        records = load_records(os.path.join(args.resultdir, RESULTS))
        groups, info = group_records(records, args.keep_warmup)
        check_deps(not args.no_plots)
        meta, meta_problem = load_meta(args.resultdir)
        # A run whose kernels were not measured at the same moments (one
        # boot per kernel, bench/hw-run) says so: no pairing by round.
        rows = build_rows(groups, args.alpha,
                          paired=(meta or {}).get("paired", True) is not False)
        summary = build_summary(rows)
    except InputError as e:
        print(f"compare.py: error: {e}", file=sys.stderr)
        return 2

    facts = header_lines(args.resultdir, info, args.alpha, args.keep_warmup,
                         meta, meta_problem)
    report_path = os.path.join(args.resultdir, REPORT)
    with open(report_path, "w", encoding="utf-8") as f:
        f.write(render_markdown(rows, facts))
    summary_path = os.path.join(args.resultdir, SUMMARY)
    with open(summary_path, "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2, allow_nan=False)
        f.write("\n")

    sys.stdout.write(render_text(rows, facts))
    written = [report_path, summary_path]
    if not args.no_plots:
        written += write_plots(args.resultdir, rows)
    print()
    for path in written:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
