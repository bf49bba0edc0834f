/**
 * Issue 17 §6, the host's half of the request-id rule (src/views/webviewHost.ts): an answer goes to
 * the load of the page that asked, or nowhere. A TaskGraphController of its own (as in
 * taskGraphFolders.test.ts) answers a `copy` request (asynchronous: the clipboard) while the page
 * goes away or reloads.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { analyzePrd } from '../../src/core/prd/index';
import type { HostMessage } from '../../src/core/webview/graphProtocol';
import type { PrdEntry, PrdWorkspace } from '../../src/services/prdWorkspace';
import type { Runner } from '../../src/services/run/runner';
import type { RunsWorkspace } from '../../src/services/runsWorkspace';
import { TaskGraphController } from '../../src/views/taskGraph/taskGraphController';
import { HostedPage } from '../../src/views/webviewHost';

suite('task graph answers (host)', () => {
  const uri = vscode.Uri.file('/nonexistent-ralph-test/answers');
  const prd = { folder: { uri, name: 'answers', index: 0 }, uri: vscode.Uri.joinPath(uri, 'prd.json'), analysis: analyzePrd(JSON.stringify({ userStories: [{ id: 'A-1', title: 'One', priority: 1, passes: false }] })) } as PrdEntry;
  const changed = new vscode.EventEmitter<void>();
  const never = new vscode.EventEmitter<never>();
  const prds = { list: () => [prd], onDidChange: changed.event, refreshAll: () => undefined } as unknown as PrdWorkspace;
  const runner = { state: { running: false }, onDidChange: never.event, onDidRecord: never.event } as unknown as Runner;
  const runs = { forFolder: () => undefined, onDidChange: never.event } as unknown as RunsWorkspace;
  let graph: TaskGraphController;
  let log: vscode.LogOutputChannel;
  setup(() => {
    log = vscode.window.createOutputChannel('Ralph graph answers test', { log: true });
    graph = new TaskGraphController({ prds, runner, runs, log, reveal: async () => undefined });
  });
  teardown(() => {
    graph.dispose();
    log.dispose();
  });

  /** A page whose posts are recorded. */
  function page(): { page: HostedPage<HostMessage, 'editor'>; posted: HostMessage[] } {
    const posted: HostMessage[] = [];
    return { page: new HostedPage<HostMessage, 'editor'>({ visible: true, webview: { postMessage: async (m: HostMessage) => posted.push(m) > 0 } }, 'editor'), posted };
  }
  const copy = { type: 'copy', format: 'text', requestId: 5 };

  test('the answer names the request it answers', async () => {
    const p = page();
    await graph.receive(p.page, copy);
    assert.deepEqual(p.posted, [{ type: 'notice', answers: 5, level: 'info', message: 'Copied the graph as text.', cycle: undefined }]);
  });

  test('a page disposed while its request was handled gets no answer', async () => {
    const p = page();
    const handled = graph.receive(p.page, copy);
    p.page.dispose();
    await handled;
    assert.deepEqual(p.posted, []);
  });

  test('a page reloaded while its request was handled gets the new state, not the answer meant for its earlier load', async () => {
    const p = page();
    const handled = graph.receive(p.page, copy);
    await graph.receive(p.page, { type: 'ready' });
    await handled;
    assert.deepEqual(p.posted.map((m) => m.type), ['graph', 'run'], 'the reloaded page gets the graph and the run status only');
  });
});
