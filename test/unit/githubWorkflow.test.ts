/**
 * The generated GitHub Actions workflow (issue 20, "Run on Actions"): valid for every agent preset
 * (the workflow schema, through @action-validator/core) and safe by construction, checked on the
 * parsed YAML: no `${{ }}` inside a `run:` script, permissions per job (actions: write only in
 * `advance`), the agent's secret in the agent step only, one concurrency group per story.
 */
import assert from 'node:assert/strict';
import { validateWorkflow } from '@action-validator/core';
import { parse } from 'yaml';
import { AGENT_PRESETS, type AgentPresetId } from '../../src/core/agents/presets';
import { agentSetup, renderWorkflow } from '../../src/core/github/workflow';

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
}
interface Job {
  if?: string;
  permissions?: Record<string, string>;
  concurrency?: { group: string; 'cancel-in-progress': boolean };
  steps: Step[];
}
interface Workflow {
  'run-name': string;
  on: { workflow_dispatch: { inputs: Record<string, unknown> }; pull_request: { types: string[] } };
  permissions: Record<string, string>;
  env?: Record<string, string>;
  jobs: Record<string, Job>;
}

function workflowOf(preset: AgentPresetId, agentCommand?: string): { text: string; wf: Workflow } {
  const text = renderWorkflow({ preset, agentCommand, prdPath: 'prd.json' });
  return { text, wf: parse(text) as Workflow };
}

function allSteps(wf: Workflow): Step[] {
  return Object.values(wf.jobs).flatMap((j) => j.steps);
}

