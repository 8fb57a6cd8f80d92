// Passes over the schemas ts-rest generates from the contract: named schemas
// become components referenced with $ref, and the few OpenAPI 3.1 / JSON
// Schema forms the converter emits are rewritten to their OpenAPI 3.0 form.
import { createRequire } from 'node:module';
import { isDeepStrictEqual } from 'node:util';
import type { ZodTypeAny } from 'zod';
import { namedSchemas, SCHEMA_NAME_KEY, SCHEMA_REF_KEY } from '../contract/common/named.js';

export type Schema = { [key: string]: unknown };

// The converter ts-rest itself runs (its own @anatine/zod-openapi 1.x), so a
// component and the inline uses it replaces come from the same code.
const requireFromTsRest = createRequire(createRequire(import.meta.url).resolve('@ts-rest/open-api'));
const { generateSchema } = requireFromTsRest('@anatine/zod-openapi') as {
  generateSchema(schema: ZodTypeAny, useOutput?: boolean): Schema;
};

/** A zod schema as ts-rest writes it into the document (`useOutput` for responses). */
export const convertZod = (schema: ZodTypeAny, useOutput = false): Schema => generateSchema(schema, useOutput);

const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Applies `f` to each direct subschema of `schema` (a copy is returned). */
function mapSubschemas(schema: Schema, f: (sub: Schema) => Schema): Schema {
  const out = { ...schema };
  if (isSchema(out.properties)) out.properties = Object.fromEntries(Object.entries(out.properties).map(([key, sub]) => [key, f(sub as Schema)]));
  for (const key of ['items', 'additionalProperties', 'not'] as const) {
    if (isSchema(out[key])) out[key] = f(out[key]);
  }
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.map((sub: Schema) => f(sub));
  }
  return out;
}

/** Keys a use of a named schema may set for itself; they do not change what values it accepts. */
const USE_SITE_ANNOTATIONS = new Set(['description', 'example', 'default', 'deprecated', 'readOnly', 'writeOnly']);

const componentRef = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/**
 * Replaces every use of a named schema (see contract/common/named.ts) by a
 * `$ref` to its component, and builds the components from the named zod
 * schemas themselves, so a component is the schema's own shape rather than
 * whichever use came first.
 */
export class NamedSchemaHoister {
  private readonly components = new Map<string, Schema>();
  private readonly canonical = new Map<string, Schema>();

  /** The components referenced so far, by name. */
  schemas(): Record<string, Schema> {
    return Object.fromEntries([...this.components.entries()].sort(([a], [b]) => a.localeCompare(b)));
  }

  hoist(schema: Schema): Schema {
    const later = schema[SCHEMA_REF_KEY];
    if (typeof later === 'string') {
      const { [SCHEMA_REF_KEY]: _, ...annotations } = schema;
      return this.use(later, annotations);
    }
    const name = schema[SCHEMA_NAME_KEY];
    if (typeof name === 'string') return this.use(name, this.useSiteAnnotations(name, schema));
    return mapSubschemas(schema, (sub) => this.hoist(sub));
  }

  private use(name: string, annotations: Schema): Schema {
    if (annotations.nullable === true) {
      // OpenAPI 3.0 has no sound nullable $ref (`nullable` only qualifies a sibling `type`).
      throw new Error(`a nullable use of the named schema ${name}: name the nullable form, or make the field optional`);
    }
    this.define(name);
    // $ref siblings are ignored in OpenAPI 3.0: a use-site description rides on allOf.
    return Object.keys(annotations).length === 0 ? componentRef(name) : { ...annotations, allOf: [componentRef(name)] };
  }

  private define(name: string): void {
    if (this.components.has(name)) return;
    const { [SCHEMA_NAME_KEY]: _, ...shape } = this.canonicalOf(name);
    // Registered before its subschemas are walked: a recursive schema refers to itself.
    const component: Schema = { title: name };
    this.components.set(name, component);
    Object.assign(component, mapSubschemas(shape, (sub) => this.hoist(sub)));
  }

  private canonicalOf(name: string): Schema {
    let schema = this.canonical.get(name);
    if (schema === undefined) {
      const zod = namedSchemas.get(name);
      if (zod === undefined) throw new Error(`no schema is named ${name}`);
      schema = convertZod(zod);
      if (!isDeepStrictEqual(schema, convertZod(zod, true))) {
        throw new Error(`the named schema ${name} reads differently in requests and responses (a default or transform): name each form`);
      }
      this.canonical.set(name, schema);
    }
    return schema;
  }

  /** What a use adds to the named schema; anything beyond annotations means it is another shape. */
  private useSiteAnnotations(name: string, use: Schema): Schema {
    const canonical = this.canonicalOf(name);
    const added: Schema = {};
    for (const key of new Set([...Object.keys(use), ...Object.keys(canonical)])) {
      if (isDeepStrictEqual(use[key], canonical[key])) continue;
      if (!(key in use) || !(USE_SITE_ANNOTATIONS.has(key) || key === 'nullable')) {
        throw new Error(`a use of the named schema ${name} changes \`${key}\`: give that shape its own name or none`);
      }
      added[key] = use[key];
    }
    return added;
  }
}

/**
 * Rewrites the forms of the converter that are not OpenAPI 3.0 (whose Schema
 * Object is a JSON Schema draft-04 dialect):
 * - numeric `exclusiveMinimum`/`exclusiveMaximum` (draft-06 and OpenAPI 3.1)
 *   become the boolean modifier of `minimum`/`maximum`, keeping the tighter
 *   bound when both were given;
 * - `nullable` without `type`: in 3.0.3 `nullable` only adds null to a sibling
 *   `type`, and a schema without `type` already admits null, so it is dropped;
 * - `nullable` beside `enum`: 3.0.3 does not add null to an enum's values, so
 *   null is listed among them (else a null value fails validation).
 */
export function toOpenApi30(schema: Schema): Schema {
  const out = mapSubschemas(schema, toOpenApi30);
  for (const [exclusive, inclusive, tighter] of [
    ['exclusiveMinimum', 'minimum', (a: number, b: number) => a >= b],
    ['exclusiveMaximum', 'maximum', (a: number, b: number) => a <= b],
  ] as const) {
    const bound = out[exclusive];
    if (typeof bound !== 'number') continue;
    const other = out[inclusive];
    if (typeof other !== 'number' || tighter(bound, other)) {
      out[inclusive] = bound;
      out[exclusive] = true;
    } else {
      delete out[exclusive];
    }
  }
  if (out.nullable === true && Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (out.nullable === true && out.type === undefined) {
    if (['allOf', 'anyOf', 'oneOf', '$ref'].some((key) => key in out)) {
      throw new Error(`nullable without type beside a composition cannot be written in OpenAPI 3.0: ${JSON.stringify(out)}`);
    }
    delete out.nullable;
  }
  return out;
}

type Operation = {
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
  parameters?: Array<{ schema?: Schema }>;
};

/** Applies `f` to every top-level schema of every operation (request body, responses, parameters), in place. */
export function mapOperationSchemas(paths: Record<string, Record<string, Operation>>, f: (schema: Schema) => Schema): void {
  const mapContent = (content: Record<string, { schema?: Schema }> | undefined) => {
    for (const media of Object.values(content ?? {})) {
      if (media.schema !== undefined) media.schema = f(media.schema);
    }
  };
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      mapContent(operation.requestBody?.content);
      for (const response of Object.values(operation.responses ?? {})) mapContent(response.content);
      for (const parameter of operation.parameters ?? []) {
        if (parameter.schema !== undefined) parameter.schema = f(parameter.schema);
      }
    }
  }
}
