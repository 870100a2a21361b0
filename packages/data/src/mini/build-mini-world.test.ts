import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { SeedExample, TrainingExample } from '@dv/core';
import { tmpDir } from '@dv/core/test-utils';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadWordNet, type Synset, type WordNet, wordnetDbPath } from '../wordnet/load-wordnet.js';
import { buildMiniWorld, type MiniWorldBuild } from './build-mini-world.js';
import { loadMiniWorld, type MiniWorld } from './load-mini-world.js';

// A small world: sizes only change how many lemmas are drawn, not how each is built.
const SMALL = {
  seed: 7,
  testLemmas: 60,
  devLemmas: 20,
  trainLemmas: 80,
  generalExamples: 30,
  infosearchTopicsPerLever: 40,
  progress: 'silent' as const,
};

function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out;
}

let a: MiniWorldBuild;
let world: MiniWorld;
let wn: WordNet;

beforeAll(async () => {
  a = await buildMiniWorld({ ...SMALL, out: tmpDir('mini-a-') });
  world = await loadMiniWorld(a.dir);
  wn = loadWordNet(wordnetDbPath(), 'reference');
}, 180_000);

describe('buildMiniWorld: files, determinism, cache', () => {
  it('writes the promised files', () => {
    const files = listFiles(a.dir);
    for (const f of [
      'corpus.jsonl',
      'seeds.train.jsonl',
      'seeds.dev.jsonl',
      'general.train.jsonl',
      'benchmark/followir/corpus.jsonl',
      'benchmark/followir/queries.jsonl',
      'benchmark/followir/qrels_og/test.jsonl',
      'benchmark/followir/qrels_changed/test.jsonl',
      'benchmark/followir/top_ranked.jsonl',
      'benchmark/followir-seen/queries.jsonl',
      'benchmark/followir-seen/qrels_changed/test.jsonl',
      'benchmark/infosearch/keyword/qrels_reversed/test.jsonl',
      'splits.json',
      'stats.json',
      'stats.md',
      'manifest.json',
    ]) {
      expect(files).toContain(f);
    }
  });

  it('same seed -> byte-identical files (manifest aside); another seed -> different seeds', async () => {
    const b = await buildMiniWorld({ ...SMALL, out: tmpDir('mini-b-') });
    const files = listFiles(a.dir).filter((f) => f !== 'manifest.json');
    expect(listFiles(b.dir).filter((f) => f !== 'manifest.json')).toEqual(files);
    for (const f of files) {
      expect(readFileSync(join(b.dir, f)).equals(readFileSync(join(a.dir, f))), f).toBe(true);
    }
    const c = await buildMiniWorld({ ...SMALL, seed: 8, out: tmpDir('mini-c-') });
    expect(
      readFileSync(join(c.dir, 'seeds.train.jsonl')).equals(readFileSync(join(a.dir, 'seeds.train.jsonl'))),
    ).toBe(false);
  }, 180_000);

  it('a second build into the same folder with the same options is a cache hit; other options rebuild', async () => {
    const again = await buildMiniWorld({ ...SMALL, out: a.dir });
    expect(again.cached).toBe(true);
    expect(again.cacheKey).toBe(a.cacheKey);
    const other = await buildMiniWorld({ ...SMALL, candidates: 50, out: tmpDir('mini-d-') });
    expect(other.cached).toBe(false);
    expect(other.cacheKey).not.toBe(a.cacheKey);
  }, 180_000);
});

