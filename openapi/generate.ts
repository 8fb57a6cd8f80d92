// `npm run openapi` writes openapi/openapi.json from the contract;
// `npm run openapi:check` exits 1 when the checked-in file has drifted.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderOpenApiDocument } from './document.js';

const target = fileURLToPath(new URL('./openapi.json', import.meta.url));
const fresh = renderOpenApiDocument();

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // A missing file is drift too.
  }
  if (current !== fresh) {
    process.stderr.write('openapi/openapi.json differs from the contract: run `npm run openapi` and commit the result\n');
    process.exit(1);
  }
  process.stdout.write('openapi/openapi.json matches the contract\n');
} else {
  writeFileSync(target, fresh);
  process.stdout.write(`wrote ${target}\n`);
}
