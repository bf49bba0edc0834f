/** Publishes every prd.json problem as a diagnostic at its exact range, with quick fixes. */
import * as vscode from 'vscode';
import type { PrdAnalysis } from '../core/prd/index';
import { type CycleEdge, formatCycle, type Problem, type ProblemFix, shortId } from '../core/prd/problems';
import { DIAGNOSTIC_SOURCE } from '../constants';
import type { PrdWorkspace } from '../services/prdWorkspace';
import { Disposable } from '../util/disposable';
import { editsToWorkspaceEdit } from '../util/edits';
import { toRange } from '../util/ranges';
import { fixEdits } from '../core/prd/edits';

export { toRange };

/** Related locations listed on one diagnostic (the rest of a long cycle is one click away in the tree). */
const MAX_RELATED = 20;

/**
 * Whether VS Code's own JSON language service is showing errors for this file now: then our
 * `syntax` problems would show every error twice in Problems, so only the tree and the CLI show
 * them. Asked of what Problems holds, not of which documents are open: VS Code keeps a closed
 * editor's document for a while, and the JSON service's errors go away before it does.
 */
function jsonServiceReports(uri: vscode.Uri): boolean {
  return vscode.languages.getDiagnostics(uri).some((d) => d.source === 'json' && d.severity === vscode.DiagnosticSeverity.Error);
}

export class PrdDiagnostics extends Disposable {
  private readonly collection = this.register(vscode.languages.createDiagnosticCollection('ralph'));
  private published = new Set<string>();
  /** The prd.json files whose errors the JSON service was reporting at the last update. */
  private jsonReported = new Set<string>();

  constructor(private readonly prds: PrdWorkspace) {
    super();
    this.register(prds.onDidChange(() => this.update()));
    // The JSON service starting or stopping to report a prd.json's errors (an editor opened or
    // closed, json.validate.enable changed) changes whether ours are shown. Our own publishing
    // fires this event too: only a change in what the JSON service reports leads to an update.
    this.register(
      vscode.languages.onDidChangeDiagnostics((e) => {
        if (e.uris.some((u) => this.prds.byUri(u) && jsonServiceReports(u) !== this.jsonReported.has(u.toString()))) {
          this.update();
        }
      }),
    );
    this.update();
  }

  private update(): void {
    const now = new Set<string>();
    const jsonNow = new Set<string>();
    for (const entry of this.prds.list()) {
      const key = entry.uri.toString();
      now.add(key);
      const skipSyntax = jsonServiceReports(entry.uri);
      if (skipSyntax) {
        jsonNow.add(key);
      }
      const diagnostics: vscode.Diagnostic[] = [];
      for (const p of entry.analysis.problems) {
        if (skipSyntax && p.code === 'syntax') {
          continue;
        }
        diagnostics.push(...toDiagnostics(p, entry.uri, entry.analysis));
      }
      this.collection.set(entry.uri, diagnostics);
    }
    for (const key of this.published) {
      if (!now.has(key)) {
        this.collection.delete(vscode.Uri.parse(key));
      }
    }
    this.published = now;
    this.jsonReported = jsonNow;
  }
}

function diagnostic(range: Problem['range'], message: string, p: Problem): vscode.Diagnostic {
  const d = new vscode.Diagnostic(toRange(range), message, p.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning);
  d.source = DIAGNOSTIC_SOURCE;
  d.code = p.code;
  return d;
}

/**
 * One diagnostic per problem; a cycle also marks each of its other dependencies with a short
 * message (bounded length, whatever the cycle's size) that points back at the cycle's problem.
 */
