/**
 * The layer lint (`ralph/layers` in eslint.config.mjs, ARCHITECTURE.md "Layers") run on small
 * sources placed, by name, in the folders whose rules they test: an import that goes where its
 * layer may not go fails, one that stays inside the rules passes.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { ESLint } from 'eslint';

const root = path.resolve(__dirname, '../..');

describe('the layer lint (ralph/layers)', function () {
  this.timeout(60_000);
  let eslint: ESLint;
  before(() => {
    eslint = new ESLint({ cwd: root });
  });

  /** The layer messages for `source` linted as if it were the file `file` (repository path). */
  async function layerErrors(file: string, source: string): Promise<string[]> {
    const [result] = await eslint.lintText(source, { filePath: path.join(root, file) });
    return result.messages.filter((m) => m.ruleId === 'ralph/layers').map((m) => m.message);
  }

  it('refuses an upward import inside src/core: a per-file model importing what is built on it', async () => {
    const prdToGraph = await layerErrors('src/core/prd/probe.ts', "import { taskGraphOf } from '../taskGraph/model';\nexport const f = taskGraphOf;\n");
    assert.equal(prdToGraph.length, 1, 'src/core/prd → src/core/taskGraph');
    assert.match(prdToGraph[0], /src\/core\/prd is a per-file model and must not import src\/core\/taskGraph/);
    for (const [file, source] of [
      ['src/core/progress/probe.ts', "export { LoopController } from '../loop/loop';\n"],
      ['src/core/runs/probe.ts', "import type { PromptInput } from '../context/prompt';\nexport type P = PromptInput;\n"],
      ['src/core/agentsMd.probe.ts', "import { taskGraphOf } from './taskGraph/model';\nexport const f = taskGraphOf;\n"],
      ['src/core/probe.ts', "import { analyzePrd } from './prd/index';\nexport const f = analyzePrd;\n"],
      ['src/core/webview/probeProtocol.ts', "import type { Story } from '../prd/model';\nexport type S = Story;\n"],
    ]) {
      assert.equal((await layerErrors(file, source)).length, 1, `${file}: ${source}`);
    }
  });

  it('lets a module import its own tier and the tiers below it', async () => {
    for (const [file, source] of [
      ['src/core/taskGraph/probe.ts', "import { analyzePrd } from '../prd/index';\nimport { stronglyConnectedComponents } from '../graph';\nexport const f = [analyzePrd, stronglyConnectedComponents];\n"],
      ['src/core/artifacts/probe.ts', "import { nodeAt } from '../prd/document';\nexport const f = nodeAt;\n"],
      ['src/core/loop/probe.ts', "import { resolveAgentCommand } from '../agents/presets';\nexport const f = resolveAgentCommand;\n"],
      ['src/core/prd/probe.ts', "import { MinHeap } from '../heap';\nexport const f = MinHeap;\n"],
    ]) {
      assert.deepEqual(await layerErrors(file, source), [], `${file}: ${source}`);
    }
  });

  it('keeps src/core pure and off the layers above it', async () => {
    assert.equal((await layerErrors('src/core/prd/probe.ts', "import * as vscode from 'vscode';\nexport const v = vscode;\n")).length, 1);
    assert.equal((await layerErrors('src/core/prd/probe.ts', "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n")).length, 1);
    for (const layer of ['views/storyNodes', 'services/settings', 'commands/run', 'node/atomicWrite', 'cli/main']) {
      assert.equal((await layerErrors('src/core/probe.ts', `import * as x from '../${layer}';\nexport const y = x;\n`)).length, 1, layer);
    }
  });

  it('lets a webview page import its protocol and the vocabulary, and nothing else of src/', async () => {
    assert.deepEqual(await layerErrors('webview-ui/src/graph/probe.ts', "import { STATE_VOCABULARY } from '../../../src/core/vocabulary';\nimport type { GraphMessage } from '../../../src/core/webview/graphProtocol';\nexport type G = GraphMessage;\nexport const v = STATE_VOCABULARY;\n"), []);
    assert.equal((await layerErrors('webview-ui/src/graph/probe.ts', "import type { Story } from '../../../src/core/prd/model';\nexport type S = Story;\n")).length, 1);
  });
});
