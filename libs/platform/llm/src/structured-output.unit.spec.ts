import { InvalidStructuredOutputError } from './errors.js';
import { parseStructuredOutput, validateStructuredOutput } from './structured-output.js';
import { composeReplySchema } from './tasks/compose-reply.js';
import { matchGuidelinesSchema } from './tasks/match-guidelines.js';

const catchError = (run: () => unknown): unknown => {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
};

describe('structured output validation', () => {
  it('returns a value that satisfies the schema', () => {
    const value = { matches: [{ guideline_id: 'g', relevance: 0.5, confidence: 1, reasoning: 'r' }] };
    expect(validateStructuredOutput('p', 'guideline_matches', matchGuidelinesSchema, value)).toBe(value);
  });

  it.each([
    [{ matches: [{ guideline_id: 'g', relevance: 1.5, confidence: 1, reasoning: 'r' }] }, '/matches/0/relevance'],
    [{ matches: [{ guideline_id: 'g', relevance: 0.5, confidence: 1 }] }, '/matches/0/reasoning'],
    [{ matches: [{ guideline_id: 'g', relevance: 0.5, confidence: 1, reasoning: 'r', extra: true }] }, '/matches/0/extra'],
    [[], '/'],
  ])('rejects %j with LLM.INVALID_OUTPUT naming %s', (value, path) => {
    const error = catchError(() => validateStructuredOutput('openai', 'guideline_matches', matchGuidelinesSchema, value));
    expect(error).toBeInstanceOf(InvalidStructuredOutputError);
    expect(error).toMatchObject({ code: 'LLM.INVALID_OUTPUT', path, provider: 'openai', schemaName: 'guideline_matches', retryable: false });
    expect((error as Error).message).toContain(path);
  });

  it('rejects a blank reply', () => {
    expect(catchError(() => validateStructuredOutput('p', 'reply', composeReplySchema, { message: '  ', cited_guideline_ids: [] }))).toMatchObject({ path: '/message' });
  });

  it('treats text that is not JSON as invalid output at the root', () => {
    expect(catchError(() => parseStructuredOutput('openai', 'reply', 'Sure! Here is your JSON'))).toMatchObject({ code: 'LLM.INVALID_OUTPUT', path: '/' });
    expect(parseStructuredOutput('openai', 'reply', '{"a":1}')).toEqual({ a: 1 });
  });
});
