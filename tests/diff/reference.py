"""An independent reference for memgate's decision (memgate(1): POLICY, REPORTS and
HOW MEMGATE DECIDES).

Written from the written contract only, never from the decision core (plugin/core/decision.c,
tables.c, screening.c, sensitivity.c), so that tests/diff/run can compare the two on random inputs.  The entry point is

    decide(policy, report, base_report=None, base_history=None) -> dict

where `policy` is the policy as data (the dict that tests/diff/generate.py
writes as YAML: identity, budget, quality, evidence, rank_by, sensitivity)
and `report` is the report as json.loads reads it (1e999 becomes inf).  The
result holds the fields of the decision record that the comparison uses:
decision, reason, next_action, selected_candidate, issues, evaluations,
feasible_names, best_candidate, scenarios and their stability summary, and
with a `regression` section and the base revision's report (memgate(1),
REGRESSIONS AND HISTORY) the regressions that count; with regression.history, against
the medians of base_history (the base's report versions, newest first).

Where memgate(1) is silent this follows the lead engineer's documented choices
(see the comments marked CHOICE).
"""
import copy
import importlib.util
import math
import os
import struct

# regression.noise_test: mann_whitney, from the noise test's own reference
_spec = importlib.util.spec_from_file_location(
    'noise_reference', os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    '..', 'noise', 'reference.py'))
noise_reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(noise_reference)

THRESHOLDS = (
    'memory_cap_mb', 'min_samples_per_s', 'min_memory_saving_mb',
    'min_throughput_ratio', 'max_eval_loss', 'max_relative_eval_loss',
    'max_quality_delta', 'min_mb_saved_per_pct_throughput',
)
TRADE = 'min_mb_saved_per_pct_throughput'
QUALITY_CEILINGS = ('max_eval_loss', 'max_relative_eval_loss')
TARGET_REASONS = ('memory_saving_below_floor', 'throughput_below_floor',
                  'quality_delta_over_limit', 'trade_off_below_floor')

# metric -> (own keys in memgate(1)'s order, sub-object)
MEASURED = {
    'peak_memory_mb': (('peak_memory_mb', 'peak_mem_mb', 'candidate_peak_memory_mb'), 'metrics'),
    'samples_per_s': (('samples_per_s',), 'metrics'),
    'eval_loss': (('eval_loss', 'val_loss'), 'quality'),
}
PAIRED = ('memory_saving_mb', 'throughput_ratio', 'quality_delta')
VALUE_ORDER = ('peak_memory_mb', 'samples_per_s', 'memory_saving_mb',
               'throughput_ratio', 'eval_loss', 'quality_delta')

ISSUES = (
    'report_hash_mismatch', 'schema_version_mismatch', 'semantic_id_mismatch',
    'approved_result_missing', 'approved_result_hash_mismatch',
    'measured_commit_missing', 'measured_commit_unknown', 'evidence_stale',
    'signature_missing', 'signature_malformed', 'signature_invalid',
    'signature_namespace_mismatch', 'signer_unknown', 'signer_outside_validity',
    'handoff_not_ready', 'workload_missing', 'workload_mismatch',
    'hardware_missing', 'hardware_mismatch', 'model_mismatch', 'dtype_mismatch',
    'amp_dtype_mismatch', 'batch_size_mismatch', 'seq_len_mismatch',
    'optimizer_mismatch', 'eligible_candidates_missing', 'candidates_missing',
    'aggregate_outside_runs',
)

ABSENT, NUMBER, INVALID = 'absent', 'number', 'invalid'

# The values a measured metric can have (issue 19): peak memory and
# samples/s above 0, eval loss 0 or above; a finite number outside its
# range is invalid, as a string is.  The paired values may be any number.
RANGES = {
    'peak_memory_mb': lambda x: x > 0,
    'samples_per_s': lambda x: x > 0,
    'eval_loss': lambda x: x >= 0,
}


# ---------------------------------------------------------------- reading

