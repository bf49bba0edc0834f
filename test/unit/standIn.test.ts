import * as assert from 'node:assert/strict';
import { standInUrl } from '../../src/core/artifacts/url';

describe('ralph.github.standInUrl: only a stand-in on this machine (issue 18 item 12)', () => {
  it('accepts an http URL on 127.0.0.1, localhost or [::1]', () => {
    assert.deepEqual(standInUrl('http://127.0.0.1:1234'), { url: 'http://127.0.0.1:1234' });
    assert.deepEqual(standInUrl(' http://localhost:8766/ '), { url: 'http://localhost:8766' });
    assert.deepEqual(standInUrl('http://[::1]:9000/api'), { url: 'http://[::1]:9000/api' });
  });

  for (const bad of ['https://example.com', 'http://10.0.0.1', 'http://example.com:80', 'https://127.0.0.1:1234', 'http://127.0.0.2:1234', 'http://user:pw@127.0.0.1:1234', 'http://127.0.0.1.nip.io:1234', 'ftp://127.0.0.1', 'not a url', 'http://127.0.0.1:1234/?q=1']) {
    it(`rejects ${JSON.stringify(bad)} with a message that names the setting and the rule`, () => {
      const r = standInUrl(bad);
      assert.equal(r.url, undefined);
      assert.match(r.problem ?? '', /^ralph\.github\.standInUrl must be an http URL on 127\.0\.0\.1, localhost or \[::1\]/);
    });
  }

  it('empty is no stand-in, and no problem', () => {
    assert.deepEqual(standInUrl(''), {});
    assert.deepEqual(standInUrl('   '), {});
  });
});
