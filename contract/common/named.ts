import { extendApi } from '@anatine/zod-openapi';
import { z } from 'zod';

/**
 * Names of the resources of the specification, kept on the zod schemas
 * themselves so the OpenAPI generator can give them one component each
 * (`#/components/schemas/<name>`) and generated clients get real type names.
 * The contract is the only source: the generator never writes a shape by hand.
 *
 * The name travels as an OpenAPI vendor key that the generator consumes and
 * removes; `title` is not used because ts-rest would hoist titled schemas on
 * its own, from responses only, and fail on use-site descriptions.
 */
export const SCHEMA_NAME_KEY = 'x-schema-name';
/** Marks a lazy self-reference (recursive schemas such as Folder.subFolders). */
export const SCHEMA_REF_KEY = 'x-schema-ref';

const registry = new Map<string, z.ZodTypeAny>();

/** Every named schema, by name: the canonical shape each component is generated from. */
export const namedSchemas: ReadonlyMap<string, z.ZodTypeAny> = registry;

/** A copy of `schema` carrying the name (extendApi copies), whose describe() keeps it. */
function mark<T extends z.ZodTypeAny>(schema: T, name: string): T {
  const marked = extendApi(schema, { [SCHEMA_NAME_KEY]: name });
  // zod's describe() returns a fresh instance without the OpenAPI metadata; a
  // field that only adds its own description is still the named type.
  const describe = marked.describe;
  Object.defineProperty(marked, 'describe', {
    value(this: T, description: string) {
      return mark(describe.call(this, description) as T, name);
    },
  });
  return marked;
}

/** Names a schema of the contract (returns the named copy); the name must be unique across the contract. */
export function named<T extends z.ZodTypeAny>(name: string, schema: T): T {
  if (!/^[A-Z][A-Za-z0-9]*$/.test(name)) throw new Error(`schema name ${name} must be PascalCase`);
  if (registry.has(name)) throw new Error(`two schemas are named ${name}`);
  const marked = mark(schema, name);
  registry.set(name, marked);
  return marked;
}

/** A reference to a named schema that is still being defined (recursion). */
export function namedLater<T extends z.ZodTypeAny>(name: string, getSchema: () => T): z.ZodLazy<T> {
  return extendApi(z.lazy(getSchema), { [SCHEMA_REF_KEY]: name });
}
