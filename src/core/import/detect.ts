/**
 * Which format a file is in, from its name and its text, when `--format` is not given. An answer
 * that is no format says which formats are known and why this file matched none of them.
 */
import { splitFrontMatter } from './backlogMd';
import type { ImportFormat } from './types';

export const KNOWN_FORMATS_TEXT = `Known formats:
  spec-kit    specs/<feature>/tasks.md with task lines "- [ ] T001 [P] [US1] Text"
  kiro        .kiro/specs/<feature>/tasks.md with numbered tasks "- [ ] 1. Title" (and _Requirements: …_)
  taskmaster  .taskmaster/tasks/tasks.json ({"master": {"tasks": [...]}} or {"tasks": [...]})
  beads       .beads/issues.jsonl (one issue a line: {"id", "title", "status", …})
  backlog     backlog/tasks/*.md (Backlog.md: front matter with id and title)
  github      import github --repo OWNER/REPO`;

export type Detection = { readonly format: Exclude<ImportFormat, 'github'> } | { readonly error: string };

const SPEC_KIT_TASK = /^\s*[-*]\s+\[[ xX]\]\s+T\d+\b/m;
const KIRO_TASK = /^[-*]\s+\[[ xX~-]\]\*?\s+\d+(?:\.\d+)*\.?\s+\S/m;

function firstLine(text: string): string {
  const trimmed = text.replace(/^\uFEFF/, '').trimStart();
  const nl = trimmed.indexOf('\n');
  return (nl < 0 ? trimmed : trimmed.slice(0, nl)).trim();
}

function unknown(name: string, why: string): Detection {
  return { error: `${name}: not a backlog format this import reads: ${why}\n${KNOWN_FORMATS_TEXT}` };
}

function detectJson(name: string, text: string): Detection {
  // A tasks list is found by a scan, not a second parse of a large file: the importer parses it
  // once (and says where a broken one breaks). The parse below only explains a file that is not one.
  if (/"tasks"\s*:\s*\[/.test(text) && !/"userStories"\s*:/.test(text)) {
    return { format: 'taskmaster' };
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return unknown(name, 'it looks like JSON but does not parse as JSON.');
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return unknown(name, 'it is JSON but not an object with a "tasks" list.');
  }
  const o = data as Record<string, unknown>;
  if (Array.isArray(o.userStories)) {
    return unknown(name, 'it is a prd.json already (it has "userStories").');
  }
  const tagged = Object.values(o).some((v) => typeof v === 'object' && v !== null && Array.isArray((v as Record<string, unknown>).tasks));
  if (Array.isArray(o.tasks) || tagged) {
    return { format: 'taskmaster' };
  }
  return unknown(name, `it is a JSON object without a "tasks" list (keys: ${Object.keys(o).slice(0, 8).join(', ') || 'none'}).`);
}

export function detectFormat(name: string, text: string): Detection {
  if (text.trim() === '') {
    return unknown(name, 'the file is empty.');
  }
  const lower = name.toLowerCase();
  const first = firstLine(text);
  if (lower.endsWith('.jsonl') || (first.startsWith('{') && first.endsWith('}') && /"id"\s*:/.test(first) && /"(status|issue_type)"\s*:/.test(first))) {
    try {
      const o = JSON.parse(first) as unknown;
      if (typeof o === 'object' && o !== null && 'id' in o) {
        return { format: 'beads' };
      }
    } catch {
      // fall through: the reason below says what the first line is
    }
    if (lower.endsWith('.jsonl')) {
      return unknown(name, 'its first line is not a JSON object with an "id" (beads writes one issue a line).');
    }
  }
  if (lower.endsWith('.json') || first.startsWith('{')) {
    return detectJson(name, text);
  }
  const fm = splitFrontMatter(text);
  if (fm && /^id\s*:/m.test(fm.yaml) && /^title\s*:/m.test(fm.yaml)) {
    return { format: 'backlog' };
  }
  if (SPEC_KIT_TASK.test(text)) {
    return { format: 'spec-kit' };
  }
  if (KIRO_TASK.test(text)) {
    return { format: 'kiro' };
  }
  if (fm) {
    return unknown(name, 'it has front matter without "id" and "title" (a Backlog.md task has both).');
  }
  return unknown(name, /^\s*[-*]\s+\[[ xX]\]/m.test(text) ? 'it has checklist items but no task ids ("T001" of spec-kit) and no numbered tasks ("1." of Kiro).' : 'it has no task lines, no front matter, no JSON.');
}
