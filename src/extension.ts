/**
 * Composition root: build the services, register views and commands, push every disposable.
 * `activate` returns the test API (src/testApi.ts) in the test build only, and nothing in the
 * production build: the extension offers no public API.
 */
import * as vscode from 'vscode';
import type { RalphApi } from './api';
import { registerCompactionCommands } from './commands/compactionCommands';
import { commandRegistrar } from './commands/registrar';
import { registerGitHubCommands } from './commands/githubCommands';
import { registerMemoryCommands } from './commands/memoryCommands';
import { registerParallelCommands } from './commands/parallelCommands';
import { registerImportCommands } from './commands/importCommands';
import { registerPublishCommands } from './commands/publishCommands';
import { registerRunCommands } from './commands/runCommands';
import { registerSignatureOffer } from './commands/signatureOffer';
import { registerStoryCommands } from './commands/storyCommands';
import { registerWorkflowCommands } from './commands/workflowCommands';
import { Commands, Views } from './constants';
import { GitHubAuth } from './services/githubAuth';
import { GitHubDispatcher } from './services/githubDispatch';
import { GitHubFollow, withRemoteStates } from './services/githubFollow';
import { GitHubPublisher } from './services/githubPublish';
import { anyOf } from './util/events';
import { GitHubWorkspace } from './services/githubWorkspace';
import { MemoryWorkspace } from './services/memoryWorkspace';
import { InterruptedRuns } from './services/parallel/interruptedRuns';
import { ParallelService } from './services/parallel/parallelService';
import { PrdWorkspace } from './services/prdWorkspace';
import { Runner } from './services/run/runner';
import { RunsWorkspace } from './services/runsWorkspace';
import { RunInsights } from './services/runInsights';
import { AgentsMdSuggest } from './views/agentsMdSuggest';
import { PrdCodeActions, PrdDiagnostics } from './views/diagnostics';
import { MemoryTreeProvider } from './views/memoryTree';
import { PROPOSED_SCHEME, ProposedContentProvider } from './views/proposedContent';
import { IssuesTreeProvider } from './views/issuesTree';
import { NeedsYouAnnouncer } from './views/needsYouAnnouncer';
import { storyArtifactChildren } from './views/storyArtifactNodes';
import { ARCHIVE_SCHEME, ArchiveContentProvider, RunsTreeProvider } from './views/runsTree';
import { RalphStatusBar } from './views/statusBar';
import { bindStoriesViewDescription, StoriesTreeProvider } from './views/storiesTree';
import { StoryNode } from './views/storyNodes';
import { TaskGraphController } from './views/taskGraph/taskGraphController';
import { registerTaskGraph } from './views/taskGraph/taskGraphViews';
import { RunDashboardController, registerRunDashboard } from './views/dashboard/runDashboard';
import { createTestApi } from './testApi';
import { setExtensionPath } from './services/run/bundledCli';

