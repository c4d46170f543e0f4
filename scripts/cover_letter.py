#!/usr/bin/env python3
"""The cover letter of one topic series, from Documentation/cover/NAME.txt:
its first line is the subject, the rest the body; the Cc: lines come from
Documentation/cover/NAME.cc (make cover).

Every measured figure of the body is a reference into one committed make
bench run, filled in from its summary.json: the run bench/results/LATEST
names, or the one a line "@run{NAME}" of the body names (a topic measured
on its own, in a run of the modes it needs; the line is not part of the
text):

  @{KEY:FIELD}        the row KEY of summary.json, its FIELD (base, series,
  @{KEY:FIELD:SPEC}   change_pct, ratio, ratio_ci_low, ratio_ci_high,
                      ratio_to_lazy.base, ...), with a Python format SPEC
                      (default: no decimals from 100 up, else 2)
  @{KEY:ci}           "RATIO [LOW, HIGH]", the series/base ratio and its
                      95% interval
  @cited{TEXT}        TEXT as it is: a figure from elsewhere (a published
                      result), named as such in the sentence

and any other figure in the body that looks measured (a number with %, x,
ns, us, IOPS or pps after it, a decimal fraction, an integer of four or
more digits; not a confidence level such as "95% interval") is an
error of `check`.

  cover_letter.py text NAME          print the body as it goes into the cover
                                     letter (scripts/cover --check counts it)
  cover_letter.py check NAME         every reference resolves in the
                                     letter's run and no figure is written
                                     by hand; one line per problem, exit
                                     status 1
  cover_letter.py run NAME           the name of the letter's run
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
REF = re.compile(r'@\{([^}:]+):([^}:]+)(?::([^}]*))?\}')
CITED = re.compile(r'@cited\{([^}]*)\}')
# A figure written by hand: a number with a unit or a percentage or "x"
# after it, a decimal fraction, or an integer of four or more digits, not
# part of a word, a version, an identifier or a date.
HANDWRITTEN = re.compile(
    r'(?<![\w.])[+-]?\d+(?:\.\d+)?(?:\s*(?:%(?! interval)|ns\b|us\b|ms\b|IOPS\b|k?pps\b|Mpps\b)|x\b)'
    r'|(?<![\w.])[+-]?\d+\.\d+(?![\w.])'
    r'|(?<![\w.-])\d{4,}(?![\w.-])')


def run_name(body):
    """The run a body names with @run{NAME}, else the one of LATEST."""
    named = RUN.findall(body)
    if len(named) > 1:
        raise LookupError(f'more than one @run line: {", ".join(named)}')
    if named:
        return named[0]
    path = os.path.join(RESULTS, 'LATEST')
    if not os.path.exists(path):
        raise LookupError('no bench/results/LATEST')
    return open(path).read().strip()


def load_run(body):
    """(name, summary) of the body's run."""
    name = run_name(body)
    summ = os.path.join(RESULTS, name, 'summary.json')
    if not os.path.exists(summ):
        raise LookupError(f'run {name} has no bench/results/{name}/summary.json')
    return name, json.load(open(summ))


def resolve(summary, key, field, spec):
    if key not in summary:
        raise LookupError(f'no row {key}')
    row = summary[key]
    if field == 'ci':
        if row.get('ratio') is None:
            raise LookupError(f'{key}: no interval')
        return f"{row['ratio']:.3f} [{row['ratio_ci_low']:.3f}, {row['ratio_ci_high']:.3f}]"
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
    text = RUN.sub('', body)
    refs = REF.findall(text) + CITED.findall(text)
    if not refs:
        return text
    try:
        _, summary = load_run(body)
    except LookupError as e:
        problems.append(str(e))
        return text

    def one(m):
        try:
            return resolve(summary, m.group(1), m.group(2), m.group(3))
        except (LookupError, ValueError) as e:
            problems.append(f'{m.group(0)}: {e}')
            return m.group(0)
    return CITED.sub(lambda m: m.group(1), REF.sub(one, text))


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
                 f'from the letter\'s run, or @cited{{...}}' for n, fig in handwritten(body)]
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
            print(run_name(source(sys.argv[2])[1]))
        except LookupError as e:
            sys.exit(f'cover_letter.py: {e}')
    elif len(sys.argv) == 5 and sys.argv[1] == 'fill':
        fill(*sys.argv[2:])
    else:
        sys.exit(__doc__)
