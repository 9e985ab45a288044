import type { LlmProvider, LlmRequest, LlmResponse } from '../llm.port.js';
import { validateStructuredOutput } from '../structured-output.js';
import { composeReplyRequest, composeReplySchema, type ComposeReplyOutput } from '../tasks/compose-reply.js';
import {
  matchGuidelinesRequest,
  matchGuidelinesSchema,
  parseToolArguments,
  type MatchGuidelinesOutput,
} from '../tasks/match-guidelines.js';

/** A provider ready to answer the suite's requests (a scripted harness, a local wire server, …). */
export interface LlmProviderHarness {
  provider: LlmProvider;
  dispose(): Promise<void>;
}

const context = { purpose: 'conformance', sessionId: 'session-1', agentId: 'agent-1' };

/** The requests the suite sends, for harnesses that must script answers to them. */
export const conformanceRequests = {
  matchGuidelines: matchGuidelinesRequest(
    {
      message: 'I want my money back for order 12345',
      history: [{ role: 'agent', content: 'Hello, how can I help?' }],
      guidelines: [
        { id: 'refund', condition: "The customer asks for a refund or mentions 'money back'", action: 'Explain the 30-day refund policy' },
        { id: 'greet', condition: 'The customer greets the agent', action: 'Greet them' },
      ],
    },
    context,
  ),
  composeReply: composeReplyRequest(
    {
      agentName: 'Support',
      message: 'I want my money back',
      matched: [{ guideline_id: 'refund', action: 'Explain the 30-day refund policy' }],
      history: [],
    },
    context,
  ),
  /** Version 2 of the matching task: a previously applied guideline, a tool to extract arguments for, a glossary. */
  matchGuidelinesV2: matchGuidelinesRequest(
    {
      message: 'Yes, it is order 12345',
      history: [
        { role: 'customer', content: 'Hi, I want my money back' },
        { role: 'agent', content: 'Hello! Which order is it?' },
      ],
      guidelines: [
        {
          id: 'refund',
          condition: 'The customer asks for a refund',
          action: 'Start the refund',
          tools: [
            {
              name: 'start_refund',
              description: 'Starts a refund',
              parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
            },
          ],
        },
        { id: 'greet', condition: 'The customer greets the agent', action: 'Greet them', previously_applied: true },
      ],
      terms: [{ name: 'refund', description: 'Money returned for an order', synonyms: ['money back', 'reimbursement'] }],
    },
    context,
  ),
  /** Version 2 of the reply task: strict canned responses with a field. */
  composeReplyCanned: composeReplyRequest(
    {
      agentName: 'Support',
      message: 'Where is my order?',
      matched: [{ guideline_id: 'status', action: 'Tell them the status of their order' }],
      history: [],
      composition_mode: 'strict_canned',
      canned_responses: [{ id: 'order-status', value: 'Your order {{order_id}} is on its way.', fields: ['order_id'] }],
      field_values: { order_id: '12345' },
    },
    context,
  ),
} satisfies Record<string, LlmRequest>;

function expectWellFormed(response: LlmResponse, provider: LlmProvider): void {
  expect(response.provider).toBe(provider.name);
  expect(typeof response.model).toBe('string');
  expect(response.model.length).toBeGreaterThan(0);
  for (const tokens of [response.usage.inputTokens, response.usage.outputTokens]) {
    expect(Number.isInteger(tokens)).toBe(true);
    expect(tokens).toBeGreaterThanOrEqual(0);
  }
  expect(response.usage.inputTokens).toBeGreaterThan(0);
  expect(Number.isFinite(response.latencyMs)).toBe(true);
  expect(response.latencyMs).toBeGreaterThanOrEqual(0);
}

/**
 * The contract every LlmProvider meets, run from each adapter's spec with a harness for that adapter: Tenet's
 * tasks answered in their schemas, with usage and attribution, without touching the caller's request.
 */
export function llmProviderConformance(name: string, createHarness: () => Promise<LlmProviderHarness>): void {
  describe(`LlmProvider conformance: ${name}`, () => {
    let harness: LlmProviderHarness;

    beforeEach(async () => {
      harness = await createHarness();
    });
    afterEach(async () => {
      await harness.dispose();
    });

    it('answers match_guidelines in its schema, with usage and the answering provider and model', async () => {
      const response = await harness.provider.generate<unknown, MatchGuidelinesOutput>(conformanceRequests.matchGuidelines);
      expectWellFormed(response, harness.provider);
      expect(() => validateStructuredOutput('check', 'guideline_matches', matchGuidelinesSchema, response.value)).not.toThrow();
      const ids = new Set(conformanceRequests.matchGuidelines.task.input.guidelines.map((g) => g.id));
      for (const match of response.value.matches) expect(ids.has(match.guideline_id)).toBe(true);
    });

    it('answers compose_reply in its schema with a non-blank message', async () => {
      const response = await harness.provider.generate<unknown, ComposeReplyOutput>(conformanceRequests.composeReply);
      expectWellFormed(response, harness.provider);
      expect(() => validateStructuredOutput('check', 'reply', composeReplySchema, response.value)).not.toThrow();
      expect(response.value.message.trim()).not.toBe('');
    });

    it('answers the version 2 task shapes (tools, previously applied, glossary, canned responses) in their schemas', async () => {
      const matched = await harness.provider.generate<unknown, MatchGuidelinesOutput>(conformanceRequests.matchGuidelinesV2);
      expectWellFormed(matched, harness.provider);
      expect(() => validateStructuredOutput('check', 'guideline_matches', matchGuidelinesSchema, matched.value)).not.toThrow();
      const guidelines = new Map(conformanceRequests.matchGuidelinesV2.task.input.guidelines.map((g) => [g.id, g]));
      for (const match of matched.value.matches) {
        const tools = new Set(guidelines.get(match.guideline_id)?.tools?.map((t) => t.name));
        for (const entry of match.tool_arguments) {
          expect(tools.has(entry.tool_name)).toBe(true);
          expect(typeof parseToolArguments(entry)).toBe('object');
        }
      }
      const reply = await harness.provider.generate<unknown, ComposeReplyOutput>(conformanceRequests.composeReplyCanned);
      expectWellFormed(reply, harness.provider);
      expect(() => validateStructuredOutput('check', 'reply', composeReplySchema, reply.value)).not.toThrow();
      expect(['', 'order-status']).toContain(reply.value.canned_response_id);
    });

    it('answers concurrent calls independently and leaves the requests untouched', async () => {
      const before = structuredClone([conformanceRequests.matchGuidelines, conformanceRequests.composeReply]);
      const [matched, reply] = await Promise.all([
        harness.provider.generate<unknown, MatchGuidelinesOutput>(conformanceRequests.matchGuidelines),
        harness.provider.generate<unknown, ComposeReplyOutput>(conformanceRequests.composeReply),
      ]);
      expect(Array.isArray(matched.value.matches)).toBe(true);
      expect(typeof reply.value.message).toBe('string');
      expect([conformanceRequests.matchGuidelines, conformanceRequests.composeReply]).toEqual(before);
    });
  });
}
