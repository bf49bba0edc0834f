import assert from 'node:assert/strict';
import { errorMessage } from '../../src/core/errorMessage';

describe('errorMessage (what a command error notification says)', () => {
  it('is the error message when there is one', () => {
    assert.equal(errorMessage(new Error('There is no story "X".')), 'There is no story "X".');
  });

  it('never is empty: an Error thrown without a message says so and points at the log', () => {
    // What `vscode.workspace.getWorkspaceFolder(<a tree node>)` threw: the notification read "Ralph: ".
    assert.equal(errorMessage(new Error()), 'an unexpected Error without a message (see the log)');
    assert.equal(errorMessage(new TypeError('  ')), 'an unexpected TypeError without a message (see the log)');
    assert.equal(errorMessage(''), 'an unexpected error without a message (see the log)');
    assert.equal(errorMessage(undefined), 'undefined');
  });
});
