import * as assert from 'node:assert/strict';
import { artifactBadgeView } from '../../webview-ui/src/graph/artifactBadge';
import { artifactBadgeSchema, graphNodeSchema } from '../../src/core/webview/graphProtocol';

describe('task graph artifact badge', () => {
  it('shows the issue and a letter per present artifact, and says every status', () => {
    const v = artifactBadgeView({ issue: 42, research: 'linked', plan: 'on-disk', review: 'linked', implementation: 'missing', verdict: 'APPROVED', warnings: [] });
    assert.equal(v.text, '#42 R P V');
    assert.equal(v.warn, false);
    assert.equal(v.spoken, 'issue #42: research linked, plan on disk, not linked, review linked, implementation missing');
    assert.match(v.tooltip, /review: APPROVED/);
  });

  it('warns when a prerequisite is missing and says so', () => {
    const v = artifactBadgeView({ issue: 7, research: 'missing', plan: 'linked', review: 'missing', implementation: 'missing', warnings: ['A plan exists but no research document: planning needs research.'] });
    assert.equal(v.text, '#7 P');
    assert.equal(v.warn, true);
    assert.match(v.spoken, /^issue #7: research missing, plan linked, review missing, implementation missing, a warning$/);
    assert.match(v.tooltip, /⚠ A plan exists but no research/);
  });

  it('an issue with nothing yet is just its number', () => {
    assert.equal(artifactBadgeView({ issue: 3, research: 'missing', plan: 'missing', review: 'missing', implementation: 'missing', warnings: [] }).text, '#3');
  });

  it('the protocol rejects a malformed badge (unknown status, no issue number)', () => {
    assert.equal(artifactBadgeSchema.safeParse({ issue: 42, research: 'maybe', plan: 'linked', review: 'missing', implementation: 'missing', warnings: [] }).success, false);
    assert.equal(artifactBadgeSchema.safeParse({ issue: 0, research: 'linked', plan: 'linked', review: 'missing', implementation: 'missing', warnings: [] }).success, false);
    const node = { id: 'US-1', title: 't', state: 'ready', wave: 0, priority: 1, critical: false, inCycle: false, unblocks: { direct: 0, total: 0 }, blockedBy: [], unknownDependencies: [], badges: [] };
    assert.equal(graphNodeSchema.safeParse(node).success, true, 'a node without an issue has no badge');
  });
});
