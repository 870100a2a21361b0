/**
 * A readable phrase per WordNet noun category (lexicographer file), used wherever an
 * instruction selects senses by category: the mini world's instruction templates (@dv/data) and
 * the offline reverser's levers (@dv/synth) share this one table. The phrases paraphrase the file
 * names; relevance itself always comes from the lexicographer file WordNet assigns.
 */

/** Noun category -> how an instruction names it ("... refers to an animal"). */
export const CATEGORY_PHRASES = Object.freeze({
  'noun.Tops': 'a basic, very general concept',
  'noun.act': 'an act or activity',
  'noun.animal': 'an animal',
  'noun.artifact': 'a man-made object',
  'noun.attribute': 'a property or quality',
  'noun.body': 'a part of the body',
  'noun.cognition': 'an idea, belief or field of knowledge',
  'noun.communication': 'a form of communication',
  'noun.event': 'an event or happening',
  'noun.feeling': 'a feeling or emotion',
  'noun.food': 'a food or drink',
  'noun.group': 'a group or collection',
  'noun.location': 'a place or region',
  'noun.motive': 'a motive or goal',
  'noun.object': 'a natural object',
  'noun.person': 'a person',
  'noun.phenomenon': 'a natural or social phenomenon',
  'noun.plant': 'a plant',
  'noun.possession': 'a possession or financial matter',
  'noun.process': 'a natural process',
  'noun.quantity': 'a quantity or unit of measure',
  'noun.relation': 'a relation between things',
  'noun.shape': 'a shape',
  'noun.state': 'a state or condition',
  'noun.substance': 'a substance or material',
  'noun.time': 'a period or point in time',
} as const satisfies Record<string, string>);

export type NounCategory = keyof typeof CATEGORY_PHRASES;

export function categoryPhrase(category: string): string {
  return (CATEGORY_PHRASES as Record<string, string>)[category] ?? category.replace(/^noun\./, '');
}
