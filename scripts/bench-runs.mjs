// Generated runs.jsonl lines for the run-insights benchmarks (bench-insights.mjs, bench-dashboard.mjs):
// a long history with costs and tokens on most runs, some rate-limited, a few torn lines (fixed seed).
import { mulberry32 } from './bench-cli.mjs';

/**
 * n runs.jsonl lines (serializeRun from src/core/runs/runs.ts, bundled by the caller): 400 stories,
 * 1 in 40 rate-limited, 1 in 5,000 torn.
 */
export function runsJsonl(serializeRun, n, seed = 21) {
  const r = mulberry32(seed);
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  const lines = [];
  let t = t0;
  for (let i = 0; i < n; i++) {
    const story = `US-${String(1 + Math.floor(r() * 400)).padStart(3, '0')}`;
    const duration = Math.round(30_000 + r() * 900_000);
    const start = new Date(t).toISOString();
    t += duration + Math.round(r() * 60_000);
    const roll = r();
    const outcome = roll < 0.025 ? 'rate-limited' : roll < 0.6 ? 'passed' : roll < 0.85 ? 'failed' : 'no-progress';
    const input = Math.round(2000 + r() * 60_000);
    const line = serializeRun({
      start,
      end: new Date(t).toISOString(),
      storyId: story,
      storyTitle: `Story ${story}`,
      agent: 'claude',
      exitCode: outcome === 'passed' ? 0 : 1,
      durationMs: duration,
      passingBefore: i % 400,
      passingAfter: (i % 400) + (outcome === 'passed' ? 1 : 0),
      storyPasses: outcome === 'passed',
      commit: outcome === 'passed' ? { sha: (i * 2654435761).toString(16).padStart(12, '0').slice(0, 12), subject: `feat: ${story} - Story` } : null,
      complete: false,
      outcome,
      promptFile: `.ralph/prompts/${i}-${story}.md`,
      iteration: 1 + (i % 25),
      loopId: `loop-${Math.floor(i / 25)}`,
      ...(r() < 0.9 ? { cost: Math.round(r() * 200_000) / 100_000, tokens: { input, output: Math.round(input / 6), cacheRead: input * 3, cacheWrite: Math.round(input / 2) } } : {}),
      ...(outcome === 'rate-limited' && r() < 0.7 ? { resetAt: new Date(t + 600_000).toISOString() } : {}),
    });
    lines.push(i % 5000 === 4999 ? line.slice(0, 50) + '\n' : line);
  }
  return lines.join('');
}

