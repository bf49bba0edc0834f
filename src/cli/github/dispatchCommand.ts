/**
 * `ralph-workbench github dispatch`: triggers the ralph.yml workflow for each ready story that is
 * not in flight (max-parallel, the same-file guard), or assigns its issue to a hosted agent
 * (`--assignee`, `ralph.github.agentAssignee`). The work is src/node/github/dispatch.ts; this
 * module reads the arguments and settings and says what happened.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { errorMessage } from '../../core/errorMessage';
import { describeDispatchWait } from '../../core/github/dispatchPlan';
import { WORKFLOW_FILE } from '../../core/github/workflow';
import { oneLine } from '../../core/output';
import { analyzePrd } from '../../core/prd/index';
import { DispatchError, type DispatchPort, type DispatchResult, dispatchReady } from '../../node/github/dispatch';
import { resolveInsideSync } from '../../node/workspacePath';
import { readWorkspaceSettings } from '../../node/workspaceSettings';
import { openGitHub } from '../githubAccess';
import { maxParallelValue, subcommandArgs } from './args';
import type { CliIo } from '../io';

export const dispatchUsage = `Usage: ralph-workbench github dispatch [--max-parallel N] [--dry-run] [--json] [options]

Run each ready story on GitHub Actions (the ${WORKFLOW_FILE} workflow: ralph-workbench github
workflow writes it) unless it is in flight already, its pull request is open, it would change the
same files as a story in flight, or max-parallel runs are in flight. The stories must be published
(their "issue" in prd.json). With an assignee (--assignee, ralph.github.agentAssignee) each chosen
story's issue is assigned to that hosted coding agent instead.

Options:
  --max-parallel N   Story runs in flight at most (default: ralph.parallel.maxAgents)
  --dry-run          Say what would be dispatched; change nothing
  --json             {"dispatched": [...], "waits": [...], "inFlight": N, "dryRun": bool}
  --assignee LOGIN   Assign the issues to LOGIN instead of running the workflow
  --ref REF          The ref whose ${WORKFLOW_FILE} runs (default: prd.json's branchName)
  --repo OWNER/REPO  The repository (default: the origin remote)
  --api-url URL      The REST API (GitHub Enterprise Server: https://HOST/api/v3)
  --root DIR         The workspace folder (default: the current folder)
The token: GH_TOKEN or GITHUB_TOKEN (it needs Actions: write, or Issues: write to assign).
`;

export interface DispatchArgs {
  readonly root: string;
  readonly maxParallel?: number;
  readonly dryRun: boolean;
  readonly json: boolean;
  readonly assignee?: string;
  readonly ref?: string;
  readonly repo?: string;
  readonly apiUrl?: string;
}

const OPTIONS = {
  'max-parallel': { type: 'string' },
  'dry-run': { type: 'boolean' },
  json: { type: 'boolean' },
  assignee: { type: 'string' },
  ref: { type: 'string' },
  repo: { type: 'string' },
  'api-url': { type: 'string' },
  root: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export function parseDispatchArgs(argv: readonly string[], cwd: string): { args?: DispatchArgs; help?: boolean; error?: string } {
  const parsed = subcommandArgs(argv, OPTIONS);
  if ('error' in parsed) {
    return parsed;
  }
  const { values } = parsed;
  if (values.help) {
    return { help: true };
  }
  const maxParallel = maxParallelValue(values['max-parallel'] as string | undefined);
  if (typeof maxParallel === 'object') {
    return maxParallel;
  }
  const str = (name: string): string | undefined => {
    const v = values[name];
    return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
  };
  if (values.assignee !== undefined && str('assignee') === undefined) {
    return { error: '--assignee needs a GitHub login' };
  }
  return {
    args: {
      root: path.resolve(cwd, str('root') ?? '.'),
      maxParallel,
      dryRun: values['dry-run'] === true,
      json: values.json === true,
      assignee: str('assignee'),
      ref: str('ref'),
      repo: str('repo'),
      apiUrl: str('api-url'),
    },
  };
}

/** How the command reaches GitHub (tests pass a port of their own). */
export interface DispatchDeps {
  openPort(args: DispatchArgs, io: CliIo): Promise<DispatchPort | { error: string }>;
  readonly env: NodeJS.ProcessEnv;
}

