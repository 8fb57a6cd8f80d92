import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { importGraph } from '../helpers/import-graph.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The modules the routers hand requests to: what each server/domains/<domain>/router.ts imports from server/domains. */
const serviceFiles = [...importGraph(root, ['server/domains'], { types: true })]
  .filter(([from]) => from.endsWith('/router.ts'))
  .flatMap(([, targets]) => targets.filter((to) => to.startsWith('server/domains/')))
  .filter((file, i, all) => all.indexOf(file) === i)
  .sort();

/** True when the type is, or contains, an object literal type: directly or through a type or interface declared in the same file. */
function spellsOutAnObject(type: ts.Node, local: Map<string, ts.Node>, seen = new Set<string>()): boolean {
  if (ts.isTypeLiteralNode(type) || ts.isInterfaceDeclaration(type)) return true;
  if (ts.isTypeReferenceNode(type) && ts.isIdentifier(type.typeName)) {
    const name = type.typeName.text;
    const declared = local.get(name);
    if (declared && !seen.has(name) && spellsOutAnObject(declared, local, seen.add(name))) return true;
  }
  return ts.forEachChild(type, (child) => spellsOutAnObject(child, local, seen) || undefined) ?? false;
}

/**
 * Every method of a service that takes a caller (`app: Caller` or
 * `apiKeyId: string`) and then an input whose type is written out as an
 * object, or named by a `T…Data` type, as `file:line method(param: type)`.
 */
function handWrittenInputs(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const local = new Map<string, ts.Node>();
  source.forEachChild(function collect(node) {
    if (ts.isTypeAliasDeclaration(node)) local.set(node.name.text, node.type);
    else if (ts.isInterfaceDeclaration(node)) local.set(node.name.text, node);
    node.forEachChild(collect);
  });
  const found: string[] = [];
  source.forEachChild(function visit(node) {
    if (ts.isMethodDeclaration(node)) {
      const [caller, input] = node.parameters;
      const callerType = caller?.type?.getText(source);
      if ((caller?.name.getText(source) === 'app' && callerType === 'Caller') || (caller?.name.getText(source) === 'apiKeyId' && callerType === 'string')) {
        const type = input?.type;
        if (type && (spellsOutAnObject(type, local) || /\bT[A-Z]\w*Data\b/.test(type.getText(source)))) {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
          found.push(`${file}:${line + 1} ${node.name.getText(source)}(${input!.name.getText(source)}: ${type.getText(source)})`);
        }
      }
    }
    node.forEachChild(visit);
  });
  return found;
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)]));
}

/**
 * A request's `data` is typed once, by its contract route:
 * `input: DataOf<typeof addComments>` (contract/common/envelope.ts), or a
 * `Pick`/`Omit` of it where a service takes less than the request. An input
 * spelled out again in the service drifts from the schema the router parsed.
 */
describe('service inputs', () => {
  it('finds the service modules through the routers', () => {
    expect(serviceFiles).toContain('server/domains/comments/service.ts');
    expect(serviceFiles).toContain('server/domains/webhooks/services/endpoints.ts');
  });

  it('are named by their contract route (DataOf), not written out as object types or T…Data types', () => {
    expect(serviceFiles.flatMap(handWrittenInputs)).toEqual([]);
  });

  it('have one DataOf, the contract\'s', () => {
    const declarations = ['server', 'contract']
      .flatMap((dir) => walk(join(root, dir)))
      .filter((file) => file.endsWith('.ts') && /\b(?:type|interface)\s+DataOf\b/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file).split('\\').join('/'));
    expect(declarations).toEqual(['contract/common/envelope.ts']);
  });
});