export function activate(context: vscode.ExtensionContext): RalphApi | undefined {
  const started = Date.now();
  setExtensionPath(context.extensionPath);
  const log = vscode.window.createOutputChannel('Ralph Workbench', { log: true });
  context.subscriptions.push(log);

  const prds = new PrdWorkspace(log);
  const memory = new MemoryWorkspace(log);
  const githubAuth = new GitHubAuth();
  const github = new GitHubWorkspace(prds, githubAuth, context.workspaceState, log);
  const runner = new Runner(prds, log, (folder, storyId) => github.issuePlanFor(folder, storyId));
  const parallel = new ParallelService(log);
  const follow = new GitHubFollow(github, prds, log);
  const tree = new StoriesTreeProvider(
    prds,
    (folder, storyId) => memory.learningsFor(folder, storyId),
    memory.onDidChange,
    runner,
    { of: storyArtifactChildren(github), onDidChange: github.onDidChange },
    { get runs() { return parallel.runs; }, needsYou: () => parallel.needsYou(), onDidChange: parallel.onDidChange },
    { stateOf: (folder, id) => follow.stateOf(folder, id), onDidChange: follow.onDidChange },
  );
  const treeView = vscode.window.createTreeView(Views.stories, { treeDataProvider: tree, showCollapseAll: true });
  const needsYou = new NeedsYouAnnouncer(parallel, treeView);
  context.subscriptions.push(parallel, needsYou);
  const memoryTree = new MemoryTreeProvider(memory);
  context.subscriptions.push(prds, memory, tree, treeView, new PrdDiagnostics(prds), memoryTree);
  context.subscriptions.push(vscode.window.createTreeView(Views.memory, { treeDataProvider: memoryTree, showCollapseAll: true }));
  context.subscriptions.push(
    vscode.languages.registerCodeActionsProvider([{ language: 'json' }, { language: 'jsonc' }], new PrdCodeActions(prds), {
      providedCodeActionKinds: PrdCodeActions.kinds,
    }),
  );
  context.subscriptions.push(bindStoriesViewDescription(treeView, prds));

  const statusBar = new RalphStatusBar(prds, runner, parallel);
  const runsWorkspace = new RunsWorkspace(runner.onDidRecord);
  const runs = new RunsTreeProvider(runsWorkspace, runner);
  context.subscriptions.push(
    runner,
    runsWorkspace,
    runs,
    vscode.window.createTreeView(Views.runs, { treeDataProvider: runs }),
    vscode.workspace.registerTextDocumentContentProvider(ARCHIVE_SCHEME, new ArchiveContentProvider()),
    statusBar,
  );

  context.subscriptions.push(new AgentsMdSuggest());
  const proposed = new ProposedContentProvider();
  context.subscriptions.push(proposed, vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, proposed));
  registerStoryCommands(context, { prds, tree, treeView, log });
  registerRunCommands(context, { prds, runner, parallel, tree, log, proposed, refreshRuns: () => runsWorkspace.reloadAll() });
  const interrupted = new InterruptedRuns(parallel, log);
  context.subscriptions.push(interrupted);
  registerParallelCommands(context, { prds, parallel, interrupted, log });
  registerMemoryCommands(context, { prds, memory, runs: runsWorkspace, storiesView: treeView, log });
  registerSignatureOffer(context, runsWorkspace, github, log);
  registerCompactionCommands(context, {
    memory,
    proposed,
    log,
    iterationRunning: (f) => runner.isRunning(f) || parallel.isRunning(f),
  });

  const graph = new TaskGraphController({
    prds,
    runner,
    parallel,
    runs: runsWorkspace,
    log,
    artifactsFor: (folder) => withRemoteStates(github.artifactStatusByStory(folder), follow.forFolder(folder)),
    onDidChangeArtifacts: anyOf(github.onDidChange, follow.onDidChange),
    reveal: async (id, folder) => {
      const node = tree.findStory(id, folder);
      if (node) {
        await treeView.reveal(node, { select: true, focus: false, expand: false });
      }
    },
  });
  context.subscriptions.push(
    graph,
    treeView.onDidChangeSelection((e) => {
      const node = e.selection[0];
      if (node instanceof StoryNode) {
        graph.select(node.id, node.entry.folder.uri);
      }
    }),
  );
  commandRegistrar(context, log)(Commands.openTaskGraph, registerTaskGraph(context, graph));
  commandRegistrar(context, log)(Commands.openRunDashboard, registerRunDashboard(context, new RunDashboardController(new RunInsights(prds, runsWorkspace), log)));

  const issuesTree = new IssuesTreeProvider(github, { stateOf: (folder, id) => follow.stateOf(folder, id), onDidChange: follow.onDidChange });
  const issuesView = vscode.window.createTreeView(Views.issues, { treeDataProvider: issuesTree, showCollapseAll: true });
  issuesTree.showStandInOn(issuesView);
  context.subscriptions.push(githubAuth, github, issuesTree, issuesView);
  registerGitHubCommands(context, { github, auth: githubAuth, tree: issuesTree, log });
  registerWorkflowCommands(context, { log, proposed });
  registerImportCommands(context, { prds, github, proposed, log });
  context.subscriptions.push(follow);
  registerPublishCommands(context, { publisher: new GitHubPublisher(github, prds, log), dispatcher: new GitHubDispatcher(github, prds), follow, prds, log });
  void prds.whenIdle().then(() => github.refresh());
  // A parallel run a reload, a crash or a killed host cut off: offered to resume, its worktrees listed.
  interrupted.watch();

  log.info(`[activate] Ralph Workbench ${String(context.extension.packageJSON.version)} activated in ${Date.now() - started} ms`);
  // The test build returns the test API; in production this is `return undefined` and esbuild
  // drops src/testApi.ts (ARCHITECTURE.md, "The composition root and the test API").
  return __RALPH_TEST__
    ? createTestApi({ prds, memory, github, runner, parallel, needsYou, interrupted, runsWorkspace, stories: tree, memoryTree, runs, issues: issuesTree, graph, statusBar, logFolder: context.logUri.fsPath, workspaceState: context.workspaceState })
    : undefined;
}

export function deactivate(): void {
  // every resource is disposed through context.subscriptions
}
