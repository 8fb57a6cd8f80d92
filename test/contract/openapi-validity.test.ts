import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';

// Third parties feed the checked-in file to validators, linters and client
// generators: it must pass a strict validator and Redocly's recommended rules.
const path = new URL('../../openapi/openapi.json', import.meta.url);
const checkedIn = readFileSync(path, 'utf8');

describe('openapi/openapi.json for third-party tools', () => {
  it('passes the strict validator of @apidevtools/swagger-parser', async () => {
    // validate() dereferences in place: give it its own copy.
    const problems = await SwaggerParser.validate(JSON.parse(checkedIn)).then(
      () => [],
      (error: { message: string; details?: Array<{ instancePath: string; message: string; schemaPath: string }> }) =>
        // Each fault also fails every enclosing "a schema or a $ref" alternative: keep the fault itself.
        error.details?.filter((d) => !d.schemaPath.startsWith('#/definitions/Reference/') && !d.schemaPath.endsWith('/oneOf')).map((d) => `${d.instancePath} ${d.message}`) ?? [error.message],
    );
    expect(problems).toEqual([]);
  });

  it('has no problem under Redocly\'s recommended ruleset, errors or warnings', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: checkedIn, absoluteRef: path.pathname, config });
    const readable = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ''}`);
    expect(readable).toEqual([]);
  });
});
