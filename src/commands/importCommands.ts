/**
 * Import Stories… (issue 22): another tool's backlog into the folder's prd.json. The source is a
 * file or a folder (the Explorer's context menu passes it; else a pick and an open dialog), or the
 * folder repository's GitHub issues. The new prd.json is shown as a diff against the current one
 * (a read-only proposed document) with Apply / Cancel; Apply writes a new prd.json atomically, or
 * edits the existing one minimally (one undoable edit, unknown fields and other stories untouched).
 * Needs a trusted workspace (needs.ts: it writes prd.json; the GitHub source also reads the network).
 */
import * as vscode from 'vscode';
import { Commands } from '../constants';
import { errorMessage } from '../core/errorMessage';
import { mergeEditsIntoPrd, type MergeSummary } from '../core/import/index';
import { existsSync } from 'node:fs';
import { writeFileAtomically } from '../node/atomicWrite';
import { readIssuesForImport } from '../node/github/importIssues';
import { type ImportPlan, planFileImport, planGitHubImport, warningLine } from '../node/import/plan';
import { choose } from '../services/confirm';
import { editTextFile } from '../services/fileEdits';
import type { GitHubWorkspace } from '../services/githubWorkspace';
import type { PrdWorkspace } from '../services/prdWorkspace';
import { folderOf, pickFolder } from '../util/folders';
import { previewChange, type ProposedContentProvider } from '../views/proposedContent';
import { commandRegistrar } from './registrar';

export interface ImportCommandDeps {
  readonly prds: PrdWorkspace;
  readonly github: GitHubWorkspace;
  readonly proposed: ProposedContentProvider;
  readonly log: vscode.LogOutputChannel;
}

/** What the command did, for the host tests. */
export interface ImportOutcome {
  readonly applied: boolean;
  readonly summary?: MergeSummary;
  readonly warnings: number;
}

const FILE = 'A file…';
const FOLDER = 'A folder…';
const GITHUB = 'GitHub issues';

/** A file or folder the Explorer passed (not a workspace folder itself: that is the Stories view's folder hint). */
function resourceOf(arg: unknown): vscode.Uri | undefined {
  if (!(arg instanceof vscode.Uri) || arg.scheme !== 'file') {
    return undefined;
  }
  const folder = vscode.workspace.getWorkspaceFolder(arg);
  return folder && folder.uri.toString() !== arg.toString() ? arg : undefined;
}

async function pickSource(folder: vscode.WorkspaceFolder): Promise<vscode.Uri | 'github' | undefined> {
  const picked = await choose(
    [
      { label: FILE, description: 'tasks.md (spec-kit, Kiro), tasks.json (Taskmaster), issues.jsonl (beads), a Backlog.md task' },
      { label: FOLDER, description: 'backlog/ (Backlog.md), .taskmaster/, .beads/, a spec folder with tasks.md' },
      { label: GITHUB, description: "the issues of this folder's GitHub repository" },
    ],
    { title: 'Import stories from', placeHolder: 'Where is the backlog?' },
  );
  if (!picked) {
    return undefined;
  }
  if (picked.label === GITHUB) {
    return 'github';
  }
  const files = await vscode.window.showOpenDialog({ defaultUri: folder.uri, canSelectFiles: picked.label === FILE, canSelectFolders: picked.label === FOLDER, canSelectMany: false, openLabel: 'Import' });
  return files?.[0];
}

