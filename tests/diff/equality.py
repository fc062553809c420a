#!/usr/bin/env python3
"""Regression allowances on the numbers as written: the independent side.

    tests/diff/equality.py SEED N OUT

writes OUT/base.json and OUT/head.json, a base and a head stage-76 report
of N candidates each (and a baseline), and OUT/expected: each (candidate,
threshold) whose change exceeds its allowance when computed exactly, with
fractions, on the decimals the reports write (max_peak_increase_pct 5,
max_throughput_drop_pct 3).  The candidates aim at the allowances: a
change exactly equal to one, one written unit above or below it, or
anywhere within 10 %.  tests/e2e/t_regress_equality.sh gates the two
reports with memgate and compares the regressions it names with these.
"""
import random
import sys
from decimal import Decimal
from fractions import Fraction

PEAK, DROP = Fraction(5), Fraction(3)


def exact(fr):
    """A fraction whose denominator has only the factors 2 and 5, as the
    exact decimal it is."""
    text = format((Decimal(fr.numerator) / Decimal(fr.denominator)).normalize(), 'f')
    assert Fraction(text) == fr, (text, fr)
    return text


def main():
    seed, n, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rnd = random.Random(seed)
    unit = Fraction(1, 100)
    base, head, expected, at = [], [], [], 0
    for i in range(n):
        name = 'c%04d' % i
        bp = Fraction(rnd.randint(2000000, 6000000), 100)
        bs = Fraction(rnd.randint(500, 2000), 100)
        kp, ks = rnd.randrange(4), rnd.randrange(4)
        at += (kp == 0) + (ks == 0)
        edge = bp * (1 + PEAK / 100)
        hp = [edge, edge + unit, edge - unit, bp * Fraction(rnd.randint(90, 110), 100)][kp]
        edge = bs * (1 - DROP / 100)
        hs = [edge, edge - unit / 100, edge + unit / 100,
              bs * Fraction(rnd.randint(90, 110), 100)][ks]
        base.append((name, exact(bp), exact(bs)))
        head.append((name, exact(hp), exact(hs)))
        if (hp - bp) / bp * 100 > PEAK:
            expected.append('%s max_peak_increase_pct' % name)
        if (bs - hs) / bs * 100 > DROP:
            expected.append('%s max_throughput_drop_pct' % name)
    for path, rows in (('base.json', base), ('head.json', head)):
        with open('%s/%s' % (out, path), 'w') as f:
            f.write('{\n  "workload_id": "train",\n  "hardware_id": "gpu-a",\n'
                    '  "candidates": [\n    {"name": "baseline", "peak_memory_mb": 70000, '
                    '"samples_per_s": 30.0, "eval_loss": 2.0}')
            for name, peak, sps in rows:
                f.write(',\n    {"name": "%s", "peak_memory_mb": %s, "samples_per_s": %s, '
                        '"eval_loss": 2.0}' % (name, peak, sps))
            f.write('\n  ]\n}\n')
    with open('%s/expected' % out, 'w') as f:
        f.write(''.join(line + '\n' for line in sorted(expected)))
    print(at)


if __name__ == '__main__':
    main()
