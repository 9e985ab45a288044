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
    const value = {
      matches: [
        {
          guideline_id: 'g',
          relevance: 0.5,
          confidence: 1,
          reasoning: 'r',
          tool_arguments: [{ tool_name: 't', arguments_json: '{"a":1}' }],
        },
      ],
    };
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
    expect(error).toMatchObject({
      code: 'LLM.INVALID_OUTPUT',
      path,
      provider: 'openai',
      schemaName: 'guideline_matches',
      retryable: false,
    });
    expect((error as Error).message).toContain(path);
  });

  it('rejects a blank reply', () => {
    expect(
      catchError(() => validateStructuredOutput('p', 'reply', composeReplySchema, { message: '  ', cited_guideline_ids: [] })),
    ).toMatchObject({ path: '/message' });
  });

  it('completes fields whose empty value means "nothing" when an answer leaves them out, without touching the answer', () => {
    const matches = { matches: [{ guideline_id: 'g', relevance: 0.5, confidence: 1, reasoning: 'r' }] };
    const before = structuredClone(matches);
    expect(validateStructuredOutput('anthropic', 'guideline_matches', matchGuidelinesSchema, matches)).toEqual({
      matches: [{ ...matches.matches[0], tool_arguments: [] }],
    });
    expect(matches).toEqual(before);
    expect(validateStructuredOutput('p', 'reply', composeReplySchema, { message: 'hi', cited_guideline_ids: [] })).toEqual({
      message: 'hi',
      cited_guideline_ids: [],
      canned_response_id: '',
      cited_chunk_ids: [],
    });
    // Completion never invents the fields that carry the answer.
    expect(catchError(() => validateStructuredOutput('p', 'reply', composeReplySchema, { message: 'hi' }))).toMatchObject({
      path: '/cited_guideline_ids',
    });
  });

  it('requires tool arguments to be a JSON-encoded object', () => {
    const withArguments = (arguments_json: string) => ({
      matches: [{ guideline_id: 'g', relevance: 1, confidence: 1, reasoning: 'r', tool_arguments: [{ tool_name: 't', arguments_json }] }],
    });
    expect(() => validateStructuredOutput('p', 'guideline_matches', matchGuidelinesSchema, withArguments(' {} '))).not.toThrow();
    expect(
      catchError(() => validateStructuredOutput('p', 'guideline_matches', matchGuidelinesSchema, withArguments('"12345"'))),
    ).toMatchObject({
      path: '/matches/0/tool_arguments/0/arguments_json',
    });
  });

  it('treats text that is not JSON as invalid output at the root', () => {
    expect(catchError(() => parseStructuredOutput('openai', 'reply', 'Sure! Here is your JSON'))).toMatchObject({
      code: 'LLM.INVALID_OUTPUT',
      path: '/',
    });
    expect(parseStructuredOutput('openai', 'reply', '{"a":1}')).toEqual({ a: 1 });
  });
});
