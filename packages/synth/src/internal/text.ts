// Small text helpers shared by the offline reverser and the lexical judge: content tokens,
// a crude stem, stopwords, timeframes and a hash. (Category phrases: @dv/core's categoryPhrase.)

export const STOPWORDS = new Set(
  `a an the and or but if then else of to in on at by for with from into onto over under about as is are was were be been being
  it its this that these those there their them they he she his her him we our you your i me my mine not no nor so than too very
  can could should would may might must will shall do does did done have has had having such any some all each every other another
  which who whom whose what when where why how also only just more most less least many much one two three four five used use
  often usually especially esp etc e g ie eg same different kind kinds sort type something someone thing things way ways`
    .split(/\s+/)
    .filter(Boolean),
);

export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu) ?? [];
}

/** Crude stem: lower case, drop a possessive and a plural `s`/`es` on longer words. */
export function stem(w: string): string {
  let s = w.toLowerCase().replace(/'s$/, '');
  if (s.length > 4 && s.endsWith('ies')) s = `${s.slice(0, -3)}y`;
  else if (s.length > 4 && /(ches|shes|sses|xes)$/.test(s)) s = s.slice(0, -2);
  else if (s.length > 3 && s.endsWith('s') && !s.endsWith('ss')) s = s.slice(0, -1);
  return s;
}

/** Stemmed content tokens (no stopwords, no pure numbers shorter than 4 digits). */
export function contentStems(text: string): string[] {
  return words(text)
    .filter((w) => !STOPWORDS.has(w) && w.length > 2 && !/^\d{1,3}$/.test(w))
    .map(stem);
}

/** Four-digit years and century/era words found in a text (the timeframe lever). */
export function timeframes(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/\b(1[0-9]{3}|20[0-9]{2})s?\b/g)) out.add(m[0]);
  for (const m of text.matchAll(
    /\b(\d{1,2}(?:st|nd|rd|th) century|ancient|medieval|prehistoric|renaissance|victorian|modern|contemporary)\b/gi,
  ))
    out.add(m[0].toLowerCase());
  return [...out];
}

/** Deterministic 32-bit hash of a string (FNV-1a), for stable choices without an RNG. */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
