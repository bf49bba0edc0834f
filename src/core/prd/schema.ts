/**
 * The prd.json schema, the one source of truth: the validator uses it and the build turns it into
 * the JSON schema contributed to VS Code (`scripts/gen-schema.mjs`). Unknown fields are allowed
 * everywhere (loose objects), so files written by other tools keep working and keep their data.
 */
import * as z from 'zod';

export const storyIdPattern = /^\S(.*\S)?$/;

export const userStorySchema = z.looseObject({
  id: z
    .string()
    .min(1, 'A story id must not be empty')
    .regex(storyIdPattern, 'A story id must not start or end with spaces')
    .describe('Unique story id, e.g. "US-003". Other stories name it in their blockedBy lists.'),
  title: z.string().describe('Short title; the commit for this story is "feat: <id> - <title>".'),
  priority: z
    .number()
    .describe('Run order: the ready story with the lowest priority runs next (ties: file order).'),
  passes: z.boolean().describe('True once the story is implemented and its checks pass.'),
  description: z.string().describe('What to build, usually "As a …, I want … so that …".'),
  acceptanceCriteria: z
    .array(z.string())
    .describe('Verifiable criteria; the agent checks each before setting passes to true.'),
  blockedBy: z
    .array(z.string())
    .optional()
    .describe('Ids of stories that must pass before this one is ready.'),
  notes: z.string().optional().describe('Free-form notes for the agent or for people.'),
});

export const prdSchema = z.looseObject({
  projectName: z.string().optional().describe('Name of the project.'),
  branchName: z
    .string()
    .optional()
    .describe('Git branch the agent works on, e.g. "ralph/user-auth" (created from the main branch when missing).'),
  description: z.string().optional().describe('What this feature is about.'),
  userStories: z.array(userStorySchema).describe('The stories of this feature.'),
});

export type UserStoryData = z.infer<typeof userStorySchema>;
export type PrdData = z.infer<typeof prdSchema>;

/**
 * Whether `data` passes `prdSchema`, checked by hand: an exact mirror of the zod schema above for
 * hot paths (the CLI on 10,000-story files), where running zod costs more than the rest of the
 * check. It only answers yes or no; for the located messages the caller runs zod. A property test
 * (test/unit/schema.test.ts) holds the two equal on random input.
 */
export function isValidPrdData(data: unknown): data is PrdData {
  if (!isRecord(data) || !optionalString(data.projectName) || !optionalString(data.branchName) || !optionalString(data.description)) {
    return false;
  }
  const stories = data.userStories;
  if (!Array.isArray(stories)) {
    return false;
  }
  for (const s of stories) {
    if (
      !isRecord(s) ||
      typeof s.id !== 'string' ||
      s.id.length === 0 ||
      !storyIdPattern.test(s.id) ||
      typeof s.title !== 'string' ||
      typeof s.priority !== 'number' ||
      !Number.isFinite(s.priority) ||
      typeof s.passes !== 'boolean' ||
      typeof s.description !== 'string' ||
      !isStringArray(s.acceptanceCriteria) ||
      (s.blockedBy !== undefined && !isStringArray(s.blockedBy)) ||
      !optionalString(s.notes)
    ) {
      return false;
    }
  }
  return true;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function optionalString(v: unknown): boolean {
  return v === undefined || typeof v === 'string';
}

function isStringArray(v: unknown): v is string[] {
  if (!Array.isArray(v)) {
    return false;
  }
  for (const x of v) {
    if (typeof x !== 'string') {
      return false;
    }
  }
  return true;
}
