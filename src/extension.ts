/** Composition root: build the services, register views and commands, push every disposable. */
import * as vscode from 'vscode';
import type { RalphApi } from './api';
import { registerCompactionCommands } from './commands/compactionCommands';
import { registerGitHubCommands } from './commands/githubCommands';
import { registerMemoryCommands } from './commands/memoryCommands';
import { registerRunCommands } from './commands/runCommands';
import { registerStoryCommands } from './commands/storyCommands';
import { Views } from './constants';
import { GitHubAuth } from './services/githubAuth';
import { GitHubWorkspace } from './services/githubWorkspace';
import { MemoryWorkspace } from './services/memoryWorkspace';
import { PrdWorkspace } from './services/prdWorkspace';
import { Runner } from './services/runner';
import { PrdCodeActions, PrdDiagnostics } from './views/diagnostics';
import { MemoryTreeProvider } from './views/memoryTree';
import { PROPOSED_SCHEME, ProposedContentProvider } from './views/proposedContent';
import { IssuesTreeProvider } from './views/issuesTree';
import { storyArtifactChildren } from './views/storyArtifactNodes';
import { ARCHIVE_SCHEME, ArchiveContentProvider, RunsTreeProvider } from './views/runsTree';
import { RalphStatusBar } from './views/statusBar';
import { bindStoriesViewDescription, StoriesTreeProvider } from './views/storiesTree';

export function activate(context: vscode.ExtensionContext): RalphApi {
  const started = Date.now();
  const log = vscode.window.createOutputChannel('Ralph Workbench', { log: true });
  context.subscriptions.push(log);

  const prds = new PrdWorkspace(log);
  const memory = new MemoryWorkspace(log);
  const githubAuth = new GitHubAuth(context.extensionMode);
  const github = new GitHubWorkspace(prds, githubAuth, context.workspaceState, log);
  const tree = new StoriesTreeProvider(prds, (folder, storyId) => memory.learningsFor(folder, storyId), memory.onDidChange, {
    of: storyArtifactChildren(github),
    onDidChange: github.onDidChange,
  });
  const treeView = vscode.window.createTreeView(Views.stories, { treeDataProvider: tree, showCollapseAll: true });
  const memoryTree = new MemoryTreeProvider(memory);
  context.subscriptions.push(prds, memory, tree, treeView, new PrdDiagnostics(prds), memoryTree);
  context.subscriptions.push(vscode.window.createTreeView(Views.memory, { treeDataProvider: memoryTree, showCollapseAll: true }));
  context.subscriptions.push(
    vscode.languages.registerCodeActionsProvider([{ language: 'json' }, { language: 'jsonc' }], new PrdCodeActions(prds), {
      providedCodeActionKinds: PrdCodeActions.kinds,
    }),
  );
  context.subscriptions.push(bindStoriesViewDescription(treeView, prds));

  const runner = new Runner(prds, log, (folder, storyId) => github.issuePlanFor(folder, storyId));
  const runs = new RunsTreeProvider(runner);
  context.subscriptions.push(
    runner,
    runs,
    vscode.window.createTreeView(Views.runs, { treeDataProvider: runs }),
    vscode.workspace.registerTextDocumentContentProvider(ARCHIVE_SCHEME, new ArchiveContentProvider()),
    new RalphStatusBar(prds, runner),
  );

  registerStoryCommands(context, { prds, tree, treeView, log });
  registerRunCommands(context, { prds, runner, tree, log });
  registerMemoryCommands(context, { prds, memory, storiesView: treeView, log });
  const proposed = new ProposedContentProvider();
  context.subscriptions.push(proposed, vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, proposed));
  registerCompactionCommands(context, { memory, proposed, log });

  const issuesTree = new IssuesTreeProvider(github);
  context.subscriptions.push(githubAuth, github, issuesTree, vscode.window.createTreeView(Views.issues, { treeDataProvider: issuesTree, showCollapseAll: true }));
  registerGitHubCommands(context, { github, auth: githubAuth, tree: issuesTree, log, testMode: context.extensionMode !== vscode.ExtensionMode.Production });
  void prds.whenIdle().then(() => github.refresh());

  log.info(`[activate] Ralph Workbench ${String(context.extension.packageJSON.version)} activated in ${Date.now() - started} ms`);
  return {
    whenIdle: async () => {
      await prds.whenIdle();
      await memory.whenIdle();
      await github.whenIdle();
    },
    issuesSnapshot: async (depth) => {
      await github.whenIdle();
      return issuesTree.snapshot(depth);
    },
    logFolder: context.logUri.fsPath,
    refreshIssues: () => github.refresh({ resetClients: true }),
    storyArtifacts: (storyId) => {
      const folder = vscode.workspace.workspaceFolders?.[0];
      return folder ? github.artifactStatusByStory(folder.uri).get(storyId) : undefined;
    },
    memorySnapshot: (depth) => memoryTree.snapshot(depth),
    storiesSnapshot: (depth) => tree.snapshot(depth),
    runsSnapshot: () => runs.snapshot(),
    runnerState: () => {
      const s = runner.state;
      return { running: s.running, storyId: s.storyId, iteration: s.iteration, maxIterations: s.maxIterations, terminalName: s.terminal?.name };
    },
  };
}

export function deactivate(): void {
  // every resource is disposed through context.subscriptions
}
