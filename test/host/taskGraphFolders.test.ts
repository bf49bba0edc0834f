/**
 * The task graph in a multi-root workspace. The host tier runs one folder (adding one would restart
 * the extension host), so this drives a TaskGraphController of its own over two folders' prd.json,
 * the way the extension wires it: the graph shows the first folder, follows the folder of a story
 * selected in the Stories view, and tells the page there is a choice ("Choose prd.json…").
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { analyzePrd } from '../../src/core/prd/index';
import type { GraphMessage } from '../../src/core/webview/graphProtocol';
import type { PrdEntry, PrdWorkspace } from '../../src/services/prdWorkspace';
import type { Runner } from '../../src/services/run/runner';
import { receiveAsPage } from '../../src/testApi';
import { TaskGraphController } from '../../src/views/taskGraph/taskGraphController';

function entry(name: string, stories: { id: string; blockedBy?: string[] }[]): PrdEntry {
  const uri = vscode.Uri.file(`/nonexistent-ralph-test/${name}`);
  const text = JSON.stringify({ userStories: stories.map((s, i) => ({ id: s.id, title: `${name} ${s.id}`, priority: i + 1, passes: false, blockedBy: s.blockedBy ?? [] })) }, null, 2);
  return { folder: { uri, name, index: 0 }, uri: vscode.Uri.joinPath(uri, 'prd.json'), analysis: analyzePrd(text) } as PrdEntry;
}

suite('task graph in a multi-root workspace (host)', () => {
  test('shows the first folder, follows the folder of a story selected in Stories, and offers the choice', async () => {
    const alpha = entry('alpha', [{ id: 'A-1' }, { id: 'A-2', blockedBy: ['A-1'] }]);
    const beta = entry('beta', [{ id: 'B-1' }, { id: 'B-2' }, { id: 'B-3', blockedBy: ['B-1', 'B-2'] }]);
    const changed = new vscode.EventEmitter<void>();
    const never = new vscode.EventEmitter<never>();
    const prds = { list: () => [alpha, beta], onDidChange: changed.event, refreshAll: () => undefined } as unknown as PrdWorkspace;
    const runner = { state: { running: false }, onDidChange: never.event, onDidRecord: never.event } as unknown as Runner;
    const log = vscode.window.createOutputChannel('Ralph graph test', { log: true });
    const runs = { forFolder: () => undefined, onDidChange: never.event };
    const graph = new TaskGraphController({ prds, runner, runs, log, reveal: async () => undefined });
    try {
      const ids = (g: unknown): string[] => (g as GraphMessage).nodes.map((n) => n.id);
      let g = graph.snapshot() as GraphMessage;
      assert.equal(g.type, 'graph');
      assert.deepEqual(ids(g), ['A-1', 'A-2'], 'the first folder with a prd.json');
      assert.equal(g.sources, 2, 'the page is told there are two prd.json files to choose from');

      // the user selects B-3 in the Stories view (beta's folder)
      graph.select('B-3', beta.folder.uri);
      g = graph.snapshot() as GraphMessage;
      assert.deepEqual(ids(g), ['B-1', 'B-2', 'B-3'], 'the graph follows the folder of the selected story');
      assert.equal(g.edges.length, 2);
      assert.match(g.source, /prd\.json$/);
      const details = await receiveAsPage(graph, { type: 'details', id: 'B-3' });
      assert.deepEqual(details.replies.map((m) => m.type), ['details'], "the detail pane's text comes from the folder shown");

      // selecting a story of the folder already shown does not change the graph
      const before = graph.snapshot();
      graph.select('B-1', beta.folder.uri);
      assert.equal(graph.snapshot(), before);
      // and back to alpha
      graph.select('A-2', alpha.folder.uri);
      assert.deepEqual(ids(graph.snapshot()), ['A-1', 'A-2']);
    } finally {
      graph.dispose();
      log.dispose();
      changed.dispose();
      never.dispose();
    }
  });
});
