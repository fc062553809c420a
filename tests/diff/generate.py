"""Seeded random policies and reports for the differential test.

    generate.py [--seed S] [--cases N] --out DIR

writes DIR/case-NNNN/{.memgate.yml, report.json, policy.json}: the policy as
YAML text (written here by hand: Python has no yaml module on a bare Debian;
it keeps to the subset memgate accepts), the same policy as JSON for
tests/diff/reference.py, and a stage-76 report.  tests/diff/run imports
make_case() directly.

The generator aims at every branch of memgate(1)'s HOW MEMGATE DECIDES: handoff shape or not, identity
pins that match or not, a baseline present, absent, oom or invalid, paired
values or not, runs[] with odd and even counts and aggregates inside and
outside them, missing and non-numeric metrics (strings, booleans, null,
"1e999" as a string), duplicate and missing names, every status, eligible lists,
min_repeats, evidence.noise, both rank_by, each of the eight thresholds set or not, values
exactly at a threshold, and stricter and grid scenarios, including ones that
override the quality ceilings.
"""
import argparse
import json
import os
import random

WORKLOAD = 'train-b2-s1024'
HARDWARE = 'gpu-a'
PINS = {  # policy key -> (value the report matches, config keys, a mismatch)
    'model_id': ('Qwen/Qwen2.5-0.5B-Instruct', ('model_id', 'model'), 'Qwen/Qwen2.5-7B'),
    'dtype': ('float32', ('dtype',), 'bfloat16'),
    'amp_dtype': ('torch.bfloat16', ('amp_dtype',), 'torch.float16'),
    'batch_size': (2, ('batch_size',), 4),
    'seq_len': (1024, ('seq_len',), 768),
    'optimizer': ('AdamW', ('optimizer',), 'SGD'),
}
NAMES = ('checkpoint', 'offload', 'hybrid', 'compress', 'lora', 'zero2', 'baseline')
PEAK_KEYS = ('peak_memory_mb', 'peak_mem_mb', 'candidate_peak_memory_mb')
LOSS_KEYS = ('eval_loss', 'val_loss')
INF, NINF = '__MG_INF__', '__MG_NINF__'
# Non-numbers a metric may carry instead of its value, and numbers outside
# a measured metric's range (issue 19: peak and samples/s above 0, eval
# loss 0 or above; the paired values may be any number).
JUNK = ('9000', True, False, None, INF, NINF, {}, [1.0], -5000.0, 0.0, -0.5)


class Case:
    """One random case: the truth behind it, then its policy and report."""

    def __init__(self, rng):
        self.r = rng
        self.noise = rng.choice((0.0, 0.0, 0.03, 0.08, 0.2))
        self.handoff = rng.random() < 0.3
        self.foreign = rng.random() < 0.2     # identity that may not match
        self.baseline = 'ref' if rng.random() < 0.15 else 'baseline'
        self.truth = []      # [{name, peak, samples, loss}]
        self.policy = {}
        self.report = {}

    def chance(self, p):
        return self.r.random() < p

    def noisy(self, scale=1.0):
        return self.r.random() < self.noise * scale


# ---------------------------------------------------------------- truth

