#!/usr/bin/env python3
"""The cover letter of one topic series, from Documentation/cover/NAME.txt:
its first line is the subject, the rest the body, whose @BENCH_TABLE@ line
becomes Documentation/cover-table.txt (written by make cover); the Cc:
lines come from Documentation/cover/NAME.cc (make cover).

  cover_letter.py text NAME          print the body as it goes into the cover
                                     letter (scripts/cover --check counts it)
  cover_letter.py fill PATCH NAME DATE
                                     fill git format-patch's cover letter
                                     PATCH: subject, body, Cc lines, Date:
"""
import os
import re
import sys

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'Documentation')
NO_TABLE = '(no table yet: run make bench, then make cover)'


def text(name):
    src = os.path.join(DOC, 'cover', name + '.txt')
    if not os.path.exists(src):
        sys.exit(f'cover_letter.py: no Documentation/cover/{name}.txt '
                 f'(subject line, then the body) for topic {name}')
    lines = open(src).read().rstrip('\n').split('\n')
    subject, body = lines[0].strip(), '\n'.join(lines[1:]).strip('\n')
    if not subject:
        sys.exit(f'cover_letter.py: Documentation/cover/{name}.txt: empty first (subject) line')
    if '@BENCH_TABLE@' in body:
        table = os.path.join(DOC, 'cover-table.txt')
        t = open(table).read().rstrip('\n') if os.path.exists(table) else NO_TABLE
        body = body.replace('@BENCH_TABLE@', t)
    return subject, body


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
    elif len(sys.argv) == 5 and sys.argv[1] == 'fill':
        fill(*sys.argv[2:])
    else:
        sys.exit(__doc__)
