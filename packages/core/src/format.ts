/**
 * The one query/document formatter, shared by synthesis, training and evaluation.
 *
 * Query:    queryPrefix + join(query, instruction)   (instruction after the query unless
 *           `instructionFirst`), where join trims both parts and drops an empty instruction,
 *           so no double spaces or dangling joiners appear.
 * Document: documentPrefix + join(title, text) with `titleJoiner`, empty title dropped.
 *
 * Matches mteb's FollowIR/InstructIR formatting with the default settings
 * (`query + " " + instruction`, document `title + " " + text`, trimmed).
 *
 * @example formatQuery(defaults, 'bass', 'Only fish.') === 'bass Only fish.'
 */
import { FormatterSettings, type FormatterSettingsInput } from './schemas/formatter-settings.js';

export const defaultFormatterSettings: FormatterSettings = FormatterSettings.parse({});

function joinNonEmpty(parts: ReadonlyArray<string | null | undefined>, joiner: string): string {
  return parts
    .map((p) => (p ?? '').trim())
    .filter((p) => p.length > 0)
    .join(joiner);
}

export function formatQuery(
  settings: FormatterSettingsInput | FormatterSettings,
  query: string,
  instruction?: string | null,
): string {
  const s = FormatterSettings.parse(settings);
  const parts = s.instructionFirst ? [instruction, query] : [query, instruction];
  return s.queryPrefix + joinNonEmpty(parts, s.joiner);
}

export function formatDocument(
  settings: FormatterSettingsInput | FormatterSettings,
  doc: { title?: string | null; text: string },
): string {
  const s = FormatterSettings.parse(settings);
  return s.documentPrefix + joinNonEmpty([doc.title, doc.text], s.titleJoiner);
}

/** A formatter bound to one settings object (validated once). */
export interface Formatter {
  readonly settings: FormatterSettings;
  query(query: string, instruction?: string | null): string;
  document(doc: { title?: string | null; text: string }): string;
}

export function createFormatter(settings: FormatterSettingsInput = {}): Formatter {
  const s = Object.freeze(FormatterSettings.parse(settings));
  return {
    settings: s,
    query: (q, i) => formatQuery(s, q, i),
    document: (d) => formatDocument(s, d),
  };
}
