/**
 * Whether an agent that ended without finishing its story asked the user a question
 * (src/core/agents/question.ts), from the end of its output. The samples follow the output formats
 * the agents document (Claude Code `-p --output-format json` / `stream-json`, Codex `exec --json`,
 * plain text of Amp, Copilot CLI and ralph.sh); the rule is conservative: only the agent's last
 * words count, and only a question put to the user.
 */
import assert from 'node:assert/strict';
import { agentQuestion, MAX_QUESTION_CHARS } from '../../src/core/agents/question';

const claudeResult = (result: string): string =>
  `${JSON.stringify({ type: 'result', subtype: 'success', is_error: false, duration_ms: 48213, duration_api_ms: 45120, num_turns: 7, result, session_id: '5f0c1a8e-2b7d-4c1e-9a43-0d6f3b2e8c11', total_cost_usd: 0.1834, usage: { input_tokens: 23, cache_creation_input_tokens: 5120, cache_read_input_tokens: 40960, output_tokens: 812 } })}\n`;

const claudeStream = (texts: readonly string[]): string =>
  [
    JSON.stringify({ type: 'system', subtype: 'init', cwd: '/work/repo', session_id: 's1', tools: ['Bash', 'Edit', 'Read'], model: 'claude-sonnet-4-5' }),
    ...texts.map((text) => JSON.stringify({ type: 'assistant', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'text', text }] }, session_id: 's1' })),
    JSON.stringify({ type: 'result', subtype: 'success', is_error: false, num_turns: 4, result: texts[texts.length - 1], session_id: 's1' }),
    '',
  ].join('\n');

const codexJson = (message: string): string =>
  [
    JSON.stringify({ type: 'thread.started', thread_id: '0199a213-81c0-7800-8aa1-bbab2a035a53' }),
    JSON.stringify({ type: 'turn.started' }),
    JSON.stringify({ type: 'item.completed', item: { id: 'item_0', type: 'reasoning', text: '**Looking at the schema**' } }),
    JSON.stringify({ type: 'item.completed', item: { id: 'item_1', type: 'command_execution', command: 'bash -lc ls', aggregated_output: 'prd.json\nsrc\n', exit_code: 0, status: 'completed' } }),
    JSON.stringify({ type: 'item.completed', item: { id: 'item_2', type: 'agent_message', text: message } }),
    JSON.stringify({ type: 'turn.completed', usage: { input_tokens: 24763, cached_input_tokens: 24448, output_tokens: 122 } }),
    '',
  ].join('\n');

describe('agentQuestion: did the agent end by asking the user?', () => {
  it('Claude Code (--output-format json): the result text ends with a question to the user', () => {
    const out = claudeResult('I read prd.json and the schema.\n\nThe story says "store sessions" but not where. Should I use Redis, or keep them in the Postgres sessions table?');
    assert.equal(agentQuestion(out), 'The story says "store sessions" but not where. Should I use Redis, or keep them in the Postgres sessions table?');
  });

  it('Claude Code (stream-json): the last assistant text counts, not an earlier one', () => {
    assert.equal(agentQuestion(claudeStream(['Should I start with the tests?', 'Which of the two login flows do you want me to keep: the OAuth one or the magic link?'])), 'Which of the two login flows do you want me to keep: the OAuth one or the magic link?');
    assert.equal(agentQuestion(claudeStream(['Should I start with the tests? Yes: they pin the behaviour.', 'Done: US-004 is implemented and committed.'])), undefined);
  });

  it('Codex (exec --json): the last agent message, followed by its usage event', () => {
    assert.equal(agentQuestion(codexJson('The acceptance criteria conflict (criterion 2 wants 401, criterion 4 wants 403). Which status code do you want?')), 'The acceptance criteria conflict (criterion 2 wants 401, criterion 4 wants 403). Which status code do you want?');
    assert.equal(agentQuestion(codexJson('Implemented US-002 and committed it.')), undefined);
  });

  it('plain text (Amp, Copilot CLI, ralph.sh): the last line, colours stripped; a waiting-for-input marker counts too', () => {
    assert.equal(agentQuestion('Reading progress.txt...\n\x1b[1mDo you want me to also migrate the old rows?\x1b[0m\n\n'), 'Do you want me to also migrate the old rows?');
    assert.equal(agentQuestion('I need the production API key to go on.\nWaiting for your input...\n'), 'I need the production API key to go on. Waiting for your input...');
  });

  it('is conservative: a question in the middle, a test title ending in "?", a question in code, an empty output are not questions to the user', () => {
    assert.equal(agentQuestion('Should I refactor first?\nNo: the tests cover it. Implemented the parser.\n'), undefined);
    assert.equal(agentQuestion('  ✓ parses ISO dates\n  ✓ does it reject 2026-02-30?\n'), undefined);
    assert.equal(agentQuestion('const ok = value?.length > 0 ? "yes" : "no"; // maybe?\n'), undefined);
    assert.equal(agentQuestion(''), undefined);
    assert.equal(agentQuestion(claudeResult('')), undefined);
  });

  it('a long question is cut to a bounded text, whole words, with an ellipsis', () => {
    const long = `Should I ${'rename every handler in the legacy module and '.repeat(20)}keep the old names as aliases?`;
    const q = agentQuestion(`${long}\n`) ?? '';
    assert.ok(q.length <= MAX_QUESTION_CHARS, `${q.length}`);
    assert.ok(q.startsWith('Should I rename every handler') && q.endsWith('…'), q);
  });
});
