import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { prdJsonSchema } from '../../src/core/prd/jsonSchema';
import { analyzePrd as analyzePrdFull } from '../../src/core/prd/index';
import { prdSchema } from '../../src/core/prd/schema';
import { prdTemplate } from '../../src/core/prd/template';
import { analyze } from './helpers';

type Schema = Record<string, unknown>;

/**
 * The draft-7 subset prdJsonSchema() uses: type, properties, required, items, minLength, pattern,
 * additionalProperties. Returns the JSON-pointer-ish paths of the failures.
 */
function check(schema: Schema, value: unknown, at = ''): string[] {
  const errors: string[] = [];
  const anyOf = schema.anyOf as Schema[] | undefined;
  if (anyOf) {
    return anyOf.some((branch) => check(branch, value, at).length === 0) ? [] : [`${at || '/'}: matches none of ${anyOf.length} alternatives`];
  }
  if (Array.isArray(schema.enum) && !(schema.enum as unknown[]).includes(value)) {
    return [`${at || '/'}: not one of ${(schema.enum as unknown[]).join(', ')}`];
  }
  const type = schema.type as string | undefined;
  const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  if (type && type !== actual && !(type === 'integer' && Number.isInteger(value))) {
    return [`${at || '/'}: expected ${type}, got ${actual}`];
  }
  if (actual === 'string') {
    const s = value as string;
    if (typeof schema.minLength === 'number' && s.length < schema.minLength) {
      errors.push(`${at}: shorter than ${schema.minLength}`);
    }
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(s)) {
      errors.push(`${at}: does not match ${schema.pattern}`);
    }
  }
  if (actual === 'array' && schema.items) {
    (value as unknown[]).forEach((v, i) => errors.push(...check(schema.items as Schema, v, `${at}/${i}`)));
  }
  if (actual === 'object') {
    const obj = value as Record<string, unknown>;
    for (const key of (schema.required as string[] | undefined) ?? []) {
      if (!(key in obj)) {
        errors.push(`${at}/${key}: required`);
      }
    }
    const props = (schema.properties as Record<string, Schema> | undefined) ?? {};
    for (const [key, v] of Object.entries(obj)) {
      if (props[key]) {
        errors.push(...check(props[key], v, `${at}/${key}`));
      } else if (schema.additionalProperties === false) {
        errors.push(`${at}/${key}: not allowed`);
      }
    }
  }
  return errors;
}

const demoPath = path.join(__dirname, '../../examples/demo/prd.json');

