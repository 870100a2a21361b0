/**
 * The leaf settings of a config schema, walked from its zod definition: each with its dotted path,
 * whether it has a default, and its `.describe()` text. The one walker behind the checks that a
 * setting is declared once and documented (run-config-leaves.test.ts), and the input a generated
 * flag table or CLI help reads.
 *
 * Objects are walked into; wrappers (optional, nullable, default, prefault, readonly, catch) are
 * peeled, their descriptions and defaults kept; an array of objects is walked as `path[]`; any
 * other schema (scalar, enum, literal, union, array of scalars) is a leaf.
 */
import type { z } from 'zod';

export interface ConfigLeaf {
  /** Dotted path, array items as `[]` (`paper.models[].repo`). */
  path: string;
  /** The last key (`hardNegatives`). */
  name: string;
  hasDefault: boolean;
  /** The `.describe()` text on the leaf or one of its wrappers. */
  description: string | undefined;
}

interface Def {
  type: string;
  innerType?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
}
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

export function configLeaves(schema: z.ZodType, path = ''): ConfigLeaf[] {
  let s = schema;
  let hasDefault = false;
  let description = s.description;
  for (let d = defOf(s); WRAPPERS.has(d.type) && d.innerType; d = defOf(s)) {
    if (d.type === 'default' || d.type === 'prefault') hasDefault = true;
    s = d.innerType;
    description ??= s.description;
  }
  const d = defOf(s);
  if (d.type === 'object' && d.shape)
    return Object.entries(d.shape).flatMap(([k, v]) => configLeaves(v, path ? `${path}.${k}` : k));
  if (d.type === 'array' && d.element) {
    const el = defOf(d.element);
    if (el.type === 'object') return configLeaves(d.element, `${path}[]`);
  }
  const name = path.split('.').at(-1)!.replace(/\[\]$/, '');
  return [{ path, name, hasDefault, description }];
}