def is_number(v):
    """A JSON number (Python bools are ints: they are not numbers here)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def classify(v, metric=None):
    """(state, value) of a present, non-null JSON value as `metric`."""
    if is_number(v):
        f = float(v)
        if math.isfinite(f) and RANGES.get(metric, lambda x: True)(f):
            return NUMBER, f
    return INVALID, None


def first_key(obj, keys):
    """The first of `keys` that `obj` holds with a non-null value, else None."""
    if not isinstance(obj, dict):
        return None
    for k in keys:
        if obj.get(k) is not None:
            return k
    return None


def median(values):
    s = sorted(values)
    n = len(s)
    if n % 2:
        return s[n // 2]
    return (s[n // 2 - 1] + s[n // 2]) / 2


def runs_of(cand):
    runs = cand.get('runs')
    return runs if isinstance(runs, list) and runs else None


def runs_metric(cand, keys, metric=None):
    """(state, value, all_numbers) of a metric from runs[] (1.3)."""
    runs = runs_of(cand)
    if runs is None:
        return ABSENT, None, None
    values, carried = [], False
    for run in runs:
        k = first_key(run, keys)
        if k is None:
            values.append(None)
            continue
        carried = True
        state, v = classify(run[k], metric)
        values.append(v if state == NUMBER else None)
    if not carried:
        return ABSENT, None, None
    if any(v is None for v in values):
        return INVALID, None, None
    return NUMBER, median(values), values


def measured_metric(cand, metric):
    """(state, value, aggregate_outside) of a measured metric: own keys,
    then the sub-object, then the median of runs[]."""
    keys, sub = MEASURED[metric]
    for place in (cand, cand.get(sub)):
        k = first_key(place, keys)
        if k is None:
            continue
        state, v = classify(place[k], metric)
        outside = False
        rstate, _, rvalues = runs_metric(cand, keys, metric)
        if state == NUMBER and rstate == NUMBER:
            outside = v < min(rvalues) or v > max(rvalues)
        return state, v, outside
    state, v, _ = runs_metric(cand, keys, metric)
    return state, v, False


class Candidate:
    """What the screening needs from one entry of `candidates`."""

    def __init__(self, index, raw):
        self.index = index
        obj = raw if isinstance(raw, dict) else {}
        name = obj.get('name')
        self.name = name if isinstance(name, str) else None
        status = obj.get('status')
        self.status = 'ok' if status is None else (status if isinstance(status, str) else None)
        metrics = obj.get('metrics')
        self.oom = self.status == 'oom' or (isinstance(metrics, dict) and metrics.get('oom') is True)
        self.metric = {}
        self.band = {}      # measured metric -> (min, max) over runs[] (noise)
        self.runs = {}      # measured metric -> its runs' values
        self.outside = False
        for m in MEASURED:
            state, v, outside = measured_metric(obj, m)
            self.metric[m] = (state, v)
            self.outside = self.outside or outside
            rstate, _, rvalues = runs_metric(obj, MEASURED[m][0], m)
            if rstate == NUMBER:
                self.band[m] = (min(rvalues), max(rvalues))
                self.runs[m] = list(rvalues)
        for m in PAIRED:
            v = obj.get(m)
            self.metric[m] = (ABSENT, None) if v is None else classify(v)
        runs = runs_of(obj)
        self.repeats = len(runs) if runs else 1

    def state(self, m):
        return self.metric[m][0]

    def value(self, m):
        return self.metric[m][1]


def identity_value(report, top, config_keys):
    """The report's identity value: the top-level key, else config.<key>."""
    if top and report.get(top) is not None:
        return report[top]
    config = report.get('config')
    k = first_key(config, config_keys)
    return config[k] if k else None


IDENTITY = (  # policy key, report top-level key, config keys, missing, mismatch
    ('workload_id', 'workload_id', ('workload',), 'workload_missing', 'workload_mismatch'),
    ('hardware_id', 'hardware_id', ('device',), 'hardware_missing', 'hardware_mismatch'),
    ('model_id', None, ('model_id', 'model'), 'model_mismatch', 'model_mismatch'),
    ('dtype', None, ('dtype',), 'dtype_mismatch', 'dtype_mismatch'),
    ('amp_dtype', None, ('amp_dtype',), 'amp_dtype_mismatch', 'amp_dtype_mismatch'),
    ('batch_size', None, ('batch_size',), 'batch_size_mismatch', 'batch_size_mismatch'),
    ('seq_len', None, ('seq_len',), 'seq_len_mismatch', 'seq_len_mismatch'),
    ('optimizer', None, ('optimizer',), 'optimizer_mismatch', 'optimizer_mismatch'),
)


def same_identity(pin, got):
    """Strings compare exactly, numbers as numbers; other kinds never match."""
    if isinstance(pin, str):
        return isinstance(got, str) and got == pin
    return is_number(got) and float(got) == float(pin)


def evidence_issues(policy, report, cands):
    found = set()
    # memgate(1), STALE EVIDENCE: evidence.inputs needs the manifest's
    # measured.commit; a policy naming the report directly (report:, as
    # every case here does) has no manifest, so none.  measured_commit_unknown
    # and evidence_stale need a repository's history: tests/e2e/t_fresh.sh.
    if policy.get('evidence', {}).get('inputs') and 'manifest' not in policy:
        found.add('measured_commit_missing')
    status = report.get('status')
    eligible = report.get('eligible_candidates')
    handoff = status is not None or eligible is not None
    if status is not None and status != 'ready_for_budget_review':
        found.add('handoff_not_ready')
    pins = policy.get('identity', {})
    for key, top, config_keys, missing, mismatch in IDENTITY:
        if key not in pins:
            continue
        got = identity_value(report, top, config_keys)
        if got is None:
            found.add(missing)
        elif not same_identity(pins[key], got):
            found.add(mismatch)
    # CHOICE (memgate's, decision.h: "its string entries (others ignored)"):
    # a list without one string in it is no list of candidates.
    if handoff and not (isinstance(eligible, list) and any(isinstance(e, str) for e in eligible)):
        found.add('eligible_candidates_missing')
    if not (isinstance(report.get('candidates'), list) and report['candidates']):
        found.add('candidates_missing')
    if any(c.outside for c in cands):
        found.add('aggregate_outside_runs')
    return [i for i in ISSUES if i in found]


# ---------------------------------------------------------------- screening

class Rules:
    def __init__(self, policy, report):
        evidence = policy.get('evidence', {})
        self.baseline = evidence.get('baseline', 'baseline')
        self.min_repeats = evidence.get('min_repeats', 1)
        self.rank_by = policy.get('rank_by', 'peak_memory')
        eligible = report.get('eligible_candidates')
        self.eligible = None
        if eligible is not None:    # a set: sweeps list 10^4 names
            self.eligible = {e for e in eligible if isinstance(e, str)} \
                if isinstance(eligible, list) else set()