describe('mini world contents', () => {
  it('keyed by the builder code digest: a changed digest rebuilds, the same one is a hit (issue 25)', async () => {
    const manifest = () => JSON.parse(readFileSync(join(a.dir, 'manifest.json'), 'utf8'));
    const real = manifest().config.keyParts;
    expect(real.kind).toBe('mini-world');
    expect(Object.keys(real.code)).toEqual(['@dv/data:mini-world']);
    expect(real.code['@dv/data:mini-world']).toMatch(/^[0-9a-f]{64}$/);
    // the recorded digest is MINI_WORLD_CODE's (src/mini and the builder's imports)
    const { codeDigest } = await import('@dv/core');
    const { MINI_WORLD_CODE } = await import('./build-mini-world.js');
    expect(codeDigest(MINI_WORLD_CODE, import.meta.url).digest).toBe(real.code['@dv/data:mini-world']);
    const dir = tmpDir('mini-code-');
    const other = { '@dv/data:mini-world': 'f'.repeat(64) };
    const first = await buildMiniWorld({ ...SMALL, out: dir, code: other });
    expect(first.cached).toBe(false);
    const same = await buildMiniWorld({ ...SMALL, out: dir, code: other });
    expect(same.cached).toBe(true);
    // today's code over the folder built by "other code": a miss, rebuilt, key recorded
    const now = await buildMiniWorld({ ...SMALL, out: dir });
    expect(now.cached).toBe(false);
    expect(now.cacheKey).toBe(a.cacheKey);
    expect(now.cacheKey).not.toBe(first.cacheKey);
  });

  it('no lemma is in two splits; split sizes as asked', () => {
    const { train, dev, test } = world.splits;
    expect([train.length, dev.length, test.length]).toEqual([80, 20, 60]);
    const all = [...train, ...dev, ...test];
    expect(new Set(all).size).toBe(all.length);
    expect(world.stats.splits.lemmasInTwoSplits).toBe(0);
    // Disjoint in documents too: no sense of a train lemma is a sense of a dev/test lemma.
    const held = new Set([...dev, ...test].flatMap((l) => wn.senses.get(l)!));
    for (const l of train) for (const id of wn.senses.get(l)!) expect(held.has(id), `${l} ${id}`).toBe(false);
    expect(world.stats.splits.trainLemmasSharingASynsetWithHeldOut).toBe(0);
  });

  it('seed examples: schema, filled instruction, senses of the query lemma, limits, split lemmas', async () => {
    const train = new Set(world.splits.train);
    let n = 0;
    for await (const s of world.readSeeds('train')) {
      SeedExample.parse(s);
      n++;
      expect(train.has(s.query)).toBe(true);
      expect(s.instruction.lever).toBeTruthy();
      expect(s.instruction.style).toBeTruthy();
      expect(s.instruction.constraint).toBeTruthy();
      const senses = new Set(wn.senses.get(s.query));
      for (const p of [...s.positives, ...s.instructionNegatives]) expect(senses.has(p.docid)).toBe(true);
      for (const h of s.hardNegatives) expect(senses.has(h.docid)).toBe(false);
      expect(s.instructionNegatives.length).toBeGreaterThanOrEqual(1);
      expect(s.instructionNegatives.length).toBeLessThanOrEqual(3);
      expect(s.hardNegatives.length).toBeLessThanOrEqual(30);
      for (const key of [
        'lemma',
        'category',
        'hypernyms',
        'topics',
        'hasExample',
        'wordCount',
        'senseRank',
      ]) {
        expect(s.positives[0]!.metadata).toHaveProperty(key);
      }
    }
    expect(n).toBe(80);
  });

  it('seeds carry the benchmark forms in train wording: compound and narrative styles, train frames, D- hard negatives', async () => {
    const styles = new Map<string, number>();
    let withTargetHard = 0;
    let quoted = 0;
    let n = 0;
    for await (const s of world.readSeeds('train')) {
      n++;
      const style = s.instruction.style!;
      styles.set(style, (styles.get(style) ?? 0) + 1);
      const frames = (s.metadata!.frames as string[]) ?? [];
      for (const f of frames) expect(f.startsWith('train:'), f).toBe(true);
      if (style === 'exclusion') {
        expect(frames.length).toBe(1);
        expect(s.instruction.constraint).toContain(' & ');
        // every positive satisfies both constraints, every instruction negative breaks one
        expect((s.metadata!.constraints as unknown[]).length).toBe(2);
      }
      if (style === 'narrative') expect(frames[0]).toMatch(/^train:open:/);
      const hardIds = new Set(s.hardNegatives.map((h) => h.docid));
      const around = s.metadata!.targetHardNegatives as string[];
      for (const id of around) expect(hardIds.has(id)).toBe(true);
      if (around.length > 0) withTargetHard++;
      if (s.instruction.text.includes(`"${s.query}"`)) quoted++;
    }
    expect(styles.get('exclusion')).toBeGreaterThan(3);
    expect(styles.get('narrative')).toBeGreaterThan(3);
    expect(withTargetHard).toBeGreaterThan(n * 0.9);
    expect(quoted / n).toBeGreaterThan(0.3);
    expect(quoted / n).toBeLessThan(0.7);
  });

  it('stats record the quality figures: selective og, only-narrowing, no contradiction, held-out wording', () => {
    const q = world.stats.quality;
    expect(q.followir.topics).toBeGreaterThan(40);
    expect(q.followir.vacuousOgShare).toBe(0);
    expect(q.followir.selectiveOgShare).toBe(1);
    expect(q.followir.narrowingViolations).toBe(0);
    expect(q.followir.contradictions).toBe(0);
    expect(q.followir.wording.benchmarkFrames).toBeGreaterThan(3);
    expect(q.followir.wording.benchmarkFramesInTrainSeeds).toBe(0);
    expect(q.followirSeen.wording.benchmarkFramesInTrainSeeds).toBeGreaterThan(0);
    expect(Object.keys(q.followir.leverShares).length).toBeGreaterThanOrEqual(3);
    expect(Object.keys(q.infosearch)).toContain('hypernym');
    const manifest = JSON.parse(readFileSync(join(a.dir, 'manifest.json'), 'utf8'));
    expect(manifest.config.figures.followir).toEqual(q.followir);
  });

  it('general examples: no instruction, positive = the dominant sense', async () => {
    let n = 0;
    for await (const g of world.readGeneral()) {
      TrainingExample.parse(g);
      n++;
      expect(g.view).toBe('general');
      expect(g.instruction).toBeNull();
      expect(g.positives[0]!.docid).toBe(wn.senses.get(g.query)![0]);
    }
    expect(n).toBe(30);
  });

  it('loadMiniWorld names what is missing or unknown', async () => {
    await expect(loadMiniWorld(tmpDir('not-a-world-'))).rejects.toThrow(/splits\.json: missing file/);
    await expect(world.loadInfoSearch('colour')).rejects.toThrow(
      /no InfoSearch-style set for lever "colour"/,
    );
  });

  it('documents name their hypernyms in the text ("A kind of ...")', async () => {
    const corpus = await world.loadCorpus();
    const fish = corpus.find((d) => d.docid === 'n02568204')!;
    expect(fish.text).toMatch(/A kind of [^.]*fish/);
    expect((fish.metadata as { category: string }).category).toBe('noun.animal');
  });
});

