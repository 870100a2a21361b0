/**
 * Well-known document attributes in `Passage.metadata`. Datasets that know them (the WordNet
 * mini world) fill them; synthesis reads them to choose reversal levers; encoders never see
 * them. Every key is optional: real corpora (MS MARCO) have none, and unknown keys are kept.
 */
import { z } from 'zod';

export const DocAttributes = z
  .object({
    /** The lemma or title term the document is an entry for. */
    lemma: z.string(),
    /** All lemmas (synonyms) of the entry. */
    lemmas: z.array(z.string()),
    /** Coarse category, e.g. WordNet's lexicographer file `noun.animal`. */
    category: z.string(),
    /** Hypernym chain, nearest first, each a readable head word (`fish`, `vertebrate`, ...). */
    hypernyms: z.array(z.string()),
    /** Topic domains (`music`, `medicine`), region domains (`France`), usage domains (`slang`). */
    topics: z.array(z.string()),
    regions: z.array(z.string()),
    usages: z.array(z.string()),
    /** Whether the entry carries a usage example (the "format" lever). */
    hasExample: z.boolean(),
    wordCount: z.number().int().nonnegative(),
    /** Rank of this sense among the lemma's senses by corpus frequency (1 = dominant). */
    senseRank: z.number().int().positive(),
  })
  .partial()
  .passthrough();
export type DocAttributes = z.infer<typeof DocAttributes>;
