"""Tests of bench/compare.py.  Run from the repository root:

    python3 -m unittest bench/test_compare.py

scipy and matplotlib are the Debian packages (python3-scipy,
python3-matplotlib); tests that need them are skipped, with a reason, by an
interpreter that cannot import them.
"""

import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import compare  # noqa: E402


def _importable(mod):
    try:
        __import__(mod)
        return True
    except ImportError:
        return False


HAVE_SCIPY = _importable("scipy.stats")
HAVE_MPL = _importable("matplotlib")
NEED = "needs python3-scipy and python3-matplotlib (try /usr/bin/python3)"

ROUNDS = 5
# Offsets of the measurement rounds 1..5 around a median: distinct, small
# (+-1%), median 0.
JITTER = [-0.010, 0.005, 0.0, -0.005, 0.010]


def rec(family, workload, mode, kernel, rnd, metric, value, unit, better):
    return {"family": family, "workload": workload, "mode": mode,
            "kernel": kernel, "round": rnd, "metric": metric, "value": value,
            "unit": unit, "better": better}


def series_rows(family, workload, mode, metric, unit, better, base_med,
                series_med, jitter=JITTER, warmup=True):
    """Records of one row, base and series interleaved by round.

    Round 0 (warm-up) gets absurd outliers that would move every median.
    """
    out = []
    rounds = range(0 if warmup else 1, len(jitter) + 1)
    for rnd in rounds:
        for kernel, med in (("base", base_med), ("series", series_med)):
            if rnd == 0:
                value = med * 1000.0 if kernel == "base" else med / 1000.0
            else:
                value = med * (1.0 + jitter[rnd - 1])
            out.append(rec(family, workload, mode, kernel, rnd, metric,
                           value, unit, better))
    return out


def synthetic_records():
    r = []
    # fio: series +10% IOPS in intel-strict (significant improvement) ...
    r += series_rows("fio", "randread-4k-qd32", "intel-strict", "iops",
                     "IOPS", "higher", 100000.0, 110000.0)
    # ... and 10% lower p99 latency (lower is better: also an improvement).
    r += series_rows("fio", "randread-4k-qd32", "intel-strict", "clat-p99",
                     "us", "lower", 200.0, 180.0)
    # intel-lazy: identical distributions on both sides.
    r += series_rows("fio", "randread-4k-qd32", "intel-lazy", "iops",
                     "IOPS", "higher", 105000.0, 105000.0)
    r += series_rows("fio", "randread-4k-qd32", "intel-lazy", "clat-p99",
                     "us", "lower", 190.0, 190.0)
    # intel-pt: the reference for "ratio to pt".
    r += series_rows("fio", "randread-4k-qd32", "intel-pt", "iops",
                     "IOPS", "higher", 125000.0, 125000.0)
    r += series_rows("fio", "randread-4k-qd32", "intel-pt", "clat-p99",
                     "us", "lower", 160.0, 160.0)
    # A workload without intel-pt data: no ratio.
    r += series_rows("fio", "seqwrite-128k-qd8", "intel-strict", "bw",
                     "MiB/s", "higher", 2000.0, 2000.0)
    # xdp: series 10% worse (regression), with one failed run on series.
    x = series_rows("xdp", "rx-drop-64b", "intel-strict", "pps", "pps",
                    "higher", 8.0e6, 7.2e6)
    for e in x:
        if e["kernel"] == "series" and e["round"] == 3:
            e["value"] = None
    r += x
    r += series_rows("xdp", "rx-drop-64b", "intel-pt", "pps", "pps",
                     "higher", 1.0e7, 1.0e7)
    # dma_map_benchmark: too few values on one side -> n/a.
    r += series_rows("dma_map_benchmark", "single-4k", "intel-strict",
                     "map_ns", "ns", "lower", 300.0, 250.0,
                     jitter=JITTER[:2])
    # kunit under UML.
    r += series_rows("kunit", "pt_map_bench", "uml", "ns_per_map", "ns",
                     "lower", 50.0, 40.0)
    # static: a single round 1, no warm-up.
    r.append(rec("static", "indirect-calls", "-", "base", 1, "count", 12,
                 "", "lower"))
    r.append(rec("static", "indirect-calls", "-", "series", 1, "count", 9,
                 "", "lower"))
    r.append(rec("static", "indirect-calls", "-", "base", 1, "dma_map_phys",
                 4, "", "lower"))
    r.append(rec("static", "indirect-calls", "-", "series", 1,
                 "dma_map_phys", 0, "", "lower"))
    return r


