/**
 * Fixtures are checked against the spec and the control document before anything runs: each mistake is reported
 * with its step and the reason, and a bad file never reaches the sandbox. The bundled fixtures pass.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveTarget, SandboxApi } from '../../packages/cli/src/sandbox-tools/api.js';
import { loadDocs, type RequestInput } from '../../packages/cli/src/sandbox-tools/docs.js';
import { bundledFixtures, bundledFixturesDir, fixtureProblems, parseReferences, resolveFixturePath, runFixture, substitute } from '../../packages/cli/src/sandbox-tools/fixtures.js';
import { tempDir } from '../helpers/spec.js';

const docs = await loadDocs();
const { dir, cleanup } = tempDir('fixtures');
afterAll(cleanup);

const products = { id: 'products', call: 'listCardProducts' };
const issue = {
  id: 'issue',
  call: 'createCard',
  body: { card_product_id: '${products.data[0].id}', initial_topup_amount: '100.00', cardholder_first_name: 'Ada', cardholder_last_name: 'Lovelace' },
};
const authorize = (over: Record<string, unknown> = {}) => ({ id: 'auth', call: 'simulateAuthorization', path: { uuid: '${issue.data.related_card_uuid}' }, body: { amount: '25.00' }, ...over });

describe('fixture checks', () => {
  it.each(bundledFixtures().map(({ name }) => [name]))('the bundled %s fixture has no problem, and a description whose first sentence --list prints', (fixture) => {
    const file = resolveFixturePath(fixture);
    expect(path.dirname(file)).toBe(bundledFixturesDir());
    expect(fixtureProblems(JSON.parse(readFileSync(file, 'utf8')), docs)).toEqual([]);
    expect(bundledFixtures().find((f) => f.name === fixture)!.summary.length).toBeGreaterThan(10);
  });

  it('ships a fixture per family of states (issue 33) beside the two purchase scenarios', () => {
    expect(bundledFixtures().map((f) => f.name)).toEqual(
      expect.arrayContaining(['after-close', 'bills', 'card-freezes', 'chargeback', 'declines', 'frozen-wallet', 'order-failures', 'order-retries', 'purchase-fx-refund', 'reconcile', 'staff-card', 'subscription', 'topup', 'wallet-money']),
    );
  });

  it.each<[string, unknown, RegExp[]]>([
    ['an unknown operation, with a suggestion', { steps: [products, { id: 'x', call: 'createCrad' }] }, [/^step 2 "x" \(createCrad\): no operation createCrad in the spec or the control document; did you mean createCard\?$/]],
    ['a missing required path parameter', { steps: [{ id: 'capture', call: 'simulateCapture' }] }, [/^step 1 "capture" \(simulateCapture\): path parameter "supplier_txn_id" is required$/]],
    ['an unknown parameter', { steps: [{ id: 'clock', call: 'getClock', query: { when: 'now' } }] }, [/query parameter "when" is not a parameter of getClock \(it takes no query parameters\)/]],
    ['a body that does not match the schema', { steps: [products, issue, authorize({ body: { amount: 12.5 } })] }, [/^step 3 "auth" \(simulateAuthorization\): body\/amount: must be string/]],
    ['a body field the schema does not have', { steps: [products, issue, authorize({ body: { amount: '1.00', tip: '1' } })] }, [/^step 3 "auth" .*body: must NOT have additional properties/]],
    ['a missing required body', { steps: [products, issue, authorize({ body: undefined })] }, [/^step 3 "auth" \(simulateAuthorization\): simulateAuthorization needs a request body$/]],
    ['a body where none is taken', { steps: [{ id: 'clock', call: 'getClock', body: {} }] }, [/getClock takes no request body/]],
    ['a reference to a step that does not exist', { steps: [products, issue, authorize({ path: { uuid: '${isue.data.related_card_uuid}' } })] }, [/^step 3 "auth" \(simulateAuthorization\): \/path\/uuid: \$\{isue\.data\.related_card_uuid\} refers to a step "isue" that does not exist \(did you mean issue\?\)$/]],
    ['a reference to a later step', { steps: [products, authorize(), issue] }, [/^step 2 "auth" .*refers to step 3 "issue", which comes later: a step can only use the answers of earlier steps$/]],
    ['a reference to its own step', { steps: [{ ...products, query: { x: '${products.data}' } }] }, [/which is this step/]],
    ['a reference along a path the answer does not declare', { steps: [products, issue, authorize({ path: { uuid: '${issue.data.card_uuid}' } })] }, [/\$\{issue\.data\.card_uuid\}: the answer of getOrder has no issue\.data\.card_uuid: no such field \(did you mean related_card_uuid\?\)/]],
    ['an index into an object', { steps: [products, issue, authorize({ path: { uuid: '${issue.data[0]}' } })] }, [/has no issue\.data\[0\]: not an array/]],
    ['a malformed reference', { steps: [products, issue, authorize({ path: { uuid: '${issue..data}' } })] }, [/\/path\/uuid: \$\{issue\.\.data\} is not a reference/]],
    ['a duplicate step id', { steps: [products, { ...products }] }, [/^step 2 "products" \(listCardProducts\): the id "products" is already step 1's$/]],
    ['"wait" on an operation that answers at once', { steps: [{ ...products, wait: false }] }, [/"wait" applies only to asynchronous writes/]],
    ['a file without steps', { step: [] }, [/^\/ must have required property 'steps'$/, /additional/]],
    // Issue 31: `..` passed the check and `/sandbox/purchases/../capture` was sent as `POST /sandbox/capture`.
    ['a dot segment as a path parameter', { steps: [{ id: 'capture', call: 'simulateCapture', path: { supplier_txn_id: '..' } }] }, [/^step 1 "capture" \(simulateCapture\): path parameter "supplier_txn_id" must not be "\.\.": a dot segment, which URL parsers remove, so the request would go to another route$/]],
    ['a single dot as a path parameter', { steps: [{ id: 'refund', call: 'simulateRefund', path: { supplier_txn_id: '.' } }] }, [/path parameter "supplier_txn_id" must not be "\."/]],
    ['an encoded dot segment as a path parameter', { steps: [{ id: 'capture', call: 'simulateCapture', path: { supplier_txn_id: '%2E%2e' } }] }, [/path parameter "supplier_txn_id" must not be "%2E%2e" \(decoded "\.\."\)/]],
    ['a slash in a path parameter', { steps: [{ id: 'capture', call: 'simulateCapture', path: { supplier_txn_id: 'a/../b' } }] }, [/path parameter "supplier_txn_id" must not be "a\/\.\.\/b": it holds/]],
  ])('reports %s with its step and reason', (_name, fixture, expected) => {
    const problems = fixtureProblems(fixture, docs);
    for (const pattern of expected) expect(problems.some((p) => pattern.test(p)), `${pattern} in\n${problems.join('\n')}`).toBe(true);
  });

  it('lets a reference stand where its value is typed: the referenced value is checked at run time', () => {
    expect(fixtureProblems({ steps: [products, issue, authorize(), { id: 'capture', call: 'simulateCapture', path: { supplier_txn_id: '${auth.data.supplier_txn_id}' } }] }, docs)).toEqual([]);
  });

  it('reads nothing from the sandbox when the file has a problem', async () => {
    const file = path.join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ steps: [products, { id: 'x', call: 'createCrad' }] }));
    // An address nothing listens on: were the file run, this would be "no sandbox answers".
    await expect(runFixture({ fixture: file, baseUrl: 'http://127.0.0.1:9/api/v1', token: 'sbx_sk_unused' }, { out: () => {}, log: () => {} })).rejects.toMatchObject({
      message: expect.stringMatching(/1 problem, nothing was run:$/),
      details: [expect.stringMatching(/^step 2 "x" \(createCrad\)/)],
    });
  });

  it('refuses at run time a reference that resolves to a dot segment, before any request', async () => {
    const sent: string[] = [];
    const api = new SandboxApi(resolveTarget({ baseUrl: 'http://127.0.0.1:9/api/v1', token: 'sbx_sk_unused' }, docs), docs, {
      fetch: async (input) => {
        sent.push(String(input));
        return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
    const input = substitute({ path: { supplier_txn_id: '${auth.data.supplier_txn_id}' } }, new Map([['auth', { data: { supplier_txn_id: '..' } }]])) as RequestInput;
    await expect(api.call('simulateCapture', input)).rejects.toThrow(/^simulateCapture: the request does not match the control document: path parameter "supplier_txn_id" must not be "\.\."/);
    expect(sent).toEqual([]);
  });

  it('suggests a bundled fixture for a misspelled name', () => {
    expect(() => resolveFixturePath('chargebak')).toThrow(expect.objectContaining({ hint: 'did you mean the bundled fixture chargeback?' }));
  });
});

describe('references', () => {
  it('parses step ids, fields and indexes', () => {
    expect(parseReferences('${products.data[0].id}')).toEqual([{ step: 'products', path: ['data', 0, 'id'], text: '${products.data[0].id}' }]);
    expect(parseReferences('card ${a.b} and ${c.d[2]}').map((r) => r.step)).toEqual(['a', 'c']);
    expect(parseReferences('no reference')).toEqual([]);
  });

  it('substitutes a whole reference with its typed value and an embedded one as text', () => {
    const answers = new Map<string, unknown>([['products', { data: [{ id: 3, code: 'visa' }] }]]);
    expect(substitute({ card_product_id: '${products.data[0].id}', note: 'product ${products.data[0].code} #${products.data[0].id}', keep: 1 }, answers)).toEqual({
      card_product_id: 3,
      note: 'product visa #3',
      keep: 1,
    });
    expect(() => substitute('${products.data[1].id}', answers)).toThrow(/step "products" answered without it/);
  });
});
