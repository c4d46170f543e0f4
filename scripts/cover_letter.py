#!/usr/bin/env python3
"""The cover letter of one topic series, from Documentation/cover/NAME.txt:
its first line is the subject, the rest the body; the Cc: lines come from
Documentation/cover/NAME.cc (make cover).

Every measured figure of the body is a reference into a committed make
bench run, filled in from its summary.json: the run bench/results/LATEST
names, or the one a line "@run{NAME}" of the body names, for the text
after it up to the next such line (a topic measured on its own, in runs
of the modes it needs; the line is not part of the text):

  @{KEY:FIELD}        the row KEY of summary.json (a paired workload's
  @{KEY:FIELD:SPEC}   ":pair" included), its FIELD (base, series,
                      change_pct, ratio, ratio_ci_low, ratio_ci_high,
                      ratio_to_lazy.base, ...), with a Python format SPEC
                      (default: no decimals from 100 up, else 2)
  @{KEY:ci}           "RATIO [LOW, HIGH]", the series/base ratio and its
                      95% interval
  @{KEY:lazy_ci.K}    the same for strict/lazy of kernel K (base, series)
  @cited{TEXT}        TEXT as it is: a figure from elsewhere (a published
                      result), named as such in the sentence

and any other figure in the body that looks measured (a number with %, x,
ns, us, IOPS or pps after it, a decimal fraction, an integer of four or
more digits; not a confidence level such as "95% interval") is an
error of `check`.

  cover_letter.py text NAME          print the body as it goes into the cover
                                     letter (scripts/cover --check counts it)
  cover_letter.py check NAME         every reference resolves in the
                                     letter's runs and no figure is written
                                     by hand; one line per problem, exit
                                     status 1
  cover_letter.py run NAME           the names of the letter's runs
  cover_letter.py fill PATCH NAME DATE
                                     fill git format-patch's cover letter
                                     PATCH: subject, body, Cc lines, Date:
"""
import json
import os
import re
import sys

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
DOC = os.path.join(TOP, 'Documentation')
RESULTS = os.path.join(TOP, 'bench', 'results')
RUN = re.compile(r'^@run\{([0-9TZ]+)\}[ \t]*\n?', re.M)
REF = re.compile(r'@\{([^}:]+(?::pair\.[^}:]+)?):([^}:]+)(?::([^}]*))?\}')
CITED = re.compile(r'@cited\{([^}]*)\}')
# A figure written by hand: a number with a unit or a percentage or "x"
# after it, a decimal fraction, or an integer of four or more digits, not
# part of a word, a version, an identifier or a date.
HANDWRITTEN = re.compile(
    r'(?<![\w.])[+-]?\d+(?:\.\d+)?(?:\s*(?:%(?! interval)|ns\b|us\b|ms\b|IOPS\b|k?pps\b|Mpps\b)|x\b)'
    r'|(?<![\w.])[+-]?\d+\.\d+(?![\w.])'
    r'|(?<![\w.-])\d{4,}(?![\w.-])')


def latest():
    path = os.path.join(RESULTS, 'LATEST')
    if not os.path.exists(path):
        raise LookupError('no bench/results/LATEST')
    return open(path).read().strip()


def segments(body):
    """[(run, text)]: the body cut at its @run lines (the lines dropped);
    the text before the first one is of the run LATEST names (None when
    that text has no reference)."""
    out, start, run = [], 0, None
    for m in RUN.finditer(body):
        out.append((run, body[start:m.start()]))
        start, run = m.end(), m.group(1)
    out.append((run, body[start:]))
    return [(r if r or not REF.search(t) else latest(), t) for r, t in out]


def run_names(body):
    """The runs a body's figures come from, in order (LATEST's without any)."""
    names = []
    for r, t in segments(body):
        if REF.search(t) and r not in names:
            names.append(r)
    return names or [latest()]


def load_run(name):
    summ = os.path.join(RESULTS, name, 'summary.json')
    if not os.path.exists(summ):
        raise LookupError(f'run {name} has no bench/results/{name}/summary.json')
    return json.load(open(summ))


