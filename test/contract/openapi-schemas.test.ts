import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { named, namedLater } from '../../contract/common/named.js';
import { convertZod, NamedSchemaHoister, toOpenApi30 } from '../../openapi/schemas.js';

// The passes of openapi/schemas.ts on shapes the contract may grow into, not
// only those in it today. Inputs are written as ts-rest's converter emits them.

describe('toOpenApi30', () => {
  it('turns numeric exclusive bounds (3.1 / draft-06) into the 3.0 boolean form, at any depth', () => {
    const positive = { type: 'integer', minimum: 0, exclusiveMinimum: 0 };
    const below = { type: 'number', maximum: 10, exclusiveMaximum: 10 };
    expect(toOpenApi30({ type: 'object', properties: { a: positive, b: { type: 'array', items: below } } })).toEqual({
      type: 'object',
      properties: {
        a: { type: 'integer', minimum: 0, exclusiveMinimum: true },
        b: { type: 'array', items: { type: 'number', maximum: 10, exclusiveMaximum: true } },
      },
    });
  });

  it('keeps the tighter bound when an inclusive one beats the exclusive one', () => {
    // z.number().positive().min(5): the converter leaves minimum 5 and exclusiveMinimum 0.
    expect(toOpenApi30({ type: 'number', minimum: 5, exclusiveMinimum: 0 })).toEqual({ type: 'number', minimum: 5 });
    expect(toOpenApi30({ type: 'number', maximum: 3, exclusiveMaximum: 7 })).toEqual({ type: 'number', maximum: 3 });
  });

  it('drops nullable where there is no type (any value, null included) and keeps it beside a type', () => {
    expect(toOpenApi30({ nullable: true, description: 'anything' })).toEqual({ description: 'anything' });
    expect(toOpenApi30({ type: 'string', nullable: true })).toEqual({ type: 'string', nullable: true });
    expect(() => toOpenApi30({ nullable: true, allOf: [{ $ref: '#/components/schemas/X' }] })).toThrow(/cannot be written in OpenAPI 3.0/);
  });
});

describe('NamedSchemaHoister', () => {
  const Colour = named('TestColour', z.enum(['red', 'green']).describe('A colour.'));
  const Node: z.ZodType<{ colour: 'red' | 'green'; children?: unknown[] }> = named(
    'TestNode',
    z.object({ colour: Colour, children: z.array(namedLater('TestNode', () => Node)).optional() }),
  );
  const hoist = (schema: z.ZodTypeAny) => {
    const hoister = new NamedSchemaHoister();
    const out = hoister.hoist(convertZod(schema));
    return { out, components: hoister.schemas() };
  };

  it('references named schemas and builds each component once, recursion included', () => {
    const { out, components } = hoist(z.object({ root: Node, colours: z.array(Colour) }));
    expect(out.properties).toEqual({
      root: { $ref: '#/components/schemas/TestNode' },
      colours: { type: 'array', items: { $ref: '#/components/schemas/TestColour' } },
    });
    expect(components.TestNode).toEqual({
      title: 'TestNode',
      type: 'object',
      properties: {
        colour: { $ref: '#/components/schemas/TestColour' },
        children: { type: 'array', items: { $ref: '#/components/schemas/TestNode' } },
      },
      required: ['colour'],
    });
    expect(components.TestColour).toEqual({ title: 'TestColour', type: 'string', enum: ['red', 'green'], description: 'A colour.' });
  });

  it('keeps a use-site description beside the reference, through describe() or a wrapper', () => {
    const { out } = hoist(z.object({ a: Colour.describe('The colour of a.'), b: Colour.optional().describe('The colour of b.') }));
    expect(out.properties).toEqual({
      a: { description: 'The colour of a.', allOf: [{ $ref: '#/components/schemas/TestColour' }] },
      b: { description: 'The colour of b.', allOf: [{ $ref: '#/components/schemas/TestColour' }] },
    });
  });

  it('refuses a nullable use (no sound 3.0 form) and two schemas under one name', () => {
    expect(() => hoist(z.object({ a: Colour.nullable() }))).toThrow(/nullable use of the named schema TestColour/);
    expect(() => named('TestColour', z.string())).toThrow(/two schemas are named TestColour/);
  });

  it('refuses a named schema whose request and response forms differ', () => {
    const Transformed = named('TestTransformed', z.object({ n: z.string().transform((text) => text.length) }));
    expect(() => hoist(Transformed)).toThrow(/reads differently in requests and responses/);
  });
});
