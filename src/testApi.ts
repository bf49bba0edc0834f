/**
 * The test API (RalphApi, src/api.ts): what `activate` returns in the test build, so the
 * extension-host and UI tests read the views as a user sees them and wait for the extension to
 * settle. Only src/extension.ts imports this module, behind `__RALPH_TEST__`: the production
 * build (`scripts/build.mjs --production`) folds that constant to false and drops this module,
 * the tree snapshots and the command-error record with it (test/unit/productionBundle.test.ts).
 */
import * as vscode from 'vscode';
import type { RalphApi } from './api';
import { clearCommandErrors, commandErrors } from './commands/registrar';
import { simulateRestrictedMode } from './services/trust';
import { answerConfirmations } from './services/confirm';
import { COMMENT_CACHE_KEY, type GitHubWorkspace } from './services/githubWorkspace';
import type { MemoryWorkspace } from './services/memoryWorkspace';
import { prdParses } from './services/prdParses';
import type { PrdWorkspace } from './services/prdWorkspace';
import type { Runner } from './services/run/runner';
import type { InterruptedRuns } from './services/parallel/interruptedRuns';
import type { ParallelService } from './services/parallel/parallelService';
import type { NeedsYouAnnouncer } from './views/needsYouAnnouncer';
import type { RunsWorkspace } from './services/runsWorkspace';
import type { HostMessage } from './core/webview/graphProtocol';
import type { IssuesTreeProvider } from './views/issuesTree';
import type { RalphStatusBar } from './views/statusBar';
import type { MemoryTreeProvider } from './views/memoryTree';
import type { RunsTreeProvider } from './views/runsTree';
import type { StoriesTreeProvider } from './views/storiesTree';
import type { TaskGraphController } from './views/taskGraph/taskGraphController';
import { snapshotTree } from './views/treeSnapshot';
import { HostedPage } from './views/webviewHost';

/** What the composition root built: the test API reads it, never changes how it works. */
export interface TestApiParts {
  readonly prds: PrdWorkspace;
  readonly memory: MemoryWorkspace;
  readonly github: GitHubWorkspace;
  readonly runner: Runner;
  readonly parallel: ParallelService;
  readonly needsYou: NeedsYouAnnouncer;
  readonly interrupted: InterruptedRuns;
  readonly runsWorkspace: RunsWorkspace;
  readonly stories: StoriesTreeProvider;
  readonly memoryTree: MemoryTreeProvider;
  readonly runs: RunsTreeProvider;
  readonly issues: IssuesTreeProvider;
  readonly graph: TaskGraphController;
  readonly statusBar: RalphStatusBar;
  readonly logFolder: string;
  /** The extension's workspace state (the GitHub comment cache lives there). */
  readonly workspaceState: vscode.Memento;
}

let testRequestId = 0;

/**
 * Hands the Task Graph a message as if a visible editor page had posted it, and returns what the
 * host answered (tests cannot post into a real webview). Like the page, it numbers a request that
 * has no id yet (a message that is not an object is passed as it is).
 */
export async function receiveAsPage(graph: TaskGraphController, data: unknown): Promise<{ rejected: boolean; replies: HostMessage[] }> {
  const replies: HostMessage[] = [];
  const page = new HostedPage<HostMessage, 'sidebar' | 'editor'>({ visible: true, webview: { postMessage: async (m: HostMessage) => replies.push(m) > 0 } }, 'editor');
  const before = graph.rejected;
  const numbered = typeof data === 'object' && data !== null && !Array.isArray(data) && !('requestId' in data) ? { ...data, requestId: ++testRequestId } : data;
  await graph.receive(page, numbered);
  return { rejected: graph.rejected > before, replies };
}

export function createTestApi(p: TestApiParts): RalphApi {
  return {
    whenIdle: async () => {
      await p.prds.whenIdle();
      await p.memory.whenIdle();
      await p.github.whenIdle();
    },
    issuesSnapshot: async (depth = 3) => {
      await p.github.whenIdle();
      return snapshotTree(p.issues, depth);
    },
    logFolder: p.logFolder,
    prdParses: (folder) => prdParses(folder ?? vscode.workspace.workspaceFolders?.[0]?.uri.toString() ?? ''),
    statusBarSnapshot: () => p.statusBar.shown(),
    refreshIssues: () => p.github.refresh({ resetClients: true }),
    githubCommentCache: () => p.workspaceState.get(COMMENT_CACHE_KEY),
    storyArtifacts: (storyId) => {
      const folder = vscode.workspace.workspaceFolders?.[0];
      return folder ? p.github.artifactStatusByStory(folder.uri).get(storyId) : undefined;
    },
    memorySnapshot: (depth = 2) => snapshotTree(p.memoryTree, depth),
    storiesSnapshot: (depth = 1) => snapshotTree(p.stories, depth),
    runsSnapshot: async (depth = 1) => {
      await p.runsWorkspace.whenIdle();
      return snapshotTree(p.runs, depth);
    },
    commandErrors,
    clearCommandErrors,
    simulateRestrictedMode,
    answerConfirmations,
    taskGraphSnapshot: () => p.graph.snapshot(),
    taskGraphRunSnapshot: () => p.graph.runSnapshot(),
    taskGraphLayoutRuns: () => p.graph.layoutRuns(),
    taskGraphReceive: (data) => receiveAsPage(p.graph, data),
    runnerState: () => {
      const s = p.runner.state;
      return { running: s.running, storyId: s.storyId, iteration: s.iteration, maxIterations: s.maxIterations, terminalName: s.terminal?.name };
    },
    parallelState: () => ({
      running: p.parallel.isRunning(),
      runningStories: p.parallel.runs.map((r) => r.storyId),
      needsYou: p.parallel.needsYou().map((i) => ({ storyId: i.storyId, why: i.why, message: i.message, worktree: i.worktree })),
      badge: p.needsYou.badge,
      notifications: [...p.needsYou.announced],
      interruptedNotifications: [...p.interrupted.notifications],
    }),
  };
}
