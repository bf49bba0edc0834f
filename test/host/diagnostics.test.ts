import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import {
  demoText,
  describeDiagnostics,
  diagnosticCode,
  isStory,
  lineOf,
  prdUri,
  rangeOf,
  ralphDiagnostics,
  replaceInStory,
  storyId,
  storyLines,
  summarizeTree,
  tokens,
  useDemoRestore,
  waitFor,
  waitForDiagnostic,
  waitForNoRalphDiagnostics,
  waitForTree,
  writePrd,
} from './helpers';

function fmt(r: vscode.Range): string {
  return `${r.start.line + 1}:${r.start.character + 1}-${r.end.line + 1}:${r.end.character + 1}`;
}

/** Asserts that one of `diags` covers exactly `range`. */
function assertExactRange(diags: vscode.Diagnostic[], range: vscode.Range, what: string): vscode.Diagnostic {
  const hit = diags.find((d) => d.range.isEqual(range));
  assert.ok(hit, `expected a diagnostic exactly at ${what} (${fmt(range)}), got ${JSON.stringify(describeDiagnostics(), null, 1)}`);
  return hit;
}

function assertOnLine(diags: vscode.Diagnostic[], line: number, what: string): vscode.Diagnostic {
  const hit = diags.find((d) => d.range.start.line === line);
  assert.ok(hit, `expected a diagnostic on line ${line + 1} (${what}), got ${JSON.stringify(describeDiagnostics(), null, 1)}`);
  return hit;
}

async function codeActions(range: vscode.Range): Promise<vscode.CodeAction[]> {
  // The provider command needs the document loaded in the workbench ("Illegal argument" otherwise).
  await vscode.workspace.openTextDocument(prdUri());
  const actions = await vscode.commands.executeCommand<(vscode.CodeAction | vscode.Command)[]>('vscode.executeCodeActionProvider', prdUri(), range);
  return (actions ?? []).filter((a): a is vscode.CodeAction => 'title' in a && !('command' in a && typeof a.command === 'string'));
}

function ralphDiagnosticsOf(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'ralph');
}

async function closePrdEditors(): Promise<void> {
  const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === prdUri().toString());
  if (tabs.length > 0) {
    await vscode.window.tabGroups.close(tabs);
  }
}

async function applyAction(action: vscode.CodeAction): Promise<void> {
  if (action.edit) {
    assert.ok(await vscode.workspace.applyEdit(action.edit), `applying "${action.title}" failed`);
  }
  if (action.command) {
    await vscode.commands.executeCommand(action.command.command, ...(action.command.arguments ?? []));
  }
  assert.ok(action.edit || action.command, `code action "${action.title}" has neither an edit nor a command`);
}

/** The prd.json text as VS Code sees it now (open document if any). */
async function currentText(): Promise<string> {
  return (await vscode.workspace.openTextDocument(prdUri())).getText();
}