def resolve(summary, key, field, spec):
    if key not in summary:
        raise LookupError(f'no row {key}')
    row = summary[key]
    if field == 'ci':
        if row.get('ratio') is None:
            raise LookupError(f'{key}: no interval')
        return f"{row['ratio']:.3f} [{row['ratio_ci_low']:.3f}, {row['ratio_ci_high']:.3f}]"
    if field.startswith('lazy_ci.'):
        ci = (row.get('ratio_to_lazy_ci') or {}).get(field[len('lazy_ci.'):])
        if not ci:
            raise LookupError(f'{key}: no {field}')
        return f"{ci['ratio']:.3f} [{ci['low']:.3f}, {ci['high']:.3f}]"
    v = row
    for part in field.split('.'):
        if not isinstance(v, dict) or v.get(part) is None:
            raise LookupError(f'{key}: no {field}')
        v = v[part]
    if not spec:
        if isinstance(v, int):
            return str(v)
        spec = '.0f' if abs(v) >= 100 else '.2f'
    return format(v, spec)


def fill_refs(body, problems):
    try:
        parts = segments(body)
    except LookupError as e:
        problems.append(str(e))
        return RUN.sub('', body)
    out = []
    for run, text in parts:
        if REF.search(text):
            try:
                summary = load_run(run)
            except LookupError as e:
                problems.append(str(e))
                out.append(text)
                continue

            def one(m, summary=summary):
                try:
                    return resolve(summary, m.group(1), m.group(2), m.group(3))
                except (LookupError, ValueError) as e:
                    problems.append(f'{m.group(0)}: {e}')
                    return m.group(0)
            text = REF.sub(one, text)
        out.append(CITED.sub(lambda m: m.group(1), text))
    return ''.join(out)


def handwritten(body):
    """Figures of the body that are neither references nor cited (an @run
    line's name is none: its digits run into a letter)."""
    bare = CITED.sub('', REF.sub('', body))
    return [(i + 1, m.group(0)) for i, line in enumerate(bare.split('\n'))
            for m in HANDWRITTEN.finditer(line)]


def source(name):
    src = os.path.join(DOC, 'cover', name + '.txt')
    if not os.path.exists(src):
        sys.exit(f'cover_letter.py: no Documentation/cover/{name}.txt '
                 f'(subject line, then the body) for topic {name}')
    lines = open(src).read().rstrip('\n').split('\n')
    subject, body = lines[0].strip(), '\n'.join(lines[1:]).strip('\n')
    if not subject:
        sys.exit(f'cover_letter.py: Documentation/cover/{name}.txt: empty first (subject) line')
    return subject, body


def text(name, problems=None):
    subject, body = source(name)
    return subject, fill_refs(body, [] if problems is None else problems)


def check(name):
    problems = []
    subject, body = source(name)
    fill_refs(body, problems)
    problems += [f'line {n + 1}: "{fig}" is written by hand: use @{{KEY:FIELD}} '
                 f'from the letter\'s runs, or @cited{{...}}' for n, fig in handwritten(body)]
    problems += [f'subject: "{fig}" is a figure' for _, fig in handwritten(subject)]
    return problems


def cc(name):
    path = os.path.join(DOC, 'cover', name + '.cc')
    if not os.path.exists(path):
        return []
    return [l.strip() for l in open(path) if l.strip() and not l.startswith('#')]


def fill(path, name, date):
    subject, body = text(name)
    p = open(path).read()
    for mark in ('*** SUBJECT HERE ***', '*** BLURB HERE ***'):
        if mark not in p:
            sys.exit(f'cover_letter.py: {path} has no {mark!r}: not a fresh format-patch cover letter')
    p = p.replace('*** SUBJECT HERE ***', subject, 1)
    p = p.replace('*** BLURB HERE ***', body, 1)
    lines = cc(name)
    if lines:
        head, sep, rest = p.partition('\n\n')
        p = head + '\n' + '\n'.join('Cc: ' + l for l in lines) + sep + rest
    # A stable file: the cover letter's date is the date of the topic's last patch.
    p = re.sub(r'^Date: .*$', 'Date: ' + date, p, count=1, flags=re.M)
    open(path, 'w').write(p)


if __name__ == '__main__':
    if len(sys.argv) == 3 and sys.argv[1] == 'text':
        s, b = text(sys.argv[2])
        print(s + '\n' + b)
    elif len(sys.argv) == 3 and sys.argv[1] == 'check':
        probs = check(sys.argv[2])
        for pr in probs:
            print(pr)
        sys.exit(1 if probs else 0)
    elif len(sys.argv) == 3 and sys.argv[1] == 'run':
        try:
            print(', '.join(run_names(source(sys.argv[2])[1])))
        except LookupError as e:
            sys.exit(f'cover_letter.py: {e}')
    elif len(sys.argv) == 5 and sys.argv[1] == 'fill':
        fill(*sys.argv[2:])
    else:
        sys.exit(__doc__)
