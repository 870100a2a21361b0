/**
 * A retrievable unit of text: an MS MARCO passage, a FollowIR news article, a WordNet entry.
 *
 * `title` may be empty (MS MARCO has none); `metadata` carries attributes that synthesis and
 * analysis may read (WordNet category, hypernym chain, domains...) but that encoders never see.
 * Unknown fields of a source row go to `extra` so that loaders stay lossless.
 */
import { z } from 'zod';

export const Passage = z.object({
  docid: z.string().min(1, 'docid must be a non-empty string'),
  title: z.string().default(''),
  text: z.string(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  extra: z.record(z.string(), z.unknown()).optional(),
});
export type Passage = z.infer<typeof Passage>;
export type PassageInput = z.input<typeof Passage>;