// ---- Qrel justification, re-derived from raw WordNet data (not from the entries' metadata) ----

function chainOf(s: Synset): Set<string> {
  const words = new Set<string>();
  let cur: Synset | undefined = s;
  const seen = new Set<string>();
  while (cur && !seen.has(cur.id)) {
    seen.add(cur.id);
    const up: { target: string } | undefined =
      cur.pointers.find((p) => p.symbol === '@') ?? cur.pointers.find((p) => p.symbol === '@i');
    cur = up ? wn.synsets.get(up.target) : undefined;
    if (cur) words.add(cur.words[0]!);
  }
  return words;
}

function domains(s: Synset, symbol: string): Set<string> {
  return new Set(
    s.pointers.filter((p) => p.symbol === symbol).map((p) => wn.synsets.get(p.target)!.words[0]!),
  );
}

/** Does raw WordNet data justify `constraint` ("category=a|b", "not hypernym=fish", ...) for the synset? */
function justified(s: Synset, doc: { title: string; text: string }, constraint: string): boolean {
  const negated = constraint.startsWith('not ');
  const c = negated ? constraint.slice(4) : constraint;
  let ok: boolean;
  const m = /^(\w+)(<=|>|=)(.*)$/.exec(c)!;
  const [, lever, op, value] = m as unknown as [string, string, string, string];
  const values = value.split('|');
  switch (lever) {
    case 'category':
      ok = values.includes(s.category);
      break;
    case 'hypernym':
      ok = values.some((v) => chainOf(s).has(v));
      break;
    case 'topic':
      ok = values.some((v) => domains(s, ';c').has(v));
      break;
    case 'region':
      ok = values.some((v) => domains(s, ';r').has(v));
      break;
    case 'usage':
      ok = values.some((v) => domains(s, ';u').has(v));
      break;
    case 'keyword': {
      // Tokens as documented for the keyword lever: lower-cased [a-z0-9]+ runs (optionally 's) of title + text.
      const tokens = new Set(`${doc.title} ${doc.text}`.toLowerCase().match(/[a-z0-9]+(?:'[a-z]+)?/g));
      ok = values.some((v) => tokens.has(v));
      break;
    }
    case 'length': {
      const words = doc.text.trim().split(/\s+/).length;
      ok = op === '<=' ? words <= Number(value) : words > Number(value);
      break;
    }
    case 'format':
      ok = s.examples.length > 0 === (value === 'has-example');
      break;
    default:
      throw new Error(`unknown lever in ${constraint}`);
  }
  return ok !== negated;
}

describe('every qrel is justified by WordNet data', () => {
  it('FollowIR form: relevant = judged sense in the og categories; changed = og AND the change', async () => {
    const set = await world.loadFollowIR();
    const text = new Map(set.corpus.map((d) => [d.docid, d]));
    expect(set.queries.length).toBeGreaterThan(40);
    let removed = 0;
    let unjudgedTotal = 0;
    for (const q of set.queries) {
      const og = set.qrels.og!.get(q.id)!;
      const changed = set.qrels.changed!.get(q.id)!;
      const senses = wn.senses.get(q.query)!;
      const unjudged = q.metadata!.unjudgedDocids as string[];
      unjudgedTotal += unjudged.length;
      const judged = senses.filter((id) => !unjudged.includes(id));
      expect([...og.keys()].sort()).toEqual([...judged].sort());
      expect(set.candidates!.get(q.id)!).toEqual(expect.arrayContaining(judged));
      for (const id of unjudged) expect(set.candidates!.get(q.id)!).not.toContain(id);
      const ogC = String(q.metadata!.ogConstraint);
      const chC = String(q.metadata!.changedConstraint);
      expect(chC).toMatch(/^(not )?(hypernym|topic|region|usage|category)=/);
      expect(q.instructions.changed!.startsWith(q.instructions.og!)).toBe(true);
      // selective og: some judged sense is not relevant
      expect(
        [...og.values()].some((g) => g === 0),
        q.id,
      ).toBe(true);
      let topicRemoved = 0;
      for (const id of judged) {
        const s = wn.synsets.get(id)!;
        expect(og.get(id)! > 0, `${q.id} ${id} og`).toBe(justified(s, text.get(id)!, ogC));
        expect(changed.get(id)! > 0, `${q.id} ${id} changed`).toBe(
          justified(s, text.get(id)!, ogC) && justified(s, text.get(id)!, chC),
        );
        expect(changed.get(id)!).toBeLessThanOrEqual(og.get(id)!);
        if (og.get(id)! > 0 && changed.get(id)! === 0) topicRemoved++;
      }
      expect(topicRemoved).toBeGreaterThan(0);
      expect([...changed.values()].some((g) => g > 0)).toBe(true);
      removed += topicRemoved;
    }
    expect(removed).toBeGreaterThan(set.queries.length - 1);
    expect(unjudgedTotal).toBeGreaterThanOrEqual(0);
  });

  it('FollowIR form: hypernym values are concrete, and no value names the lemma or the og requirement', async () => {
    const set = await world.loadFollowIR();
    const abstract =
      /=(entity|abstraction|cognition|signal|nature|determinant|attribute|relation|group|act|event|state)$/;
    for (const q of set.queries) {
      const ch = String(q.metadata!.changedConstraint);
      expect(ch, q.id).not.toMatch(abstract);
      if (ch.startsWith('not hypernym=') || ch.startsWith('hypernym=')) {
        const words = q.metadata!.changeWords as string[];
        for (const w of q.query.split(/\s+/)) expect(words).not.toContain(w);
        const og = String(q.metadata!.ogConstraint);
        if (og.includes('noun.animal')) expect(words).not.toContain('animal');
        if (og.includes('noun.person')) expect(words).not.toContain('person');
      }
    }
  });

  it('FollowIR seen-wording split: same topics, constraints and qrels, train-pool wording', async () => {
    const main = await world.loadFollowIR();
    const seen = (await world.loadFollowIRSeen())!;
    expect(seen.queries.map((q) => q.id)).toEqual(main.queries.map((q) => q.id));
    let differ = 0;
    for (const [i, q] of seen.queries.entries()) {
      const m = main.queries[i]!;
      expect(q.metadata!.changedConstraint).toBe(m.metadata!.changedConstraint);
      expect(String(q.metadata!.changeFrame)).toMatch(/^train:/);
      expect(String(m.metadata!.changeFrame)).toMatch(/^test:/);
      expect([...seen.qrels.changed!.get(q.id)!]).toEqual([...main.qrels.changed!.get(q.id)!]);
      expect([...seen.qrels.og!.get(q.id)!]).toEqual([...main.qrels.og!.get(q.id)!]);
      if (q.instructions.changed !== m.instructions.changed) differ++;
    }
    expect(differ).toBe(seen.queries.length);
  });

  it('InfoSearch style: og = all senses; instructed and reversed split the senses by the lever', async () => {
    expect(world.levers).toEqual([
      'category',
      'format',
      'hypernym',
      'keyword',
      'length',
      'region',
      'topic',
      'usage',
    ]);
    for (const lever of world.levers) {
      const set = await world.loadInfoSearch(lever);
      const text = new Map(set.corpus.map((d) => [d.docid, d]));
      for (const q of set.queries) {
        const c = (q.metadata as { constraint: unknown }).constraint as Record<string, unknown>;
        const desc = describe_(c);
        expect(q.instructions.og).toBeNull();
        for (const id of wn.senses.get(q.query)!) {
          const s = wn.synsets.get(id)!;
          const holds = justified(s, text.get(id)!, desc);
          expect(set.qrels.og!.get(q.id)!.get(id)).toBe(1);
          expect(set.qrels.changed!.get(q.id)!.get(id), `${lever} ${q.id} ${id}`).toBe(holds ? 1 : 0);
          expect(set.qrels.reversed!.get(q.id)!.get(id)).toBe(holds ? 0 : 1);
        }
      }
    }
  });
});

function describe_(c: Record<string, unknown>): string {
  const neg = c.negated === true;
  if (c.lever === 'length') return neg ? `length>${c.maxWords}` : `length<=${c.maxWords}`;
  if (c.lever === 'format')
    return `format=${(c.hasExample as boolean) !== neg ? 'has-example' : 'no-example'}`;
  return `${neg ? 'not ' : ''}${c.lever}=${(c.anyOf as string[]).join('|')}`;
}