suite('diagnostics and quick fixes for broken prd.json files', () => {
  useDemoRestore();

  test('the demo has no ralph diagnostics (checked once diagnostics are being published)', async () => {
    // "None" must be the demo's answer, not "not published yet": first see one published for a
    // broken file, then the demo's bytes again, and wait until that diagnostic is withdrawn.
    await writePrd(replaceInStory(demoText, 'US-006', '"US-002"', '"US-099"'));
    await waitForDiagnostic('unknown-blocked-by');
    await writePrd(demoText);
    await waitForNoRalphDiagnostics();
    await waitForTree('the demo tree from the same analysis', (n) => n.length === 12 && n.every((x) => tokens(x.contextValue).includes('story')));
    assert.deepEqual(ralphDiagnostics(), []);
  });

  test('malformed JSON, file closed → "syntax" on the line of the stray comma (no one else reports it)', async () => {
    await closePrdEditors();
    const broken = replaceInStory(demoText, 'US-006', '"title": "Sort tasks by priority",', '"title": "Sort tasks by priority",,');
    await writePrd(broken);
    const top = await waitForTree('a problems node first', (n) => tokens(n[0]?.contextValue).includes('problems'));
    assert.match(top[0].label, /^\d+ problems? in prd\.json$/);
    if (vscode.workspace.textDocuments.some((d) => d.uri.toString() === prdUri().toString())) {
      return; // VS Code still holds the document (it releases closed documents lazily): the next test covers that case.
    }
    const diags = await waitForDiagnostic('syntax');
    assertOnLine(diags, lineOf(broken, 'Sort tasks by priority",,'), 'the doubled comma');
  });

  test('malformed JSON open in an editor → each syntax error once in Problems (issue 7 §1.7)', async () => {
    const editor = await vscode.window.showTextDocument(prdUri());
    assert.equal(editor.document.languageId, 'json');
    const broken = replaceInStory(demoText, 'US-006', '"title": "Sort tasks by priority",', '"title": "Sort tasks by priority",,');
    await writePrd(broken);
    const line = lineOf(broken, 'Sort tasks by priority",,');
    // VS Code's JSON language service reports it...
    await waitFor('the JSON language service to report the doubled comma', () => vscode.languages.getDiagnostics(prdUri()).some((d) => d.source !== 'ralph' && d.range.start.line === line), 20_000, () => describeDiagnostics());
    // ...and the tree still shows our problem (so our analysis has run on the broken text)...
    await waitForTree('a problems node first', (n) => tokens(n[0]?.contextValue).includes('problems'));
    // ...but Problems shows it once: no "syntax" diagnostic of ours on top.
    const onLine = vscode.languages.getDiagnostics(prdUri()).filter((d) => d.range.start.line === line);
    assert.equal(onLine.length, 1, `one diagnostic on the line of the doubled comma, got ${JSON.stringify(describeDiagnostics(), null, 1)}`);
    assert.deepEqual(ralphDiagnosticsOf(prdUri()).filter((d) => diagnosticCode(d) === 'syntax'), []);
  });

  test('malformed JSON: after its editor closes, the syntax error stays in Problems (issue 18 item 4)', async () => {
    await vscode.window.showTextDocument(prdUri());
    const broken = replaceInStory(demoText, 'US-006', '"title": "Sort tasks by priority",', '"title": "Sort tasks by priority",,');
    await writePrd(broken);
    const line = lineOf(broken, 'Sort tasks by priority",,');
    const onLine = () => vscode.languages.getDiagnostics(prdUri()).filter((d) => d.range.start.line === line && d.severity === vscode.DiagnosticSeverity.Error);
    await waitFor('the JSON language service to report the doubled comma', () => onLine().some((d) => d.source === 'json'), 20_000, () => describeDiagnostics());
    await closePrdEditors();
    // The JSON service stops reporting a file whose editor closed (VS Code may keep the document
    // itself for minutes): our own "syntax" diagnostic takes its place, on the same line.
    await waitFor('the JSON service to let go of the closed file', () => !onLine().some((d) => d.source === 'json'), 30_000, () => describeDiagnostics());
    const ours = await waitFor('a "syntax" diagnostic of ours on the line', () => {
      const d = ralphDiagnosticsOf(prdUri()).filter((x) => diagnosticCode(x) === 'syntax' && x.range.start.line === line);
      return d.length > 0 ? d : undefined;
    }, 10_000, () => describeDiagnostics());
    assert.ok(ours.length > 0);
    assert.ok(onLine().every((d) => d.source === 'ralph'), `only our errors on the line, none twice: ${JSON.stringify(describeDiagnostics(), null, 1)}`);
  });

  test('unknown blockedBy id → "unknown-blocked-by" exactly at the "US-099" literal, problems node, quick fix', async () => {
    const broken = replaceInStory(demoText, 'US-006', '"US-002"', '"US-099"');
    await writePrd(broken);
    const diags = await waitForDiagnostic('unknown-blocked-by');
    const literal = rangeOf(broken, '"US-099"');
    const diag = assertExactRange(diags, literal, 'the "US-099" string literal in US-006.blockedBy');
    assert.equal(diag.severity === vscode.DiagnosticSeverity.Error || diag.severity === vscode.DiagnosticSeverity.Warning, true);

    // The tree: a problems node first, one child per problem with "line N", then the stories.
    const tree = await waitForTree('a problems node first', (n) => tokens(n[0]?.contextValue).includes('problems'), 2);
    const problems = tree[0];
    assert.match(problems.label, /^1 problems? in prd\.json$/, `problems node label: ${problems.label}`);
    const children = problems.children ?? [];
    assert.equal(children.length, 1, `problem children: ${JSON.stringify(summarizeTree(children))}`);
    assert.equal(children[0].label, diag.message);
    assert.match(children[0].description ?? '', new RegExp(`\\bline ${literal.start.line + 1}\\b`));

    // US-006 can never run: it comes after the runnable pending stories, before the done ones.
    const ids = tree.filter(isStory).map(storyId);
    assert.deepEqual(
      ids,
      ['US-005', 'US-008', 'US-009', 'US-010', 'US-011', 'US-006', 'US-007', 'US-012', 'US-001', 'US-002', 'US-003', 'US-004'],
      `story order with US-006 waiting on an unknown id`,
    );

    // Quick fix on the literal.
    const actions = await codeActions(literal);
    const fix = actions.find((a) => a.title.startsWith('Remove "US-099" from the blockedBy of'));
    assert.ok(fix, `no 'Remove "US-099" from the blockedBy of…' quick fix; got ${JSON.stringify(actions.map((a) => a.title))}`);
    await applyAction(fix);
    const fixed = await waitFor('prd.json without US-099', async () => {
      const t = await currentText();
      return t.includes('US-099') ? undefined : t;
    });
    assert.deepEqual(JSON.parse(fixed).userStories[5].blockedBy ?? [], []);
    const doc = await vscode.workspace.openTextDocument(prdUri());
    if (doc.isDirty) {await doc.save();}
    await waitForNoRalphDiagnostics();
  });

  test('unknown id with a near match → "Change to US-004" is the first, preferred quick fix (issue 7 §1.6)', async () => {
    const broken = replaceInStory(demoText, 'US-006', '"US-002"', '"US-02"');
    await writePrd(broken);
    const diags = await waitForDiagnostic('unknown-blocked-by');
    const literal = rangeOf(broken, '"US-02"');
    const diag = assertExactRange(diags, literal, 'the "US-02" literal');
    assert.match(diag.message, /did you mean "US-002"\?/);
    const actions = await codeActions(literal);
    assert.equal(actions[0]?.title, 'Change to "US-002"', `actions: ${JSON.stringify(actions.map((a) => a.title))}`);
    assert.equal(actions[0].isPreferred, true);
    assert.ok(!actions.slice(1).some((a) => a.isPreferred), 'only the change is preferred');
    assert.ok(actions.some((a) => a.title.startsWith('Remove "US-02" from the blockedBy of')), 'removing stays possible');
    await applyAction(actions[0]);
    const fixed = await waitFor('prd.json with US-002 again', async () => {
      const t = await currentText();
      return t.includes('"US-02"') ? undefined : t;
    });
    assert.equal(fixed, demoText);
    const doc = await vscode.workspace.openTextDocument(prdUri());
    if (doc.isDirty) {await doc.save();}
    await waitForNoRalphDiagnostics();
  });

  test('self-dependency → "self-dependency" exactly at the "US-008" literal in its own blockedBy', async () => {
    const broken = replaceInStory(demoText, 'US-008', '"US-004"', '"US-008"');
    await writePrd(broken);
    const diags = await waitForDiagnostic('self-dependency');
    assertExactRange(diags, rangeOf(broken, '"US-008"', 2), 'the "US-008" literal in US-008.blockedBy');
  });

  test('3-story cycle US-005 → US-012 → US-011 → US-005 → "cycle" on a blockedBy entry of the cycle, "Break the cycle" fix', async () => {
    const broken = replaceInStory(demoText, 'US-005', '"US-003"', '"US-012"');
    await writePrd(broken);
    const diags = await waitForDiagnostic('cycle');
    const entryRange = (story: string, target: string): vscode.Range => {
      const { start, end } = storyLines(broken, story);
      const lines = broken.split('\n');
      for (let i = start; i <= end; i++) {
        const at = lines[i].indexOf(`"${target}"`);
        if (at >= 0 && !lines[i].includes('"id"')) {return new vscode.Range(i, at, i, at + target.length + 2);}
      }
      assert.fail(`${target} not in ${story}.blockedBy`);
    };
    const candidates = [entryRange('US-005', 'US-012'), entryRange('US-012', 'US-011'), entryRange('US-011', 'US-005')];
    const onEntry = diags.filter((d) => candidates.some((c) => c.isEqual(d.range)));
    assert.ok(
      onEntry.length > 0,
      `expected a cycle diagnostic exactly on one of ${candidates.map(fmt).join(', ')}; got ${JSON.stringify(describeDiagnostics(), null, 1)}`,
    );
    assert.match(onEntry[0].message, /US-005/);

    const actions = await codeActions(onEntry[0].range);
    const fix = actions.find((a) => a.title.startsWith('Break the cycle: remove'));
    assert.ok(fix, `no 'Break the cycle: remove…' quick fix; got ${JSON.stringify(actions.map((a) => a.title))}`);
    await applyAction(fix);
    const doc = await vscode.workspace.openTextDocument(prdUri());
    await waitFor('the cycle to be broken in the document', () => doc.getText() !== broken);
    if (doc.isDirty) {await doc.save();}
    await waitForNoRalphDiagnostics();
  });

  test('duplicate ids → "duplicate-id" on the second "id": "US-009"', async () => {
    const broken = replaceInStory(demoText, 'US-010', '"id": "US-010"', '"id": "US-009"');
    await writePrd(broken);
    const diags = await waitForDiagnostic('duplicate-id');
    const second = rangeOf(broken, '"id": "US-009"', 2);
    const literal = new vscode.Range(second.start.translate(0, 6), second.end);
    assertOnLine(diags, literal.start.line, 'the second "id": "US-009"');
    assert.ok(
      diags.some((d) => d.range.isEqual(literal)),
      `duplicate-id should be exactly on the "US-009" literal ${fmt(literal)}; got ${JSON.stringify(describeDiagnostics(), null, 1)}`,
    );
  });

  test('missing title of US-006 → a "missing-field" warning inside the US-006 object; the file stays usable', async () => {
    const lines = demoText.split('\n');
    const titleLine = lineOf(demoText, '"title": "Sort tasks by priority"');
    const broken = [...lines.slice(0, titleLine), ...lines.slice(titleLine + 1)].join('\n');
    await writePrd(broken);
    const diags = await waitForDiagnostic('missing-field');
    const { start, end } = storyLines(broken, 'US-006');
    const d = diags.find((x) => x.range.start.line >= start && x.range.start.line <= end);
    assert.ok(d, `expected a missing-field diagnostic within lines ${start + 1}-${end + 1} (story US-006); got ${JSON.stringify(describeDiagnostics(), null, 1)}`);
    assert.equal(d.severity, vscode.DiagnosticSeverity.Warning);
    assert.match(d.message, /title/);
  });

  test('wrong type (priority true) → "schema" exactly at the value', async () => {
    const broken = replaceInStory(demoText, 'US-006', '"priority": 5', '"priority": true');
    await writePrd(broken);
    const diags = await waitForDiagnostic('schema');
    const at = rangeOf(broken, '"priority": true');
    assertExactRange(diags, new vscode.Range(at.start.translate(0, 12), at.end), 'the true value of US-006.priority');
  });

  test('empty file → "empty-file" on line 1', async () => {
    await writePrd('');
    const diags = await waitForDiagnostic('empty-file');
    assert.equal(diags[0].range.start.line, 0);
  });

  test('every ralph diagnostic code is one of the documented codes', async () => {
    const broken = replaceInStory(replaceInStory(demoText, 'US-006', '"US-002"', '"US-099"'), 'US-008', '"US-004"', '"US-008"');
    await writePrd(broken);
    await waitForDiagnostic('self-dependency');
    const known = new Set(['encoding', 'empty-file', 'syntax', 'too-deep', 'no-stories', 'schema', 'duplicate-id', 'unknown-blocked-by', 'self-dependency', 'cycle', 'shape', 'missing-id', 'missing-field', 'field-synonym', 'priority', 'status', 'dependency-keys', 'option-like-id']);
    const all = vscode.languages.getDiagnostics(prdUri()).filter((d) => d.source === 'ralph');
    assert.deepEqual(all.map(diagnosticCode).filter((c) => !known.has(c ?? '')), []);
  });
});
