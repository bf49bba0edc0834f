/**
 * The GitHub Actions workflow that runs a backlog's ready stories on Actions (issue 20, "Run on
 * Actions"): `.github/workflows/ralph.yml`, rendered for the user's agent preset. Pure: the file's
 * stamp (a hash of this text) and the kept-edits rule are src/node/github/workflowFile.ts.
 *
 * Three jobs:
 * - `run` (workflow_dispatch, inputs story / branch): checks the story out of the feature branch,
 *   validates it against prd.json at that commit, runs `ralph-workbench run --story` headless with
 *   the agent's secret in that step only, and keeps the commits it made as a git bundle (an
 *   artifact). The agent runs with every right of the runner's user: so this job can write nothing
 *   (`contents: read`, no credentials left in .git/config), and no later step of it holds a token.
 * - `publish` (after `run`): on a fresh runner, fetches the bundle's commits (data: never checked
 *   out, no code of theirs runs), pushes `<branch>-<story>` and opens `feat: <id> - <title>`
 *   (`Closes #<issue>` and the run's record in its body, written by `github pr-text`: the title and
 *   issue from the feature branch's prd.json, not from the agent's commits).
 * - `advance` (a merged pull request of a story branch of this repository): marks the story passing
 *   on the feature branch (one commit, prd.json only), closes the story's issue (a `Closes #n`
 *   closes it only when merged into the default branch) and dispatches the stories that became
 *   ready, up to max-parallel in flight.
 *
 * The security rules the tests check structurally (test/unit/githubWorkflow.test.ts): no `${{ }}`
 * inside a `run:` script (inputs and event text reach scripts through `env:`, quoted), permissions
 * per job and `actions: write` only in `advance`, the agent's secret only in the agent step, one
 * concurrency group per story.
 */
import { type AgentPresetId, getPreset } from '../agents/presets';

/** The workflow's file name (the contract of issue 20: dispatches and run lists name it). */
export const WORKFLOW_FILE = 'ralph.yml';
export const WORKFLOW_PATH = `.github/workflows/${WORKFLOW_FILE}`;
/** A run's display title is `ralph: <story id>` (its run-name): how a run names its story. */
export const RUN_TITLE_PREFIX = 'ralph: ';
/** The repository variable that sets how many story runs may be in flight at once. */
export const MAX_PARALLEL_VARIABLE = 'RALPH_MAX_PARALLEL';
/**
 * How the workflow calls the CLI (tests replace it by `node dist/cli.js`): the package the
 * repository variable RALPH_WORKBENCH_PACKAGE names (a pinned version on the user's registry, or a
 * tarball URL), never an unpinned name that anyone could register.
 */
export const CLI_INVOCATION = 'npx --yes --package "$RALPH_WORKBENCH_PACKAGE" ralph-workbench';
/** The repository variable that names the ralph-workbench package the workflow installs. */
export const PACKAGE_VARIABLE = 'RALPH_WORKBENCH_PACKAGE';
/** The first lines of a job's first CLI step: no package named, no run. */
const PACKAGE_CHECK = `if [ -z "$${PACKAGE_VARIABLE}" ]; then
  echo "::error::Set the repository variable ${PACKAGE_VARIABLE} to the ralph-workbench package to install (a pinned version, e.g. ralph-workbench@0.1.0, or a tarball URL)."
  exit 1
fi`;

/** What a preset installs on the runner and the secret its agent reads. */
export interface AgentSetup {
  /** The install command line, or undefined when the preset installs nothing. */
  readonly install?: string;
  /** The repository secret (and environment variable) the agent needs, if any. */
  readonly secret?: string;
  /** Said in a comment above the install step. */
  readonly note: string;
}

const SETUPS: Record<AgentPresetId, AgentSetup> = {
  claude: { install: 'npm install -g @anthropic-ai/claude-code', secret: 'ANTHROPIC_API_KEY', note: 'Claude Code reads ANTHROPIC_API_KEY.' },
  codex: { install: 'npm install -g @openai/codex', secret: 'OPENAI_API_KEY', note: 'Codex CLI reads OPENAI_API_KEY.' },
  amp: { install: 'npm install -g @sourcegraph/amp', secret: 'AMP_API_KEY', note: 'Amp reads AMP_API_KEY.' },
  copilot: { install: 'npm install -g @github/copilot', secret: 'COPILOT_GITHUB_TOKEN', note: 'Copilot CLI reads COPILOT_GITHUB_TOKEN (a token with the Copilot Requests permission).' },
  ralphSh: { note: "The workspace's ralph.sh starts its own agent: install it and pass its secret here." },
  custom: { note: 'A custom agent command installs nothing: add the steps that install your agent here, and its secret to the agent step.' },
};

export function agentSetup(preset: AgentPresetId): AgentSetup {
  return SETUPS[preset];
}