def base_budget(policy):
    b = {}
    for section in ('budget', 'quality'):
        for k, v in policy.get(section, {}).items():
            b[k] = float(v)
    return b


def scenario_budget(base, overrides):
    """The base budget with `overrides`; a scenario that sets a quality
    ceiling replaces both ceilings of the base (2.5)."""
    b = dict(base)
    if any(k in overrides for k in QUALITY_CEILINGS):
        for k in QUALITY_CEILINGS:
            b.pop(k, None)
    b.update({k: float(v) for k, v in overrides.items()})
    return b


class Evaluation:
    def __init__(self, cand):
        self.cand = cand
        self.name = cand.name
        self.status = None
        self.reasons = []
        self.values = {m: None for m in VALUE_ORDER}

    def stop(self, status, reason):
        self.status = status
        self.reasons = [reason]


def early_stop(cand, budget, rules, seen):
    """Steps 1-6: the (status, reason) that stops the candidate, or None."""
    if cand.name is None or cand.name == '' or cand.name in seen:
        return 'invalid', 'missing_or_duplicate_name'
    seen.add(cand.name)
    if cand.oom:
        return 'oom', 'oom'
    if cand.status not in ('ok', 'comparable'):
        return 'excluded', 'evidence_not_comparable'
    if rules.eligible is not None and cand.name not in rules.eligible:
        return 'excluded', 'not_in_eligible_candidates'
    if missing_own_number(cand, budget):
        return 'invalid', 'missing_or_non_numeric_metric'
    if cand.repeats < rules.min_repeats:
        return 'invalid', 'insufficient_repeats'
    return None


def missing_own_number(cand, budget):
    """Step 5.  CHOICE (lead): peak memory is always needed; samples_per_s
    when min_samples_per_s is set, or min_throughput_ratio is set and there
    is no paired throughput_ratio; eval_loss when an eval-loss ceiling is
    set, or max_quality_delta is set and there is no paired quality_delta;
    a paired value present but non-numeric is missing when its check is on."""
    need = {'peak_memory_mb'}
    ratio_check = 'min_throughput_ratio' in budget or TRADE in budget
    if 'min_samples_per_s' in budget or (
            ratio_check and cand.state('throughput_ratio') == ABSENT):
        need.add('samples_per_s')
    if 'max_eval_loss' in budget or 'max_relative_eval_loss' in budget or (
            'max_quality_delta' in budget and cand.state('quality_delta') == ABSENT):
        need.add('eval_loss')
    for paired, threshold in (('memory_saving_mb', 'min_memory_saving_mb'),
                              ('throughput_ratio', 'min_throughput_ratio'),
                              ('quality_delta', 'max_quality_delta')):
        if threshold in budget and cand.state(paired) == INVALID:
            return True
    if TRADE in budget and INVALID in (cand.state('memory_saving_mb'),
                                       cand.state('throughput_ratio')):
        return True
    return any(cand.state(m) != NUMBER for m in need)


class Baseline:
    """The baseline as screened under one budget: usable values or None."""

    def __init__(self, cand=None):
        self.peak = self.samples = self.loss = None
        if cand is None:
            return
        self.peak = cand.value('peak_memory_mb')
        if cand.state('samples_per_s') == NUMBER and cand.value('samples_per_s') > 0:
            self.samples = cand.value('samples_per_s')
        if cand.state('eval_loss') == NUMBER:
            self.loss = cand.value('eval_loss')


def derived_values(cand, is_baseline, base):
    """(saving, ratio, delta), each a float or None (not known); and for
    each, whether it is unknown because of the baseline."""
    out, blame = {}, {}
    own = {m: cand.value(m) if cand.state(m) == NUMBER else None for m in MEASURED}
    specs = (('memory_saving_mb', 0.0, base.peak, own['peak_memory_mb'], lambda c, b: b - c),
             ('throughput_ratio', 1.0, base.samples, own['samples_per_s'], lambda c, b: c / b),
             ('quality_delta', 0.0, base.loss, own['eval_loss'], lambda c, b: c - b))
    for m, self_value, bv, cv, f in specs:
        blame[m] = False
        if cand.state(m) == NUMBER:
            out[m] = cand.value(m)
        elif is_baseline:
            out[m] = self_value
        elif bv is not None and cv is not None:
            out[m] = f(cv, bv)
        else:
            out[m] = None
            blame[m] = bv is None
    return out, blame


def quality_ceiling(budget, base):
    """(active, ceiling or None, complete): the lower of the absolute and
    relative ceilings.  When the relative one cannot be computed (no usable
    baseline) the absolute one alone is checked, if set -- a loss above it
    is above the lower of the two whatever the other is -- and the check is
    incomplete (2.3 step 2)."""
    ceilings, complete = [], True
    if 'max_eval_loss' in budget:
        ceilings.append(budget['max_eval_loss'])
    if 'max_relative_eval_loss' in budget:
        if base.loss is None:
            complete = False
        else:
            ceilings.append(base.loss * (1 + budget['max_relative_eval_loss']))
    active = 'max_eval_loss' in budget or 'max_relative_eval_loss' in budget
    return active, (min(ceilings) if ceilings else None), complete