describe('prd.json JSON schema (prdJsonSchema)', () => {
  const schema = prdJsonSchema();

  it('is a draft-7 object schema with an id and a title', () => {
    assert.equal(schema.$schema, 'http://json-schema.org/draft-07/schema#');
    assert.equal(schema.type, 'object');
    assert.equal(typeof schema.$id, 'string');
    assert.equal(schema.title, 'Ralph PRD (prd.json)');
  });

  it('requires userStories, and only id and passes on each story (what Ralph reads without a warning is optional)', () => {
    assert.deepEqual(schema.required, ['userStories']);
    const story = ((schema.properties as Record<string, Schema>).userStories.items ?? {}) as Schema;
    assert.deepEqual([...(story.required as string[])].sort(), ['id', 'passes']);
    const props = story.properties as Record<string, Schema>;
    for (const key of ['blockedBy', 'dependsOn', 'dependencies', 'depends_on']) {
      assert.deepEqual(props[key].type, 'array', key);
      assert.deepEqual(props[key].items, { type: 'string' }, key);
    }
    assert.equal(props.passes.type, 'boolean');
    for (const [name, p] of Object.entries(props)) {
      assert.equal(typeof p.description, 'string', `${name} has a hover description`);
    }
  });

  it('allows unknown fields (files written by other tools keep working)', () => {
    const story = ((schema.properties as Record<string, Schema>).userStories.items ?? {}) as Schema;
    assert.notEqual(schema.additionalProperties, false);
    assert.notEqual(story.additionalProperties, false);
  });

  it('accepts the demo prd.json', () => {
    assert.deepEqual(check(schema, JSON.parse(readFileSync(demoPath, 'utf8'))), []);
  });

  it('rejects a story without an id, and a passes that is not a boolean', () => {
    const demo = JSON.parse(readFileSync(demoPath, 'utf8'));
    delete demo.userStories[2].id;
    demo.userStories[3].passes = 'yes';
    assert.deepEqual(check(schema, demo), ['/userStories/2/id: required', '/userStories/3/passes: expected boolean, got string']);
  });

  it('rejects ids that are empty or padded with spaces', () => {
    const demo = JSON.parse(readFileSync(demoPath, 'utf8'));
    demo.userStories[0].id = '';
    demo.userStories[1].id = ' US-002';
    assert.equal(check(schema, demo).length, 3);
  });

  it('agrees with the zod schema on random story objects', () => {
    const value = fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }));
    const storyArb = fc.record(
      {
        id: fc.oneof(fc.constantFrom('US-1', '', ' x', 'a b'), value),
        title: fc.oneof(fc.string({ maxLength: 3 }), value),
        priority: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), value),
        passes: fc.oneof(fc.boolean(), value),
        description: fc.oneof(fc.string({ maxLength: 3 }), value),
        acceptanceCriteria: fc.oneof(fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }), value),
        blockedBy: fc.oneof(fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }), value),
        notes: value,
        extra: value,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.array(storyArb, { maxLength: 3 }), (stories) => {
        const prd = { userStories: stories };
        assert.equal(check(schema, prd).length === 0, prdSchema.safeParse(prd).success, JSON.stringify(prd));
      }),
      { numRuns: 200 },
    );
  });
});

describe('prd.json template', () => {
  it('is valid, uses blockedBy, and starts with the first story ready', () => {
    const text = prdTemplate('My Cool App!');
    const a = analyze(text);
    assert.deepEqual(a.problems, []);
    assert.equal(a.doc.projectName, 'My Cool App!');
    assert.equal(a.doc.branchName, 'ralph/my-cool-app');
    assert.ok(a.doc.stories.some((s) => s.blockedBy.length > 0));
    assert.equal(a.readiness.next?.story.id, 'US-001');
    assert.deepEqual(check(prdJsonSchema(), JSON.parse(text)), []);
    assert.ok(text.endsWith('}\n'));
  });

  it('falls back to a generic branch name when the project name has no letters or digits', () => {
    assert.equal(analyze(prdTemplate('!!!')).doc.branchName, 'ralph/my-feature');
  });
});

describe('the schema and the story reader agree on valid files', () => {
  it('every file prdSchema accepts reads without an error (warnings at most)', () => {
    const id = fc.stringMatching(/^[A-Z]{1,3}-\d{1,3}$/);
    const storyArb = fc.record(
      {
        id,
        title: fc.string({ maxLength: 3 }),
        priority: fc.oneof(fc.integer({ min: -5, max: 50 }), fc.constantFrom('critical', 'high', 'medium', 'low', 'P0', 'P1', 'P2', 'P3')),
        passes: fc.boolean(),
        description: fc.string({ maxLength: 3 }),
        acceptanceCriteria: fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
        notes: fc.string({ maxLength: 3 }),
      },
      { requiredKeys: ['id', 'passes'] },
    );
    fc.assert(
      fc.property(fc.uniqueArray(storyArb, { selector: (s) => s.id, maxLength: 4 }), (stories) => {
        const prd = { userStories: stories };
        assert.ok(prdSchema.safeParse(prd).success);
        const a = analyzePrdFull(JSON.stringify(prd));
        assert.deepEqual(a.problems.filter((p) => p.severity === 'error'), [], JSON.stringify(prd));
        assert.equal(a.readable, true);
      }),
      { numRuns: 500 },
    );
  });
});