def write_results(d, records, meta=None):
    with open(os.path.join(d, "results.jsonl"), "w") as f:
        for e in records:
            f.write(json.dumps(e) + "\n")
    if meta is not None:
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump(meta, f)


def run_main(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = compare.main(argv)
    return rc, out.getvalue(), err.getvalue()


class TempDirCase(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="compare-test-")
        self.addCleanup(shutil.rmtree, self.dir)


@unittest.skipUnless(HAVE_SCIPY and HAVE_MPL, NEED)
class TestReport(unittest.TestCase):
    """One full run (with plots) on the synthetic data, checked in parts."""

    META = {"base": "v6.15-rc1 1234abcd", "series": "fastpath 5678ef90",
            "date": "2025-01-01", "machine": "test-host"}

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="compare-test-")
        write_results(cls.dir, synthetic_records(), cls.META)
        cls.rc, cls.out, cls.err = run_main([cls.dir, "--alpha", "0.05"])
        with open(os.path.join(cls.dir, "summary.json")) as f:
            cls.summary = json.load(f)
        with open(os.path.join(cls.dir, "report.md")) as f:
            cls.report = f.read()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def s(self, key):
        self.assertIn(key, self.summary)
        return self.summary[key]

    def test_exit_status(self):
        self.assertEqual(self.rc, 0, self.err)

    def test_significant_improvement(self):
        e = self.s("fio.randread-4k-qd32.intel-strict.iops")
        self.assertAlmostEqual(e["change_pct"], 10.0, places=6)
        self.assertLess(e["p"], 0.01)          # 5 vs 5, fully separated
        self.assertEqual(e["sig"], "**")
        self.assertEqual(e["verdict"], "+")
        # Lower-is-better metric that went down: also "+".
        e = self.s("fio.randread-4k-qd32.intel-strict.clat-p99")
        self.assertAlmostEqual(e["change_pct"], -10.0, places=6)
        self.assertEqual(e["verdict"], "+")

    def test_significant_regression(self):
        e = self.s("xdp.rx-drop-64b.intel-strict.pps")
        self.assertAlmostEqual(e["change_pct"], -10.0, places=6)
        self.assertEqual(e["verdict"], "-")
        self.assertIn(e["sig"], ("*", "**"))

    def test_identical_not_significant(self):
        for metric in ("iops", "clat-p99"):
            e = self.s(f"fio.randread-4k-qd32.intel-lazy.{metric}")
            self.assertEqual(e["change_pct"], 0.0)
            self.assertGreater(e["p"], 0.5)
            self.assertEqual(e["sig"], "")
            self.assertEqual(e["verdict"], "=")

    def test_warmup_discarded(self):
        # Round 0 values are x1000 / /1000 outliers; medians must not move.
        e = self.s("fio.randread-4k-qd32.intel-strict.iops")
        self.assertAlmostEqual(e["base"], 100000.0)
        self.assertAlmostEqual(e["series"], 110000.0)
        self.assertEqual((e["n_base"], e["n_series"]), (5, 5))
        self.assertIn("Warm-up (round 0) discarded**: yes", self.report)

    def test_missing_value_counted(self):
        e = self.s("xdp.rx-drop-64b.intel-strict.pps")
        self.assertEqual((e["n_base"], e["n_series"]), (5, 4))
        self.assertEqual((e["missing_base"], e["missing_series"]), (0, 1))
        # Series values left: 7.2e6 * (1 - 0.010, 1 + 0.005, 1 - 0.005, 1.010)
        self.assertAlmostEqual(e["series"], 7.2e6)

    def test_ratio_to_pt(self):
        e = self.s("fio.randread-4k-qd32.intel-strict.iops")
        self.assertAlmostEqual(e["ratio_to_pt"]["base"], 100000 / 125000)
        self.assertAlmostEqual(e["ratio_to_pt"]["series"], 110000 / 125000)
        e = self.s("fio.randread-4k-qd32.intel-strict.clat-p99")
        self.assertAlmostEqual(e["ratio_to_pt"]["base"], 200 / 160)
        self.assertAlmostEqual(e["ratio_to_pt"]["series"], 180 / 160)
        e = self.s("xdp.rx-drop-64b.intel-strict.pps")
        self.assertAlmostEqual(e["ratio_to_pt"]["series"], 0.72)
        # No intel-pt data for this workload: blank / null.
        self.assertIsNone(
            self.s("fio.seqwrite-128k-qd8.intel-strict.bw")["ratio_to_pt"])
        # Shown as "0.80 / 0.88" in both outputs.
        self.assertIn("0.80 / 0.88", self.out)
        self.assertIn("0.80 / 0.88", self.report)
        # Families other than fio/xdp have no ratio.
        self.assertNotIn("ratio_to_pt", self.s("kunit.pt_map_bench.uml."
                                               "ns_per_map"))

    def test_ratio_to_lazy(self):
        e = self.s("fio.randread-4k-qd32.intel-strict.iops")
        self.assertAlmostEqual(e["ratio_to_lazy"]["base"], 100000 / 105000)
        self.assertAlmostEqual(e["ratio_to_lazy"]["series"], 110000 / 105000)
        self.assertIn("0.95 / 1.05", self.report)
        # Only strict modes have one, and only with the matching lazy mode.
        self.assertNotIn("ratio_to_lazy",
                         self.s("fio.randread-4k-qd32.intel-lazy.iops"))
        self.assertNotIn("ratio_to_lazy",
                         self.s("xdp.rx-drop-64b.intel-strict.pps"))

    def test_too_few_values(self):
        e = self.s("dma_map_benchmark.single-4k.intel-strict.map_ns")
        self.assertIsNone(e["p"])
        self.assertEqual(e["sig"], "n/a")
        self.assertEqual(e["verdict"], "(+)")
        self.assertEqual((e["n_base"], e["n_series"]), (2, 2))

    def test_summary_keys(self):
        expected = {
            "kunit.pt_map_bench.uml.ns_per_map",
            "dma_map_benchmark.single-4k.intel-strict.map_ns",
            "fio.randread-4k-qd32.intel-strict.iops",
            "fio.randread-4k-qd32.intel-strict.clat-p99",
            "fio.randread-4k-qd32.intel-lazy.iops",
            "fio.randread-4k-qd32.intel-lazy.clat-p99",
            "fio.randread-4k-qd32.intel-pt.iops",
            "fio.randread-4k-qd32.intel-pt.clat-p99",
            "fio.seqwrite-128k-qd8.intel-strict.bw",
            "xdp.rx-drop-64b.intel-strict.pps",
            "xdp.rx-drop-64b.intel-pt.pps",
            "static.indirect-calls",
            "static.indirect-calls.dma_map_phys",
        }
        self.assertEqual(set(self.summary), expected)
        for key, e in self.summary.items():
            for field in ("base", "series", "change_pct", "p", "better",
                          "unit"):
                self.assertIn(field, e, key)
        e = self.s("static.indirect-calls")
        self.assertEqual((e["base"], e["series"]), (12, 9))
        self.assertAlmostEqual(e["change_pct"], -25.0)
        self.assertIsNone(e["p"])
        self.assertEqual((e["better"], e["unit"]), ("lower", ""))
        e = self.s("static.indirect-calls.dma_map_phys")
        self.assertEqual((e["base"], e["series"]), (4, 0))
        self.assertAlmostEqual(e["change_pct"], -100.0)
        e = self.s("fio.randread-4k-qd32.intel-strict.iops")
        self.assertEqual((e["better"], e["unit"]), ("higher", "IOPS"))

    def test_report_header_and_table(self):
        r = self.report
        self.assertIn(self.dir, r)
        self.assertIn("(max − min) / 2", r)
        for k, v in self.META.items():
            self.assertIn(f"meta: {k}**: {v}", r)
        self.assertIn("**Rounds used**: 5", r)
        # Row with min..max, p and marks.
        line = next(l for l in r.splitlines()
                    if l.startswith("| randread-4k-qd32 | intel-strict | iops"))
        self.assertIn("99000..101000", line)
        self.assertIn("108900..111100", line)
        self.assertIn("+10.0%", line)
        self.assertIn("| ** |", line)
        self.assertIn("| 0.00794 |", line)
        for fam in ("kunit", "dma_map_benchmark", "fio", "xdp", "static"):
            self.assertIn(f"## {fam}\n", r)

    def test_stdout_table(self):
        line = next(l for l in self.out.splitlines()
                    if "randread-4k-qd32" in l and "intel-strict" in l
                    and "iops" in l and "±" in l)
        self.assertIn("100000 ± 1000", line)
        self.assertIn("110000 ± 1100", line)
        self.assertIn("+10.0%", line)
        self.assertIn("**", line)
        self.assertIn("== fio ==", self.out)
        # The headline table: the series is 10% faster in every round.
        head = next(l for l in self.out.splitlines()
                    if l.startswith("    fio randread-4k-qd32 iops intel-strict"))
        self.assertIn("1.100 [1.100, 1.100]  <>1  OUT of band", head)

    def test_plots(self):
        for name in ("fio.png", "fio-ratio.png", "xdp.png", "xdp-ratio.png",
                     "kunit.png", "dma_map_benchmark.png", "static.png"):
            path = os.path.join(self.dir, "plots", name)
            self.assertTrue(os.path.isfile(path), name)
            self.assertGreater(os.path.getsize(path), 1000, name)
            with open(path, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", name)


@unittest.skipUnless(HAVE_SCIPY, "needs python3-scipy (try /usr/bin/python3)")
class TestOptions(TempDirCase):
    def test_keep_warmup_changes_medians(self):
        write_results(self.dir, series_rows(
            "fio", "w", "intel-strict", "iops", "IOPS", "higher", 100.0,
            110.0, jitter=JITTER[:3]))
        rc, out, err = run_main([self.dir, "--no-plots", "--keep-warmup"])
        self.assertEqual(rc, 0, err)
        with open(os.path.join(self.dir, "summary.json")) as f:
            e = json.load(f)["fio.w.intel-strict.iops"]
        self.assertEqual(e["n_base"], 4)
        self.assertNotAlmostEqual(e["base"], 100.0)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "plots")))
        with open(os.path.join(self.dir, "report.md")) as f:
            self.assertIn("discarded**: no", f.read())

    def test_alpha(self):
        # 3 vs 3 fully separated: exact two-sided p = 0.1.
        write_results(self.dir, series_rows(
            "fio", "w", "intel-strict", "iops", "IOPS", "higher", 100.0,
            110.0, jitter=JITTER[:3]))
        for alpha, sig, verdict in (("0.05", "", "="), ("0.2", "*", "+"),
                                    ("0.6", "**", "+")):
            rc, out, err = run_main([self.dir, "--no-plots", "--alpha", alpha])
            self.assertEqual(rc, 0, err)
            with open(os.path.join(self.dir, "summary.json")) as f:
                e = json.load(f)["fio.w.intel-strict.iops"]
            self.assertAlmostEqual(e["p"], 0.1)
            self.assertEqual((e["sig"], e["verdict"]), (sig, verdict), alpha)

    def test_sample_input(self):
        src = os.path.join(HERE, "testdata", "sample")
        for name in ("results.jsonl", "meta.json"):
            shutil.copy(os.path.join(src, name), self.dir)
        rc, out, err = run_main([self.dir, "--no-plots"])
        self.assertEqual(rc, 0, err)
        with open(os.path.join(self.dir, "summary.json")) as f:
            summary = json.load(f)
        self.assertIn("static.indirect-calls", summary)
        self.assertIn("fio.randread-4k-qd32.intel-strict.iops", summary)


