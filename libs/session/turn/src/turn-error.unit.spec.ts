import { AuthenticationError, InvalidStructuredOutputError, ProviderUnavailableError } from '@tenet/llm';
import { RemoteHandlerError, RequestFailedError } from '@tenet/messaging';
import { customerFacingError } from './turn-error.js';

const SECRET = 'Authorization: Bearer sk-live-0123456789abcdef';

describe('customerFacingError', () => {
  it.each([
    ['a provider outage in this process', 'LLM.UNAVAILABLE', new ProviderUnavailableError('openai', `HTTP 500: ${SECRET}`, true, 500)],
    ['rejected credentials', 'LLM.AUTHENTICATION', new AuthenticationError('openai', `401: ${SECRET}`)],
    ['output out of schema', 'LLM.INVALID_OUTPUT', new InvalidStructuredOutputError('openai', 'reply', '/message', [SECRET])],
    [
      'a matcher replica reporting an outage',
      'LLM.UNAVAILABLE',
      new RemoteHandlerError(`openai call failed: ${SECRET}`, 'LLM.UNAVAILABLE'),
    ],
    ['a matcher replica failing otherwise', 'TURN.FAILED', new RemoteHandlerError(SECRET, 'MATCHER.BUG')],
    ['no matcher answering in time', 'TURN.TIMEOUT', new RequestFailedError(`timed out ${SECRET}`)],
    ['anything else', 'TURN.FAILED', new Error(SECRET)],
  ])('%s → %s, with a generic sentence and none of the error text', (_case, code, error) => {
    const visible = customerFacingError(error);
    expect(visible.code).toBe(code);
    expect(visible.exception).not.toContain('sk-live');
    expect(visible.exception).not.toContain('HTTP');
    expect(visible.exception.length).toBeGreaterThan(10);
  });
});
