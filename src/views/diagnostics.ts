/** Publishes every prd.json problem as a diagnostic at its exact range, with quick fixes. */
import * as vscode from 'vscode';
import { analyzePrd, type PrdAnalysis } from '../core/prd/index';
import type { Problem, ProblemFix } from '../core/prd/problems';
import { DIAGNOSTIC_SOURCE } from '../constants';
import type { PrdWorkspace } from '../services/prdWorkspace';
import { Disposable } from '../util/disposable';
import { editsToWorkspaceEdit } from '../util/edits';
import { toRange } from '../util/ranges';
import { removeBlockedByEdits } from '../core/prd/edits';

export { toRange };

export class PrdDiagnostics extends Disposable {
  private readonly collection = this.register(vscode.languages.createDiagnosticCollection('ralph'));
  private published = new Set<string>();

  constructor(private readonly prds: PrdWorkspace) {
    super();
    this.register(prds.onDidChange(() => this.update()));
    this.update();
  }

  private update(): void {
    const now = new Set<string>();
    for (const entry of this.prds.list()) {
      const key = entry.uri.toString();
      now.add(key);
      this.collection.set(entry.uri, entry.analysis.problems.map((p) => toDiagnostic(p, entry.uri, entry.analysis)));
    }
    for (const key of this.published) {
      if (!now.has(key)) {
        this.collection.delete(vscode.Uri.parse(key));
      }
    }
    this.published = now;
  }
}

function toDiagnostic(p: Problem, uri: vscode.Uri, analysis: PrdAnalysis): vscode.Diagnostic {
  const d = new vscode.Diagnostic(toRange(p.range), p.message, p.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning);
  d.source = DIAGNOSTIC_SOURCE;
  d.code = p.code;
  if (p.cycle) {
    // Point at every other edge of the same cycle, so the whole loop is one click away.
    d.relatedInformation = analysis.problems
      .filter((q) => q !== p && q.code === 'cycle' && q.cycle?.join() === p.cycle?.join())
      .map((q) => new vscode.DiagnosticRelatedInformation(new vscode.Location(uri, toRange(q.range)), `${q.storyId} is part of this cycle`));
  }
  if (p.code === 'duplicate-id' && p.storyId) {
    const first = analysis.doc.stories.find((s) => s.id === p.storyId);
    if (first) {
      d.relatedInformation = [new vscode.DiagnosticRelatedInformation(new vscode.Location(uri, toRange(first.idRange)), `"${p.storyId}" is first used here`)];
    }
  }
  return d;
}

/** Quick fixes: remove an unknown or self blockedBy id; break a cycle by removing the edge the user picks. */
export class PrdCodeActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];
  private cache?: { uri: string; version: number; analysis: PrdAnalysis };

  constructor(private readonly prds: PrdWorkspace) {}

  provideCodeActions(document: vscode.TextDocument, range: vscode.Range | vscode.Selection, context: vscode.CodeActionContext): vscode.CodeAction[] {
    if (!this.prds.byUri(document.uri)) {
      return [];
    }
    const ours = context.diagnostics.filter((d) => d.source === DIAGNOSTIC_SOURCE);
    if (ours.length === 0 && context.only === undefined) {
      return [];
    }
    const analysis = this.analysisOf(document);
    const text = document.getText();
    const actions: vscode.CodeAction[] = [];
    const seen = new Set<string>();
    for (const p of analysis.problems) {
      if (!p.fixes || !toRange(p.range).intersection(range)) {
        continue;
      }
      const diagnostic = ours.find((d) => d.code === p.code && d.range.isEqual(toRange(p.range)));
      for (const fix of p.fixes) {
        const key = `${fix.storyIndex}:${fix.blockedId}`;
        if (seen.has(key)) {
          continue;
        }
        seen.add(key);
        const action = new vscode.CodeAction(fix.title, vscode.CodeActionKind.QuickFix);
        action.edit = fixEdit(document.uri, text, fix);
        if (diagnostic) {
          action.diagnostics = [diagnostic];
        }
        // The fix for the edge under the cursor is the obvious one.
        action.isPreferred = p.code !== 'cycle' || (fix.storyIndex === p.storyIndex && p.range.offset === analysis.doc.stories[fix.storyIndex]?.blockedBy.find((b) => b.id === fix.blockedId)?.range.offset);
        actions.push(action);
      }
    }
    return actions;
  }

  private analysisOf(document: vscode.TextDocument): PrdAnalysis {
    const uri = document.uri.toString();
    if (this.cache?.uri !== uri || this.cache.version !== document.version) {
      this.cache = { uri, version: document.version, analysis: analyzePrd(document.getText()) };
    }
    return this.cache.analysis;
  }
}

export function fixEdit(uri: vscode.Uri, text: string, fix: ProblemFix): vscode.WorkspaceEdit {
  return editsToWorkspaceEdit(uri, text, removeBlockedByEdits(text, fix.storyIndex, fix.elementIndex));
}
