/**
 * `import`: another tool's backlog into prd.json (issue 22). A file or folder (spec-kit, Kiro,
 * Taskmaster, beads, Backlog.md; detected unless --format says), or `github` (the repository's
 * issues, through the GitHub client). The prd.json is written atomically, and only when it changes;
 * an existing one is edited minimally (core/import/merge.ts).
 */
import { resolveInsideSync, WorkspacePathError } from '../../node/workspacePath';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { errorMessage } from '../../core/errorMessage';
import { IMPORT_FORMATS, ImportError, type ImportFormat } from '../../core/import/index';
import { oneLine } from '../../core/output';
import { analyzePrd } from '../../core/prd/index';
import { writeFileAtomically } from '../../node/atomicWrite';
import { readIssuesForImport } from '../../node/github/importIssues';
import { type ImportPlan, planFileImport, planGitHubImport, warningLine } from '../../node/import/plan';
import { readWorkspaceSettings } from '../../node/workspaceSettings';
import { openGitHub } from '../githubAccess';
import type { CliCommand, CliIo } from '../io';

const usage = `Usage: ralph-workbench import <source> [--format F] [--tag T] [--out FILE] [--dry-run] [--json]
       ralph-workbench import github --repo OWNER/REPO [--label L | --milestone M] [--out FILE] [--dry-run] [--json]

Turn another tool's backlog into prd.json stories. <source> is a file or a folder:
  spec-kit    specs/<feature>/tasks.md: task lines "- [ ] T001 [P] [US1] Text"
  kiro        .kiro/specs/<feature>/tasks.md: numbered tasks; sub-tasks become acceptance criteria
  taskmaster  .taskmaster/tasks/tasks.json (tagged or legacy); sub-tasks become acceptance criteria
  beads       .beads/issues.jsonl: blocks and parent-child dependencies
  backlog     Backlog.md: the backlog/ or backlog/tasks/ folder, or one task file
  github      the repository's issues, with native "blocked by" dependencies and sub-issues
Each story keeps "source": {"format", "file", "id"}. Importing again updates the stories the
same source created and leaves every other story and field as it is. Items that cannot be
mapped are reported (file:line: warning), never dropped silently.

  --format F      One of ${IMPORT_FORMATS.filter((f) => f !== 'github').join(', ')} (default: detected from the file)
  --tag T         Taskmaster tag (default: the current tag in .taskmaster/state.json, else master)
  --out FILE      The prd.json to write (default: ralph.prdPath of the workspace, prd.json)
  --root DIR      The workspace folder (default: the current folder)
  --dry-run       Say what would change; write nothing
  --json          {"format","source","out","stories","added","updated","unchanged","kept","gone","warnings","problems","written"}
  --repo O/R      github: the repository (default: the origin remote)
  --label L       github: only issues with this label
  --milestone M   github: only issues of this milestone (title or number)
  --api-url URL   github: REST base (https://HOST/api/v3 for Enterprise)
The github source reads the token from GH_TOKEN or GITHUB_TOKEN.
Exit 0 when imported (warnings are fine), 1 when nothing could be imported.
`;