class TestBadInput(TempDirCase):
    """Exit status 2 with a message naming the problem (and line)."""

    def bad(self, text, *expect):
        with open(os.path.join(self.dir, "results.jsonl"), "w") as f:
            f.write(text)
        rc, out, err = run_main([self.dir, "--no-plots"])
        self.assertEqual(rc, 2, err)
        for s in expect:
            self.assertIn(s, err)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "report.md")))
        return err

    GOOD = json.dumps(rec("fio", "w", "intel-strict", "base", 1, "iops", 1.0,
                          "IOPS", "higher"))

    def with_line(self, **change):
        e = json.loads(self.GOOD)
        e.update(change)
        return json.dumps(e)

    def test_missing_file(self):
        rc, out, err = run_main([self.dir, "--no-plots"])
        self.assertEqual(rc, 2)
        self.assertIn("results.jsonl", err)

    def test_missing_dir(self):
        rc, out, err = run_main([os.path.join(self.dir, "nope")])
        self.assertEqual(rc, 2)
        self.assertIn("not a directory", err)

    def test_empty(self):
        self.bad("", "empty")
        self.bad("\n  \n", "empty")

    def test_malformed_json(self):
        self.bad(f"{self.GOOD}\n{self.GOOD}\n{{not json\n",
                 "results.jsonl:3:", "malformed JSON")

    def test_not_an_object(self):
        self.bad(f"{self.GOOD}\n[1, 2]\n", ":2:", "JSON object")

    def test_missing_field(self):
        e = json.loads(self.GOOD)
        del e["better"]
        self.bad(f"{self.GOOD}\n{json.dumps(e)}\n", ":2:", "better")

    def test_bad_values(self):
        self.bad(self.with_line(kernel="other") + "\n", ":1:", "kernel")
        self.bad(self.with_line(value="fast") + "\n", ":1:", "value")
        self.bad(self.with_line(value=True) + "\n", ":1:", "value")
        self.bad(self.with_line(round=-1) + "\n", ":1:", "round")
        self.bad(self.with_line(round="1") + "\n", ":1:", "round")
        self.bad(self.with_line(better="more") + "\n", ":1:", "better")
        self.bad(self.with_line(family="") + "\n", ":1:", "family")
        self.bad(self.GOOD.replace("1.0", "NaN") + "\n", ":1:", "finite")

    def test_inconsistent_better(self):
        self.bad(self.GOOD + "\n" + self.with_line(kernel="series",
                                                   better="lower") + "\n",
                 "line 2", "better")

    def test_only_warmup(self):
        self.bad(self.with_line(round=0) + "\n", "--keep-warmup")


