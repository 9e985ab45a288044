import { connectionFrom, TenetApi } from './api-client.js';

describe('connectionFrom: where the CLI talks to and as whom', () => {
  it('takes TENET_URL and TENET_API_KEY, and with --workspace prefers that workspace key', () => {
    const env = { TENET_URL: 'http://tenet:8800/', TENET_API_KEY: 'tnt_a_default', TENET_API_KEY_ACME_EU: 'tnt_b_acme' };
    expect(connectionFrom(env, {})).toEqual({ url: 'http://tenet:8800', apiKey: 'tnt_a_default' });
    expect(connectionFrom(env, { workspace: 'acme-eu' })).toEqual({ url: 'http://tenet:8800', apiKey: 'tnt_b_acme', workspace: 'acme-eu' });
    expect(connectionFrom(env, { url: 'http://other' })).toMatchObject({ url: 'http://other' });
  });

  it('sends knowledge routes to TENET_KNOWLEDGE_URL when set (the memory store of start:distributed)', () => {
    const api = new TenetApi(connectionFrom({ TENET_URL: 'http://gw:8800', TENET_KNOWLEDGE_URL: 'http://memory:8818/' }, {}));
    expect(api.baseFor('/knowledge/sources')).toBe('http://memory:8818');
    expect(api.baseFor('/guidelines')).toBe('http://gw:8800');
    expect(new TenetApi(connectionFrom({}, {})).baseFor('/knowledge/sources')).toBe('http://127.0.0.1:8800');
  });
});
