// Tiny deterministic seed fixtures for tests: a WordNet-like world with DocAttributes metadata,
// and MS MARCO-like passages without any metadata.
import type { SeedExample } from '@dv/core';
import type { z } from 'zod';

/** A seed as written before parsing (defaults not applied). */
type SeedExampleInput = z.input<typeof SeedExample>;

const SENSES = [
  {
    lemma: 'bass',
    cats: [
      [
        'noun.animal',
        ['fish', 'vertebrate'],
        'the lean flesh of a saltwater fish of the family Serranidae caught in coastal waters',
      ],
      [
        'noun.artifact',
        ['instrument', 'device'],
        'the member with the lowest range of a family of stringed musical instruments',
      ],
      ['noun.person', ['singer', 'musician'], 'an adult male singer with the lowest voice in a choir'],
    ],
  },
  {
    lemma: 'crane',
    cats: [
      [
        'noun.animal',
        ['wading bird', 'bird'],
        'large long-necked wading bird of marshes and plains in many parts of the world',
      ],
      [
        'noun.artifact',
        ['lifting device', 'device'],
        'lifts and moves heavy objects with a boom on a tower at building sites',
      ],
    ],
  },
  {
    lemma: 'mercury',
    cats: [
      [
        'noun.substance',
        ['metallic element', 'element'],
        'a heavy silvery toxic univalent and bivalent metallic element liquid at room temperature',
      ],
      [
        'noun.object',
        ['planet', 'celestial body'],
        'the smallest planet and the nearest to the sun in our solar system',
      ],
    ],
  },
] as const;

export function metadataSeeds(n: number): SeedExampleInput[] {
  const out: SeedExampleInput[] = [];
  for (let i = 0; i < n; i++) {
    const s = SENSES[i % SENSES.length]!;
    const doc = (j: number) => {
      const [category, hypernyms, gloss] = s.cats[j]!;
      return {
        docid: `${s.lemma}-${j}-${i}`,
        title: s.lemma,
        text: gloss,
        metadata: {
          lemma: s.lemma,
          category,
          hypernyms: [...hypernyms],
          wordCount: gloss.split(' ').length,
          senseRank: j + 1,
        },
      };
    };
    out.push({
      id: `seed-${i}`,
      query: s.lemma,
      instruction: {
        text: `I am only interested in ${s.lemma} as ${s.cats[0]![1][0]}, nothing else.`,
        lever: 'category',
        style: 'persona',
      },
      positives: [doc(0)],
      instructionNegatives: s.cats.slice(1).map((_, j) => doc(j + 1)),
      hardNegatives: [
        { docid: `hard-${i}`, title: 'other', text: 'an unrelated entry about gardening tools' },
      ],
      split: 'train',
    });
  }
  return out;
}

export function plainSeeds(n: number): SeedExampleInput[] {
  const out: SeedExampleInput[] = [];
  for (let i = 0; i < n; i++) {
    out.push({
      id: `msm-${i}`,
      query: 'how long to boil eggs',
      instruction: { text: 'Relevant answers give exact cooking times for soft boiled eggs.' },
      positives: [
        {
          docid: `p${i}`,
          text: 'Soft boiled eggs need about six minutes in boiling water, then an ice bath.',
        },
      ],
      instructionNegatives: [
        {
          docid: `n${i}`,
          text: 'At high altitude water boils at a lower temperature, so hard boiled eggs take longer, around fifteen minutes.',
        },
      ],
      hardNegatives: [
        { docid: `h${i}`, text: 'Poached eggs are cooked in simmering water with a splash of vinegar.' },
      ],
    });
  }
  return out;
}