export interface WorkflowOptions {
  /** `ralph.agent.preset`. */
  readonly preset: AgentPresetId;
  /** `ralph.agent.command` when the preset is custom (else the run reads it from .vscode/settings.json). */
  readonly agentCommand?: string;
  /** `ralph.prdPath`, relative to the repository root. */
  readonly prdPath?: string;
  /** Story runs in flight at most when the repository variable is not set (`ralph.parallel.maxAgents`). */
  readonly maxParallel?: number;
}

/** A YAML double-quoted scalar (JSON's escapes are a subset of YAML's) that GitHub does not evaluate. */
function yamlString(s: string): string {
  return JSON.stringify(s.replace(/\$\{\{/g, "${{ '${{' }}"));
}

/** Lines indented by `n` spaces (blank lines stay empty). */
function indent(text: string, n: number): string {
  return text
    .split('\n')
    .map((l) => (l === '' ? '' : ' '.repeat(n) + l))
    .join('\n');
}

function agentStep(o: WorkflowOptions, setup: AgentSetup): string {
  const env = [`STORY: \${{ inputs.story }}`];
  const args = ['--story "$STORY"', '--parallel 1'];
  if (o.preset === 'custom') {
    if (o.agentCommand?.trim()) {
      env.push(`RALPH_AGENT_COMMAND: ${yamlString(o.agentCommand.trim())}`);
      args.push('--agent-command "$RALPH_AGENT_COMMAND"');
    }
  } else {
    args.push(`--agent ${o.preset}`);
  }
  if (setup.secret) {
    env.push(`${setup.secret}: \${{ secrets.${setup.secret} }}`);
  }
  return `- name: Run the story with the agent
  env:
${indent(env.join('\n'), 4)}
  run: ${CLI_INVOCATION} run ${args.join(' ')}`;
}

function installStep(o: WorkflowOptions, setup: AgentSetup): string {
  const label = getPreset(o.preset)?.label ?? o.preset;
  const note = `# ${setup.note}`;
  return setup.install
    ? `${note}\n- name: Install the agent (${label})\n  run: ${setup.install}`
    : `${note}\n- name: Install the agent (${label})\n  run: echo "The ${o.preset} agent installs nothing here."`;
}

const GIT_IDENTITY = `- name: Set the git identity of the commits
  run: |
    git config user.name "github-actions[bot]"
    git config user.email "41898283+github-actions[bot]@users.noreply.github.com"`;

/** The env: of a run step that reads the dispatch's inputs (never interpolated into the script). */
const DISPATCH_ENV = `  env:
    STORY: \${{ inputs.story }}
    BRANCH: \${{ inputs.branch }}
`;

const SETUP_NODE = `- uses: actions/setup-node@v4
  with:
    node-version: 22`;

/** Where the `run` job leaves the story's commits (a git bundle) and its run record for `publish`: one artifact per workflow run. */
const STORY_ARTIFACT = 'ralph-story';

/** The `run` job: one story, dispatched. */
function runJob(o: WorkflowOptions): string {
  const setup = agentSetup(o.preset);
  const steps = [
    `# The agent will run here with every right of the runner's user: no credentials stay in .git/config.
- name: Check out the feature branch
  uses: actions/checkout@v4
  with:
    ref: \${{ inputs.branch }}
    persist-credentials: false`,
    SETUP_NODE,
    `- name: Check the story against prd.json at this commit
${DISPATCH_ENV}    GH_TOKEN: \${{ github.token }}
  run: |
${indent(PACKAGE_CHECK, 4)}
    ${CLI_INVOCATION} github check-story --story "$STORY" --branch "$BRANCH" --prd "$RALPH_PRD"
    open_prs="$(gh pr list --state open --head "$BRANCH-$STORY" --json number)"
    if [ "$open_prs" != "[]" ]; then
      echo "::error::$STORY has an open pull request from $BRANCH-$STORY already: merge or close it first."
      exit 1
    fi`,
    GIT_IDENTITY,
    installStep(o, setup),
    agentStep(o, setup),
    `- name: Keep the story's commits for the job that publishes them
${DISPATCH_ENV}  run: |
    if [ "$(git rev-parse HEAD)" = "$(git rev-parse "refs/remotes/origin/$BRANCH")" ]; then
      echo "::error::The agent made no commit for $STORY: see the run's log above."
      exit 1
    fi
    mkdir -p "$RUNNER_TEMP/${STORY_ARTIFACT}"
    git bundle create "$RUNNER_TEMP/${STORY_ARTIFACT}/story.bundle" HEAD "^refs/remotes/origin/$BRANCH"
    if [ -f .ralph/runs.jsonl ]; then
      cp .ralph/runs.jsonl "$RUNNER_TEMP/${STORY_ARTIFACT}/runs.jsonl"
    fi`,
    `- name: Upload the story's commits
  uses: actions/upload-artifact@v4
  with:
    name: ${STORY_ARTIFACT}
    path: \${{ runner.temp }}/${STORY_ARTIFACT}
    retention-days: 1
    if-no-files-found: error`,
  ];
  return `run:
  if: github.event_name == 'workflow_dispatch'
  runs-on: ubuntu-latest
  timeout-minutes: 120
  # A story never runs twice at once.
  concurrency:
    group: ralph-\${{ inputs.story }}
    cancel-in-progress: false
  # Read only: the agent's commits leave this job as an artifact, the publish job pushes them.
  permissions:
    contents: read
    pull-requests: read
  steps:
${indent(steps.join('\n'), 4)}`;
}

/** The `publish` job: the story's commits, from the run job's artifact, pushed and proposed. */
function publishJob(): string {
  const steps = [
    `- name: Check out the feature branch
  uses: actions/checkout@v4
  with:
    ref: \${{ inputs.branch }}
    fetch-depth: 0`,
    SETUP_NODE,
    `- name: Download the story's commits
  uses: actions/download-artifact@v4
  with:
    name: ${STORY_ARTIFACT}
    path: \${{ runner.temp }}/${STORY_ARTIFACT}`,
    `# The commits are data here: fetched, never checked out; no code of theirs runs in this job.
# A branch left by an earlier run of this story is replaced (the check refused a story with an open pull request).
- name: Push the story branch
${DISPATCH_ENV}  run: |
    git fetch --quiet --no-tags "$RUNNER_TEMP/${STORY_ARTIFACT}/story.bundle" "HEAD:refs/ralph/story"
    git push --force origin "refs/ralph/story:refs/heads/$BRANCH-$STORY"`,
    `- name: Open the pull request
${DISPATCH_ENV}    GH_TOKEN: \${{ github.token }}
  run: |
    git show "refs/ralph/story:$RALPH_PRD" > "$RUNNER_TEMP/${STORY_ARTIFACT}/prd.json"
    ${CLI_INVOCATION} github pr-text --story "$STORY" --head "$BRANCH-$STORY" --prd "$RALPH_PRD" --story-prd "$RUNNER_TEMP/${STORY_ARTIFACT}/prd.json" --runs "$RUNNER_TEMP/${STORY_ARTIFACT}/runs.jsonl" --out "$RUNNER_TEMP/ralph-pr"
    gh pr create --base "$BRANCH" --head "$BRANCH-$STORY" --title "$(cat "$RUNNER_TEMP/ralph-pr/title.txt")" --body-file "$RUNNER_TEMP/ralph-pr/body.md"`,
  ];
  return `publish:
  needs: run
  if: github.event_name == 'workflow_dispatch'
  runs-on: ubuntu-latest
  timeout-minutes: 15
  concurrency:
    group: ralph-publish-\${{ inputs.story }}
    cancel-in-progress: false
  permissions:
    contents: write
    pull-requests: write
  steps:
${indent(steps.join('\n'), 4)}`;
}

/** The `advance` job: after a story's pull request merged into its feature branch. */
function advanceJob(o: WorkflowOptions): string {
  const steps = [
    `# Its history too: the issue to close is read from prd.json as it was before the merge.
- name: Check out the feature branch
  uses: actions/checkout@v4
  with:
    ref: \${{ github.event.pull_request.base.ref }}
    fetch-depth: 0`,
    SETUP_NODE,
    GIT_IDENTITY,
    `# One commit touching prd.json only; another merge may push first: then start again from its head.
- name: Mark the story passing
  env:
    BASE: \${{ github.event.pull_request.base.ref }}
    HEAD_REF: \${{ github.event.pull_request.head.ref }}
    PR_NUMBER: \${{ github.event.pull_request.number }}
  run: |
${indent(PACKAGE_CHECK, 4)}
    story="\${HEAD_REF#"$BASE"-}"
    for attempt in 1 2 3 4 5; do
      ${CLI_INVOCATION} github mark-passing --story "$story" --prd "$RALPH_PRD" --skip-unknown
      if git diff --quiet -- "$RALPH_PRD"; then
        echo "Nothing to mark on $BASE: $story passes there already, or names no story of prd.json."
        exit 0
      fi
      git commit --quiet -m "chore: $story passes (pull request #$PR_NUMBER merged)" -- "$RALPH_PRD"
      if git push origin "HEAD:refs/heads/$BASE"; then
        exit 0
      fi
      echo "Attempt $attempt: $BASE moved; starting again from its head."
      git fetch origin "$BASE"
      git reset --hard "refs/remotes/origin/$BASE"
    done
    echo "::error::Could not push the commit that marks $story passing to $BASE."
    exit 1`,
    `# A "Closes #n" in the pull request closes the issue only when it merges into the default branch.
# The issue is the one prd.json named before the merge: the story's commits could name another.
- name: Close the story's issue
  env:
    BASE: \${{ github.event.pull_request.base.ref }}
    BASE_SHA: \${{ github.event.pull_request.base.sha }}
    HEAD_REF: \${{ github.event.pull_request.head.ref }}
    PR_NUMBER: \${{ github.event.pull_request.number }}
    GH_TOKEN: \${{ github.token }}
  run: |
    story="\${HEAD_REF#"$BASE"-}"
    git show "$BASE_SHA:$RALPH_PRD" > "$RUNNER_TEMP/ralph-prd-before.json"
    issue="$(${CLI_INVOCATION} github issue-of --story "$story" --prd "$RUNNER_TEMP/ralph-prd-before.json" --skip-unknown)"
    if [ -n "$issue" ] && [ "$(gh issue view "$issue" --json state --jq .state)" = "OPEN" ]; then
      gh issue close "$issue" --reason completed --comment "Done: pull request #$PR_NUMBER merged into $BASE."
    fi`,
    `- name: Dispatch the stories that became ready
  env:
    BASE: \${{ github.event.pull_request.base.ref }}
    GH_TOKEN: \${{ github.token }}
    MAX_PARALLEL: \${{ vars.${MAX_PARALLEL_VARIABLE} || '${o.maxParallel ?? 3}' }}
  run: |
    gh run list --workflow ${WORKFLOW_FILE} --event workflow_dispatch --limit 200 --json displayTitle,status,event > "$RUNNER_TEMP/ralph-runs.json"
    gh pr list --state open --base "$BASE" --limit 200 --json headRefName,isCrossRepository > "$RUNNER_TEMP/ralph-pulls.json"
    ${CLI_INVOCATION} github next-dispatches --prd "$RALPH_PRD" --runs "$RUNNER_TEMP/ralph-runs.json" --pulls "$RUNNER_TEMP/ralph-pulls.json" --branch "$BASE" --max-parallel "$MAX_PARALLEL" > "$RUNNER_TEMP/ralph-next.txt"
    while IFS= read -r story; do
      gh workflow run ${WORKFLOW_FILE} --ref "$BASE" -f story="$story" -f branch="$BASE" -f max-parallel="$MAX_PARALLEL"
    done < "$RUNNER_TEMP/ralph-next.txt"`,
  ];
  return `advance:
  # A merged pull request from a story branch of this repository (<feature branch>-<story>).
  if: >-
    github.event_name == 'pull_request' && github.event.pull_request.merged == true &&
    github.event.pull_request.head.repo.full_name == github.repository &&
    startsWith(github.event.pull_request.head.ref, format('{0}-', github.event.pull_request.base.ref))
  runs-on: ubuntu-latest
  timeout-minutes: 15
  permissions:
    contents: write
    pull-requests: read
    issues: write
    actions: write
  steps:
${indent(steps.join('\n'), 4)}`;
}

/**
 * The workflow's text (without the stamp line src/node/github/workflowFile.ts puts on top). The
 * same options give the same text, byte for byte.
 */
export function renderWorkflow(o: WorkflowOptions): string {
  const prd = o.prdPath?.trim() || 'prd.json';
  return `# Ralph Workbench: runs the ready stories of ${yamlString(prd).slice(1, -1)} on GitHub Actions, one job per story.
# Dispatch a story with Ralph: Dispatch Ready Stories (VS Code), \`ralph-workbench github dispatch\`, or
#   gh workflow run ${WORKFLOW_FILE} -f story=US-001 -f branch=<feature branch>
# A merged story pull request marks the story passing and dispatches the stories that became ready,
# at most the repository variable ${MAX_PARALLEL_VARIABLE} (default ${o.maxParallel ?? 3}) at once.
name: ralph
run-name: "\${{ github.event_name == 'pull_request' && format('ralph advance after #{0}', github.event.pull_request.number) || format('ralph: {0}', inputs.story) }}"

on:
  workflow_dispatch:
    inputs:
      story:
        description: The story id (as in prd.json)
        required: true
        type: string
      branch:
        description: The feature branch (prd.json's branchName)
        required: true
        type: string
      max-parallel:
        description: Story runs in flight at most, as the dispatcher counted them (the dispatches after a merge use the repository variable ${MAX_PARALLEL_VARIABLE})
        required: false
        type: string
        default: ''
  pull_request:
    types: [closed]

# Nothing by default: each job names what it needs.
permissions: {}

defaults:
  run:
    shell: bash

env:
  RALPH_PRD: ${yamlString(prd)}
  ${PACKAGE_VARIABLE}: \${{ vars.${PACKAGE_VARIABLE} }}

jobs:
${indent(runJob(o), 2)}

${indent(publishJob(), 2)}

${indent(advanceJob(o), 2)}
`;
}