class TestHelpers(unittest.TestCase):
    def test_summary_key(self):
        k = compare.summary_key
        self.assertEqual(k("fio", "w", "intel-pt", "iops"),
                         "fio.w.intel-pt.iops")
        self.assertEqual(k("static", "indirect-calls", "-", "count"),
                         "static.indirect-calls")
        self.assertEqual(k("static", "indirect-calls", "-", "dma_map_phys"),
                         "static.indirect-calls.dma_map_phys")

    def test_fmt(self):
        self.assertEqual(compare.fmt_num(12.0), "12")
        self.assertEqual(compare.fmt_num(19234.5), "19234")
        self.assertEqual(compare.fmt_num(1.23456), "1.2346")
        self.assertEqual(compare.fmt_rounds([1, 2, 3, 5]), "1-3,5")
        self.assertEqual(compare.fmt_ratio({"base": 0.5, "series": None}),
                         "0.50 / -")

    def test_verdict(self):
        v = compare.verdict
        self.assertEqual(v("higher", 1, 2, 0.001, 0.05), "+")
        self.assertEqual(v("lower", 1, 2, 0.001, 0.05), "-")
        self.assertEqual(v("lower", 1, 2, 0.5, 0.05), "=")
        self.assertEqual(v("lower", 2, 1, None, 0.05), "(+)")
        self.assertEqual(v("lower", None, 1, None, 0.05), "")


