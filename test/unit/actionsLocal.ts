/**
 * Runs a job of a generated workflow here, step by step, as a GitHub runner would (issue 20: "its
 * run steps are executed locally against a scratch repository"). Each job gets a runner of its own
 * (its workspace and RUNNER_TEMP): `actions/checkout` clones the scratch "origin" at the step's
 * ref, one commit deep unless `fetch-depth: 0` (as the action does), `actions/upload-artifact` and
 * `actions/download-artifact` pass a folder between the jobs of one workflow run (by name),
 * `actions/setup-node` is this Node, each `run:` goes to
 * `bash --noprofile --norc -eo pipefail` with the workflow's, the job's and the step's `env:`
 * (expressions answered from a table: an expression the table does not know fails the test), and
 * `npx ralph-workbench` is the built CLI. `gh` is a stub on PATH that records its arguments (and
 * the body file of `gh pr create`) and answers `gh pr list` / `gh run list` from JSON the test gives.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { CLI_INVOCATION } from '../../src/core/github/workflow';

interface Step {
  readonly name?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly env?: Record<string, string | number>;
  readonly with?: Record<string, string | number>;
}

interface Workflow {
  readonly env?: Record<string, string>;
  readonly jobs: Record<string, { readonly env?: Record<string, string>; readonly steps: readonly Step[] }>;
}

const GH_STUB = `#!/usr/bin/env node
const fs = require('node:fs');
const path = require('node:path');
const args = process.argv.slice(2);
const entry = { args };
const bodyAt = args.indexOf('--body-file');
if (bodyAt >= 0) entry.body = fs.readFileSync(args[bodyAt + 1], 'utf8');
fs.appendFileSync(process.env.GH_STUB_LOG, JSON.stringify(entry) + '\\n');
const answer = (name) => {
  const file = path.join(process.env.GH_STUB_DIR, name);
  process.stdout.write(fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '[]\\n');
};
if (args[0] === 'pr' && args[1] === 'list') answer('pr-list.json');
else if (args[0] === 'issue' && args[1] === 'view') process.stdout.write(fs.existsSync(path.join(process.env.GH_STUB_DIR, 'issue-state.txt')) ? fs.readFileSync(path.join(process.env.GH_STUB_DIR, 'issue-state.txt'), 'utf8') : 'OPEN\\n');
else if (args[0] === 'run' && args[1] === 'list') answer('run-list.json');
else if (args[0] === 'pr' && args[1] === 'create') process.stdout.write('https://github.invalid/o/r/pull/1\\n');
`;

export interface GhCall {
  readonly args: readonly string[];
  readonly body?: string;
}

export interface LocalRunner {
  /** Where the `run` job runs: its checkout (each job has its own: workspaceOf). */
  readonly workspace: string;
  workspaceOf(job: string): string;
  /** gh's answers: `pr-list.json`, `run-list.json` (JSON); `issue-state.txt` (what `gh issue view --jq .state` prints). */
  answer(file: 'pr-list.json' | 'run-list.json' | 'issue-state.txt', value: unknown): void;
  /** Every gh call so far. */
  calls(): GhCall[];
  /** Runs the job's steps in order; throws with the step's output when one fails. */
  runJob(job: string, expressions: Readonly<Record<string, string>>, extraEnv?: Readonly<Record<string, string>>): void;
}

/** A runner for `workflowText` in `dir` (which holds the scratch repositories), cloning from `origin`. */
export function localRunner(workflowText: string, dir: string, origin: string, cli: string): LocalRunner {
  const wf = parse(workflowText) as Workflow;
  const bin = path.join(dir, 'bin');
  const workspaceOf = (job: string) => path.join(dir, `workspace-${job}`);
  const artifacts = path.join(dir, 'artifacts');
  const log = path.join(dir, 'gh-calls.jsonl');
  mkdirSync(bin, { recursive: true });
  writeFileSync(path.join(bin, 'gh'), GH_STUB);
  chmodSync(path.join(bin, 'gh'), 0o755);
  writeFileSync(log, '');

  const evaluate = (value: string | number, expressions: Readonly<Record<string, string>>): string =>
    String(value).replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_m, expr: string) => {
      if (!Object.hasOwn(expressions, expr)) {
        throw new Error(`the test has no value for the expression \${{ ${expr} }}`);
      }
      return expressions[expr];
    });

  return {
    workspace: workspaceOf('run'),
    workspaceOf,
    answer: (file, value) => writeFileSync(path.join(dir, file), typeof value === 'string' ? value : JSON.stringify(value)),
    calls: () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as GhCall),
    runJob(jobName, given, extraEnv = {}) {
      const workspace = workspaceOf(jobName);
      const temp = path.join(dir, `runner-temp-${jobName}`);
      mkdirSync(temp, { recursive: true });
      // The repository variable that names the package: set, as a user's repository has it (a test may empty it).
      const expressions = { 'vars.RALPH_WORKBENCH_PACKAGE': 'ralph-workbench@0.1.0', 'runner.temp': temp, ...given };
      const job = wf.jobs[jobName];
      const envOf = (e: Record<string, string | number> | undefined) => Object.fromEntries(Object.entries(e ?? {}).map(([k, v]) => [k, evaluate(v, expressions)]));
      for (const step of job.steps) {
        const label = step.name ?? step.uses ?? '(step)';
        if (step.uses?.startsWith('actions/checkout@')) {
          const ref = evaluate(step.with?.ref ?? '', expressions);
          if (existsSync(workspace)) {
            throw new Error('the workspace exists already: one job per runner');
          }
          const deep = String(step.with?.['fetch-depth'] ?? '1') === '0';
          const r = spawnSync('git', ['clone', '-q', ...(deep ? [] : ['--depth', '1']), '--branch', ref, `file://${origin}`, workspace], { encoding: 'utf8' });
          if (r.status !== 0) {
            throw new Error(`${label}: git clone failed: ${r.stderr}`);
          }
          continue;
        }
        if (step.uses?.startsWith('actions/upload-artifact@')) {
          const from = evaluate(step.with?.path ?? '', expressions);
          if (!existsSync(from) || readdirSync(from).length === 0) {
            throw new Error(`${label}: no files were found at ${from}`);
          }
          cpSync(from, path.join(artifacts, evaluate(step.with?.name ?? 'artifact', expressions)), { recursive: true });
          continue;
        }
        if (step.uses?.startsWith('actions/download-artifact@')) {
          const name = evaluate(step.with?.name ?? 'artifact', expressions);
          if (!existsSync(path.join(artifacts, name))) {
            throw new Error(`${label}: Artifact not found for name: ${name}`);
          }
          cpSync(path.join(artifacts, name), evaluate(step.with?.path ?? workspace, expressions), { recursive: true });
          continue;
        }
        if (step.uses?.startsWith('actions/setup-node@')) {
          continue;
        }
        if (step.uses) {
          throw new Error(`${label}: the local runner does not know ${step.uses}`);
        }
        const script = (step.run ?? '').replaceAll(CLI_INVOCATION, `node ${JSON.stringify(cli)}`);
        const env = {
          ...process.env,
          ...envOf(wf.env),
          ...envOf(job.env),
          ...envOf(step.env),
          ...extraEnv,
          PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
          RUNNER_TEMP: temp,
          GITHUB_ACTIONS: 'true',
          GH_STUB_LOG: log,
          GH_STUB_DIR: dir,
        };
        const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd: workspace, env, encoding: 'utf8', timeout: 120_000 });
        if (r.status !== 0) {
          throw new Error(`step "${label}" failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
        }
      }
    },
  };
}
