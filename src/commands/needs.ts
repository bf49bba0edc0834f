/**
 * What every command of the extension does that Restricted Mode forbids, declared once. The
 * registrar (registrar.ts) reads it before the handler runs: in an untrusted workspace a command
 * that writes, runs or posts is refused with the message below and its handler never runs, so no
 * handler checks trust itself. package.json greys the same commands out (`enablement` with
 * `isWorkspaceTrusted`), but a command can still be run by a keybinding, another extension or a
 * test; test/unit/commandNeeds.test.ts holds this table, package.json and the list in the test equal.
 * Pure (no vscode): the unit tests read it.
 */
import { Commands } from '../constants';

export type CommandId = (typeof Commands)[keyof typeof Commands];

export interface CommandNeeds {
  /** Writes workspace files: prd.json, progress.txt, AGENTS.md, specs/INDEX.md, .ralph/. */
  readonly writes?: true;
  /** Starts a process: an agent, git. */
  readonly runs?: true;
  /** Posts to GitHub. */
  readonly posts?: true;
  /** What a refusal names, for a command that writes or runs: "<action> needs a trusted workspace: …". */
  readonly action?: string;
}

const write = (action: string): CommandNeeds => ({ writes: true, action });
const run = (action: string): CommandNeeds => ({ writes: true, runs: true, action });
const post: CommandNeeds = { posts: true };
const none: CommandNeeds = {};

export const COMMAND_NEEDS: { readonly [id in CommandId]: CommandNeeds } = {
  [Commands.refresh]: none,
  [Commands.createPrd]: write('Creating prd.json'),
  // Writes prd.json; its GitHub source also reads the repository's issues with the folder's session.
  [Commands.importStories]: write('Importing stories'),
  [Commands.openPrd]: none,
  [Commands.showNextStory]: none,
  [Commands.storyOpen]: none,
  [Commands.storyReveal]: none,
  [Commands.markPassing]: write('Mark as Passing'),
  [Commands.markNotPassing]: write('Mark as Not Passing'),
  [Commands.removeBlockedBy]: write('Removing a blockedBy entry'),
  [Commands.breakCycle]: write('Breaking a dependency cycle'),
  [Commands.openProblem]: none,
  // An iteration checks out the branch, writes the prompt and runs.jsonl, and starts the agent.
  [Commands.runNext]: run('Running an agent'),
  [Commands.runStory]: run('Running an agent'),
  [Commands.startLoop]: run('Running an agent loop'),
  // Stopping only ends what a trusted workspace started.
  [Commands.stopAfterIteration]: none,
  [Commands.stopNow]: none,
  // Ending the wait for an agent's limit starts the agent again at once.
  [Commands.resumeNow]: run('Resuming the agent loop'),
  [Commands.previewPrompt]: none,
  [Commands.showRunTerminal]: none,
  [Commands.openRunPrompt]: none,
  [Commands.refreshRuns]: none,
  [Commands.openAt]: none,
  [Commands.addPattern]: write('Adding a codebase pattern'),
  [Commands.addLearning]: write('Adding a learning'),
  [Commands.newProgressEntry]: write('Adding a progress entry'),
  [Commands.compact]: write('Compacting progress.txt'),
  [Commands.undoCompaction]: write('Undoing a compaction'),
  [Commands.refreshMemory]: none,
  [Commands.addAgentsNote]: write('Adding a note to AGENTS.md'),
  // Lists the repository's files with git in a worker thread, then writes specs/INDEX.md.
  [Commands.generatePin]: run('Generating the Pin'),
  [Commands.searchPin]: none,
  [Commands.openTaskGraph]: none,
  [Commands.openRunDashboard]: none,
  [Commands.githubRefresh]: none,
  [Commands.githubShowIssue]: none,
  [Commands.githubSignIn]: none,
  [Commands.githubSelfHeal]: post,
  [Commands.githubSelfHealAll]: post,
  // Posts to GitHub (and writes prd.json's issue fields after): refused as a post in Restricted Mode.
  [Commands.githubPublishStories]: post,
  // Runs git fetch; marks stories passing in prd.json only when asked.
  [Commands.githubSync]: run('Syncing with GitHub'),
  // Starts workflow runs on GitHub (or assigns issues to a hosted agent).
  [Commands.githubDispatch]: post,
  [Commands.githubLinkToIssue]: post,
  [Commands.githubOpenArtifact]: none,
  [Commands.githubOpenIssue]: none,
  // Opens an issue (or comments on one) about a repeated failure signature.
  [Commands.githubSignatureIssue]: post,
  [Commands.githubAddWorkflow]: write('Adding the GitHub Actions workflow'),
  // A parallel run makes worktrees and branches, merges, and starts agents.
  [Commands.parallelRunWave]: run('Running agents in parallel'),
  [Commands.parallelStartLoop]: run('Running a parallel agent loop'),
  [Commands.parallelStopAll]: none,
  [Commands.parallelStopAgent]: none,
  // Resuming merges finished worktrees and starts agents; the check reads git and the state file.
  [Commands.parallelResume]: run('Resuming a parallel run'),
  [Commands.parallelCheckInterrupted]: { runs: true, action: 'Looking for an interrupted parallel run' },
  [Commands.needsYouRetry]: run('Retrying a story'),
  [Commands.needsYouSkip]: none,
  [Commands.needsYouShowTerminal]: none,
  [Commands.needsYouOpenWorktree]: none,
  // Merges the feature branch into the story's worktree so the conflict shows there.
  [Commands.needsYouOpenConflict]: run('Opening a merge conflict'),
  // git worktree remove and branch -d (refused while the branch holds unmerged commits).
  [Commands.needsYouRemoveWorktree]: run('Removing a worktree'),
};

/**
 * What a person is told when Restricted Mode refuses a command (the wording each command showed
 * before the registrar took the check over): an error for what writes or runs, a warning for posting.
 */
export function refusal(needs: CommandNeeds): { readonly severity: 'error' | 'warning'; readonly message: string } | undefined {
  if (needs.writes || needs.runs) {
    return {
      severity: 'error',
      message: `${needs.action ?? 'This command'} needs a trusted workspace: this folder is open in Restricted Mode. Use "Manage Workspace Trust" to trust it.`,
    };
  }
  return needs.posts ? { severity: 'warning', message: 'Ralph posts to GitHub only in a trusted workspace.' } : undefined;
}
