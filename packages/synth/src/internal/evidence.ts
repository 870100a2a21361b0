// What a document "says" for lever choice and lexical verification: stemmed content words of
// its title and text plus the readable forms of its DocAttributes metadata (category phrase,
// hypernyms, topic/region/usage domains, "example" when it carries one). One definition, used
// by the offline reverser (to pick a lever only the target satisfies) and the lexical judge.
import { categoryPhrase, DocAttributes, type Passage } from '@dv/core';
import { contentStems, words } from './text.js';

export interface Evidence {
  attrs: DocAttributes;
  stems: Set<string>;
  wordCount: number;
}

/**
 * With `useMetadata: false` (the default) only the title and text count: what a text encoder
 * sees. `true` adds the readable forms of the metadata attributes (the opt-in metadata judge).
 */
export function evidenceOf(p: Passage, useMetadata = false): Evidence {
  const parsed = DocAttributes.safeParse(useMetadata ? (p.metadata ?? {}) : {});
  const attrs: DocAttributes = parsed.success ? parsed.data : {};
  const parts = [p.title, p.text];
  if (attrs.category) parts.push(categoryPhrase(attrs.category));
  parts.push(
    ...(attrs.hypernyms ?? []),
    ...(attrs.topics ?? []),
    ...(attrs.regions ?? []),
    ...(attrs.usages ?? []),
  );
  if (attrs.hasExample) parts.push('example');
  return {
    attrs,
    stems: new Set(contentStems(parts.join(' '))),
    wordCount: attrs.wordCount ?? words(p.text).length,
  };
}

/**
 * Words of instruction templates that say nothing about a document ("material", "results",
 * "mention"...): never evidence. The lexical judge drops them from I', and the offline
 * reverser drops them when it checks that a lever value separates D- from the rest.
 */
export const FILLER = new Set(
  `results result texts text anything whatever useful need needs want wants looking interested
  only would will keep leave describe describes present presents place places tie ties cover covers mention mentions
  include includes give gives run runs reading right purposes point misses word words long longer shorter fewer
  under over use field particular kind sort something about
  reader old atlas teach english crossword clue sorting notes note author meant met mean means meaning meanings
  sense senses pick out give fits fit one stays stay choose drop rule helps help skip avoid exclude type count counts
  fall falls belong belongs come comes used marked carry carries label refer refers date dates quote quotes show shows
  sentence offer offers bare definition also go goes name list lists another called bring brings talk talks involve
  involves take takes want after mind read was author treat treats`
    .split(/\s+/)
    .filter(Boolean)
    .flatMap((w) => contentStems(w)),
);
