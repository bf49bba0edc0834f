/**
 * What a commenter can make us do (issue 16): a comment on an issue is text from anyone, and the
 * document it links is quoted into the agent's prompt. Two rules decide:
 * - who: the comment's author is trusted (`author_association` OWNER, MEMBER or COLLABORATOR by
 *   default; ralph.github.trustedAuthors narrows or widens it, `@login` names one account);
 * - what: the document is a `.md` file under an artifact folder (`thoughts/shared`, plus
 *   ralph.github.artifactFolders), with no segment starting with `.` (no dotfile, nothing under
 *   `.git/`).
 * A link that breaks either is shown with the reason and never followed.
 * Pure: no I/O, no vscode.
 */

export const DEFAULT_TRUSTED_AUTHORS: readonly string[] = ['OWNER', 'MEMBER', 'COLLABORATOR'];
export const DEFAULT_ARTIFACT_FOLDER = 'thoughts/shared';

export interface TrustRules {
  /** Upper-case `author_association` values, and `@login` entries (lower-case). */
  readonly trustedAuthors: readonly string[];
  /** Workspace-relative folders, `/`-separated, without a trailing `/`. */
  readonly artifactFolders: readonly string[];
}

export const DEFAULT_TRUST: TrustRules = { trustedAuthors: DEFAULT_TRUSTED_AUTHORS, artifactFolders: [DEFAULT_ARTIFACT_FOLDER] };

function listOf(values: readonly string[]): string {
  return values.length <= 1 ? (values[0] ?? 'nobody') : `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`;
}

/** A workspace-relative folder from a setting, or why it is not one. */
function folderOf(entry: unknown): { folder: string } | { note: string } {
  if (typeof entry !== 'string' || entry.trim() === '') {
    return { note: `ralph.github.artifactFolders: ${JSON.stringify(entry)} is not a folder name: ignored.` };
  }
  const parts = entry.trim().replace(/\\/g, '/').split('/').filter((s) => s !== '' && s !== '.');
  if (/^([a-z]:)?[\\/]/i.test(entry.trim()) || parts.some((s) => s === '..' || s.startsWith('.')) || parts.length === 0) {
    return { note: `ralph.github.artifactFolders: "${entry}" must be a folder inside the workspace, without "..", a leading "/" or a hidden (".") folder: ignored.` };
  }
  return { folder: parts.join('/') };
}

/** The rules from the two settings (values of any type: a bad entry is left out with a note). */
export function trustRulesFrom(trustedAuthors: unknown, artifactFolders: unknown): { rules: TrustRules; notes: string[] } {
  const notes: string[] = [];
  let authors = DEFAULT_TRUSTED_AUTHORS;
  if (Array.isArray(trustedAuthors)) {
    authors = trustedAuthors
      .filter((a): a is string => typeof a === 'string' && a.trim() !== '')
      .map((a) => a.trim())
      .map((a) => (a.startsWith('@') ? a.toLowerCase() : a.toUpperCase()));
  } else if (trustedAuthors !== undefined) {
    notes.push('ralph.github.trustedAuthors must be a list such as ["OWNER", "MEMBER", "COLLABORATOR"]: the default is used.');
  }
  const folders = [DEFAULT_ARTIFACT_FOLDER];
  for (const entry of Array.isArray(artifactFolders) ? artifactFolders : []) {
    const f = folderOf(entry);
    if ('note' in f) {
      notes.push(f.note);
    } else if (!folders.includes(f.folder)) {
      folders.push(f.folder);
    }
  }
  return { rules: { trustedAuthors: authors, artifactFolders: folders }, notes };
}

/** Why a comment's author may not link a document (or do `action`), or undefined when they may. */
export function untrustedAuthor(c: { readonly author?: string; readonly authorAssociation?: string }, rules: TrustRules, action = 'link documents'): string | undefined {
  const association = (c.authorAssociation ?? 'NONE').toUpperCase();
  const login = c.author ? `@${c.author.toLowerCase()}` : undefined;
  if (rules.trustedAuthors.includes(association) || (login !== undefined && rules.trustedAuthors.includes(login))) {
    return undefined;
  }
  const who = `${c.author ? `@${c.author}` : 'an unknown author'} (${association})`;
  return `${who} is not ${listOf(rules.trustedAuthors)}, who may ${action} (setting ralph.github.trustedAuthors)`;
}

/**
 * Why a workspace-relative document may not reach a prompt, or undefined when it may: a `.md`
 * file under an artifact folder, no segment starting with `.`.
 */
export function refusedDocument(path: string, rules: TrustRules): string | undefined {
  const parts = path.split('/');
  if (parts.some((s) => s === '' || s === '..')) {
    return `${path} is not a plain workspace path`;
  }
  const hidden = parts.find((s) => s.startsWith('.'));
  if (hidden !== undefined) {
    return hidden === '.git' ? `${path} is under .git/` : `${path} is a dot (hidden) file or folder`;
  }
  if (!parts[parts.length - 1].toLowerCase().endsWith('.md')) {
    return `${path} is not a markdown (.md) document`;
  }
  if (!rules.artifactFolders.some((f) => path.startsWith(`${f}/`))) {
    return `${path} is not under ${listOf(rules.artifactFolders.map((f) => `${f}/`))} (setting ralph.github.artifactFolders)`;
  }
  return undefined;
}