def threshold_reasons(ev, budget, derived, ceiling):
    cand = ev.cand
    reasons = []
    if cand.value('peak_memory_mb') > budget['memory_cap_mb']:
        reasons.append('memory_over_budget')
    if 'min_samples_per_s' in budget and cand.value('samples_per_s') < budget['min_samples_per_s']:
        reasons.append('samples_per_s_below_floor')
    if ceiling is not None and cand.value('eval_loss') > ceiling:
        reasons.append('quality_over_floor')
    checks = (('min_memory_saving_mb', 'memory_saving_mb', lambda v, t: v < t, 'memory_saving_below_floor'),
              ('min_throughput_ratio', 'throughput_ratio', lambda v, t: v < t, 'throughput_below_floor'),
              ('max_quality_delta', 'quality_delta', lambda v, t: v > t, 'quality_delta_over_limit'))
    for threshold, m, fails, reason in checks:
        if threshold in budget and derived[m] is not None and fails(derived[m], budget[threshold]):
            reasons.append(reason)
    if TRADE in budget:
        kind, rate = exchange(derived['memory_saving_mb'], derived['throughput_ratio'])
        if kind == 'rate' and rate < budget[TRADE]:
            reasons.append('trade_off_below_floor')
    return reasons


def exchange(saving, ratio):
    """('unknown' | 'free' | 'rate', MB saved per 1 % of throughput lost)."""
    if saving is None or ratio is None:
        return 'unknown', None
    if ratio >= 1:
        return 'free', None
    rate = saving / ((1 - ratio) * 100)
    return ('rate', rate) if math.isfinite(rate) else ('unknown', None)


def needs_missing_baseline(budget, rules, derived, blame, ceiling):
    """A value this candidate needs must be derived and the baseline cannot
    give it (2.3 step 2)."""
    if not ceiling[2]:
        return True
    wants = {'memory_saving_mb': 'min_memory_saving_mb' in budget or TRADE in budget,
             'throughput_ratio': 'min_throughput_ratio' in budget or TRADE in budget
             or rules.rank_by == 'throughput',
             'quality_delta': 'max_quality_delta' in budget}
    return any(wants[m] and derived[m] is None and blame[m] for m in wants)


class Screening:
    def __init__(self, cands, rules, budget, scenario):
        self.evaluations = [Evaluation(c) for c in cands]
        self.needs_missing = False
        seen = set()
        stops = [early_stop(c, budget, rules, seen) for c in cands]
        base_index = next((i for i, c in enumerate(cands) if c.name == rules.baseline), None)
        reaches = base_index is not None and stops[base_index] is None
        base = Baseline(cands[base_index] if reaches else None)
        ceiling = quality_ceiling(budget, base)
        self.budget, self.base, self.ceiling = budget, base, ceiling
        self.base_cand = cands[base_index] if reaches else None
        for ev, stop in zip(self.evaluations, stops):
            derived, blame = derived_values(ev.cand, reaches and ev.cand.index == base_index, base)
            self.fill_values(ev, derived)
            if stop:
                ev.stop(*stop)
                continue
            self.step7(ev, derived, blame, budget, rules, ceiling, scenario)
        feasible = [ev for ev in self.evaluations if ev.status == 'feasible']
        self.feasible = rank(feasible, rules)

    @staticmethod
    def fill_values(ev, derived):
        # CHOICE (memgate's): the record shows every value that is known,
        # whatever the candidate's status: its own numbers, and the values
        # derived from the measured baseline.
        for m in VALUE_ORDER:
            if ev.cand.state(m) == NUMBER:
                ev.values[m] = ev.cand.value(m)
        ev.values.update({m: v for m, v in derived.items() if v is not None})

    def step7(self, ev, derived, blame, budget, rules, ceiling, scenario):
        missing = needs_missing_baseline(budget, rules, derived, blame, ceiling)
        if missing and scenario:
            ev.stop('invalid', 'missing_or_non_numeric_metric')
            return
        self.needs_missing = self.needs_missing or missing
        ev.reasons = threshold_reasons(ev, budget, derived, ceiling[1])
        ev.status = 'rejected' if ev.reasons else 'feasible'


def rank(evs, rules):
    """Stable sort by 2.4; a value that is not known sorts last."""
    def desc(v):
        return (1, 0.0) if v is None else (0, -v)

    def asc(v):
        return (1, 0.0) if v is None else (0, v)

    def key(ev):
        v = ev.values
        if rules.rank_by == 'throughput':
            return (desc(v['throughput_ratio']), asc(v['peak_memory_mb']), asc(v['quality_delta']))
        return (asc(v['peak_memory_mb']), desc(v['throughput_ratio']), asc(v['quality_delta']))
    return sorted(evs, key=key)


# ---------------------------------------------------------------- deciding

def scenarios_of(policy):
    """[(id, overrides)]: each stricter entry, then each grid cell (axes in
    the order written, last axis fastest)."""
    out = []
    sens = policy.get('sensitivity', {})
    for i, entry in enumerate(sens.get('stricter', [])):
        out.append(('stricter[%d]' % i, dict(entry)))
    axes = sens.get('grid', [])
    if axes:
        cells = [{}]
        for key, values in axes:
            cells = [dict(c, **{key: v}) for c in cells for v in values]
        out.extend(('grid[%d]' % i, c) for i, c in enumerate(cells))
    return out


