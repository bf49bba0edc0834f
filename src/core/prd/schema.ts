/**
 * The prd.json schema as VS Code shows it (completion, hovers): the build turns it into the JSON
 * schema contributed for prd.json (`scripts/build.mjs`). It documents the Ralph shape; it does not
 * decide what is an error. That is story.ts, the one reader of a story, which is more lenient
 * (missing title, description, acceptanceCriteria or priority are warnings there, so they are
 * optional here too and VS Code does not flag what Ralph Workbench reads). Unknown fields are
 * allowed everywhere (loose objects), so files written by other tools keep their data.
 */
import * as z from 'zod';

/** No control character (TAB, newline, ESC, DEL, C1), no space at either end. */
export const storyIdPattern = /^[^\s\u0000-\u001f\u007f-\u009f]([^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f])?$/;

const dependencyList = (what: string) => z.array(z.string()).optional().describe(what);

export const userStorySchema = z.looseObject({
  id: z
    .string()
    .min(1, 'A story id must not be empty')
    .regex(storyIdPattern, 'A story id must not start or end with spaces or contain control characters')
    .describe('Unique story id, e.g. "US-003". Other stories name it in their blockedBy lists.'),
  title: z.string().optional().describe('Short title; the commit for this story is "feat: <id> - <title>".'),
  priority: z
    .union([z.number(), z.enum(['critical', 'high', 'medium', 'low', 'P0', 'P1', 'P2', 'P3'])])
    .optional()
    .describe('Run order: the ready story with the lowest priority runs next (ties: file order). Words map to critical 0, high 1, medium 2, low 3; P0–P3 to 0–3.'),
  passes: z.boolean().describe('True once the story is implemented and its checks pass.'),
  description: z.string().optional().describe('What to build, usually "As a …, I want … so that …".'),
  acceptanceCriteria: z
    .array(z.string())
    .optional()
    .describe('Verifiable criteria; the agent checks each before setting passes to true.'),
  blockedBy: dependencyList('Ids of stories that must pass before this one is ready.'),
  dependsOn: dependencyList('Alias of blockedBy (ralph-tui): ids of stories that must pass first.'),
  dependencies: dependencyList('Alias of blockedBy: ids of stories that must pass first.'),
  depends_on: dependencyList('Alias of blockedBy: ids of stories that must pass first.'),
  notes: z.string().optional().describe('Free-form notes for the agent or for people.'),
  files: z
    .array(z.string())
    .optional()
    .describe('Files this story is expected to change (hints for the same-file guard: two stories that change the same file do not run at once in a parallel loop).'),
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