describe('GitHub Actions workflow (generated)', () => {
  for (const preset of AGENT_PRESETS.map((p) => p.id)) {
    it(`is a valid workflow for the ${preset} preset`, () => {
      const { text } = workflowOf(preset, preset === 'custom' ? 'node agent.mjs < ${promptFile}' : undefined);
      const state = validateWorkflow(text);
      assert.deepEqual(state.errors, [], JSON.stringify(state.errors, null, 2));
    });

    it(`never puts an expression inside a run: script (${preset})`, () => {
      const { wf } = workflowOf(preset, preset === 'custom' ? 'evil ${{ secrets.X }} < ${promptFile}' : undefined);
      for (const step of allSteps(wf)) {
        if (step.run !== undefined) {
          assert.ok(!step.run.includes('${{'), `${step.name ?? step.uses}: ${step.run}`);
        }
      }
    });

    it(`gives the agent's secret to the agent step only (${preset})`, () => {
      const { text, wf } = workflowOf(preset);
      const secret = agentSetup(preset).secret;
      const withSecrets = allSteps(wf).filter((s) => JSON.stringify(s).includes('secrets.'));
      if (secret === undefined) {
        assert.deepEqual(withSecrets, []);
        return;
      }
      assert.equal(withSecrets.length, 1, text);
      assert.equal(withSecrets[0].name, 'Run the story with the agent');
      assert.equal(withSecrets[0].env?.[secret], `\${{ secrets.${secret} }}`);
      assert.equal(text.split('secrets.').length, 2, 'the secret is named once in the whole file');
    });
  }

  it('installs what each preset needs', () => {
    const install = (preset: AgentPresetId) => workflowOf(preset).wf.jobs.run.steps.find((s) => s.name?.startsWith('Install the agent'))?.run;
    assert.equal(install('claude'), 'npm install -g @anthropic-ai/claude-code');
    assert.equal(install('codex'), 'npm install -g @openai/codex');
    assert.equal(install('amp'), 'npm install -g @sourcegraph/amp');
    assert.match(workflowOf('custom').text, /# A custom agent command installs nothing/);
    assert.doesNotMatch(install('custom') ?? '', /npm install/);
  });

  it('takes story and branch (and max-parallel) and names each run after its story', () => {
    const { wf } = workflowOf('claude');
    assert.deepEqual(Object.keys(wf.on.workflow_dispatch.inputs), ['story', 'branch', 'max-parallel']);
    assert.deepEqual(wf.on.pull_request.types, ['closed']);
    assert.match(wf['run-name'], /format\('ralph: \{0\}', inputs\.story\)/);
  });

  it('asks for no permission by default and for only what each job needs', () => {
    const { wf } = workflowOf('claude');
    assert.deepEqual(wf.permissions, {});
    assert.deepEqual(wf.jobs.run.permissions, { contents: 'read', 'pull-requests': 'read' });
    assert.deepEqual(wf.jobs.publish.permissions, { contents: 'write', 'pull-requests': 'write' });
    assert.deepEqual(wf.jobs.advance.permissions, { contents: 'write', 'pull-requests': 'read', issues: 'write', actions: 'write' });
    for (const [name, job] of Object.entries(wf.jobs)) {
      assert.ok(job.permissions, `${name} names its permissions`);
      if (name !== 'advance') {
        assert.equal(job.permissions.actions, undefined, `${name} has no actions permission`);
      }
    }
  });

  it('the job that runs the agent can write nothing: read-only token, no credentials left in .git/config, no token in a step after the agent’s; the job that pushes runs no agent', () => {
    for (const preset of ['claude', 'codex', 'custom'] as const) {
      const { wf } = workflowOf(preset, preset === 'custom' ? 'my-agent < ${promptFile}' : undefined);
      const run = wf.jobs.run;
      assert.ok(Object.values(run.permissions ?? {}).every((p) => p === 'read'), `${preset}: run job permissions ${JSON.stringify(run.permissions)}`);
      const checkout = run.steps.find((s) => s.uses?.startsWith('actions/checkout@'));
      assert.equal(checkout?.with?.['persist-credentials'], false);
      const agentAt = run.steps.findIndex((s) => s.name === 'Run the story with the agent');
      assert.ok(agentAt > 0);
      for (const s of run.steps.slice(agentAt)) {
        assert.doesNotMatch(JSON.stringify(s), /github\.token|GH_TOKEN|secrets\.GITHUB_TOKEN/, `${s.name ?? s.uses}: no token after the agent ran`);
      }
      const publish = wf.jobs.publish;
      assert.ok(!publish.steps.some((s) => /ralph-workbench run\b/.test(s.run ?? '') || s.name === 'Run the story with the agent'), 'publish runs no agent');
      assert.ok(!publish.steps.some((s) => /\bgit (checkout|switch|merge|reset)\b/.test(s.run ?? '')), 'publish never checks the story’s commits out');
    }
  });

  it('runs a story at most once at a time (one concurrency group per story)', () => {
    const { wf } = workflowOf('claude');
    assert.deepEqual(wf.jobs.run.concurrency, { group: 'ralph-${{ inputs.story }}', 'cancel-in-progress': false });
  });

  it('advances only after a merged pull request from a story branch of this repository', () => {
    const cond = workflowOf('claude').wf.jobs.advance.if ?? '';
    assert.match(cond, /github\.event\.pull_request\.merged == true/);
    assert.match(cond, /head\.repo\.full_name == github\.repository/);
    assert.match(cond, /startsWith\(github\.event\.pull_request\.head\.ref, format\('\{0\}-', github\.event\.pull_request\.base\.ref\)\)/);
  });

  it('passes a custom agent command through env, never evaluated by GitHub', () => {
    const { wf } = workflowOf('custom', 'my-agent ${{ github.token }} < ${promptFile}');
    const step = wf.jobs.run.steps.find((s) => s.name === 'Run the story with the agent');
    assert.equal(step?.env?.RALPH_AGENT_COMMAND, "my-agent ${{ '${{' }} github.token }} < ${promptFile}");
    assert.match(step?.run ?? '', /--agent-command "\$RALPH_AGENT_COMMAND"/);
  });

  it('is the same text for the same options', () => {
    assert.equal(renderWorkflow({ preset: 'codex', prdPath: 'scripts/ralph/prd.json' }), renderWorkflow({ preset: 'codex', prdPath: 'scripts/ralph/prd.json' }));
    assert.equal((parse(renderWorkflow({ preset: 'codex', prdPath: 'scripts/ralph/prd.json' })) as Workflow).env?.RALPH_PRD, 'scripts/ralph/prd.json');
  });
});
