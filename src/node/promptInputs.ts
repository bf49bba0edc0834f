/**
 * The one reader of a prompt's inputs, shared by the runner (the prompt written to `.ralph/prompts/`)
 * and the CLI's `context`: progress.txt, the Pin, the user's template and the specs the Pin links.
 * Every path comes from a workspace file or setting, so each is resolved with the path rule of
 * workspacePath.ts (inside the folder after symlinks, a regular file) and read bounded: a spec
 * contributes at most its first SPEC_MAX_LINES lines and SPEC_MAX_BYTES bytes.
 */
import { readInsideBoundedSync, WorkspacePathError } from './workspacePath';

/** A linked spec contributes at most this many lines and bytes to a prompt. */
export const SPEC_MAX_LINES = 100;
export const SPEC_MAX_BYTES = 64 * 1024;
/** progress.txt, the Pin and a template are read up to this size (a larger file is cut, with a note). */
export const INPUT_MAX_BYTES = 16 * 1024 * 1024;

export interface PromptInputPaths {
  /** Workspace-relative paths (settings or CLI defaults); undefined: not read. */
  readonly progress?: string;
  readonly pin?: string;
  readonly template?: string;
}

export interface PromptInputs {
  readonly progressText?: string;
  readonly pinText?: string;
  /** undefined when no template is configured; a configured template that does not exist is an error. */
  readonly template?: string;
  /** Reads a spec the Pin links (for buildPrompt's readFile): undefined when missing; throws WorkspacePathError when refused. */
  readonly readSpec: (relative: string) => string | undefined;
  /** Sentences about inputs that were cut or left out (for the log or stderr). */
  readonly notes: readonly string[];
}

export class PromptInputError extends Error {}

/**
 * Reads the prompt inputs of a workspace folder `root`. A progress.txt, Pin or template path that
 * leads outside the folder or to something that is not a regular file throws PromptInputError
 * (with the path rule's message, naming the setting); a missing template too. Spec links are
 * read lazily and bounded; a refused one is explained in the prompt itself.
 */
export function readPromptInputs(root: string, paths: PromptInputPaths, settingNames: Partial<Record<keyof PromptInputPaths, string>> = {}): PromptInputs {
  const notes: string[] = [];
  const read = (key: keyof PromptInputPaths): string | undefined => {
    const rel = paths[key];
    if (rel === undefined || rel === '') {
      return undefined;
    }
    const what = settingNames[key] ?? key;
    try {
      const r = readInsideBoundedSync(root, rel, { maxBytes: INPUT_MAX_BYTES }, { what });
      if (r?.truncated) {
        notes.push(`${rel} is larger than ${INPUT_MAX_BYTES} bytes: only its start was read.`);
      }
      return r?.text;
    } catch (e) {
      throw new PromptInputError(e instanceof WorkspacePathError ? e.message : `Cannot read the ${what} "${rel}": ${(e as Error).message}`);
    }
  };
  const progressText = read('progress');
  const pinText = read('pin');
  const template = read('template');
  if (paths.template && template === undefined) {
    throw new PromptInputError(`The prompt template "${paths.template}" (${settingNames.template ?? 'template'}) does not exist.`);
  }
  const specs = new Map<string, string | undefined>();
  const readSpec = (relative: string): string | undefined => {
    const rel = relative.replace(/^\.\//, '');
    if (!specs.has(rel)) {
      const r = readInsideBoundedSync(root, rel, { maxBytes: SPEC_MAX_BYTES, maxLines: SPEC_MAX_LINES }, { what: "Pin's spec link" });
      specs.set(rel, r?.text);
    }
    return specs.get(rel);
  };
  return { progressText, pinText, template, readSpec, notes };
}
