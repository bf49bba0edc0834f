/** Shared helpers of the extension-host suites. They run inside VS Code's extension host. */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RalphApi, TreeSnapshotNode } from '../../src/api';
import type { GraphMessage } from '../../src/core/webview/graphProtocol';

export const EXTENSION_ID = 'ralph-workbench.ralph-workbench';

export function extension(): vscode.Extension<RalphApi> {
  const ext = vscode.extensions.getExtension<RalphApi>(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is not installed in the extension host`);
  return ext;
}

export async function api(): Promise<RalphApi> {
  const a = await extension().activate();
  assert.ok(a && typeof a.whenIdle === 'function' && typeof a.storiesSnapshot === 'function', 'activate() did not return the RalphApi');
  return a;
}

/**
 * The command errors recorded since the last call (a user saw each as a "Ralph: …" notification),
 * cleared: a test that expects a command to fail takes its error, so the root afterEach hook
 * (test/host/index.ts), which fails a test on any other command error, lets it pass.
 */
export async function takeCommandErrors(): Promise<{ command: string; message: string }[]> {
  const a = await api();
  const errors = [...a.commandErrors()];
  a.clearCommandErrors();
  return errors;
}

/** Runs `fn` and returns the one error of `command` it caused (fails when there is none). */
export async function expectCommandError(command: string, fn: () => Thenable<unknown>): Promise<string> {
  await takeCommandErrors();
  const result = await fn();
  const errors = await takeCommandErrors();
  const mine = errors.filter((e) => e.command === command);
  assert.equal(mine.length, 1, `expected one error from ${command}; result ${JSON.stringify(result)}, errors ${JSON.stringify(errors)}`);
  return mine[0].message;
}

/** A question Ralph asked before acting, as the person saw it (src/services/confirm.ts). */
export interface AskedQuestion {
  readonly message: string;
  readonly detail?: string;
  readonly choices: readonly string[];
}

/**
 * Runs `fn` with every question Ralph asks answered by `answer` (a button, or undefined for
 * Cancel), through the test API's confirmation seam; returns what `fn` returned and the questions
 * asked. The dialog is restored afterwards, whatever happens.
 */
export async function answering<T>(answer: string | undefined, fn: () => Thenable<T>): Promise<{ result: T; questions: AskedQuestion[] }> {
  const a = await api();
  const questions: AskedQuestion[] = [];
  a.answerConfirmations((q) => {
    questions.push(q);
    return answer;
  });
  try {
    return { result: await fn(), questions };
  } finally {
    a.answerConfirmations(undefined);
  }
}

/**
 * Undoes in `doc`'s editor until its text is `text` (at most `maxUndos` times), waiting after each
 * undo for the document change it causes (deadline `timeoutMs`), never a fixed sleep.
 */
export async function undoUntil(doc: vscode.TextDocument, text: string, maxUndos = 3, timeoutMs = 5_000): Promise<void> {
  for (let i = 0; i < maxUndos && doc.getText() !== text; i++) {
    await vscode.window.showTextDocument(doc, { preview: false });
    const changed = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        sub.dispose();
        resolve(false);
      }, timeoutMs);
      const sub = vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document === doc) {
          clearTimeout(timer);
          sub.dispose();
          resolve(true);
        }
      });
    });
    await vscode.commands.executeCommand('undo');
    assert.ok(await changed, `undo did not change ${vscode.workspace.asRelativePath(doc.uri)} within ${timeoutMs} ms`);
  }
}

export function workspaceFolder(): vscode.WorkspaceFolder {
  const f = vscode.workspace.workspaceFolders?.[0];
  assert.ok(f, 'the tests need a workspace folder (a copy of examples/demo)');
  return f;
}

export function prdUri(): vscode.Uri {
  return vscode.Uri.joinPath(workspaceFolder().uri, 'prd.json');
}

const decoder = new TextDecoder('utf-8');
const encoder = new TextEncoder();

export async function readPrdBytes(): Promise<Uint8Array> {
  return vscode.workspace.fs.readFile(prdUri());
}

export async function readPrd(): Promise<string> {
  return decoder.decode(await readPrdBytes());
}

/** Writes prd.json on disk (as another program would) and waits for the extension to settle. */
export async function writePrd(text: string | Uint8Array): Promise<void> {
  const bytes = typeof text === 'string' ? encoder.encode(text) : text;
  await vscode.workspace.fs.writeFile(prdUri(), bytes);
  // An open editor of prd.json without unsaved changes shows the new text a moment later (VS Code
  // reloads it on its file event); Ralph has often read the file before that. Wait for the editor
  // too, so a test that asks the document (code actions, edits) sees what is on disk.
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === prdUri().toString());
  if (open && !open.isDirty) {
    const expected = new TextDecoder().decode(bytes);
    await waitFor('the open prd.json to show what was written', () => open.isDirty || open.isClosed || open.getText() === expected, 5_000).catch(() => undefined);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Polls `probe` until it returns a value that is not undefined/false, or fails after `timeoutMs`
 * with `what` and the last value seen.
 */
export async function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 10_000, describeLast?: () => unknown): Promise<T> {
  const start = Date.now();
  let lastError: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) {
        return v;
      }
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() - start > timeoutMs) {
      const last = describeLast ? `\nlast seen: ${JSON.stringify(await describeLast(), null, 1)}` : '';
      const err = lastError ? `\nlast error: ${lastError instanceof Error ? lastError.message : String(lastError)}` : '';
      assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}${err}${last}`);
    }
    await sleep(50);
  }
}