function toDiagnostics(p: Problem, uri: vscode.Uri, analysis: PrdAnalysis): vscode.Diagnostic[] {
  const d = diagnostic(p.range, p.message, p);
  if (p.edges && p.cycle) {
    const others = p.edges.filter((e) => e.range.offset !== p.range.offset);
    d.relatedInformation = others.slice(0, MAX_RELATED).map((e) => new vscode.DiagnosticRelatedInformation(new vscode.Location(uri, toRange(e.range)), edgeText(e)));
    const main = new vscode.DiagnosticRelatedInformation(new vscode.Location(uri, toRange(p.range)), `the dependency cycle: ${formatCycle(p.cycle)}`);
    const size = (p.cycle.length - 1).toLocaleString('en-US');
    const out = [d];
    for (const e of others) {
      const ed = diagnostic(e.range, `${edgeText(e)}: part of a dependency cycle of ${size} stories (see its first dependency).`, p);
      ed.relatedInformation = [main];
      out.push(ed);
    }
    return out;
  }
  if (p.code === 'duplicate-id' && p.storyId) {
    const first = analysis.doc.stories.find((s) => s.id === p.storyId);
    if (first) {
      d.relatedInformation = [new vscode.DiagnosticRelatedInformation(new vscode.Location(uri, toRange(first.idRange)), `"${shortId(p.storyId)}" is first used here`)];
    }
  }
  return [d];
}

function edgeText(e: CycleEdge): string {
  return `"${shortId(e.storyId)}" waits on "${shortId(e.waitsOn)}"`;
}

/** Quick fixes: change or remove an unknown or self dependency; break a cycle at the dependency under the cursor; ids; the shape. */
export class PrdCodeActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  constructor(private readonly prds: PrdWorkspace) {}

  async provideCodeActions(document: vscode.TextDocument, range: vscode.Range | vscode.Selection, context: vscode.CodeActionContext): Promise<vscode.CodeAction[]> {
    if (!this.prds.byUri(document.uri)) {
      return [];
    }
    const ours = context.diagnostics.filter((d) => d.source === DIAGNOSTIC_SOURCE);
    if (ours.length === 0 && context.only === undefined) {
      return [];
    }
    const analysis = await this.analysisOf(document);
    if (!analysis) {
      return [];
    }
    const text = analysis.doc.text;
    const actions: vscode.CodeAction[] = [];
    const seen = new Set<string>();
    const add = (fix: ProblemFix, p: Problem, at: Problem['range'], preferred: boolean): void => {
      const key = JSON.stringify(fix);
      if (seen.has(key)) {
        return;
      }
      seen.add(key);
      const action = new vscode.CodeAction(fix.title, vscode.CodeActionKind.QuickFix);
      action.edit = fixEdit(document.uri, text, fix);
      const diagnostic = ours.find((d) => d.code === p.code && d.range.isEqual(toRange(at)));
      if (diagnostic) {
        action.diagnostics = [diagnostic];
      }
      action.isPreferred = preferred;
      actions.push(action);
    };
    for (const p of analysis.problems) {
      if (p.edges) {
        // A cycle: the fix for the dependency under the cursor first (preferred), then the others of a short cycle.
        const here = p.edges.filter((e) => toRange(e.range).intersection(range));
        for (const e of here) {
          add(e.fix, p, e.range, true);
        }
        if (here.length > 0) {
          for (const fix of p.fixes ?? []) {
            add(fix, p, p.range, false);
          }
        }
        continue;
      }
      if (!p.fixes || !toRange(p.range).intersection(range)) {
        continue;
      }
      // The first fix is the one to take: "Change to US-004" before "Remove".
      p.fixes.forEach((fix, k) => add(fix, p, p.range, k === 0));
    }
    return actions;
  }

  /**
   * The model's snapshot, when it was made from the document's text (the fixes are computed on
   * that text). Just after a change, the model's pending read is awaited; still behind, there is
   * nothing to offer yet (VS Code asks again when the diagnostics change).
   */
  private async analysisOf(document: vscode.TextDocument): Promise<PrdAnalysis | undefined> {
    const current = (): PrdAnalysis | undefined => {
      const a = this.prds.byUri(document.uri)?.analysis;
      return a && a.doc.text === document.getText() ? a : undefined;
    };
    const now = current();
    if (now) {
      return now;
    }
    await this.prds.whenIdle();
    return current();
  }
}

export function fixEdit(uri: vscode.Uri, text: string, fix: ProblemFix): vscode.WorkspaceEdit {
  return editsToWorkspaceEdit(uri, text, fixEdits(text, fix));
}
