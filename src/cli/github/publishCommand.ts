/**
 * `ralph-workbench github publish`: the stories of prd.json as GitHub issues (issue 20), as the
 * extension's Publish Stories to GitHub… does (src/node/github/publish.ts does the work). The
 * token comes from GH_TOKEN or GITHUB_TOKEN, never from a file. prd.json's `issue` fields are
 * written with a minimal, atomic edit — also after Ctrl-C or a failure, for the issues made so far.
 */
import { trustRulesFrom } from '../../core/artifacts/trust';
import * as path from 'node:path';
import { errorMessage } from '../../core/errorMessage';
import { oneLine } from '../../core/output';
import { setIssueFieldsEdits } from '../../core/prd/graphEdits';
import { type PublishReport, PublishStopped, publishStories } from '../../node/github/publish';
import { editFileAtomically } from '../../node/textFileEdit';
import { openGitHub } from '../githubAccess';
import { readWorkspacePrd, subcommandArgs } from './args';
import type { CliIo } from '../io';

export const publishUsage = `Usage: ralph-workbench github publish [--repo OWNER/REPO] [--api-url URL] [--dry-run] [--write-interval MS] [--json]

Publishes the stories of prd.json as GitHub issues: one issue per story ("<id>: <title>", the
description, the acceptance criteria as a checklist, labels ralph and ralph:ready / ralph:blocked /
ralph:done), sub-issues of a parent issue named after branchName (one parent per 100 stories),
each blockedBy as a native "blocked by" dependency (or a "Blocked by #n" list where GitHub has no
dependencies API). A story that passes has a closed issue. prd.json gets each story's issue number.

Run it again at any time: issues are found again by a hidden marker (only among issues labelled
ralph), so nothing is created twice, a publish that was cut off goes on, and with nothing changed
nothing is written.

  --repo O/R           The repository (default: the origin remote)
  --api-url URL        REST base: https://api.github.com (default), https://HOST/api/v3 for Enterprise
  --dry-run            Say what it would create, change and close; write nothing
  --write-interval MS  Milliseconds between writes (ralph.github.writeIntervalMs, default 1000)
  --root DIR           The workspace folder (default: the current folder)
  --json               {"created":[...],"writes":[...],"notes":[...],"dependencies":"native"|"body-list"}

The token comes from GH_TOKEN or GITHUB_TOKEN. Exit 0 when published (or nothing to do), 1 when it
could not publish or stopped part way (what it did is kept; run it again to go on).
`;

const OPTIONS = {
  repo: { type: 'string' },
  'api-url': { type: 'string' },
  'dry-run': { type: 'boolean' },
  'write-interval': { type: 'string' },
  root: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface PublishCliIo extends CliIo {
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Client tuning for tests (timeouts, back-off). */
  readonly clientOptions?: { timeoutMs?: number; retries?: number; retryAfterBaseMs?: number; maxRateLimitWaitSeconds?: number };
  /** SIGINT for tests; defaults to the process's. */
  readonly onInterrupt?: (stop: () => void) => () => void;
}

const PREFIX = 'ralph-workbench github publish';

export async function runPublish(argv: readonly string[], io: PublishCliIo): Promise<number> {
  const parsed = subcommandArgs(argv, OPTIONS);
  if ('error' in parsed) {
    io.stderr(`${PREFIX}: ${parsed.error}\n\n${publishUsage}`);
    return 1;
  }
  const values = parsed.values as { [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };
  if (values.help) {
    io.stdout(publishUsage);
    return 0;
  }
  const interval = values['write-interval'];
  if (interval !== undefined && !/^\d{1,7}$/.test(interval.trim())) {
    io.stderr(`${PREFIX}: --write-interval needs a whole number of milliseconds (got "${oneLine(interval)}")\n`);
    return 1;
  }
  const workspace = await readWorkspacePrd(values.root, io, PREFIX);
  if (!workspace) {
    return 1;
  }
  const { root, prdFile, analysis } = workspace;
  const access = await openGitHub({ repo: values.repo, apiUrl: values['api-url'], offline: false, env: io.env ?? process.env, root, clientOptions: { ...io.clientOptions, writeIntervalMs: interval !== undefined ? Number(interval) : workspace.settings.githubWriteIntervalMs }, prefix: PREFIX, stderr: io.stderr, requireToken: true });
  if ('error' in access) {
    io.stderr(access.error);
    return 1;
  }
  if (!access.client || !access.repo) {
    return 1; // openGitHub said why (no token, no repository)
  }
  const client = access.client;
  const controller = new AbortController();
  const off = (io.onInterrupt ?? processInterrupt)(() => {
    io.stderr(`${PREFIX}: stopping after the write under way; what was written stays (run it again to go on)\n`);
    controller.abort();
  });
  let report: PublishReport;
  let stopped: PublishStopped | undefined;
  try {
    report = await publishStories(client, analysis, {
      dryRun: values['dry-run'],
      repository: `${access.repo.owner}/${access.repo.repo}`,
      trust: trustRulesFrom(workspace.settings.githubTrustedAuthors, workspace.settings.githubArtifactFolders).rules,
      signal: controller.signal,
      onProgress: values.json ? undefined : (p) => io.stderr(`${p.done}/${p.total} ${oneLine(p.message)}\n`),
    });
  } catch (e) {
    if (!(e instanceof PublishStopped)) {
      io.stderr(`${PREFIX}: ${oneLine(errorMessage(e))}\n`);
      return 1;
    }
    stopped = e;
    report = e.partial;
  } finally {
    off();
  }
  let written = false;
  if (!values['dry-run'] && report.issueNumbers.size > 0) {
    written = (await editFileAtomically(prdFile, (text) => setIssueFieldsEdits(text, report.issueNumbers))) === 'edited';
  }
  const where = `${access.repo.owner}/${access.repo.repo}`;
  if (values.json) {
    io.stdout(`${JSON.stringify({ repository: where, dryRun: values['dry-run'] === true, created: report.created, writes: report.writes, notes: report.notes, dependencies: report.dependencies, parents: report.parents, prdUpdated: written, stopped: stopped?.message ?? null })}\n`);
  } else {
    for (const n of report.notes) {
      io.stdout(`note: ${oneLine(n)}\n`);
    }
    if (values['dry-run']) {
      io.stdout(report.writes.length === 0 ? `Nothing to publish: the issues of ${where} already say what prd.json says.\n` : `Would make ${report.writes.length} write(s) to ${where}:\n${report.writes.map((w) => `  ${oneLine(w)}`).join('\n')}\n`);
    } else {
      io.stdout(`${stopped ? 'Stopped part way' : 'Published'}: ${report.created.length} issue(s) created, ${report.writes.length} write(s) to ${where}${written ? `; ${path.relative(root, prdFile) || prdFile} names each story's issue` : ''}.\n`);
    }
  }
  if (stopped) {
    io.stderr(`${PREFIX}: ${oneLine(stopped.message)}\n`);
    return 1;
  }
  return 0;
}

function processInterrupt(stop: () => void): () => void {
  const handler = (): void => stop();
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}
