/**
 * ralph-workbench artifacts <issue>... [--repo OWNER/REPO] [--api-url URL] [--offline] [--self-heal] [--json]
 * An issue's research, plan, review and implementation artifacts (Artifact Comment Protocol),
 * from its comments and from thoughts/shared by file name; --self-heal posts the missing links.
 * The token comes from GH_TOKEN or GITHUB_TOKEN, never from a file.
 */
import { parseArgs } from 'node:util';
import { PHASE_LABELS, type IssueArtifacts } from '../../core/artifacts/issueArtifacts';
import { KIND_LABELS } from '../../core/artifacts/protocol';
import { oneLine } from '../../core/output';
import { readIssues, selfHeal } from '../../node/github/artifacts';
import { openGitHub } from '../githubAccess';
import type { CliCommand } from '../io';

export interface ArtifactsIo {
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
  /** Defaults to process.env. */
  readonly env?: NodeJS.ProcessEnv;
  /** Defaults to process.cwd(). */
  readonly cwd?: string;
  /** Client tuning for tests (timeouts, back-off). */
  readonly clientOptions?: { timeoutMs?: number; retries?: number; retryAfterBaseMs?: number; maxRateLimitWaitSeconds?: number };
}

const usage = `Usage: ralph-workbench artifacts <issue>... [--repo OWNER/REPO] [--api-url URL] [--offline] [--self-heal] [--json]

Shows each issue's research, plan, review and implementation documents: "linked" by an issue
comment (the Artifact Comment Protocol), "on-disk" when only a file in
thoughts/shared/{research,plans,reviews} names the issue (GH-42 or GH-0042), or "missing";
the phase that comes next, and warnings for missing prerequisites.

  <issue>          42, #42 or GH-0042
  --repo O/R       The repository (default: the origin remote)
  --api-url URL    REST base: https://api.github.com (default), https://HOST/api/v3 for Enterprise
  --offline        Do not contact GitHub: files on disk only
  --self-heal      Post the missing comment for each artifact found on disk (URL on the default
                   branch + "(Self-healed: ...)"), never a link that is already posted
  --json           {"issues":[...],"requests":N}

The token comes from GH_TOKEN or GITHUB_TOKEN. Without one: files on disk only (exit 0).
Exit 0 when every issue was read, 1 when one could not be (its "error" says what to do).
`;