def verdict(decision, reason, action, selected=None):
    return {'decision': decision, 'reason': reason, 'next_action': action,
            'selected_candidate': selected}


STEP4 = (
    ('quality_delta_over_limit', 'compression_needs_quality_recovery',
     'adjust_checkpoint_scope_or_batch_plan'),
    ('memory_saving_below_floor', 'memory_saving_below_meaningful_threshold',
     'test_larger_pressure_or_optimizer_compression'),
    ('throughput_below_floor', 'throughput_loss_exceeds_budget', 'reduce_compression_scope'),
    ('trade_off_below_floor', 'trade_off_below_floor', 'rebalance_memory_and_throughput'),
)


def base_decision(screening, rules):
    """2.3 steps 3-5 (None means: go to sensitivity)."""
    if screening.feasible:
        if screening.feasible[0].name == rules.baseline:
            return verdict('tune', 'baseline_still_best_under_current_budget',
                           'revisit_memory_strategy_mix')
        return None
    hard_ok = [ev for ev in screening.evaluations
               if ev.status == 'rejected' and ev.name != rules.baseline
               and all(r in TARGET_REASONS for r in ev.reasons)]
    if hard_ok:
        pick = rank(hard_ok, rules)[0]
        for reason, why, action in STEP4:
            if reason in pick.reasons:
                return verdict('tune', why, action, pick.name)
    return verdict('reject', 'no_candidate_meets_base_budget', 'rework_strategy_or_budget')


# memgate(1), REGRESSIONS AND HISTORY: regression.<key> -> (metric, change, reason)
REGRESSION = (
    ('max_peak_increase_mb', 'peak_memory_mb', 'rise', 'peak_memory_regressed'),
    ('max_peak_increase_pct', 'peak_memory_mb', 'rise_pct', 'peak_memory_regressed'),
    ('max_throughput_drop_pct', 'samples_per_s', 'drop_pct', 'throughput_regressed'),
    ('max_eval_loss_increase', 'eval_loss', 'rise', 'eval_loss_regressed'),
)
SEVERITY = {'accept': 0, 'tune': 1, 'reject': 2}


def change(kind, b, h, bband, hband):
    """(the change, its band from both runs' ranges or None), memgate(1),
    REGRESSIONS AND HISTORY; None when a percentage has no positive base."""
    if kind == 'rise':
        v = h - b
        band = (hband[0] - bband[1], hband[1] - bband[0]) if bband and hband else None
    elif kind == 'rise_pct':
        if not b > 0:
            return None
        v = (h - b) / b * 100.0
        band = ((hband[0] / bband[1] - 1.0) * 100.0, (hband[1] / bband[0] - 1.0) * 100.0) \
            if bband and hband and bband[0] > 0 else None
    else:
        if not b > 0:
            return None
        v = (b - h) / b * 100.0
        band = ((1.0 - hband[1] / bband[0]) * 100.0, (1.0 - hband[0] / bband[1]) * 100.0) \
            if bband and hband and bband[0] > 0 else None
    return (v, band) if math.isfinite(v) else None


def rank_test(kind, base_runs, head_runs, limit):
    """regression.noise_test: mann_whitney (memgate(1), REGRESSIONS AND
    HISTORY): the one-sided p-value that the head's runs lie beyond the
    base's runs moved by the allowance (for a drop, below them)."""
    if kind == 'rise':
        moved = [b + limit for b in base_runs]
    elif kind == 'rise_pct':
        moved = [b * (1.0 + limit / 100.0) for b in base_runs]
    else:
        moved = [-(b * (1.0 - limit / 100.0)) for b in base_runs]
        head_runs = [-h for h in head_runs]
    return noise_reference.mann_whitney(moved, list(head_runs))


def base_selection(policy, base_report):
    """The candidate the base's decision selects, under the policy without
    its regression section (the base is not compared with anything)."""
    no_reg = {k: v for k, v in policy.items() if k != 'regression'}
    return decide(no_reg, base_report, insight=False)['selected_candidate']


class MedianCandidate:
    """regression.history (memgate(1), REGRESSIONS AND HISTORY): a candidate whose peak,
    samples/s and eval loss are the medians over the versions holding it
    as a number; no runs, so no band."""

    def __init__(self, name):
        self.name = name
        self.values = {m: [] for m in MEASURED}
        self.band = {}
        self.runs = {}

    def state(self, m):
        return NUMBER if self.values.get(m) else ABSENT

    def value(self, m):
        v = sorted(self.values[m])
        n = len(v)
        return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2.0


def history_candidates(versions, n):
    """The median candidates of the last n versions (newest first) of the
    base's report.  A version is a change of the report: consecutive equal
    reports are one version, as git sees one blob."""
    distinct = []
    for v in versions:
        if not distinct or distinct[-1] != v:
            distinct.append(v)
    out = {}
    for report in distinct[:n]:
        raw = report.get('candidates')
        seen = set()
        for i, c in enumerate(raw if isinstance(raw, list) else []):
            c = Candidate(i, c)
            if not c.name or c.name in seen:
                continue
            seen.add(c.name)
            mc = out.setdefault(c.name, MedianCandidate(c.name))
            for m in MEASURED:
                if c.state(m) == NUMBER:
                    mc.values[m].append(c.value(m))
    return list(out.values())


