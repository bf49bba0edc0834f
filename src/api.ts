/**
 * What `activate` returns. Tests in the extension host use it to read the views as a user sees
 * them (labels, descriptions, icons), without reaching into private state.
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
  /** The Runs view's top-level nodes (summary, runs newest first, archives). */
  runsSnapshot(): Promise<TreeSnapshotNode[]>;
  /** The Memory view, expanded to the given depth (default 2). */
  memorySnapshot(depth?: number): Promise<TreeSnapshotNode[]>;
  /** The Issues view, expanded to the given depth (default 3), after pending GitHub reads. */
  issuesSnapshot(depth?: number): Promise<TreeSnapshotNode[]>;
  /** Re-reads every issue (new clients: picks up a changed session or test access). */
  refreshIssues(): Promise<void>;
  /** Artifact status of a story's issue in the first folder (what the task graph's badge shows). */
  storyArtifacts(storyId: string): { issue: number; research: string; plan: string; review: string; implementation: string; verdict?: string } | undefined;
  /** The extension's log folder (its output channel's file is there). */
  readonly logFolder: string;
  /** What the runner is doing now. */
  runnerState(): { running: boolean; storyId?: string; iteration?: number; maxIterations?: number; terminalName?: string };
}
