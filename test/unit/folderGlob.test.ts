import * as assert from 'node:assert/strict';
import { anyOf, foldersOf, plainName } from '../../src/core/folderGlob';

describe('foldersOf: the folders on the way to a watched file', () => {
  it('names each folder from the top', () => {
    assert.deepEqual(foldersOf('scripts/ralph/prd.json'), ['scripts', 'scripts/ralph']);
    assert.deepEqual(foldersOf('specs/INDEX.md'), ['specs']);
    assert.deepEqual(foldersOf('./docs//memory/progress.txt'), ['docs', 'docs/memory']);
  });

  it('has none for a file at the top of the folder', () => {
    assert.deepEqual(foldersOf('prd.json'), []);
    assert.deepEqual(foldersOf('./prd.json'), []);
  });

  it('stops at a folder name a glob would misread, and at ..', () => {
    assert.deepEqual(foldersOf('a/b[1]/c/prd.json'), ['a']);
    assert.deepEqual(foldersOf('{x}/prd.json'), []);
    assert.deepEqual(foldersOf('a/../b/prd.json'), ['a']);
  });

  it('anyOf makes one glob of them, each once', () => {
    assert.equal(anyOf([]), undefined);
    assert.equal(anyOf(['specs']), 'specs');
    assert.equal(anyOf(['scripts', 'scripts/ralph', 'scripts']), '{scripts,scripts/ralph}');
  });
});

describe('plainName: the file name a glob reads as itself', () => {
  it('is the last segment, unless a glob would misread it', () => {
    assert.equal(plainName('memory/ralph-log.md'), 'ralph-log.md');
    assert.equal(plainName('progress.txt'), 'progress.txt');
    assert.equal(plainName('notes/log[1].md'), undefined);
    assert.equal(plainName('a/..'), undefined);
    assert.equal(plainName(''), undefined);
  });
});