def regressions(policy, cands, result, base_report, base_selected, base_history=None):
    """([(candidate index, name, key)] that count, how many the runs' noise
    covers) of the covered candidates against the base's namesakes (with
    regression.history, the medians of the base's last versions)."""
    reg = policy['regression']
    raw = base_report.get('candidates')
    bcands = [Candidate(i, c) for i, c in enumerate(raw if isinstance(raw, list) else [])]
    if reg.get('history') and base_history:
        bcands = history_candidates(base_history, reg['history'])

    def first(cs, name):
        return next((c for c in cs if c.name == name), None)
    order = []
    for name in (result['selected_candidate'], base_selected):
        c = first(cands, name) if name is not None else None
        if c is not None and c.index not in order:
            order.append(c.index)
    if reg.get('covers') == 'all':
        order += [c.index for c in cands if c.index not in order]
    found, within = [], 0
    for i in order:
        c = cands[i]
        if not c.name or first(cands, c.name) is not c:
            continue
        b = first(bcands, c.name)
        if b is None:
            continue
        for key, m, kind, _ in REGRESSION:
            if key not in reg or b.state(m) != NUMBER or c.state(m) != NUMBER:
                continue
            ch = change(kind, b.value(m), c.value(m), b.band.get(m), c.band.get(m))
            if ch is None or not ch[0] > reg[key]:
                continue
            band = ch[1]
            if band and reg.get('noise_test', 'mann_whitney') == 'range':
                if band[0] <= reg[key] < band[1]:
                    within += 1
                    continue
            elif band:
                if not rank_test(kind, b.runs[m], c.runs[m], reg[key]) <= reg.get('alpha', 0.05):
                    within += 1
                    continue
            found.append((i, c.name, key))
    return found, within


NOT_GIVEN = object()


def decide(policy, report, insight=True, base_report=None, base_selected=NOT_GIVEN,
           base_history=None):
    raw = report.get('candidates')
    cands = [Candidate(i, c) for i, c in enumerate(raw if isinstance(raw, list) else [])]
    rules = Rules(policy, report)
    budget = base_budget(policy)
    issues = evidence_issues(policy, report, cands)
    base = Screening(cands, rules, budget, scenario=False)
    best = base.feasible[0].name if base.feasible else None
    scenarios = []
    if issues:
        result = verdict('reject', 'evidence_not_applicable',
                         'measure_again' if 'evidence_stale' in issues
                         else 'rebuild_same_workload_evidence')
    elif base.needs_missing:
        result = verdict('reject', 'baseline_missing_or_invalid',
                         'rerun_baseline_before_comparing_candidates')
    else:
        for sid, overrides in scenarios_of(policy):
            s = Screening(cands, rules, scenario_budget(budget, overrides), scenario=True)
            scenarios.append({'id': sid, 'overrides': {k: float(v) for k, v in overrides.items()},
                              'best_candidate': s.feasible[0].name if s.feasible else None,
                              'feasible_names': [ev.name for ev in s.feasible]})
        result = base_decision(base, rules)
        if result is None:
            if any(s['best_candidate'] != best for s in scenarios):
                result = verdict('tune', 'selection_is_threshold_sensitive',
                                 'collect_boundary_evidence', best)
            else:
                result = verdict('accept', 'selection_stable_across_thresholds',
                                 'send_to_regression_acceptance', best)
                if policy.get('evidence', {}).get('noise') == 'tune' and \
                        noise_of(base.feasible[0], base)['within']:
                    result = verdict('tune', 'margin_within_measurement_noise',
                                     'collect_more_repeats', best)
    if policy.get('regression') and base_report is not None and \
            result['reason'] not in ('evidence_not_applicable', 'baseline_missing_or_invalid'):
        # CHOICE: the base's selection is the one under the policy as written;
        # a tipping point varies this commit's thresholds, not the base's
        if base_selected is NOT_GIVEN:
            base_selected = base_selection(policy, base_report)
        found, within = regressions(policy, cands, result, base_report, base_selected,
                                    base_history)
        result['regression'] = {'regressed': [[n, k] for _, n, k in found],
                                'within_noise': within}
        want = policy['regression'].get('decision', 'tune')
        if found and SEVERITY[want] >= SEVERITY[result['decision']]:
            reason = dict((k, r) for k, _, _, r in REGRESSION)[found[0][2]]
            result = dict(result, **verdict(want, reason, 'fix_regression_against_base',
                                            found[0][1]))
    result.setdefault('regression', None)
    result.update({
        'issues': issues,
        'evaluations': [evaluation_record(ev, base) for ev in base.evaluations],
        'feasible_names': [ev.name for ev in base.feasible],
        'best_candidate': best,
        'scenarios': scenarios,
        'stability': stability(scenarios),
    })
    if insight:
        result['front'] = front(base)
        result['tipping_points'] = None if issues else tipping_points(
            policy, report, result, base_report,
            base_selection(policy, base_report) if base_report is not None else None,
            base_history)
    return result


def stability(scenarios):
    """The sensitivity summary as the seed counts it (2.5), None without
    scenarios (the summary then says that stability was not tested)."""
    if not scenarios:
        return None
    winners = {s['best_candidate'] for s in scenarios}
    sets = {tuple(s['feasible_names']) for s in scenarios}
    stable = len(winners) == 1 and len(sets) == 1
    return {'scenario_count': len(scenarios),
            'best_candidate_stable': len(winners) == 1,
            'feasible_set_stable': len(sets) == 1,
            'interpretation': 'stable' if stable else 'sensitive_to_thresholds'}


