/**
 * `ralph-workbench github status`: where each published story stands on GitHub (issue 20) — its
 * issue, its latest `ralph.yml` run, its pull request — as the extension's views show it
 * (core/github/remoteState.ts decides). The token comes from GH_TOKEN or GITHUB_TOKEN.
 */
import { errorMessage } from '../../core/errorMessage';
import { publishedIssues } from '../../core/github/remoteState';
import { oneLine } from '../../core/output';
import { readRemoteStates } from '../../node/github/remoteFeature';
import { openGitHub } from '../githubAccess';
import { readWorkspacePrd, subcommandArgs } from './args';
import type { CliIo } from '../io';

export const statusUsage = `Usage: ralph-workbench github status [--repo OWNER/REPO] [--api-url URL] [--json]

Where each published story stands on GitHub: its issue (open, closed), its latest ralph.yml
workflow run (queued, in progress, failed — with the link to its logs), its pull request (open,
merged). Stories without an issue field are not published (ralph-workbench github publish).

  --repo O/R      The repository (default: the origin remote)
  --api-url URL   REST base: https://api.github.com (default), https://HOST/api/v3 for Enterprise
  --root DIR      The workspace folder (default: the current folder)
  --json          {"stories":[{"id","issue","state","label","url","inFlight"}]}

The token comes from GH_TOKEN or GITHUB_TOKEN. Exit 0 when read, 1 when it could not be.
`;

const OPTIONS = {
  repo: { type: 'string' },
  'api-url': { type: 'string' },
  root: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const PREFIX = 'ralph-workbench github status';

export async function runStatus(argv: readonly string[], io: CliIo & { readonly env?: NodeJS.ProcessEnv; readonly cwd?: string; readonly clientOptions?: { timeoutMs?: number; retries?: number; retryAfterBaseMs?: number } }): Promise<number> {
  const parsed = subcommandArgs(argv, OPTIONS);
  if ('error' in parsed) {
    io.stderr(`${PREFIX}: ${parsed.error}\n\n${statusUsage}`);
    return 1;
  }
  const values = parsed.values as { [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };
  if (values.help) {
    io.stdout(statusUsage);
    return 0;
  }
  const workspace = await readWorkspacePrd(values.root, io, PREFIX);
  if (!workspace) {
    return 1;
  }
  const { root, analysis } = workspace;
  const feature = analysis.doc.branchName?.trim() ?? '';
  const issueOf = publishedIssues(analysis.doc.stories);
  if (issueOf.size === 0) {
    io.stdout(values.json ? `${JSON.stringify({ stories: [] })}\n` : 'No story is published yet (no issue fields in prd.json): ralph-workbench github publish.\n');
    return 0;
  }
  const access = await openGitHub({ repo: values.repo, apiUrl: values['api-url'], offline: false, env: io.env ?? process.env, root, clientOptions: io.clientOptions, prefix: PREFIX, stderr: io.stderr, requireToken: true });
  if ('error' in access) {
    io.stderr(access.error);
    return 1;
  }
  if (!access.client) {
    return 1;
  }
  const client = access.client;
  try {
    const states = await readRemoteStates(client, feature, issueOf);
    if (values.json) {
      io.stdout(`${JSON.stringify({ stories: [...states].map(([id, s]) => ({ id, issue: issueOf.get(id), state: s.kind, label: s.label, url: s.url ?? null, inFlight: s.inFlight })) })}\n`);
    } else {
      for (const [id, s] of states) {
        io.stdout(`${oneLine(id).padEnd(12)} #${String(issueOf.get(id)).padEnd(6)} ${s.label}${s.url ? `  ${oneLine(s.url)}` : ''}\n`);
      }
    }
    return 0;
  } catch (e) {
    io.stderr(`${PREFIX}: ${oneLine(errorMessage(e))}\n`);
    return 1;
  }
}
