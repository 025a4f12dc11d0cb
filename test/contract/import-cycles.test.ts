import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { productionFiles, ROOT as root } from './production-files';

/**
 * No circle of imports among production modules (docs/architecture.md, "Layers"), type-only
 * imports included: a circle makes load order matter and hides which module is below which.
 */
const IMPORT = /\b(?:from|import|require)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

/** The production files `file` imports by relative path. */
function importsOf(file: string, source: string): string[] {
  return [...source.matchAll(IMPORT)].flatMap(([, specifier]) => {
    const base = path.join(path.dirname(file), specifier!);
    const target = [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')].find((candidate) =>
      fs.existsSync(path.join(root, candidate)),
    );
    return target ? [target] : [];
  });
}

/** The circles of a graph: its strongly connected components of more than one module, or one importing itself. */
function circles(graph: Map<string, string[]>): string[][] {
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (file: string) => {
    order.set(file, order.size);
    low.set(file, order.get(file)!);
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!order.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(file, Math.min(low.get(file)!, order.get(next)!));
    }
    if (low.get(file) !== order.get(file)) return;
    const component = stack.splice(stack.indexOf(file));
    if (component.length > 1 || graph.get(file)?.includes(file)) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!order.has(file)) visit(file);
  return found;
}

describe('import circles', () => {
  it('finds a circle, and none in a chain', () => {
    const chain = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', []],
    ]);
    expect(circles(chain)).toEqual([]);
    expect(circles(new Map([...chain, ['c', ['a']]]))).toEqual([['a', 'b', 'c']]);
  });

  it('has none among production modules', () => {
    const files = ['src', 'rest-compat', 'migrations'].flatMap(productionFiles);
    expect(files.length).toBeGreaterThan(300);
    const graph = new Map(
      files.map((file) => [file, importsOf(file, fs.readFileSync(path.join(root, file), 'utf8'))] as const),
    );
    expect([...graph.values()].flat().length).toBeGreaterThan(1000);
    expect(circles(graph)).toEqual([]);
  });
});