def evaluation_record(ev, screening):
    rec = {'name': ev.name, 'status': ev.status, 'reasons': list(ev.reasons)}
    rec.update(ev.values)
    rec['repeats'] = ev.cand.repeats
    n = noise_of(ev, screening)
    # the record (memgate-decision/v3) lists the measured metrics' bands;
    # the derived ones count through within_noise
    rec['noise'] = None if not n['bands'] else {
        'bands': {m: list(b) for m, b in n['bands'].items() if m in MEASURED},
        'within_noise': n['within']}
    kind, rate = exchange(ev.values['memory_saving_mb'], ev.values['throughput_ratio'])
    rec['mb_saved_per_pct_throughput'] = rate
    rec['throughput_free'] = {'free': 'free', 'rate': 'costs_throughput'}.get(kind)
    return rec


# ---------------------------------------------------------------- insight

def noise_of(ev, screening):
    """{'bands': metric -> (lo, hi), 'within': [thresholds]} for one
    evaluation of a screening: the runs' ranges, derived ones by interval
    arithmetic against the baseline's runs (or its single value), and the
    set checks whose threshold some runs pass and some fail."""
    cand, budget = ev.cand, screening.budget
    bands = dict(cand.band)
    bl = screening.base_cand
    if bands and bl is not None and bl.index != cand.index:
        def base_band(m):
            if m in bl.band:
                return bl.band[m]
            return (bl.value(m), bl.value(m)) if bl.state(m) == NUMBER else None
        b = base_band('peak_memory_mb')
        if 'peak_memory_mb' in bands and cand.state('memory_saving_mb') != NUMBER and b:
            lo, hi = bands['peak_memory_mb']
            bands['memory_saving_mb'] = (b[0] - hi, b[1] - lo)
        b = base_band('samples_per_s')
        if 'samples_per_s' in bands and cand.state('throughput_ratio') != NUMBER and b and b[0] > 0:
            lo, hi = bands['samples_per_s']
            bands['throughput_ratio'] = (lo / b[1], hi / b[0])
        b = base_band('eval_loss')
        if 'eval_loss' in bands and cand.state('quality_delta') != NUMBER and b:
            lo, hi = bands['eval_loss']
            bands['quality_delta'] = (lo - b[1], hi - b[0])

    def inside(m, x, ceiling):
        if m not in bands:
            return False
        lo, hi = bands[m]
        return lo <= x < hi if ceiling else lo < x <= hi
    within = set()
    for t, m, ceiling in (('memory_cap_mb', 'peak_memory_mb', True),
                          ('min_samples_per_s', 'samples_per_s', False),
                          ('min_memory_saving_mb', 'memory_saving_mb', False),
                          ('min_throughput_ratio', 'throughput_ratio', False),
                          ('max_quality_delta', 'quality_delta', True)):
        if t in budget and inside(m, budget[t], ceiling):
            within.add(t)
    active, ceiling, complete = screening.ceiling
    if active and complete and ceiling is not None and inside('eval_loss', ceiling, True):
        # the ceiling that applies: the absolute one when it is the lower (or equal)
        rel = 'max_relative_eval_loss' in budget
        absolute = 'max_eval_loss' in budget and (not rel or budget['max_eval_loss'] <= ceiling)
        within.add('max_eval_loss' if absolute else 'max_relative_eval_loss')
    return {'bands': bands, 'within': [t for t in THRESHOLDS if t in within]}


def dominates(a, b):
    x, y = a.values, b.values
    keys = (('peak_memory_mb', 1), ('samples_per_s', -1), ('eval_loss', 1))
    if any(s * x[k] > s * y[k] for k, s in keys):
        return False
    return any(s * x[k] < s * y[k] for k, s in keys)


def front(screening):
    """index -> set of indices of the candidates that dominate it (empty:
    on the front); candidates without all three values are left out."""
    pool = [ev for ev in screening.evaluations if ev.status in ('feasible', 'rejected')
            and all(ev.values[k] is not None
                    for k in ('peak_memory_mb', 'samples_per_s', 'eval_loss'))]
    return {ev.cand.index: sorted(o.cand.index for o in pool if dominates(o, ev)) for ev in pool}


def _bits(x):
    return struct.unpack('<Q', struct.pack('<d', x))[0]


def _double(b):
    return struct.unpack('<d', struct.pack('<Q', b))[0]


def relative_root(base, v):
    """The smallest x >= 0 with base * (1 + x) >= v (base > 0)."""
    if base * 1.0 >= v:
        return 0.0
    lo, hi = 0, _bits(math.inf)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if base * (1.0 + _double(mid)) >= v:
            hi = mid
        else:
            lo = mid
    return _double(hi)


CEILINGS = ('memory_cap_mb', 'max_eval_loss', 'max_relative_eval_loss', 'max_quality_delta')
METRIC_OF = {'memory_cap_mb': 'peak_memory_mb', 'min_samples_per_s': 'samples_per_s',
             'min_memory_saving_mb': 'memory_saving_mb',
             'min_throughput_ratio': 'throughput_ratio', 'max_eval_loss': 'eval_loss',
             'max_relative_eval_loss': 'eval_loss', 'max_quality_delta': 'quality_delta'}


