#!/usr/bin/env python3
"""compare-runs.py BASELINE OTHER: are two `pnpm reproduce` runs' results the same?

Every result file under stages/ (not the report folder, stage records or logs) is compared after
normalising what differs between any two runs of the same config: the run folder's path, times
and speeds, and values derived from code digests (stage keys, decision keys, file sha256s, the
digest metadata of .safetensors files, whose header tensors and tensor bytes are compared, and
the 12-hex model-digest folder of mteb results). Then report.md, with times, paths and commits
stripped. Exit 0 when all match. Used for issue 23's "results byte-identical" check.
"""
import json, os, re, struct, sys
a, b = sys.argv[1], sys.argv[2]
SKIP = {'stage.json', '.stage-key', 'manifest.json', 'run.json'}
DROP = re.compile(r'(seconds|Seconds|PerSecond|evaluation_time|Time|time|date|Date|At$|elapsed|duration|wall|rss|Rss|commit|kg_co2|digest|Digest|Key$|^key$|keyParts|sha256|^revision$)')  # model_meta revision = the model's 12-hex digest
def norm(x, root):
    if isinstance(x, dict): return {k: norm(v, root) for k, v in x.items() if not DROP.search(k)}
    if isinstance(x, list): return [norm(v, root) for v in x]
    if isinstance(x, str): return re.sub(r'[0-9a-f]{64}', '<H>', x.replace(root, '<RUN>'))
    return x
def load(p, root):
    d = open(p, 'rb').read()
    if p.endswith('.safetensors'):
        n = struct.unpack('<Q', d[:8])[0]; h = json.loads(d[8:8 + n]); h.pop('__metadata__', None); return (h, d[8 + n:])
    if p.endswith('.json'):
        try: return norm(json.loads(d), root)
        except Exception: pass
    if p.endswith('.jsonl'):
        try: return [norm(json.loads(l), root) for l in d.splitlines() if l.strip()]
        except Exception: pass
    return d.replace(root.encode(), b'<RUN>')
def files(root):
    out = {}
    for d, _, fs in os.walk(os.path.join(root, 'stages')):
        for f in fs:
            p = os.path.relpath(os.path.join(d, f), root)
            if f in SKIP or f.endswith('.log') or '/report/' in p or f == 'log.jsonl': continue
            out[re.sub(r'/[0-9a-f]{12}/', '/<H>/', p)] = p
    return out
fa, fb = files(a), files(b)
if set(fa) != set(fb): print('FILE LISTS DIFFER:', sorted(set(fa) ^ set(fb))[:20])
bad = [k for k in sorted(fa) if k in fb and load(os.path.join(a, fa[k]), a) != load(os.path.join(b, fb[k]), b)]
for k in bad[:40]: print('DIFFERS:', k)
print(f'{len(fa)} files compared, {len(bad)} differ (code digests normalised)')
def report(root):
    text = open(os.path.join(root, 'stages/report/report.md')).read().replace(root, '<RUN>')
    return [l for l in text.splitlines() if not re.search(r'\d{4}-\d\d-\d\dT|\d+:\d\d|wall|commit|[0-9a-f]{7,40}', l)]
same_report = report(a) == report(b)
print('report.md same (times, paths, commits stripped)' if same_report else 'report.md DIFFERS')
sys.exit(1 if bad or set(fa) != set(fb) or not same_report else 0)
