import * as assert from 'node:assert/strict';
import { anyOf, foldersOf, relativeNames } from '../../src/core/folderGlob';

describe('foldersOf: the folders on the way to a watched file', () => {
  it('names each folder from the top, with either separator', () => {
    assert.deepEqual(foldersOf('scripts/ralph/prd.json'), ['scripts', 'scripts/ralph']);
    assert.deepEqual(foldersOf('specs/INDEX.md'), ['specs']);
    assert.deepEqual(foldersOf('./docs//memory/progress.txt'), ['docs', 'docs/memory']);
    assert.deepEqual(foldersOf('docs\\memory\\progress.txt'), ['docs', 'docs/memory']);
  });

  it('has none for a file at the top of the folder, or outside it', () => {
    assert.deepEqual(foldersOf('prd.json'), []);
    assert.deepEqual(foldersOf('./prd.json'), []);
    assert.deepEqual(foldersOf('/home/me/notes/p.md'), []);
    assert.deepEqual(foldersOf('C:\\notes\\p.md'), []);
    assert.deepEqual(foldersOf('../other/prd.json'), []);
  });

  it('applies .. inside the folder', () => {
    assert.deepEqual(foldersOf('a/../b/prd.json'), ['b']);
    assert.deepEqual(relativeNames('a/b/../../c'), ['c']);
    assert.equal(relativeNames('a/../../c'), undefined);
  });

  it('stops at a folder name a glob would misread', () => {
    assert.deepEqual(foldersOf('a/b[1]/c/prd.json'), ['a']);
    assert.deepEqual(foldersOf('{x}/prd.json'), []);
  });

  it('anyOf makes one glob of them, each once', () => {
    assert.equal(anyOf([]), undefined);
    assert.equal(anyOf(['specs']), 'specs');
    assert.equal(anyOf(['scripts', 'scripts/ralph', 'scripts']), '{scripts,scripts/ralph}');
  });
});
