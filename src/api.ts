/**
 * What `activate` returns in the test build (`__RALPH_TEST__`, see src/testApi.ts); the
 * production build returns nothing. Tests in the extension host use it to read the views as a
 * user sees them (labels, descriptions, icons), without reaching into private state.
 */
export interface TreeSnapshotNode {
  readonly label: string;
  readonly description?: string;
  /** Codicon id of the node's icon, e.g. "pass-filled". */
  readonly icon?: string;
  /** Theme colour id of the icon, e.g. "testing.iconPassed". */
  readonly iconColor?: string;
  readonly contextValue?: string;
  readonly tooltip?: string;
  readonly children?: readonly TreeSnapshotNode[];
}

export interface RalphApi {
  /** Resolves when pending file-change refreshes have been applied. */
  whenIdle(): Promise<void>;
  /** The Stories tree, expanded to the given depth (1 = top-level nodes only). */
  storiesSnapshot(depth?: number): Promise<TreeSnapshotNode[]>;
  /** The Runs view to the given depth (1, the default: summary, runs and parallel loops newest first, archives; 3: a loop's waves and their runs). */
  runsSnapshot(depth?: number): Promise<TreeSnapshotNode[]>;
  /** The Memory view, expanded to the given depth (default 2). */
  memorySnapshot(depth?: number): Promise<TreeSnapshotNode[]>;
  /** Errors thrown by Ralph's command handlers (shown to the user as "Ralph: …"), oldest first. */
  commandErrors(): readonly { readonly command: string; readonly message: string }[];
  clearCommandErrors(): void;
  /** Test seam: command handlers behave as in Restricted Mode (an untrusted workspace) while on. */
  simulateRestrictedMode(on: boolean): void;
  /**
   * Test seam: answers every question Ralph asks before it acts (the modal dialogs of
   * src/services/confirm.ts, its quick picks such as the agent chooser, and its errors with buttons
   * such as "Open Setting") with `handler`, which gets the message, its detail and the buttons
   * besides Cancel, and returns the button pressed or undefined for Cancel. Undefined restores the
   * dialog. A test that installs a handler removes it when it ends.
   */
  answerConfirmations(
    handler:
      | ((question: {
          readonly message: string;
          readonly detail?: string;
          readonly choices: readonly string[];
          /** A pick from a list (the agent chooser): its items; `choices` are their labels. */
          readonly items?: readonly { readonly label: string; readonly description?: string; readonly detail?: string }[];
        }) => string | undefined)
      | undefined,
  ): void;
  /** The latest message the Task Graph posts to its pages (the graph, or why there is none). */
  taskGraphSnapshot(): unknown;
  /** The run status the Task Graph sent its page last (running stories, limit countdowns, waits). */
  taskGraphRunSnapshot(): unknown;
  /** How many times the Task Graph computed a layout (a status-only change must not add one). */
  taskGraphLayoutRuns(): number;
  /** Hands the Task Graph a message as if its page had posted it; says whether it was rejected and what the host answered. */
  taskGraphReceive(data: unknown): Promise<{ rejected: boolean; replies: unknown[] }>;
  /** The Issues view, expanded to the given depth (default 3), after pending GitHub reads. */
  issuesSnapshot(depth?: number): Promise<TreeSnapshotNode[]>;
  /** Re-reads every issue (new clients: picks up a changed session or test access). */
  refreshIssues(): Promise<void>;
  /** The cached artifact comments of every folder (what offline links are read from), as stored in the workspace state. */
  githubCommentCache(): unknown;
  /** Artifact status of a story's issue in the first folder (what the task graph's badge shows). */
  storyArtifacts(storyId: string): { issue: number; research: string; plan: string; review: string; implementation: string; verdict?: string; warnings: string[] } | undefined;
  /** How many times a folder's prd.json was parsed since the window opened (default: the first folder). */
  prdParses(folder?: string): number;
  /** What the Ralph status bar item says now, and the command a click on it runs. */
  statusBarSnapshot(): { text: string; tooltip?: string; command?: string };
  /** The extension's log folder (its output channel's file is there). */
  readonly logFolder: string;
  /** What the runner is doing now. */
  runnerState(): { running: boolean; storyId?: string; iteration?: number; maxIterations?: number; terminalName?: string };
  /** The parallel loop: whether it runs, the stories its agents work on, the open Needs You items, the badge on the Stories view, the notifications shown (one per item; one per interrupted run found on opening). */
  parallelState(): {
    running: boolean;
    runningStories: string[];
    needsYou: { storyId: string; why: string; message: string; worktree?: string }[];
    badge?: number;
    notifications: string[];
    interruptedNotifications: string[];
  };
}