@unittest.skipUnless(HAVE_SCIPY, NEED)
class TestRatioInterval(unittest.TestCase):
    """series/base with a 95% interval, paired by round or bootstrapped."""

    @staticmethod
    def rounds(base, series):
        return {"base": dict(enumerate(base, 1)),
                "series": dict(enumerate(series, 1))}

    def test_paired_change_excludes_1(self):
        # Rounds move both kernels together (the host's moments); the
        # series is 10% faster in each: a paired interval sees it.
        base = [100, 140, 90, 120, 110]
        series = [b * 1.1 for b in base]
        ci = compare.ratio_interval(self.rounds(base, series),
                                    {"base": base, "series": series})
        self.assertEqual(ci["method"], "paired")
        self.assertAlmostEqual(ci["ratio"], 1.1)
        self.assertLess(ci["low"], 1.1 + 1e-9)
        self.assertGreater(ci["low"], 1.0)
        self.assertEqual(compare.interval_mark(ci), "<>1")

    def test_paired_noise_holds_1(self):
        base = [100, 140, 90, 120, 110]
        series = [103, 135, 92, 118, 111]
        ci = compare.ratio_interval(self.rounds(base, series),
                                    {"base": base, "series": series})
        self.assertLess(ci["low"], 1.0)
        self.assertGreater(ci["high"], 1.0)
        self.assertEqual(compare.interval_mark(ci), "")

    def test_identical_is_exactly_1(self):
        v = [5, 6, 7]
        ci = compare.ratio_interval(self.rounds(v, v), {"base": v, "series": v})
        self.assertEqual((ci["ratio"], ci["low"], ci["high"]), (1.0, 1.0, 1.0))
        self.assertEqual(compare.interval_mark(ci), "")

    def test_unpaired_bootstrap(self):
        # No round with both kernels: the ratio of medians, bootstrapped.
        by_round = {"base": {1: 100, 3: 101, 5: 99},
                    "series": {2: 80, 4: 81, 6: 79}}
        ci = compare.ratio_interval(by_round, {"base": [100, 101, 99],
                                               "series": [80, 81, 79]})
        self.assertEqual(ci["method"], "bootstrap")
        self.assertAlmostEqual(ci["ratio"], 0.8)
        self.assertLessEqual(ci["high"], 81 / 99 + 1e-9)
        self.assertEqual(compare.interval_mark(ci), "<>1")

    def test_too_few(self):
        self.assertIsNone(compare.ratio_interval(self.rounds([1, 2], [1, 2]),
                                                 {"base": [1, 2], "series": [1, 2]}))
        self.assertEqual(compare.interval_mark(None), "n/a")

    def test_in_summary(self):
        recs = series_rows("fio", "w", "intel-strict", "iops", "IOPS", "higher",
                           1000, 1100)
        for i, r in enumerate(recs):
            r["line"] = i + 1
        groups, _ = compare.group_records(recs, False)
        summary = compare.build_summary(compare.build_rows(groups, 0.05))
        e = summary["fio.w.intel-strict.iops"]
        self.assertEqual(e["ratio_ci_method"], "paired")
        self.assertTrue(e["ratio_excludes_1"])
        # Both kernels get the same per-round jitter: every round's ratio
        # is 1.1, and so is the whole interval.
        self.assertAlmostEqual(e["ratio_ci_low"], 1.1)
        self.assertAlmostEqual(e["ratio_ci_high"], 1.1)


