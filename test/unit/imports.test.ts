/**
 * Guard: no import cycles in src/ or webview-ui/src (issue 7 §5, issue 17). The module graph is
 * read by scripts/module-graph.mjs with TypeScript's pre-processor (every import, re-export and
 * dynamic import, type-only ones too: a cycle of types is still two modules that cannot be
 * understood apart); a cycle fails with the modules on it.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

interface ModuleGraphScript {
  moduleGraph(root?: string): Map<string, string[]>;
  importCycles(graph: Map<string, string[]>): string[][];
  folderEdges(graph: Map<string, string[]>): { from: string; to: string; count: number; upward?: true }[];
}

const script = (): Promise<ModuleGraphScript> => import('../../scripts/module-graph.mjs') as Promise<ModuleGraphScript>;

describe('module structure', () => {
  it('has no import cycles in src/ or webview-ui/src', async () => {
    const { moduleGraph, importCycles } = await script();
    const graph = moduleGraph();
    assert.ok(graph.has('src/core/prd/index.ts') && graph.has('webview-ui/src/graph/app.ts'), 'both source roots are read');
    assert.deepEqual(importCycles(graph).map((c) => c.join(' → ')), []);
  });

  it('finds a cycle however its imports are written, and names it; the folder graph counts the imports and marks an upward one', async () => {
    const { moduleGraph, importCycles, folderEdges } = await script();
    const dir = mkdtempSync(path.join(tmpdir(), 'ralph-imports-'));
    try {
      const write = (file: string, text: string): void => {
        mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        writeFileSync(path.join(dir, file), text);
      };
      // A multi-line import, a type-only re-export and a dynamic import close the three cycles.
      write('src/core/prd/a.ts', "import {\n  b,\n} from '../taskGraph/b';\nexport const a = b;\n");
      write('src/core/taskGraph/b.ts', "export type { A } from '../prd/c';\nexport const b = 1;\n");
      write('src/core/prd/c.ts', "import { a } from './a';\nexport type A = typeof a;\n");
      write('webview-ui/src/graph/d.ts', "export const d = () => import('./e');\n");
      write('webview-ui/src/graph/e.ts', "import { d } from './d';\nexport const e = d;\n");
      const graph = moduleGraph(dir);
      assert.deepEqual(importCycles(graph).map((c) => c.join(' → ')), [
        'src/core/prd/a.ts → src/core/taskGraph/b.ts → src/core/prd/c.ts → src/core/prd/a.ts',
        'webview-ui/src/graph/d.ts → webview-ui/src/graph/e.ts → webview-ui/src/graph/d.ts',
      ]);
      assert.deepEqual(folderEdges(graph), [
        { from: 'src/core/prd', to: 'src/core/taskGraph', count: 1, upward: true },
        { from: 'src/core/taskGraph', to: 'src/core/prd', count: 1 },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
