/**
 * runs.jsonl test data for the run insights (issue 21): records with the receipt and rate-limit
 * fields of the runs.jsonl contract (cost, tokens, outcome "rate-limited", resetAt), and a
 * workspace folder holding them with its prd.json and an archived feature.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type RunRecord, serializeRun } from '../../src/core/runs/runs';

export function runRecord(over: Partial<RunRecord> = {}): RunRecord {
  return {
    start: '2026-11-20T10:00:00.000Z',
    end: '2026-11-20T10:04:00.000Z',
    storyId: 'US-001',
    storyTitle: 'Schema',
    agent: 'claude',
    exitCode: 0,
    durationMs: 240_000,
    passingBefore: 0,
    passingAfter: 1,
    storyPasses: true,
    commit: null,
    complete: false,
    outcome: 'passed',
    promptFile: '.ralph/prompts/x.md',
    iteration: 1,
    loopId: 'loop-1',
    ...over,
  };
}

/** `minutes` after 2026-11-20T10:00Z, as ISO 8601. */
export function at(minutes: number, day = '2026-11-20'): string {
  return new Date(Date.parse(`${day}T10:00:00.000Z`) + minutes * 60_000).toISOString();
}

/** A run that starts `startMin` minutes in and lasts `lengthMin`. */
export function runAt(startMin: number, lengthMin: number, over: Partial<RunRecord> = {}, day?: string): RunRecord {
  return runRecord({ start: at(startMin, day), end: at(startMin + lengthMin, day), durationMs: lengthMin * 60_000, ...over });
}

/**
 * The demo history: feature ralph/tasks (archived on 2026-11-18: US-001 and US-002), then the
 * current feature ralph/billing (US-001 again, US-003). Costs known except one run; one
 * rate-limited run with a reset 30 minutes after it ended.
 */
export function demoRuns(): RunRecord[] {
  const tok = (input: number, output: number) => ({ input, output, cacheRead: input * 2, cacheWrite: 100 });
  return [
    runAt(0, 10, { storyId: 'US-001', storyTitle: 'Task schema', loopId: 'loop-a', cost: 0.5, tokens: tok(1000, 200) }, '2026-11-17'),
    runAt(12, 20, { storyId: 'US-002', storyTitle: 'Task API', loopId: 'loop-a', iteration: 2, outcome: 'failed', storyPasses: false, cost: 1.25, tokens: tok(3000, 900) }, '2026-11-17'),
    runAt(34, 15, { storyId: 'US-002', storyTitle: 'Task API', loopId: 'loop-a', iteration: 3, cost: 0.75, tokens: tok(2000, 500) }, '2026-11-17'),
    runAt(0, 5, { storyId: 'US-001', storyTitle: 'Invoice schema', loopId: 'loop-b', outcome: 'rate-limited', storyPasses: false, resetAt: at(35) }),
    runAt(60, 12, { storyId: 'US-001', storyTitle: 'Invoice schema', loopId: 'loop-b', iteration: 2, cost: 2, tokens: tok(5000, 1500) }),
    runAt(75, 8, { storyId: 'US-003', storyTitle: 'Invoice PDF', loopId: 'loop-b', iteration: 3, outcome: 'failed', storyPasses: false }),
  ];
}

/** A workspace folder with prd.json (ralph/billing), archive/2026-11-18-tasks/prd.json (ralph/tasks) and .ralph/runs.jsonl. */
export function writeDemoWorkspace(root: string, runs: readonly RunRecord[] = demoRuns(), extraLines = ''): void {
  const prd = (branchName: string, ids: string[]) => `${JSON.stringify({ projectName: 'Demo', branchName, userStories: ids.map((id, i) => ({ id, title: id, priority: i + 1, passes: false, acceptanceCriteria: [] })) }, null, 2)}\n`;
  mkdirSync(path.join(root, '.ralph'), { recursive: true });
  mkdirSync(path.join(root, 'archive', '2026-11-18-tasks'), { recursive: true });
  writeFileSync(path.join(root, 'prd.json'), prd('ralph/billing', ['US-001', 'US-003']));
  writeFileSync(path.join(root, 'archive', '2026-11-18-tasks', 'prd.json'), prd('ralph/tasks', ['US-001', 'US-002']));
  writeFileSync(path.join(root, '.ralph', 'runs.jsonl'), runs.map(serializeRun).join('') + extraLines);
}
