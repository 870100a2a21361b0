/**
 * Regression (issue 26): the pretrain stage's WordPiece vocabulary must be the same in every
 * process. It was not: the `tokenizers` trainer breaks ties between equally frequent merges by
 * hash order, which changes from process to process, so at the mini profile's size (40,000
 * texts, 8,000 pieces) three runs of one MLM stage on one machine learned three vocabularies and
 * three backbones. Here: the mini profile's world corpus (built as the world stage builds it), the
 * vocabulary learned from it in three separate processes, compared byte for byte.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildMiniWorld, MINI_FILES } from '@dv/data';
import { describe, expect, it } from 'vitest';
import { resolveReproduceConfig } from '../reproduce-config.js';

const app = fileURLToPath(new URL('../../..', import.meta.url));

describe('the MLM vocabulary', () => {
  it('is the same in separate processes at the mini size (40,000 corpus texts, 8,000 pieces)', async () => {
    const config = resolveReproduceConfig({ profile: 'mini' });
    const dir = mkdtempSync(join(tmpdir(), 'dv-vocab-det-'));
    await buildMiniWorld({ ...config.world, out: join(dir, 'world'), progress: 'silent' });
    const texts = readFileSync(join(dir, 'world', MINI_FILES.corpus), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .slice(0, config.pretrain.maxTexts ?? 40_000)
      .map((l) => (JSON.parse(l) as { text: string }).text);
    const corpus = join(dir, 'corpus.json');
    writeFileSync(corpus, JSON.stringify(texts));
    const script = `import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { trainWordPiece } from '@dv/train';
const t = await trainWordPiece(JSON.parse(readFileSync(process.argv[1], 'utf8')), { vocabSize: ${config.pretrain.vocabSize} });
process.stdout.write(t.vocabSize + ' ' + createHash('sha256').update(t.json).digest('hex'));`;
    const runs = [0, 1, 2].map(() =>
      execFileSync(
        process.execPath,
        ['--conditions=@dv/source', '--import', 'tsx', '--input-type=module', '-e', script, corpus],
        { cwd: app, encoding: 'utf8' },
      ),
    );
    expect(runs[0]).toMatch(new RegExp(`^${config.pretrain.vocabSize} [0-9a-f]{64}$`));
    expect(runs[1]).toBe(runs[0]);
    expect(runs[2]).toBe(runs[0]);
  }, 180_000);
});