function parseIssue(s: string): number | undefined {
  const m = /^(?:#|GH-)?0*(\d{1,9})$/i.exec(s.trim());
  const n = m ? Number(m[1]) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

function jsonIssue(i: IssueArtifacts): unknown {
  return {
    number: i.number,
    title: i.title ?? null,
    state: i.state ?? null,
    phase: i.phase,
    artifacts: i.artifacts.map((a) => ({
      kind: a.kind,
      status: a.status,
      url: a.url,
      commentUrl: a.commentUrl,
      path: a.path,
      verdict: a.kind === 'review' ? a.verdict : undefined,
    })),
    warnings: i.warnings,
    error: i.error,
  };
}

/** The human-readable form: the issue's title, state, paths and URLs come from GitHub, each kept on its line. */
function textIssue(i: IssueArtifacts): string {
  const lines = [`#${i.number}${i.title ? ` ${oneLine(i.title)}` : ''}${i.state ? ` [${oneLine(i.state)}]` : ''} — ${PHASE_LABELS[i.phase]}`];
  for (const a of i.artifacts) {
    const where = oneLine(a.path ?? a.url ?? '');
    const verdict = a.verdict ? ` (${a.verdict})` : '';
    lines.push(`  ${KIND_LABELS[a.kind].padEnd(15)} ${a.status.padEnd(8)} ${where}${verdict}`.trimEnd());
  }
  for (const w of i.warnings) {
    lines.push(`  warning: ${oneLine(w)}`);
  }
  if (i.error) {
    lines.push(`  error: ${oneLine(i.error)}`);
  }
  return `${lines.join('\n')}\n`;
}

export async function runArtifacts(argv: readonly string[], io: ArtifactsIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        repo: { type: 'string' },
        'api-url': { type: 'string' },
        offline: { type: 'boolean', default: false },
        'self-heal': { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (e) {
    io.stderr(`ralph-workbench artifacts: ${(e as Error).message}\n\n${usage}`);
    return 1;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(usage);
    return 0;
  }
  const issues: number[] = [];
  for (const p of positionals) {
    const n = parseIssue(p);
    if (n === undefined) {
      io.stderr(`ralph-workbench artifacts: "${p}" is not an issue number (42, #42 or GH-0042)\n`);
      return 1;
    }
    if (!issues.includes(n)) {
      issues.push(n);
    }
  }
  if (issues.length === 0) {
    io.stderr(`ralph-workbench artifacts: name at least one issue\n\n${usage}`);
    return 1;
  }
  const env = io.env ?? process.env;
  const cwd = io.cwd ?? process.cwd();
  // The workspace is the folder it runs in (as for ./prd.json): run it from the repository root.
  const root = cwd;
  const gh = await openGitHub({ repo: values.repo, apiUrl: values['api-url'], offline: values.offline, env, root, clientOptions: io.clientOptions, prefix: 'ralph-workbench artifacts', stderr: io.stderr });
  if ('error' in gh) {
    io.stderr(gh.error);
    return 1;
  }
  const { repo, client, offlineReason } = gh;
  let failed = gh.failed;

  let read = await readIssues({ root, repo, client, issues, offlineReason });
  if (values['self-heal'] && client && repo) {
    const healed: number[] = [];
    for (const r of read) {
      const candidates = r.result.artifacts.filter((a) => a.status === 'on-disk');
      if (r.result.error || candidates.length === 0) {
        continue;
      }
      try {
        const posted = await selfHeal(client, repo, r.result.number, candidates, { root });
        for (const p of posted) {
          io.stderr(`ralph-workbench artifacts: #${r.result.number}: posted the ${HEADER_NAMES[p.kind]} link ${p.url}\n`);
        }
        if (posted.length > 0) {
          healed.push(r.result.number);
        }
      } catch (e) {
        io.stderr(`ralph-workbench artifacts: #${r.result.number}: self-heal failed: ${(e as Error).message}\n`);
        failed = true;
      }
    }
    if (healed.length > 0) {
      const again = await readIssues({ root, repo, client, issues: healed });
      read = read.map((r) => again.find((a) => a.result.number === r.result.number) ?? r);
    }
  } else if (values['self-heal'] && !values.offline) {
    io.stderr('ralph-workbench artifacts: --self-heal needs GH_TOKEN or GITHUB_TOKEN and a repository: nothing was posted.\n');
  }
  failed ||= read.some((r) => r.errorKind !== undefined);
  const results = read.map((r) => r.result);
  if (values.json) {
    io.stdout(`${JSON.stringify({ issues: results.map(jsonIssue), requests: client?.requestCount ?? 0 })}\n`);
  } else {
    io.stdout(results.map(textIssue).join('\n'));
    if (client) {
      io.stdout(`(${client.requestCount} GitHub request${client.requestCount === 1 ? '' : 's'}, ${client.notModifiedCount} not modified)\n`);
    }
  }
  for (const r of read) {
    if (r.errorKind) {
      io.stderr(`ralph-workbench artifacts: #${r.result.number}: ${r.result.error}\n`);
    }
  }
  return failed ? 1 : 0;
}

const HEADER_NAMES: Record<string, string> = { research: 'research', plan: 'plan', 'group-plan': 'group plan', review: 'plan review', implementation: 'implementation' };

/** The command module: name, one-line summary, usage, run. */
export const artifactsCommand: CliCommand = {
  name: 'artifacts',
  summary: "An issue's research / plan / review documents (GitHub comments + thoughts/shared),\n--self-heal to post missing links (artifacts --help).",
  usage,
  // The table passes the whole argv (the command word included): runArtifacts takes what follows it.
  run: (argv, io) => {
    const at = argv.indexOf('artifacts');
    return runArtifacts(at >= 0 ? [...argv.slice(0, at), ...argv.slice(at + 1)] : argv, io);
  },
};