/** Waits until the Task Graph's latest message is a graph that satisfies `ok`. */
export async function waitForGraph(what: string, ok: (g: GraphMessage) => boolean): Promise<GraphMessage> {
  const a = await api();
  return waitFor(what, () => {
    const g = a.taskGraphSnapshot() as GraphMessage;
    return g?.type === 'graph' && ok(g) ? g : undefined;
  }, 10_000, () => {
    const g = a.taskGraphSnapshot() as GraphMessage;
    return g?.type === 'graph' ? g.nodes.map((n) => `${n.id}:${n.state}:[${n.blockedBy.join(',')}]`) : g;
  });
}

/** The ralph diagnostics on prd.json. */
export function ralphDiagnostics(uri: vscode.Uri = prdUri()): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'ralph');
}

export function diagnosticCode(d: vscode.Diagnostic): string | undefined {
  const c = d.code;
  if (c === undefined) {return undefined;}
  if (typeof c === 'object') {return String(c.value);}
  return String(c);
}

export function describeDiagnostics(uri: vscode.Uri = prdUri()): unknown {
  return vscode.languages.getDiagnostics(uri).map((d) => ({
    source: d.source,
    code: diagnosticCode(d),
    line: d.range.start.line + 1,
    range: `${d.range.start.line + 1}:${d.range.start.character + 1}-${d.range.end.line + 1}:${d.range.end.character + 1}`,
    message: d.message,
  }));
}

/** Waits until a ralph diagnostic with `code` is published on prd.json. */
export async function waitForDiagnostic(code: string, timeoutMs = 10_000): Promise<vscode.Diagnostic[]> {
  return waitFor(
    `a "ralph" diagnostic with code "${code}" on prd.json`,
    () => {
      const found = ralphDiagnostics().filter((d) => diagnosticCode(d) === code);
      return found.length > 0 ? found : undefined;
    },
    timeoutMs,
    () => describeDiagnostics(),
  );
}

export async function waitForNoRalphDiagnostics(timeoutMs = 10_000): Promise<void> {
  await waitFor('no "ralph" diagnostics on prd.json', () => ralphDiagnostics().length === 0, timeoutMs, () => describeDiagnostics());
}

/** Snapshot of the Stories tree after pending refreshes. */
export async function snapshot(depth = 1): Promise<TreeSnapshotNode[]> {
  const a = await api();
  await a.whenIdle();
  return a.storiesSnapshot(depth);
}

/** Waits until the tree satisfies `predicate` (file watchers are asynchronous). */
export async function waitForTree(what: string, predicate: (nodes: TreeSnapshotNode[]) => boolean, depth = 1, timeoutMs = 10_000): Promise<TreeSnapshotNode[]> {
  let last: TreeSnapshotNode[] = [];
  return waitFor(
    what,
    async () => {
      last = await snapshot(depth);
      return predicate(last) ? last : undefined;
    },
    timeoutMs,
    () => summarizeTree(last),
  );
}

/** "US-006" from the story row "US-006 · next · Sort tasks by priority". */
export function storyId(node: TreeSnapshotNode): string | undefined {
  return /^(.+?) · /.exec(node.label)?.[1];
}

/** The state word of a story row ("next", "ready", "blocked", "done", "invalid", "in a cycle", "running", "stale"). */
export function storyState(node: TreeSnapshotNode): string | undefined {
  return /^.+? · (in a cycle|\w+)/.exec(node.label)?.[1];
}

export function tokens(contextValue: string | undefined): string[] {
  return (contextValue ?? '').split(/[^A-Za-z0-9_-]+/).filter(Boolean);
}

export function isStory(node: TreeSnapshotNode): boolean {
  return tokens(node.contextValue).includes('story');
}

export function findStory(nodes: readonly TreeSnapshotNode[], id: string): TreeSnapshotNode {
  const n = nodes.find((x) => storyId(x) === id);
  assert.ok(n, `no tree node for story ${id}; top-level labels: ${JSON.stringify(nodes.map((x) => x.label))}`);
  return n;
}

