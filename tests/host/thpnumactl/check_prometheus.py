#!/usr/bin/env python3
"""Check a file against the Prometheus text exposition format (0.0.4):
every sample's metric has one HELP and one TYPE line before it, names and
labels are well formed, values are numbers, counters end in _total and are
not negative, and a metric's samples are contiguous."""
import re
import sys

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*"'
SAMPLE = re.compile(r"^(%s)(\{(?:%s(?:,%s)*)?\})? (\S+)$" % (NAME, LABEL, LABEL))
HELP = re.compile(r"^# HELP (%s) (.*)$" % NAME)
TYPE = re.compile(r"^# TYPE (%s) (counter|gauge|histogram|summary|untyped)$" % NAME)


def check(text):
    helps, types, done = {}, {}, set()
    current = None
    if not text.endswith("\n"):
        return "no final newline"
    for n, line in enumerate(text.splitlines(), 1):
        m = HELP.match(line)
        if m:
            if m.group(1) in helps:
                return "line %d: second HELP for %s" % (n, m.group(1))
            helps[m.group(1)] = m.group(2)
            continue
        m = TYPE.match(line)
        if m:
            if m.group(1) in types:
                return "line %d: second TYPE for %s" % (n, m.group(1))
            types[m.group(1)] = m.group(2)
            continue
        if line.startswith("#"):
            return "line %d: malformed comment" % n
        m = SAMPLE.match(line)
        if not m:
            return "line %d: malformed sample %r" % (n, line)
        name, value = m.group(1), m.group(3)
        if name not in helps or name not in types:
            return "line %d: %s lacks HELP or TYPE before it" % (n, name)
        if name != current:
            if name in done:
                return "line %d: samples of %s are not contiguous" % (n, name)
            if current:
                done.add(current)
            current = name
        try:
            v = float(value)
        except ValueError:
            return "line %d: value %r is not a number" % (n, value)
        if types[name] == "counter":
            if not name.endswith("_total"):
                return "line %d: counter %s does not end in _total" % (n, name)
            if v < 0:
                return "line %d: negative counter" % n
    if current is None:
        return "no samples"
    return None


def main():
    with open(sys.argv[1]) as f:
        problem = check(f.read())
    if problem:
        print("%s: %s" % (sys.argv[1], problem), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
