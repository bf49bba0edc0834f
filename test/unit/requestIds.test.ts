/**
 * Issue 17 §6: the request-id rule between the task-graph page and its host
 * (src/core/webview/graphProtocol.ts). The page numbers its requests; an answer is taken only when
 * it answers the latest request of its kind, whatever order the answers arrive in.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseHostMessage, parsePageMessage, RequestIds } from '../../src/core/webview/graphProtocol';

const KINDS = ['details', 'editStory', 'copy', 'addDependency'] as const;

describe('request ids (task graph protocol)', () => {
  it('a late answer for an earlier selection is dropped; the answer to the newest request is taken', () => {
    const ids = new RequestIds();
    const first = ids.next('details'); // US-008 selected
    const second = ids.next('details'); // then US-009
    assert.equal(ids.isCurrent(first), false, 'the answer about US-008 came after US-009 was asked for');
    assert.equal(ids.isCurrent(second), true);
  });

  it('kinds do not supersede each other: a newer edit leaves the details answer current', () => {
    const ids = new RequestIds();
    const details = ids.next('details');
    const edit = ids.next('editStory');
    assert.equal(ids.isCurrent(details), true);
    assert.equal(ids.isCurrent(edit), true);
  });

  it('a current answer tells the kind of request it answers (what a status notice is about)', () => {
    const ids = new RequestIds();
    const copy = ids.next('copy');
    const edit = ids.next('editStory');
    assert.equal(ids.kindOf(copy), 'copy');
    assert.equal(ids.kindOf(edit), 'editStory');
    ids.next('copy');
    assert.equal(ids.kindOf(copy), undefined, 'a newer copy made it late');
  });

  it('an answer to no request of this load of the page is dropped', () => {
    const ids = new RequestIds();
    ids.next('details');
    assert.equal(ids.isCurrent(7), false);
  });

  it('property: whatever the order of requests and answers, an answer is taken iff it answers the latest request of its kind when it arrives', () => {
    // A script: requests of random kinds, and answers to already-made requests in any order,
    // interleaved. The model: the latest id of each kind, from the ids as they were handed out.
    const step = fc.oneof(fc.record({ request: fc.constantFrom(...KINDS) }), fc.record({ answer: fc.nat(40) }));
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), (script) => {
        const ids = new RequestIds();
        const made: { id: number; kind: string }[] = [];
        const latest = new Map<string, number>();
        for (const s of script) {
          if ('request' in s) {
            const id = ids.next(s.request);
            assert.ok(made.every((m) => m.id < id), 'ids grow');
            made.push({ id, kind: s.request });
            latest.set(s.request, id);
          } else if (made.length > 0) {
            const asked = made[s.answer % made.length];
            assert.equal(ids.isCurrent(asked.id), latest.get(asked.kind) === asked.id, `answer to #${asked.id} (${asked.kind})`);
          }
        }
        // once every request is answered (in any order), exactly the newest of each kind was taken
        const taken = made.filter((m) => ids.isCurrent(m.id)).map((m) => m.id).sort((a, b) => a - b);
        assert.deepEqual(taken, [...latest.values()].sort((a, b) => a - b));
      }),
      { numRuns: 300 },
    );
  });

  it('both sides validate the ids: a request without one, or an answer that names none, is refused', () => {
    assert.equal(parsePageMessage({ type: 'details', id: 'US-001' }).ok, false);
    assert.equal(parsePageMessage({ type: 'details', id: 'US-001', requestId: 0 }).ok, false);
    assert.equal(parsePageMessage({ type: 'details', id: 'US-001', requestId: 1.5 }).ok, false);
    assert.equal(parsePageMessage({ type: 'details', id: 'US-001', requestId: 1 }).ok, true);
    assert.equal(parsePageMessage({ type: 'ready' }).ok, true, '`ready` is not a request');
    assert.equal(parseHostMessage({ type: 'details', id: 'US-001', description: '', acceptanceCriteria: [] }).ok, false);
    assert.equal(parseHostMessage({ type: 'notice', answers: 3, level: 'info', message: 'ok' }).ok, true);
    assert.equal(parseHostMessage({ type: 'notice', level: 'info', message: 'ok' }).ok, false);
  });
});
