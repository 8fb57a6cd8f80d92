import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The value imports between the TypeScript files under some roots: what Node
 * loads at run time. `import type` and `export type` are left out (erased by
 * the compiler), and so are imports whose every name is marked `type`,
 * unless `types` asks for them too.
 */
export function importGraph(root: string, dirs: string[], options: { types?: boolean } = {}): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const files = dirs.flatMap((dir) => walk(join(root, dir)));
  for (const file of files) {
    const source = readFileSync(file, 'utf8');
    const targets: string[] = [];
    const statement = /(?:^|\n)\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g;
    for (const match of source.matchAll(statement)) {
      const specifier = match[4] ?? match[5];
      if (!specifier?.startsWith('.')) continue;
      if (match[2] && !options.types) continue;
      const names = match[3] ?? '';
      const braces = /^\{([^}]*)\}$/.exec(names.trim());
      if (!options.types && braces && braces[1]!.split(',').map((n) => n.trim()).filter(Boolean).every((n) => n.startsWith('type '))) continue;
      const target = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
      targets.push(relative(root, target));
    }
    graph.set(relative(root, file), targets);
  }
  return graph;
}

/** The groups of files that import each other in a ring (strongly connected components of more than one file). */
export function cycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'generated' || name === 'node_modules') return [];
    if (statSync(path).isDirectory()) return walk(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}