def make_truth(c, size=None):
    r = c.r
    p0 = r.randrange(32000, 48000) / 4          # multiples of 0.25: exact savings
    s0 = r.randrange(50, 400) / 100
    l0 = r.randrange(11000, 13000) / 1000
    count = r.randint(1, 6) if size is None else size
    # a sweep of 10^3 candidates has an aggregate outside its runs in at
    # most one of them, and only sometimes: else every case is a reject
    c.sweep = size is not None
    c.outside_left = 1 if not c.sweep or c.chance(0.2) else 0
    names = list(NAMES[:-1])
    r.shuffle(names)
    if size is not None:                        # a sweep: many names, a few used twice
        names += ['sweep-%05d' % k for k in range(size)]
        for _ in range(size // 50):
            names[r.randrange(len(names))] = r.choice(names)
    if c.baseline == 'ref' and c.chance(0.5):
        names.insert(0, 'baseline')             # a "baseline" that is not the baseline
    rows = []
    if not c.chance(0.08):
        rows.append({'name': c.baseline, 'peak': p0, 'samples': s0, 'loss': l0})
    for name in names[:count - len(rows)]:
        rows.append({
            'name': name,
            'peak': p0 - r.randrange(-2000, 12000) / 4,
            'samples': round(s0 * r.uniform(0.3, 1.1), 3),
            'loss': round(l0 + r.uniform(-0.05, 0.3), 4),
        })
    if rows and rows[0]['name'] == c.baseline and c.chance(0.04):
        rows[0]['samples'] = r.choice((0.0, -1.0, -0.0))   # no ratio from this baseline
    if rows and c.chance(0.25):
        r.shuffle(rows)                         # the baseline need not come first
    if len(rows) > 1 and c.chance(0.1):
        twin = dict(r.choice(rows))
        rows.insert(r.randrange(len(rows) + 1), twin)   # a duplicate name
    if rows and c.chance(0.15):                 # ties in the rank
        a, b = r.sample(range(len(rows)), 2) if len(rows) > 1 else (0, 0)
        rows[b]['peak'] = rows[a]['peak']
    c.truth = rows
    c.p0, c.s0, c.l0 = p0, s0, l0


# ---------------------------------------------------------------- policy

def near(c, values, lo=None, hi=None, spread=0.1, fallback=1.0):
    """A threshold: often exactly one of `values`, else close to one."""
    r = c.r
    values = [v for v in values if (lo is None or v >= lo) and (hi is None or v <= hi)]
    if not values:
        v = fallback
    elif r.random() < 0.35:
        return r.choice(values)
    else:
        v = r.choice(values) * (1 + r.uniform(-spread, spread))
    if lo is not None:
        v = max(lo, v)
    if hi is not None:
        v = min(hi, v)
    return round(v, 4)


def threshold_value(c, key):
    t, r = c.truth, c.r
    peaks = [x['peak'] for x in t]
    if key == 'memory_cap_mb':
        v = near(c, peaks + [max(peaks or [c.p0]) + 500], spread=0.05, fallback=c.p0)
        return v if v > 0 else 1.0
    if key == 'min_samples_per_s':
        return near(c, [x['samples'] for x in t], lo=0, spread=0.2)
    if key == 'min_memory_saving_mb':
        return near(c, [c.p0 - x['peak'] for x in t], lo=0, spread=0.3, fallback=512.0)
    if key == 'min_throughput_ratio':
        return near(c, [x['samples'] / c.s0 for x in t], lo=0, hi=1, spread=0.15, fallback=0.7)
    if key == 'max_eval_loss':
        return near(c, [x['loss'] for x in t], lo=0, spread=0.01, fallback=12.5)
    if key == 'max_relative_eval_loss':
        return r.choice((0.0, 0.01, 0.02, round(r.uniform(0, 0.03), 4)))
    if key == 'max_quality_delta':
        return near(c, [x['loss'] - c.l0 for x in t], lo=0, spread=0.5, fallback=0.03)
    if key == 'min_mb_saved_per_pct_throughput':
        rates = [(c.p0 - x['peak']) / ((1 - x['samples'] / c.s0) * 100)
                 for x in t if x['samples'] < c.s0]
        return near(c, rates, lo=0, spread=0.3, fallback=20.0)
    raise KeyError(key)


def make_policy(c):
    r = c.r
    p = {'identity': {'workload_id': WORKLOAD, 'hardware_id': HARDWARE}}
    for key, (value, _, _) in PINS.items():
        if c.chance(0.2):
            p['identity'][key] = value
    density = r.choice((0.2, 0.45, 0.7))
    p['budget'] = {'memory_cap_mb': threshold_value(c, 'memory_cap_mb')}
    for key in ('min_samples_per_s', 'min_memory_saving_mb', 'min_throughput_ratio'):
        if c.chance(density):
            p['budget'][key] = threshold_value(c, key)
    quality = {}
    for key in ('max_eval_loss', 'max_relative_eval_loss', 'max_quality_delta'):
        if c.chance(density * 0.8):
            quality[key] = threshold_value(c, key)
    if quality:
        p['quality'] = quality
    evidence = {}
    if c.baseline != 'baseline' or c.chance(0.1):
        evidence['baseline'] = c.baseline
    if c.chance(0.35):
        evidence['min_repeats'] = r.choice((1, 2, 3))
    if c.chance(0.3):
        evidence['noise'] = r.choice(('warn', 'tune', 'tune'))
    if c.chance(density * 0.6):
        p['budget']['min_mb_saved_per_pct_throughput'] = threshold_value(
            c, 'min_mb_saved_per_pct_throughput')
    if evidence:
        p['evidence'] = evidence
    if c.chance(0.5):
        p['rank_by'] = r.choice(('peak_memory', 'throughput', 'throughput'))
    sens = make_sensitivity(c)
    if sens:
        p['sensitivity'] = sens
    c.policy = p


def override_keys(c, n):
    keys = ['memory_cap_mb', 'min_samples_per_s', 'min_memory_saving_mb',
            'min_throughput_ratio', 'max_eval_loss', 'max_relative_eval_loss',
            'max_quality_delta', 'min_mb_saved_per_pct_throughput']
    weights = [4, 2, 2, 2, 3, 2, 1, 1]
    out = []
    while len(out) < n:
        k = c.r.choices(keys, weights)[0]
        if k not in out:
            out.append(k)
    return out


def make_sensitivity(c):
    r = c.r
    sens = {}
    shape = r.choice(('none', 'stricter', 'grid', 'both', 'stricter', 'grid'))
    if shape in ('stricter', 'both'):
        sens['stricter'] = [{k: threshold_value(c, k) for k in override_keys(c, r.choice((1, 1, 2)))}
                            for _ in range(r.randint(1, 3))]
    if shape in ('grid', 'both'):
        axes = []
        for k in override_keys(c, r.choice((1, 2, 2, 3))):
            values = []
            for _ in range(r.randint(1, 3)):
                values.append(threshold_value(c, k))
            axes.append([k, values])
        sens['grid'] = axes
    return sens


def relative_equality(c):
    """Put one candidate exactly at the relative ceiling l0 * (1 + x), with
    x often one where the other order, l0 + l0 * x, rounds differently: the
    memgate(1) fixes the order, so the two orders give different decisions."""
    quality = c.policy.get('quality', {})
    others = [t for t in c.truth if t['name'] != c.baseline]
    if 'max_relative_eval_loss' not in quality or not others or not c.chance(0.6):
        return
    x = quality['max_relative_eval_loss']
    for _ in range(40):
        if c.l0 * (1 + x) != c.l0 + c.l0 * x:
            break
        x = round(c.r.uniform(0, 0.05), 4)
    quality['max_relative_eval_loss'] = x
    ceilings = (c.l0 * (1 + x), c.l0 + c.l0 * x)
    c.r.choice(others)['loss'] = c.r.choice(ceilings)


# ---------------------------------------------------------------- report

def junk(c):
    return c.r.choice(JUNK)


def place_metric(c, obj, runs, keys, sub, value):
    """Write `value` into the candidate: own key, sub-object or runs[]."""
    r = c.r
    if c.noisy():
        if c.chance(0.4):
            return                              # missing
        value = junk(c)
    where = r.choice(('own', 'own', 'sub', 'runs')) if runs is not None else r.choice(('own', 'own', 'sub'))
    key = r.choice(keys) if c.chance(0.3) else keys[0]
    if where == 'runs':
        fill_runs(c, runs, keys, value)
        if c.chance(0.3):                       # an aggregate beside the runs
            aggregate(c, obj, runs, keys, sub)
        return
    if where == 'sub':
        obj.setdefault(sub, {})[key] = value
        if c.chance(0.1):                       # own key null: falls through
            obj[keys[0]] = None
    else:
        obj[key] = value
        if c.chance(0.1):                       # shadowed sub-object value
            obj.setdefault(sub, {})[keys[0]] = junk(c) if c.chance(0.5) else 1.0
    if runs is not None and c.chance(0.4):
        fill_runs(c, runs, keys, value if isinstance(value, float) else 1.0)
        if isinstance(value, float) and (c.sweep or not c.chance(0.1)):
            c.r.choice(runs)[keys[0]] = value   # the aggregate lies inside the runs


def fill_runs(c, runs, keys, value):
    r = c.r
    spread = abs(value) * 0.02 if isinstance(value, float) else 1.0
    for run in runs:
        if not isinstance(value, float):
            run[keys[0]] = value if c.chance(0.5) else 1.0
        else:
            run[r.choice(keys) if c.chance(0.2) else keys[0]] = round(value + r.uniform(-spread, spread), 3)
    if c.noisy(0.5):
        run = r.choice(runs)
        for k in keys:
            run.pop(k, None)
        if c.chance(0.5):
            run[keys[0]] = junk(c)


def aggregate(c, obj, runs, keys, sub):
    vals = [run.get(keys[0]) for run in runs]
    nums = [v for v in vals if isinstance(v, float)]
    if not nums:
        return
    lo, hi = min(nums), max(nums)
    v = c.r.choice((lo, hi, (lo + hi) / 2))
    if c.chance(0.15) and c.outside_left:
        v = c.r.choice((lo - 1.0, hi + 1.0))   # aggregate_outside_runs
        c.outside_left -= c.sweep
    target = obj.setdefault(sub, {}) if c.chance(0.4) else obj
    target[keys[0]] = v


def candidate_status(c):
    r = c.r
    if c.noisy(0.7):
        return r.choice(('oom', 'oom', 'skipped', 1, None, 'failed', 'ok', 'comparable'))
    if c.handoff:
        return 'comparable' if c.chance(0.9) else 'ok'
    return r.choice((None, None, 'ok', 'ok', 'comparable'))


def make_candidate(c, t):
    r = c.r
    obj = {}
    name = t['name']
    if c.noisy(0.3):
        name = r.choice((None, '', 7, 'MISSING'))
    if name != 'MISSING':
        obj['name'] = name
    status = candidate_status(c)
    if status is not None or c.chance(0.1):
        obj['status'] = status
    if c.noisy(0.3):
        obj.setdefault('metrics', {})['oom'] = r.choice((True, True, False, None))
    runs = None
    repeats_wanted = c.policy.get('evidence', {}).get('min_repeats', 1)
    if c.chance(0.25 + 0.2 * (repeats_wanted > 1)):
        runs = [{} for _ in range(r.randint(1, 5))]
    place_metric(c, obj, runs, PEAK_KEYS, 'metrics', t['peak'])
    if not c.handoff or c.chance(0.4):
        place_metric(c, obj, runs, ('samples_per_s',), 'metrics', t['samples'])
    if not c.handoff or c.chance(0.5):
        place_metric(c, obj, runs, LOSS_KEYS, 'quality', t['loss'])
    if runs is not None:
        if c.noisy(0.3):
            runs.insert(r.randrange(len(runs) + 1), r.choice((None, 1.0, 'run', [])))
        obj['runs'] = runs if not c.noisy(0.3) else r.choice(([], {}, 'x'))
    paired(c, obj, t)
    decoys(c, obj)
    for sub in ('metrics', 'quality'):
        if c.noisy(0.1):
            obj[sub] = r.choice((5, 'x', [], None))     # not an object: not read
    return obj


def paired(c, obj, t):
    """Paired values: the handoff's own keys, mostly the producer's arithmetic."""
    if not c.chance(0.75 if c.handoff else 0.12):
        return
    values = {
        'memory_saving_mb': c.p0 - t['peak'],
        'throughput_ratio': round(t['samples'] / c.s0, 6),
        'quality_delta': round(t['loss'] - c.l0, 6),
    }
    for key, v in values.items():
        if c.chance(0.2):
            continue
        if c.chance(0.15):
            v = round(v * c.r.uniform(0.5, 1.5), 4)
        if c.noisy(0.5):
            v = junk(c)
        obj[key] = v


def decoys(c, obj):
    """Values memgate must ignore: producer's arithmetic, legacy_fields."""
    if c.chance(0.1):
        obj.setdefault('metrics', {}).update({'memory_saving_mb': 99999.0,
                                              'throughput_ratio': 0.001,
                                              'quality_delta': 42.0})
    if c.chance(0.1):
        obj['legacy_fields'] = {'peak_memory_mb': 1.0, 'samples_per_s': 1e9, 'eval_loss': 0.0}


def make_identity(c, rep):
    r = c.r
    config = {}
    for key, top, cfg in (('workload_id', WORKLOAD, 'workload'), ('hardware_id', HARDWARE, 'device')):
        value = top
        if c.foreign and c.chance(0.25):
            value = r.choice((top + '-other', None, 5, top.upper()))
        mode = r.choice(('top', 'top', 'config', 'config', 'both', 'topnull'))
        if mode in ('top', 'both'):
            rep[key] = value
        if mode in ('config', 'both', 'topnull'):
            config[cfg] = value
        if mode == 'both' and c.chance(0.5):
            config[cfg] = 'config-loses'
        if mode == 'topnull':
            rep[key] = None
        if value is None and c.chance(0.5):
            rep.pop(key, None)
            config.pop(cfg, None)
    for key, (value, keys, other) in PINS.items():
        roll = r.random() if c.foreign else 0.5
        if roll < 0.08:
            continue
        if roll < 0.16:
            value = other
        elif roll < 0.2 and isinstance(value, int):
            value = str(value)
        elif roll < 0.3 and isinstance(value, int):
            value = float(value)
        elif roll < 0.33:
            value = None
        config[r.choice(keys)] = value
    rep['config'] = config


def make_handoff(c, rep):
    r = c.r
    roll = r.random()
    if roll < 0.8:
        rep['status'] = 'ready_for_budget_review'
    elif roll < 0.88:
        rep['status'] = r.choice(('draft', 5, 'READY'))
    elif roll < 0.92:
        rep['status'] = None
    cands = rep.get('candidates')
    names = [x.get('name') for x in cands if isinstance(x, dict)] if isinstance(cands, list) else []
    names = [n for n in names if isinstance(n, str)]
    roll = r.random()
    if roll < 0.75:
        eligible = [n for n in names if not c.chance(0.15)]
        if c.chance(0.1):
            eligible.append(r.choice((3, None, 'ghost')))
        rep['eligible_candidates'] = eligible
    elif roll < 0.82:
        rep['eligible_candidates'] = []
    elif roll < 0.86:
        rep['eligible_candidates'] = r.choice(('checkpoint', None, {}))
    if 'status' not in rep and 'eligible_candidates' not in rep:
        rep['eligible_candidates'] = names


def make_report(c):
    r = c.r
    rep = {}
    make_identity(c, rep)
    cands = [make_candidate(c, t) for t in c.truth]
    if c.noisy(0.2):
        cands.insert(r.randrange(len(cands) + 1), r.choice(('x', None, 3, [])))
    rep['candidates'] = cands
    if c.noisy(0.1):
        rep['candidates'] = r.choice(([], {}, None))
        if rep['candidates'] is None:
            del rep['candidates']
    if c.handoff:
        make_handoff(c, rep)
    if c.chance(0.1):
        rep['budget'] = {'memory_cap_mb': 1.0}
        rep['summary'] = {'best_candidate': 'offload'}
        rep['decision'] = {'decision': 'accept', 'reason': 'producer_says_so'}
    c.report = rep


# ---------------------------------------------------------------- text

def yaml_number(v):
    """A YAML 1.2 core-schema number: Python's repr round-trips through strtod."""
    if isinstance(v, bool):
        raise TypeError(v)
    return str(v) if isinstance(v, int) else repr(float(v))


def yaml_string(s):
    return json.dumps(s)    # a double-quoted YAML scalar (ASCII, JSON escapes)


def yaml_scalar(v):
    return yaml_string(v) if isinstance(v, str) else yaml_number(v)


def policy_yaml(p, report_path='report.json'):
    out = ['# generated by tests/diff/generate.py', 'version: 1',
           'report: %s' % yaml_string(report_path), 'identity:']
    out += ['  %s: %s' % (k, yaml_scalar(v)) for k, v in p['identity'].items()]
    for section in ('budget', 'quality'):
        if section in p:
            out.append('%s:' % section)
            out += ['  %s: %s' % (k, yaml_number(v)) for k, v in p[section].items()]
    if 'evidence' in p:
        out.append('evidence:')
        out += ['  %s: %s' % (k, yaml_scalar(v)) for k, v in p['evidence'].items()]
    if 'rank_by' in p:
        out.append('rank_by: %s' % p['rank_by'])
    sens = p.get('sensitivity')
    if sens:
        out.append('sensitivity:')
        if 'stricter' in sens:
            out.append('  stricter:')
            for entry in sens['stricter']:
                out.append('    - { %s }' % ', '.join('%s: %s' % (k, yaml_number(v))
                                                      for k, v in entry.items()))
        if 'grid' in sens:
            out.append('  grid:')
            for key, values in sens['grid']:
                out.append('    %s: [%s]' % (key, ', '.join(yaml_number(v) for v in values)))
    return '\n'.join(out) + '\n'


def report_json(rep):
    text = json.dumps(rep, indent=2)
    # memgate refuses a number beyond a double's range (memgate(1), NUMBERS:
    # exit 2 at its position, a bad input rather than a decision), so the
    # infinite junk goes in as the strings "1e999" and "-1e999": a
    # non-numeric metric, which both sides decide.
    return text.replace('"%s"' % INF, '"1e999"').replace('"%s"' % NINF, '"-1e999"') + '\n'


def make_case(seed, index, size=None):
    """(policy dict, policy YAML text, report JSON text) of case `index`;
    with `size`, a sweep of that many candidates."""
    key = '%s/%d' % (seed, index) if size is None else '%s/%d/%d' % (seed, index, size)
    c = Case(random.Random(key))
    make_truth(c, size)
    make_policy(c)
    relative_equality(c)
    make_report(c)
    return c.policy, policy_yaml(c.policy), report_json(c.report)


MEASURED_KEYS = ('peak_memory_mb', 'peak_mem_mb', 'candidate_peak_memory_mb',
                 'samples_per_s', 'eval_loss', 'val_loss')


def scaled(obj, factor):
    """obj with every measured number (aggregates and runs alike) times its
    metric's factor: the runs keep their order, so an aggregate stays inside."""
    if isinstance(obj, list):
        return [scaled(x, factor) for x in obj]
    if not isinstance(obj, dict):
        return obj
    out = {}
    for k, v in obj.items():
        f = factor.get('samples' if k == 'samples_per_s' else
                       'loss' if k in ('eval_loss', 'val_loss') else 'peak')
        if k in MEASURED_KEYS and isinstance(v, (int, float)) and not isinstance(v, bool):
            out[k] = v * f
        else:
            out[k] = scaled(v, factor)
    return out


def make_regression(seed, index, policy, report_text):
    """A regression: section and a base report for about one case in three
    (memgate(1), REGRESSIONS AND HISTORY): (policy with regression, YAML, base report JSON
    text, older base reports' JSON texts, oldest first), or None.  The base report is the case's report with each
    candidate's metrics scaled, so that the names match."""
    r = random.Random('%s/%d/regression' % (seed, index))
    if r.random() >= 0.35 or '1e999' in report_text:
        return None   # (an infinite number would not survive json.dumps)
    report = json.loads(report_text)
    cands = report.get('candidates')
    if isinstance(cands, list):
        report['candidates'] = [
            scaled(cand, {m: r.choice((0.85, 0.93, 0.95, 1.0, 1.0, 1.05, 1.07, 1.2))
                          for m in ('peak', 'samples', 'loss')})
            for cand in cands]
    reg = {}
    for key, values in (('max_peak_increase_mb', (0, 100, 500, 2000)),
                        ('max_peak_increase_pct', (0, 2, 5, 10)),
                        ('max_throughput_drop_pct', (0, 3, 5, 15)),
                        ('max_eval_loss_increase', (0, 0.01, 0.1))):
        if r.random() < 0.5:
            reg[key] = r.choice(values)
    if not reg:
        reg['max_peak_increase_pct'] = r.choice((0, 5))
    if r.random() < 0.4:
        reg['covers'] = r.choice(('selected', 'all'))
    if r.random() < 0.4:
        reg['decision'] = r.choice(('tune', 'reject'))
    # regression.history (memgate(1), REGRESSIONS AND HISTORY): for about one regression
    # case in three, older base reports, each scaled afresh from the case's
    # (own random stream: the cases without it stay as they were)
    older = []
    h = random.Random('%s/%d/history' % (seed, index))
    if h.random() < 0.35:
        reg['history'] = h.choice((1, 2, 3, 4, 5))
        for _ in range(h.choice((0, 1, 2, 3, 4))):
            old = json.loads(report_text)
            if isinstance(old.get('candidates'), list):
                old['candidates'] = [
                    scaled(cand, {m: h.choice((0.8, 0.9, 0.97, 1.0, 1.0, 1.03, 1.1, 1.25))
                                  for m in ('peak', 'samples', 'loss')})
                    for cand in old['candidates']]
            older.append(report_json(old))
    policy = dict(policy, regression=reg)
    text = policy_yaml(policy) + 'regression:\n' + ''.join(
        '  %s: %s\n' % (k, v if isinstance(v, str) else yaml_number(v)) for k, v in reg.items())
    return policy, text, report_json(report), older


def write_case(folder, policy, yaml_text, report_text):
    os.makedirs(folder, exist_ok=True)
    for name, text in (('.memgate.yml', yaml_text), ('report.json', report_text),
                       ('policy.json', json.dumps(policy, indent=2) + '\n')):
        with open(os.path.join(folder, name), 'w', encoding='utf-8') as f:
            f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--seed', default='1')
    ap.add_argument('--cases', type=int, default=300)
    ap.add_argument('--out', required=True)
    args = ap.parse_args()
    for i in range(args.cases):
        write_case(os.path.join(args.out, 'case-%04d' % i), *make_case(args.seed, i))


if __name__ == '__main__':
    main()
