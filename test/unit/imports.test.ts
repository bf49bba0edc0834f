/**
 * Guard: no import cycles in src/ (issue 7 §5). Walks every relative import (type-only ones too:
 * a cycle of types is still two modules that cannot be understood apart) and fails with the cycle.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const src = path.join(__dirname, '../../src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

function resolve(from: string, spec: string): string | undefined {
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) {
    if (existsSync(candidate)) {
      return candidate;
    }
  }
  return undefined;
}

/** Relative imports and re-exports of a module. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/gm)) {
    const target = resolve(file, m[1]);
    if (target) {
      out.push(target);
    }
  }
  return out;
}

describe('module structure', () => {
  it('has no import cycles in src/', () => {
    const graph = new Map(files(src).map((f) => [f, importsOf(f)]));
    const state = new Map<string, 1 | 2>();
    const stack: string[] = [];
    const cycles: string[] = [];
    const visit = (f: string): void => {
      state.set(f, 1);
      stack.push(f);
      for (const g of graph.get(f) ?? []) {
        if (state.get(g) === 1) {
          cycles.push([...stack.slice(stack.indexOf(g)), g].map((x) => path.relative(src, x)).join(' → '));
        } else if (!state.has(g)) {
          visit(g);
        }
      }
      stack.pop();
      state.set(f, 2);
    };
    for (const f of graph.keys()) {
      if (!state.has(f)) {
        visit(f);
      }
    }
    assert.deepEqual(cycles, []);
  });
});