const realDeps: DispatchDeps = {
  env: process.env,
  async openPort(args, io) {
    const access = await openGitHub({ repo: args.repo, apiUrl: args.apiUrl, offline: false, env: process.env, root: args.root, prefix: 'ralph-workbench github dispatch', stderr: io.stderr });
    if ('error' in access) {
      return { error: access.error.trim() };
    }
    if (!access.client) {
      return { error: `ralph-workbench github dispatch: ${access.offlineReason ?? 'GitHub cannot be reached'}` };
    }
    return access.client;
  },
};

function report(result: DispatchResult, args: DispatchArgs, io: CliIo): void {
  if (args.json) {
    io.stdout(
      `${JSON.stringify({
        dispatched: result.done,
        waits: result.plan.waits.map((w) => ({ storyId: w.storyId, reason: w.reason.kind, message: describeDispatchWait(w.reason) })),
        inFlight: result.plan.inFlight,
        dryRun: args.dryRun,
        failed: result.failed ?? null,
      })}\n`,
    );
    return;
  }
  const verb = { dispatched: 'dispatched', assigned: 'assigned', 'would-dispatch': 'would dispatch', 'would-assign': 'would assign' } as const;
  for (const d of result.done) {
    io.stdout(`${verb[d.action]} ${oneLine(d.storyId)}${d.issue !== undefined ? ` (#${d.issue})` : ''}${d.assignee !== undefined ? ` to ${oneLine(d.assignee)}` : ''}\n`);
  }
  for (const w of result.plan.waits) {
    io.stdout(`${oneLine(w.storyId)} ${describeDispatchWait(w.reason)}\n`);
  }
  if (result.done.length === 0 && result.plan.waits.length === 0) {
    io.stdout('No story is ready.\n');
  }
}

export async function runDispatchCommand(argv: readonly string[], io: CliIo, deps: DispatchDeps = realDeps, cwd = process.cwd()): Promise<number> {
  const prefix = 'ralph-workbench github dispatch';
  const parsed = parseDispatchArgs(argv, cwd);
  if (parsed.help) {
    io.stdout(dispatchUsage);
    return 0;
  }
  if (!parsed.args) {
    io.stderr(`${prefix}: ${parsed.error}\n\n${dispatchUsage}`);
    return 1;
  }
  const args = parsed.args;
  if (!(deps.env.GH_TOKEN || deps.env.GITHUB_TOKEN || '').trim()) {
    io.stderr(`${prefix}: no GH_TOKEN or GITHUB_TOKEN: set one to a token that may run workflows (Actions: write).\n`);
    return 1;
  }
  const ws = readWorkspaceSettings(args.root);
  for (const p of ws.problems) {
    io.stderr(`${prefix}: ${p.message}\n`);
  }
  const s = ws.values;
  let text: string;
  try {
    text = readFileSync(resolveInsideSync(args.root, s.prdPath, { what: 'ralph.prdPath' }), 'utf8');
  } catch (e) {
    io.stderr(`${prefix}: cannot read ${s.prdPath}: ${oneLine(errorMessage(e))}\n`);
    return 1;
  }
  const analysis = analyzePrd(text, { fileName: path.basename(s.prdPath) });
  if (!analysis.readable) {
    io.stderr(`${prefix}: ${s.prdPath} has errors: run ralph-workbench validate --prd ${s.prdPath}\n`);
    return 1;
  }
  const port = await deps.openPort(args, io);
  if ('error' in port) {
    io.stderr(`${port.error}\n`);
    return 1;
  }
  try {
    const result = await dispatchReady({
      root: args.root,
      analysis,
      port,
      maxParallel: args.maxParallel ?? s.parallelMaxAgents,
      dryRun: args.dryRun,
      assignee: args.assignee ?? (s.githubAgentAssignee.trim() || undefined),
      ref: args.ref,
      files: { prd: s.prdPath, progress: s.progressPath, pin: s.pinPath },
      allowOverlap: s.parallelAllowOverlap,
    });
    report(result, args, io);
    if (result.failed) {
      io.stderr(`${prefix}: ${oneLine(result.failed.storyId)} was not dispatched: ${oneLine(result.failed.message)}\n`);
      return 1;
    }
    return 0;
  } catch (e) {
    io.stderr(`${prefix}: ${e instanceof DispatchError ? e.message : oneLine(errorMessage(e))}\n`);
    return 1;
  }
}
