import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { LlmProvider, LlmRequest, LlmResponse } from '@tenet/llm';

interface Recording {
  /** The scenario whose turn made the request (its stable slug), so re-recording one scenario replaces only its answers. */
  scenario?: string;
  kind: string;
  value: unknown;
  usage: { inputTokens: number; outputTokens: number };
  provider: string;
  model: string;
}

/** Canonical JSON (sorted keys), so a recording's key does not depend on property order. */
const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(',')}]`
    : value !== null && typeof value === 'object'
      ? `{${Object.keys(value)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
          .join(',')}}`
      : JSON.stringify(value);

/** A request is identified by its task: what it asks, not how the prompt happens to be worded. */
export const recordingKey = (request: LlmRequest): string =>
  createHash('sha256')
    .update(canonical({ kind: request.task.kind, input: request.task.input }))
    .digest('hex')
    .slice(0, 24);

export class RecordingMissingError extends Error {
  constructor(file: string, key: string, kind: string, scenario: string | undefined) {
    super(
      `no recorded answer for a "${kind}" request (key ${key}) of scenario ${scenario ?? '?'} in ${file}: the engine asked something it did not ask when ` +
        'the suite was recorded (a changed prompt input, id or conversation). Re-record with: npm run behaviour:record',
    );
    this.name = 'RecordingMissingError';
  }
}

/**
 * Recorded provider responses for behaviour tests, as Parlant caches LLM answers in its tests. In `replay`
 * mode (the default, and what CI runs) every answer comes from the recording file and a request that was not
 * recorded fails the test. In `record` mode the live provider answers (the offline provider, or OpenAI /
 * Anthropic when a key is set) and each answer is written to the file, so a suite recorded against a real
 * model replays that model's behaviour deterministically.
 *
 * Answers are attributed to the scenario that asked for them (`beginScenario`): re-recording replaces exactly
 * the answers of the scenarios that ran (so `-t` re-records one scenario and keeps the rest), and replay
 * reports a scenario whose recorded answers were not all asked for (`endScenario`) — the engine made fewer or
 * other calls than when it was recorded.
 */
export class RecordedProvider implements LlmProvider {
  readonly name: string;
  readonly model: string;
  private readonly recordings: Record<string, Recording>;
  private readonly ran = new Set<string>();
  private readonly answered = new Set<string>();
  private current: string | undefined;
  private dirty = false;

  constructor(
    private readonly file: string,
    private readonly mode: 'replay' | 'record',
    private readonly live?: LlmProvider,
  ) {
    if (mode === 'record' && !live) throw new TypeError('record mode needs a live provider');
    this.recordings = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, Recording>) : {};
    this.name = live?.name ?? 'recorded';
    this.model = live?.model ?? 'recorded';
  }

  /** Attributes the requests that follow to this scenario. */
  beginScenario(scenario: string): void {
    this.current = scenario;
    this.ran.add(scenario);
  }

  /** The keys recorded for the scenario that it did not ask for this run (replay only; always [] when recording). */
  endScenario(scenario: string): string[] {
    this.current = undefined;
    if (this.mode === 'record') return [];
    return Object.entries(this.recordings)
      .filter(([key, r]) => r.scenario === scenario && !this.answered.has(key))
      .map(([key]) => key);
  }

  async generate<I, O>(request: LlmRequest<I>): Promise<LlmResponse<O>> {
    const key = recordingKey(request as LlmRequest);
    this.answered.add(key);
    if (this.mode === 'record') {
      const response = await this.live!.generate<I, O>(request);
      this.recordings[key] = {
        ...(this.current ? { scenario: this.current } : {}),
        kind: request.task.kind,
        value: response.value,
        usage: response.usage,
        provider: response.provider,
        model: response.model,
      };
      this.dirty = true;
      return response;
    }
    const recorded = this.recordings[key];
    if (!recorded) throw new RecordingMissingError(this.file, key, request.task.kind, this.current);
    return { value: recorded.value as O, usage: recorded.usage, provider: recorded.provider, model: recorded.model, latencyMs: 0 };
  }

  /**
   * Writes the recordings (record mode), sorted by key so re-recording yields small diffs. Answers of the
   * scenarios that ran but were not asked for again are dropped, as are answers no scenario claims.
   */
  save(): void {
    if (!this.dirty) return;
    const kept = Object.entries(this.recordings).filter(
      ([key, r]) => r.scenario !== undefined && (!this.ran.has(r.scenario) || this.answered.has(key)),
    );
    const sorted = Object.fromEntries(kept.sort(([a], [b]) => a.localeCompare(b)));
    writeFileSync(this.file, `${JSON.stringify(sorted, null, 1)}\n`);
  }
}
