/** The JSON schema VS Code uses for completion and hovers in prd.json, derived from the zod schema. */
import * as z from 'zod';
import { prdSchema } from './schema';

export function prdJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(prdSchema, { target: 'draft-7', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return {
    ...schema,
    $id: 'https://ralph-workbench.dev/schemas/prd.schema.json',
    title: 'Ralph PRD (prd.json)',
    description: 'User stories for a Ralph agent loop: the agent picks the ready story with the lowest priority, implements it, and sets passes to true.',
  };
}