export function summarizeTree(nodes: readonly TreeSnapshotNode[] | undefined): unknown {
  return (nodes ?? []).map((n) => `${n.label} | ${n.description ?? ''} | ${n.contextValue ?? ''}${n.children ? ` | ${n.children.length} children` : ''}`);
}

/** 0-based line of the `occurrence`-th (1-based) occurrence of `needle` in `text`. */
export function lineOf(text: string, needle: string, occurrence = 1): number {
  let at = -1;
  for (let i = 0; i < occurrence; i++) {
    at = text.indexOf(needle, at + 1);
    assert.ok(at >= 0, `"${needle}" (occurrence ${occurrence}) not found in prd.json`);
  }
  return text.slice(0, at).split('\n').length - 1;
}

/** Range of the `occurrence`-th occurrence of `needle` in `text`. */
export function rangeOf(text: string, needle: string, occurrence = 1): vscode.Range {
  let at = -1;
  for (let i = 0; i < occurrence; i++) {
    at = text.indexOf(needle, at + 1);
    assert.ok(at >= 0, `"${needle}" (occurrence ${occurrence}) not found`);
  }
  const before = text.slice(0, at).split('\n');
  const line = before.length - 1;
  const ch = before[before.length - 1].length;
  const endLines = needle.split('\n');
  const endLine = line + endLines.length - 1;
  const endCh = endLines.length === 1 ? ch + needle.length : endLines[endLines.length - 1].length;
  return new vscode.Range(line, ch, endLine, endCh);
}

/** Line range (0-based, inclusive) of the story object whose id is `id`, by brace matching. */
export function storyLines(text: string, id: string): { start: number; end: number } {
  const idAt = text.indexOf(`"id": "${id}"`);
  assert.ok(idAt >= 0, `story ${id} not found in prd.json`);
  const open = text.lastIndexOf('{', idAt);
  let depth = 0;
  let inString = false;
  let close = -1;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') {i++;}
      else if (c === '"') {inString = false;}
    } else if (c === '"') {inString = true;}
    else if (c === '{') {depth++;}
    else if (c === '}' && --depth === 0) {
      close = i;
      break;
    }
  }
  const line = (offset: number): number => text.slice(0, offset).split('\n').length - 1;
  return { start: line(open), end: line(close) };
}

/**
 * Replaces the `occurrence`-th occurrence of `from` inside the story object `id` with `to`.
 */
export function replaceInStory(text: string, id: string, from: string, to: string): string {
  const { start, end } = storyLines(text, id);
  const lines = text.split('\n');
  for (let i = start; i <= end; i++) {
    const at = lines[i].indexOf(from);
    if (at >= 0) {
      lines[i] = lines[i].slice(0, at) + to + lines[i].slice(at + from.length);
      return lines.join('\n');
    }
  }
  assert.fail(`"${from}" not found in story ${id}`);
}

/** Reverts dirty editors and closes all editors (test cleanup). */
export async function closeAllEditors(): Promise<void> {
  for (const doc of vscode.workspace.textDocuments) {
    if (doc.isDirty && !doc.isUntitled) {
      await vscode.window.showTextDocument(doc);
      await vscode.commands.executeCommand('workbench.action.files.revert');
    }
  }
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
}

/** The original bytes of the workspace's prd.json, captured by useDemoRestore(). */
export let demoBytes: Uint8Array = new Uint8Array();
export let demoText = '';

/**
 * For suites that change prd.json: captures it before the suite and, after every test, closes the
 * editors, writes the original bytes back and waits until the tree shows the demo again.
 */
export function useDemoRestore(): void {
  suiteSetup(async () => {
    demoBytes = await readPrdBytes();
    demoText = decoder.decode(demoBytes);
    await api();
  });
  teardown(async () => {
    await closeAllEditors();
    const now = await readPrdBytes().catch(() => undefined);
    if (!now || Buffer.compare(Buffer.from(now), Buffer.from(demoBytes)) !== 0) {
      await writePrd(demoBytes);
    }
    // A prd.json document that stays loaded reloads from disk asynchronously; wait for it so the
    // next test does not start on a stale document.
    await waitFor('the loaded prd.json document to match the restored file', () => {
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === prdUri().toString());
      return !doc || (!doc.isDirty && doc.getText() === demoText);
    });
    await waitForNoRalphDiagnostics();
    await waitForTree('the demo tree (12 stories, no problems node) after restoring prd.json', (nodes) => nodes.length === 12 && nodes.every(isStory));
  });
}

/**
 * Points the extension at a local GitHub stand-in (the emulator) as a user does, through the
 * user setting ralph.github.standInUrl (application scope); undefined: GitHub itself again.
 */
export async function useStandIn(url: string | undefined): Promise<void> {
  await vscode.workspace.getConfiguration('ralph.github').update('standInUrl', url, vscode.ConfigurationTarget.Global);
}
