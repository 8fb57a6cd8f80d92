// Every number a request may carry has explicit bounds in the contract, so
// that every value the contract accepts is storable on SQLite and PostgreSQL
// alike. The HTTP boundary test (test/http/numeric-boundaries.test.ts) runs
// each field's bounds through the database; this list must name them all.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contract } from '../../contract/index.js';
import { NUMERIC_FIELDS } from '../helpers/numeric-fields.js';

interface NumericField {
  operation: string;
  path: string;
  min: number | undefined;
  max: number | undefined;
  int: boolean;
}

/** Walks a zod schema and collects its number fields with their bounds. */
function numbers(schema: z.ZodTypeAny, path: string, out: Omit<NumericField, 'operation'>[]): void {
  const def = schema._def as { typeName: z.ZodFirstPartyTypeKind } & Record<string, any>;
  switch (def.typeName) {
    case z.ZodFirstPartyTypeKind.ZodNumber: {
      const checks = def.checks as Array<{ kind: string; value?: number; inclusive?: boolean }>;
      const min = checks.find((c) => c.kind === 'min');
      const max = checks.find((c) => c.kind === 'max');
      out.push({ path, min: min?.value, max: max?.value, int: checks.some((c) => c.kind === 'int') });
      return;
    }
    case z.ZodFirstPartyTypeKind.ZodObject:
      for (const [key, value] of Object.entries((schema as z.AnyZodObject).shape)) numbers(value as z.ZodTypeAny, path ? `${path}.${key}` : key, out);
      return;
    case z.ZodFirstPartyTypeKind.ZodOptional:
    case z.ZodFirstPartyTypeKind.ZodNullable:
    case z.ZodFirstPartyTypeKind.ZodDefault:
      return numbers(def.innerType, path, out);
    case z.ZodFirstPartyTypeKind.ZodEffects:
      return numbers(def.schema, path, out);
    case z.ZodFirstPartyTypeKind.ZodArray:
      return numbers(def.type, `${path}[]`, out);
    case z.ZodFirstPartyTypeKind.ZodRecord:
      return numbers(def.valueType, `${path}{}`, out);
    case z.ZodFirstPartyTypeKind.ZodUnion:
    case z.ZodFirstPartyTypeKind.ZodDiscriminatedUnion:
      for (const option of def.options as z.ZodTypeAny[]) numbers(option, path, out);
      return;
    case z.ZodFirstPartyTypeKind.ZodIntersection:
      numbers(def.left, path, out);
      return numbers(def.right, path, out);
    default:
      return;
  }
}

function requestNumbers(): NumericField[] {
  const fields: NumericField[] = [];
  for (const group of Object.values(contract)) {
    for (const [operation, route] of Object.entries(group as Record<string, { body: z.ZodTypeAny }>)) {
      const found: Omit<NumericField, 'operation'>[] = [];
      numbers(route.body, '', found);
      fields.push(...found.map((f) => ({ operation, ...f })));
    }
  }
  return fields;
}

describe('numbers in requests', () => {
  const fields = requestNumbers();

  it('are integers with an explicit minimum and maximum that a 64-bit column and a JS number hold exactly', () => {
    expect(fields.length).toBeGreaterThan(0);
    // Numbers kept inside stored JSON (not in a column) may be fractions; they still need bounds.
    const fractional = new Set(NUMERIC_FIELDS.filter((f) => f.fractional).map((f) => `${f.operation} ${f.path}`));
    for (const field of fields) {
      const whole = field.int || fractional.has(`${field.operation} ${field.path}`);
      expect({ field: `${field.operation} ${field.path}`, bounded: whole && field.min !== undefined && field.max !== undefined }).toEqual({
        field: `${field.operation} ${field.path}`,
        bounded: true,
      });
      expect(field.max!).toBeLessThanOrEqual(Number.MAX_SAFE_INTEGER);
      expect(field.min!).toBeGreaterThanOrEqual(Number.MIN_SAFE_INTEGER);
    }
  });

  it('each have a boundary case run through the database', () => {
    const inContract = fields.map((f) => `${f.operation} ${f.path}`).sort();
    const covered = NUMERIC_FIELDS.map((f) => `${f.operation} ${f.path}`).sort();
    expect(covered).toEqual(inContract);
  });
});
