import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processAudience } from '../../src/domain/audiences/audiences.js';
import { parseCustomerList } from '../../src/domain/audiences/audience-identifiers.js';
import { bearer, makeAccount } from '../support/context.js';
import { emails, insertCustomerList, insertFile } from '../support/files.js';
import { startTestApp, type TestApp } from '../support/app.js';

const MIN = 5;
let t: TestApp;
let a: { accountId: string; key: string };
let b: { accountId: string; key: string };
beforeAll(async () => {
  t = await startTestApp({ env: { ADSVC_AUDIENCE_MIN_SIZE: String(MIN) } });
  a = await makeAccount(t);
  b = await makeAccount(t);
});
afterAll(() => t.close());

const post = (key: string, url: string, payload?: object) => t.app.inject({ method: 'POST', url, headers: bearer(key), ...(payload ? { payload } : {}) });
const process = (id: string) => processAudience({ store: t.store, clock: t.clock, dataDir: t.dataDir, minSize: MIN }, id);

async function audience(list: string[], name = 'List') {
  const { body } = await insertCustomerList(t.store, t.dataDir, a.accountId, list);
  const res = await post(a.key, '/v1/custom_audiences', { name, ...body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { id: string; status: string };
}

describe('custom audiences', () => {
  it('starts processing, queues its job, and settles to ready with the distinct count', async () => {
    const list = [...emails('a', 6), 'A0@Example.com', 'not-an-email'];
    const made = await audience(list);
    expect(made).toMatchObject({ object: 'custom_audience', status: 'processing', size: null, eligible_for_inclusion: false });
    expect(t.audiencesQueued).toContain(made.id);
    const done = await process(made.id);
    // a0@example.com appears twice (case differs); the bad line is not counted.
    expect(done).toMatchObject({ id: made.id, status: 'ready', size: 6, eligible_for_inclusion: true, eligible_for_exclusion: true });
    expect(await process(made.id)).toBeUndefined(); // a repeated job changes nothing
    const members = await t.store.get('SELECT count(*) AS n FROM custom_audience_members WHERE audience_id = $id', { id: made.id });
    expect(members).toEqual({ n: 6 });
  });

  it('is too_small below the planning threshold, and empty lists too: exclusion only', async () => {
    const small = await audience(emails('s', 3));
    expect(await process(small.id)).toMatchObject({ status: 'too_small', size: 3, eligible_for_inclusion: false, eligible_for_exclusion: true });
    const empty = await audience([]);
    expect(await process(empty.id)).toMatchObject({ status: 'too_small', size: 0 });
  });

  it('lists by intended use', async () => {
    const ready = await audience(emails('r', 5), 'ready');
    await process(ready.id);
    const small = await audience(emails('q', 1), 'small');
    await process(small.id);
    const ids = async (qs: string) =>
      ((await t.app.inject({ url: `/v1/custom_audiences?limit=500${qs}`, headers: bearer(a.key) })).json().data as { id: string }[]).map((x) => x.id);
    expect(await ids('&intended_use=inclusion')).toContain(ready.id);
    expect(await ids('&intended_use=inclusion')).not.toContain(small.id);
    expect(await ids('&intended_use=exclusion')).toEqual(expect.arrayContaining([ready.id, small.id]));
    const archived = await post(a.key, `/v1/custom_audiences/${ready.id}/archive`);
    expect(archived.json().status).toBe('archived');
    expect(await ids('&intended_use=exclusion')).not.toContain(ready.id);
    expect(await ids('')).toContain(ready.id);
    const bad = await t.app.inject({ url: '/v1/custom_audiences?intended_use=everything', headers: bearer(a.key) });
    expect(bad.json().error).toMatchObject({ code: 'invalid_value', param: 'intended_use' });
  });

  it('needs the upload it names, restated exactly', async () => {
    const { body } = await insertCustomerList(t.store, t.dataDir, a.accountId, emails('m', 2));
    const cases: [object, number, string, string][] = [
      [{ ...body, filename: 'other.csv' }, 400, 'invalid_value', 'filename'],
      [{ ...body, mimetype: 'text/plain' }, 400, 'invalid_value', 'mimetype'],
      [{ ...body, file_size: (body as { file_size: number }).file_size + 1 }, 400, 'invalid_value', 'file_size'],
      [{ ...body, file_id: 'file_nope' }, 404, 'resource_missing', 'file_id'],
      [{ ...body, identifier_type: 'fax' }, 400, 'invalid_value', 'identifier_type'],
    ];
    for (const [payload, status, code, param] of cases) {
      const res = await post(a.key, '/v1/custom_audiences', { name: 'x', ...payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(status);
      expect(res.json().error).toMatchObject({ code, param });
    }
    const image = await insertFile(t.store, a.accountId, null);
    const res = await post(a.key, '/v1/custom_audiences', { name: 'x', file_id: image, filename: 'icon.png', mimetype: 'image/png', file_size: 10 });
    expect(res.json().error).toMatchObject({ code: 'invalid_value', param: 'file_id' });
    const missingName = await post(a.key, '/v1/custom_audiences', { ...body });
    expect(missingName.json().error).toMatchObject({ code: 'missing_required_parameter', param: 'name' });
  });

  it("never exposes another account's audiences or files", async () => {
    const mine = await audience(emails('p', 5));
    expect((await t.app.inject({ url: `/v1/custom_audiences/${mine.id}`, headers: bearer(b.key) })).statusCode).toBe(404);
    expect((await post(b.key, `/v1/custom_audiences/${mine.id}/archive`)).statusCode).toBe(404);
    const { body } = await insertCustomerList(t.store, t.dataDir, a.accountId, emails('z', 2));
    const res = await post(b.key, '/v1/custom_audiences', { name: 'theirs', ...body });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toMatchObject({ code: 'resource_missing', param: 'file_id' });
  });
});

describe('parseCustomerList', () => {
  it('normalizes, dedupes and skips a header', () => {
    const csv = parseCustomerList('email,name\n"x@y.io",X\nX@Y.IO,X\nbad\n\n', 'email', true);
    expect(csv).toMatchObject({ lines: 3, invalid: 1 });
    expect(csv.hashes).toHaveLength(1);
    const phones = parseCustomerList('+1 (555) 010-0000\n15550100000\n123\n', 'phone', false);
    expect(phones.hashes).toHaveLength(1);
    expect(phones.invalid).toBe(1);
  });
});