class TestStrictLazyInterval(unittest.TestCase):
    """strict/lazy per kernel with an interval, paired by round."""

    @staticmethod
    def records(strict, lazy):
        """A switch-mode boot per round: each round's moments move strict
        and lazy together. The series side repeats the base's values."""
        recs = []
        for mode, vals in (("switch-strict", strict), ("switch-lazy", lazy)):
            for rnd, v in enumerate(vals, 1):
                for k in ("base", "series"):
                    recs.append(rec("fio", "w:pair", mode, k, rnd, "iops", v,
                                    "IOPS", "higher"))
        for i, r in enumerate(recs):
            r["line"] = i + 1
        return recs

    def rows(self, strict, lazy, paired=True):
        groups, _ = compare.group_records(self.records(strict, lazy), True)
        return compare.build_rows(groups, 0.05, paired)

    def test_paired_resolves_what_medians_cannot(self):
        # The host's moments move both modes by +-30% between rounds;
        # strict keeps 0.95 of lazy in every round.
        lazy = [100, 140, 90, 120, 110, 70]
        strict = [v * 0.95 for v in lazy]
        r = [x for x in self.rows(strict, lazy) if x["mode"] == "switch-strict"][0]
        for k in ("base", "series"):
            ci = r["lazy_ci"][k]
            self.assertEqual(ci["method"], "paired")
            self.assertAlmostEqual(ci["ratio"], 0.95)
            self.assertAlmostEqual(ci["high"], 0.95)
        # Unpaired (rounds not comparable), the same values resolve
        # nothing: the bootstrap interval of the medians holds 1.
        r = [x for x in self.rows(strict, lazy, paired=False)
             if x["mode"] == "switch-strict"][0]
        ci = r["lazy_ci"]["base"]
        self.assertEqual(ci["method"], "bootstrap")
        self.assertGreater(ci["high"], 1.0)

    def test_only_strict_rows_and_in_outputs(self):
        lazy = [100, 104, 98, 101]
        strict = [97, 99, 96, 99]
        rows = self.rows(strict, lazy)
        by_mode = {x["mode"]: x for x in rows}
        self.assertIsNone(by_mode["switch-lazy"]["lazy_ci"])
        ci = by_mode["switch-strict"]["lazy_ci"]["series"]
        self.assertLess(ci["low"], ci["ratio"])
        self.assertLess(ci["ratio"], ci["high"])
        e = compare.build_summary(rows)["fio.w:pair.switch-strict.iops"]
        self.assertEqual(e["ratio_to_lazy_ci"]["base"]["method"], "paired")
        self.assertNotIn("ratio_to_lazy_ci",
                         compare.build_summary(rows)["fio.w:pair.switch-lazy.iops"])
        text = "\n".join(compare.lazy_lines(rows))
        self.assertIn("fio w:pair iops switch-strict", text)
        self.assertIn(f"series {compare.fmt_ci(ci)}", text)



class TestPtModeOf(unittest.TestCase):
    def test_each_guest_has_its_passthrough(self):
        self.assertEqual(compare.pt_mode_of("intel-strict"), "intel-pt")
        self.assertEqual(compare.pt_mode_of("amd-strict"), "intel-pt")
        self.assertEqual(compare.pt_mode_of("switch-lazy"), "switch-pt")
        self.assertEqual(compare.pt_mode_of("smmuv3-switch-strict"), "smmuv3-switch-pt")
        self.assertEqual(compare.pt_mode_of("smmuv3-strict"), "smmuv3-pt")


if __name__ == "__main__":
    unittest.main()
