/**
 * Guard (issue 17 item 1): in the extension, prd.json is parsed by the workspace model alone
 * (src/services/prdWorkspace.ts) and runs.jsonl by RunsWorkspace alone (with the path rule); every
 * view, command and the GitHub layer reads their snapshots. A module that imports a parser of
 * those files fails here with its name. (Edits of prd.json are computed on the text they change by
 * src/core/prd/edits.ts and graphEdits.ts: not a reader of what the views show.)
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const src = path.join(__dirname, '../../src');

/** The parsers of the two files, by the module that exports them. */
const PARSERS: Readonly<Record<string, readonly string[]>> = {
  'core/prd/index': ['analyzePrd', 'analyzePrdForReadiness'],
  'core/prd/document': ['parsePrd', 'parsePrdBytes', 'parsePrdWithTree'],
  'core/runs/runs': ['parseRuns'],
};

/** The one reader of each file. */
const READERS = new Set(['services/prdWorkspace.ts', 'services/runsWorkspace.ts']);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** `analyzePrd from core/prd/index` for each parser a module imports by name. */
function parsersImported(file: string, text = readFileSync(file, 'utf8')): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest);
  const out: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier) || !statement.moduleSpecifier.text.startsWith('.')) {
      continue;
    }
    const target = path.relative(src, path.resolve(path.dirname(file), statement.moduleSpecifier.text)).split(path.sep).join('/');
    const names = statement.importClause?.namedBindings;
    const parsers = PARSERS[target] ?? [];
    if (names && ts.isNamedImports(names)) {
      for (const element of names.elements) {
        const name = (element.propertyName ?? element.name).text;
        if (!element.isTypeOnly && !statement.importClause?.isTypeOnly && parsers.includes(name)) {
          out.push(`${name} from ${target}`);
        }
      }
    } else if (names && ts.isNamespaceImport(names) && parsers.length > 0) {
      out.push(`* from ${target}`);
    }
  }
  return out;
}

describe('one reader of prd.json and of runs.jsonl in the extension (issue 17)', () => {
  it('no view, command, service or helper other than the two readers imports a parser of those files', () => {
    const extension = ['services', 'views', 'commands', 'util'].flatMap((d) => files(path.join(src, d))).concat([path.join(src, 'extension.ts'), path.join(src, 'testApi.ts')]);
    const found: string[] = [];
    for (const file of extension) {
      const rel = path.relative(src, file).split(path.sep).join('/');
      if (READERS.has(rel)) {
        continue;
      }
      found.push(...parsersImported(file).map((p) => `${rel}: ${p}`));
    }
    assert.deepEqual(found, []);
  });

  it('the guard sees an import of a parser (the diagnostics module before issue 17 imported analyzePrd)', () => {
    const text = "import { analyzePrd, type PrdAnalysis } from '../core/prd/index';\nimport * as runs from '../core/runs/runs';\nimport type { RunRecord } from '../core/runs/runs';\n";
    assert.deepEqual(parsersImported(path.join(src, 'views', 'diagnostics.ts'), text), ['analyzePrd from core/prd/index', '* from core/runs/runs']);
  });
});