const OPTIONS = {
  format: { type: 'string' },
  tag: { type: 'string' },
  out: { type: 'string' },
  root: { type: 'string' },
  'dry-run': { type: 'boolean' },
  json: { type: 'boolean' },
  repo: { type: 'string' },
  label: { type: 'string' },
  milestone: { type: 'string' },
  'api-url': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = { [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };
type ImportIo = CliIo & { readonly env?: NodeJS.ProcessEnv; readonly cwd?: string; readonly clientOptions?: { timeoutMs?: number; retries?: number; retryAfterBaseMs?: number } };

const PREFIX = 'ralph-workbench import';

function report(plan: ImportPlan, out: string, root: string, values: Values, written: boolean, io: CliIo): void {
  const rel = path.relative(root, out).split(path.sep).join('/') || out;
  const problems = analyzePrd(plan.after).problems;
  const s = plan.summary;
  if (values.json) {
    const warnings = plan.warnings.map((w) => ({ file: w.file ?? plan.sourceLabel, line: w.line ?? null, message: w.message }));
    io.stdout(`${JSON.stringify({ format: plan.result.format, source: plan.sourceLabel, out: rel, stories: plan.result.stories.length, added: s.added, updated: s.updated, unchanged: s.unchanged, kept: s.kept, gone: s.gone, warnings, problems: problems.length, written })}\n`);
    return;
  }
  for (const w of plan.warnings) {
    io.stderr(`${oneLine(warningLine(w, plan.sourceLabel))} (warning)\n`);
  }
  const verb = values['dry-run'] ? 'Would import' : 'Imported';
  io.stdout(`${verb} ${plan.result.stories.length} stories from ${plan.sourceLabel} (${plan.result.format}) into ${rel}: ${s.added} added, ${s.updated} updated, ${s.unchanged} unchanged${s.kept > 0 ? `; ${s.kept} other stories kept` : ''}.\n`);
  if (s.gone.length > 0) {
    io.stdout(`Not in the source any more (left as they are): ${s.gone.map(oneLine).join(', ')}\n`);
  }
  if (problems.length > 0) {
    io.stdout(`${rel}: ${problems.length} problem${problems.length === 1 ? '' : 's'} (unknown dependencies, cycles, …): ralph-workbench validate${values.out ? ` --prd ${rel}` : ''} lists them.\n`);
  }
  if (!written && !values['dry-run']) {
    io.stdout(`${rel} is unchanged.\n`);
  }
}

async function githubPlan(values: Values, root: string, prdFile: string, io: ImportIo): Promise<ImportPlan | string> {
  if (values.label !== undefined && values.milestone !== undefined) {
    return '--label and --milestone: choose one.';
  }
  const env = io.env ?? process.env;
  if (!(env.GH_TOKEN || env.GITHUB_TOKEN || '').trim()) {
    return 'import github needs a token in GH_TOKEN or GITHUB_TOKEN that may read the repository\'s issues.';
  }
  const access = await openGitHub({ repo: values.repo, apiUrl: values['api-url'], offline: false, env, root, clientOptions: io.clientOptions, prefix: PREFIX, stderr: io.stderr, requireToken: true });
  if ('error' in access) {
    return access.error.replace(`${PREFIX}: `, '').trim();
  }
  if (!access.client || !access.repo) {
    return 'no GitHub repository to read: pass --repo OWNER/REPO.';
  }
  const slug = `${access.repo.owner}/${access.repo.repo}`;
  const { issues, warnings } = await readIssuesForImport(access.client, slug, { label: values.label, milestone: values.milestone });
  return planGitHubImport(issues, slug, prdFile, warnings);
}

export const importCommand: CliCommand = {
  name: 'import',
  summary: 'Import a backlog into prd.json: spec-kit or Kiro tasks.md, Taskmaster, beads, Backlog.md,\nGitHub issues (import github --repo O/R).',
  usage,
  async run(argv, rawIo) {
    const io = rawIo as ImportIo;
    let values: Values;
    let positionals: string[];
    try {
      const parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
      values = parsed.values as Values;
      positionals = parsed.positionals;
    } catch (e) {
      io.stderr(`${PREFIX}: ${oneLine(errorMessage(e))}\n\n${usage}`);
      return 1;
    }
    if (values.help) {
      io.stdout(usage);
      return 0;
    }
    // positionals[0] is the command word
    const source = positionals[1];
    if (source === undefined || positionals.length > 2) {
      io.stderr(`${PREFIX}: ${source === undefined ? 'which source? a file, a folder, or github' : `unexpected argument "${oneLine(positionals[2])}"`}\n\n${usage}`);
      return 1;
    }
    if (values.format !== undefined && !(IMPORT_FORMATS as readonly string[]).includes(values.format)) {
      io.stderr(`${PREFIX}: --format must be one of ${IMPORT_FORMATS.join(', ')} (got "${oneLine(values.format)}")\n`);
      return 1;
    }
    const root = path.resolve(io.cwd ?? process.cwd(), values.root ?? '.');
    let prdFile: string;
    try {
      // --out is the user's own choice on the command line; the setting is the workspace's, so it must stay inside it (symlinks followed).
      prdFile = values.out !== undefined ? path.resolve(io.cwd ?? process.cwd(), values.out) : resolveInsideSync(root, readWorkspaceSettings(root).values.prdPath, { what: 'ralph.prdPath' });
    } catch (e) {
      if (e instanceof WorkspacePathError) {
        io.stderr(`${PREFIX}: ${oneLine(e.message)}\n`);
        return 1;
      }
      throw e;
    }
    if (!existsSync(path.dirname(prdFile))) {
      io.stderr(`${PREFIX}: the folder of ${oneLine(path.relative(root, prdFile) || prdFile)} does not exist: create it, or choose another --out.\n`);
      return 1;
    }
    try {
      const github = source === 'github' || values.format === 'github';
      const plan = github ? await githubPlan(values, root, prdFile, io) : planFileImport({ root, source: path.resolve(io.cwd ?? process.cwd(), source), prdFile, format: values.format as Exclude<ImportFormat, 'github'> | undefined, tag: values.tag });
      if (typeof plan === 'string') {
        io.stderr(`${PREFIX}: ${plan}\n`);
        return 1;
      }
      const changed = plan.after !== plan.before;
      if (changed && !values['dry-run']) {
        await writeFileAtomically(prdFile, plan.after);
      }
      report(plan, prdFile, root, values, changed && !values['dry-run'], io);
      return 0;
    } catch (e) {
      io.stderr(`${PREFIX}: ${oneLine(e instanceof ImportError ? e.message : errorMessage(e))}\n`);
      return 1;
    }
  },
};
