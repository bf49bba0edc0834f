/**
 * Every id the extension shares with package.json: commands, views, context keys, settings.
 * (Written in double quotes, as in package.json, so a search for "ralph.x" finds both.)
 */
import { SETTING_KEYS, SETTINGS_SECTION } from './core/settingKeys';

export const EXTENSION_ID = 'ralph-workbench.ralph-workbench';

export const Commands = {
  refresh: "ralph.refresh",
  createPrd: "ralph.createPrd",
  importStories: "ralph.importStories",
  openPrd: "ralph.openPrd",
  showNextStory: "ralph.showNextStory",
  storyOpen: "ralph.story.open",
  storyReveal: "ralph.story.reveal",
  markPassing: "ralph.story.markPassing",
  markNotPassing: "ralph.story.markNotPassing",
  removeBlockedBy: "ralph.removeBlockedBy",
  breakCycle: "ralph.breakCycle",
  openProblem: "ralph.openProblem",
  runNext: "ralph.runNext",
  runStory: "ralph.story.run",
  startLoop: "ralph.startLoop",
  stopAfterIteration: "ralph.stopAfterIteration",
  stopNow: "ralph.stopNow",
  resumeNow: "ralph.resumeNow",
  previewPrompt: "ralph.previewPrompt",
  showRunTerminal: "ralph.showRunTerminal",
  openRunPrompt: "ralph.openRunPrompt",
  refreshRuns: "ralph.refreshRuns",
  openAt: "ralph.openAt",
  addPattern: "ralph.memory.addPattern",
  addLearning: "ralph.memory.addLearning",
  newProgressEntry: "ralph.memory.newEntry",
  compact: "ralph.memory.compact",
  undoCompaction: "ralph.memory.undoCompaction",
  refreshMemory: "ralph.memory.refresh",
  addAgentsNote: "ralph.agents.addNote",
  generatePin: "ralph.pin.generate",
  searchPin: "ralph.pin.search",
  openTaskGraph: "ralph.openTaskGraph",
  openRunDashboard: "ralph.openRunDashboard",
  githubRefresh: "ralph.github.refresh",
  githubShowIssue: "ralph.github.showIssue",
  githubSignIn: "ralph.github.signIn",
  githubSelfHeal: "ralph.github.selfHeal",
  githubSelfHealAll: "ralph.github.selfHealAll",
  githubLinkToIssue: "ralph.github.linkToIssue",
  githubPublishStories: "ralph.github.publishStories",
  githubSync: "ralph.github.sync",
  githubDispatch: "ralph.github.dispatch",
  githubOpenArtifact: "ralph.github.openArtifact",
  githubOpenIssue: "ralph.github.openIssue",
  githubSignatureIssue: "ralph.github.openSignatureIssue",
  githubAddWorkflow: "ralph.github.addWorkflow",
  parallelRunWave: "ralph.parallel.runWave",
  parallelStartLoop: "ralph.parallel.startLoop",
  parallelStopAll: "ralph.parallel.stopAll",
  parallelStopAgent: "ralph.parallel.stopAgent",
  parallelResume: "ralph.parallel.resume",
  parallelCheckInterrupted: "ralph.parallel.checkInterrupted",
  needsYouRetry: "ralph.needsYou.retry",
  needsYouSkip: "ralph.needsYou.skip",
  needsYouShowTerminal: "ralph.needsYou.showTerminal",
  needsYouOpenWorktree: "ralph.needsYou.openWorktree",
  needsYouOpenConflict: "ralph.needsYou.openConflict",
  needsYouRemoveWorktree: "ralph.needsYou.removeWorktree",
} as const;

export const Views = {
  container: 'ralph',
  stories: "ralph.stories",
  runs: "ralph.runs",
  memory: "ralph.memory",
  taskGraph: "ralph.taskGraph",
  issues: "ralph.issues",
} as const;

export const ContextKeys = {
  /** 'noPrd' | 'ok' | 'problems' */
  state: "ralph.state",
  hasCycles: "ralph.hasCycles",
  running: "ralph.running",
} as const;

/** Kept for callers that name the section; the keys themselves are declared once in core/settingKeys.ts. */
export const Settings = {
  section: SETTINGS_SECTION,
  prdPath: SETTING_KEYS.prdPath.key,
} as const;

export const DIAGNOSTIC_SOURCE = 'ralph';