def valid(t, x):
    if not math.isfinite(x):
        return False
    if t == 'memory_cap_mb':
        return x > 0
    if t == 'min_throughput_ratio':
        return 0 <= x <= 1
    return x >= 0


def breakpoints(t, report, rules):
    """A superset of the values where threshold t can change a result:
    every candidate's own value of the metric, the one derived from the
    baseline's own numbers, and the ends of every runs band (or the
    exchange rates for the trade-off floor)."""
    raw = report.get('candidates')
    cands = [Candidate(i, c) for i, c in enumerate(raw if isinstance(raw, list) else [])]
    bl = next((c for c in cands if c.name == rules.baseline), None)
    base = Baseline(bl) if bl is not None and bl.state('peak_memory_mb') == NUMBER else Baseline()
    rel_base = bl.value('eval_loss') if bl is not None and bl.state('eval_loss') == NUMBER else None
    values = set()
    for c in cands:
        derived, _ = derived_values(c, c is bl, base)
        own = {m: c.value(m) for m in MEASURED if c.state(m) == NUMBER}
        own.update({m: v for m, v in derived.items() if v is not None})
        if t == TRADE:
            kind, rate = exchange(own.get('memory_saving_mb'), own.get('throughput_ratio'))
            if kind == 'rate':
                values.add(rate)
            continue
        m = METRIC_OF[t]
        pts = [own[m]] if m in own else []
        for bm in c.band.values():
            pts += list(bm)
        if m in ('memory_saving_mb', 'throughput_ratio', 'quality_delta') and c.band:
            # derived bands: every combination of the band ends and the baseline's
            bb = bl.band if bl is not None else {}
            for src, f in (('peak_memory_mb', lambda cv, bv: bv - cv),
                           ('samples_per_s', lambda cv, bv: cv / bv if bv else math.nan),
                           ('eval_loss', lambda cv, bv: cv - bv)):
                cs = c.band.get(src, ())
                bs = list(bb.get(src, ())) + ([bl.value(src)] if bl is not None and bl.state(src) == NUMBER else [])
                pts += [f(cv, bv) for cv in cs for bv in bs]
        if t == 'max_relative_eval_loss':
            if rel_base is None or not rel_base > 0:
                continue
            pts = [relative_root(rel_base, v) for v in pts if math.isfinite(v)]
        values.update(v for v in pts if math.isfinite(v))
    return sorted(values)


def with_knob(policy, knob, x):
    p = copy.deepcopy(policy)
    scope, t, j = knob
    if scope == 'budget':
        section = 'quality' if t in QUALITY_CEILINGS or t == 'max_quality_delta' else 'budget'
        p[section][t] = x
    else:
        p['sensitivity']['grid'][j[0]][1][j[1]] = x
    return p


def outcome(result):
    return (result['decision'], result['reason'], result['selected_candidate'])


def tip(policy, report, knob, x0, points, up, now, base_report=None, base_selected=None,
        base_history=None):
    t = knob[1]
    ceiling = t in CEILINGS
    order = points if up else list(reversed(points))
    for b in order:
        if up and not (b > x0 if ceiling else b >= x0):
            continue
        if not up and not (b <= x0 if ceiling else b < x0):
            continue
        x = b
        if ceiling and not up:
            x = math.nextafter(b, -math.inf)
        elif not ceiling and up:
            x = math.nextafter(b, math.inf)
        if not valid(t, x):
            break
        r = decide(with_knob(policy, knob, x), report, insight=False, base_report=base_report,
                   base_selected=base_selected, base_history=base_history)
        if outcome(r) != now:
            return {'found': True, 'value': x, 'decision': r['decision'],
                    'reason': r['reason'], 'selected_candidate': r['selected_candidate']}
    return {'found': False}


def tipping_points(policy, report, result, base_report=None, base_selected=None,
                   base_history=None):
    rules = Rules(policy, report)
    budget = base_budget(policy)
    knobs = [('budget', t, None, budget[t]) for t in THRESHOLDS if t in budget]
    for a, (key, values) in enumerate(policy.get('sensitivity', {}).get('grid', [])):
        knobs += [('sensitivity.grid', key, (a, j), float(v)) for j, v in enumerate(values)]
    out = []
    for scope, t, j, x0 in knobs:
        points = breakpoints(t, report, rules)
        knob = (scope, t, j)
        now = outcome(result)
        out.append({'threshold': t, 'scope': scope, 'current': x0,
                    'lower': tip(policy, report, knob, x0, points, False, now, base_report,
                                 base_selected, base_history),
                    'higher': tip(policy, report, knob, x0, points, True, now, base_report,
                                  base_selected, base_history)})
    return out


def main(argv):
    """reference.py POLICY.json REPORT.json: print the reference's decision
    (e.g. for a case that tests/diff/run kept)."""
    import json
    if len(argv) != 3:
        print('usage: reference.py POLICY.json REPORT.json')
        return 2
    with open(argv[1], encoding='utf-8') as f:
        policy = json.load(f)
    with open(argv[2], encoding='utf-8') as f:
        report = json.load(f)
    print(json.dumps(decide(policy, report), indent=2))
    return 0


if __name__ == '__main__':
    import sys
    sys.exit(main(sys.argv))
