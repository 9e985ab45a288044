import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { LlmProvider, LlmRequest, LlmResponse } from '@tenet/llm';

interface Recording {
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
export const recordingKey = (request: LlmRequest): string => createHash('sha256').update(canonical({ kind: request.task.kind, input: request.task.input })).digest('hex').slice(0, 24);

export class RecordingMissingError extends Error {
  constructor(file: string, key: string, kind: string) {
    super(`no recorded answer for a "${kind}" request (key ${key}) in ${file}. Re-record with: npm run behaviour:record`);
    this.name = 'RecordingMissingError';
  }
}

/**
 * Recorded provider responses for behaviour tests, as Parlant caches LLM answers in its tests. In `replay`
 * mode (the default, and what CI runs) every answer comes from the recording file and a request that was not
 * recorded fails the test. In `record` mode the live provider answers (the offline provider, or OpenAI /
 * Anthropic when a key is set) and each answer is written to the file, so a suite recorded against a real
 * model replays that model's behaviour deterministically.
 */
export class RecordedProvider implements LlmProvider {
  readonly name: string;
  readonly model: string;
  private readonly recordings: Record<string, Recording>;
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

  async generate<I, O>(request: LlmRequest<I>): Promise<LlmResponse<O>> {
    const key = recordingKey(request as LlmRequest);
    if (this.mode === 'record') {
      const response = await this.live!.generate<I, O>(request);
      this.recordings[key] = { kind: request.task.kind, value: response.value, usage: response.usage, provider: response.provider, model: response.model };
      this.dirty = true;
      return response;
    }
    const recorded = this.recordings[key];
    if (!recorded) throw new RecordingMissingError(this.file, key, request.task.kind);
    return { value: recorded.value as O, usage: recorded.usage, provider: recorded.provider, model: recorded.model, latencyMs: 0 };
  }

  /** Writes the recordings (record mode), sorted by key so re-recording yields small diffs. */
  save(): void {
    if (!this.dirty) return;
    const sorted = Object.fromEntries(Object.entries(this.recordings).sort(([a], [b]) => a.localeCompare(b)));
    writeFileSync(this.file, `${JSON.stringify(sorted, null, 1)}\n`);
  }
}