async function gitHubPlan(deps: ImportCommandDeps, folder: vscode.WorkspaceFolder, prdFile: string): Promise<ImportPlan | undefined> {
  const filter = await choose([{ label: 'All issues' }, { label: 'Issues with a label…' }, { label: 'Issues of a milestone…' }], { title: 'Which issues?' });
  if (!filter) {
    return undefined;
  }
  let label: string | undefined;
  let milestone: string | undefined;
  if (filter.label !== 'All issues') {
    const value = (await vscode.window.showInputBox({ title: filter.label, prompt: filter.label.includes('label') ? 'The label' : "The milestone's title or number", ignoreFocusOut: true }))?.trim();
    if (!value) {
      return undefined;
    }
    [label, milestone] = filter.label.includes('label') ? [value, undefined] : [undefined, value];
  }
  // The folder's client (its own repository); without one, the sign-in is offered.
  let client = deps.github.readerFor(folder);
  if (!client) {
    try {
      client = (await deps.github.writerFor(folder)).client;
    } catch (e) {
      throw new Error(`Importing GitHub issues needs a GitHub session and a folder whose origin remote is on GitHub (${errorMessage(e)})`);
    }
  }
  const slug = `${client.owner}/${client.repo}`;
  const { issues, warnings } = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Reading the issues of ${slug}…` }, () => readIssuesForImport(client, slug, { label, milestone }));
  return planGitHubImport(issues, slug, prdFile, warnings);
}

function question(plan: ImportPlan, prdName: string): string {
  const s = plan.summary;
  const warned = plan.warnings.length > 0 ? ` ${plan.warnings.length} item${plan.warnings.length === 1 ? '' : 's'} could not be mapped: see the Ralph output.` : '';
  return `Import ${plan.result.stories.length} stories from ${plan.sourceLabel} (${plan.result.format}) into ${prdName}: ${s.added} new, ${s.updated} updated, ${s.unchanged} unchanged.${warned}`;
}

export function registerImportCommands(context: vscode.ExtensionContext, deps: ImportCommandDeps): void {
  const reg = commandRegistrar(context, deps.log);
  reg(Commands.importStories, async (arg?: unknown): Promise<ImportOutcome | undefined> => {
    const resource = resourceOf(arg);
    const folder = resource ? vscode.workspace.getWorkspaceFolder(resource) : (folderOf(arg) ?? (await pickFolder({ placeHolder: 'Import stories into the prd.json of which folder?' })));
    if (!folder) {
      return undefined;
    }
    // Where the import writes: ralph.prdPath through the path rule (a setting or a symlink leading outside the folder is refused).
    const prdUri = await deps.prds.prdUriForWrite(folder);
    if (!(prdUri instanceof vscode.Uri)) {
      throw new Error(prdUri.message);
    }
    const source = resource ?? (await pickSource(folder));
    if (!source) {
      return undefined;
    }
    const plan = source === 'github' ? await gitHubPlan(deps, folder, prdUri.fsPath) : planFileImport({ root: folder.uri.fsPath, source: source.fsPath, prdFile: prdUri.fsPath });
    if (!plan) {
      return undefined;
    }
    for (const w of plan.warnings) {
      deps.log.warn(`[import] ${warningLine(w, plan.sourceLabel)}`);
    }
    const prdName = vscode.workspace.asRelativePath(prdUri, false);
    if (plan.after === plan.before) {
      void vscode.window.showInformationMessage(`${prdName} already holds the ${plan.result.stories.length} stories of ${plan.sourceLabel} as they are there: nothing to import.`);
      return { applied: false, summary: plan.summary, warnings: plan.warnings.length };
    }
    // No prd.json yet: the diff is against an empty document.
    const current = plan.before === undefined ? deps.proposed.propose(prdUri, '') : prdUri;
    const apply = await previewChange(deps.proposed, current, plan.after, `Import into ${prdName} (${plan.result.format})`, question(plan, prdName));
    if (!apply) {
      return { applied: false, summary: plan.summary, warnings: plan.warnings.length };
    }
    if (plan.before === undefined && !existsSync(prdUri.fsPath)) {
      await writeFileAtomically(prdUri.fsPath, plan.after);
    } else {
      // Against the text as it is now (an agent may have written meanwhile, even a prd.json that was
      // not there at the preview): the same merge, as one undoable edit, never a file replaced.
      await editTextFile(prdUri, (text) => mergeEditsIntoPrd(text, plan.result).edits);
    }
    deps.log.info(`[import] ${question(plan, prdName)} Applied.`);
    return { applied: true, summary: plan.summary, warnings: plan.warnings.length };
  });
}
