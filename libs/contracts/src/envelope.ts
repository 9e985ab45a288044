import type { TSchema, Static } from '@sinclair/typebox';
import { Type } from './schema-builder.js';

/**
 * Every integration event travels in the same envelope. `id` is the event id from the event log and
 * doubles as the JetStream message id, so a republished event is deduplicated by the server.
 * `stream`/`offset` locate it in the append-only log; `position` is its place in global order.
 */
export const envelopeSchema = <T extends TSchema>(type: string, data: T) =>
  Type.Object(
    {
      id: Type.String({ minLength: 1, description: 'Event id; also the JetStream Nats-Msg-Id' }),
      type: Type.Literal(type),
      version: Type.Literal(1),
      stream: Type.String({ minLength: 1, description: 'Event-log stream the event was appended to' }),
      offset: Type.Integer({ minimum: 0, description: 'Offset within the stream, contiguous from 0' }),
      position: Type.Integer({ minimum: 1, description: 'Global position in the event log, strictly increasing' }),
      occurred_at: Type.String({ format: 'date-time' }),
      data,
    },
    { additionalProperties: false },
  );

/** The fields of a stored event-log record that the mappings to integration events read (structural, so contracts import no adapter). */
export interface LoggedEvent {
  id: string;
  streamId: string;
  offset: number;
  position: number;
  type: string;
  data: unknown;
  recordedAt: string;
}

/** The envelope fields every integration event takes from the logged event it publishes (all but `type` and `data`). */
export const envelopeOf = (event: LoggedEvent) => ({
  id: event.id,
  version: 1 as const,
  stream: event.streamId,
  offset: event.offset,
  position: event.position,
  occurred_at: event.recordedAt,
});

export type Envelope<T> = {
  id: string;
  type: string;
  version: 1;
  stream: string;
  offset: number;
  position: number;
  occurred_at: string;
  data: T;
};

export interface IntegrationEventContract<S extends TSchema = TSchema> {
  /** Stable event name, e.g. `session.message_created`. */
  readonly type: string;
  /** Human description for docs/events.md. */
  readonly description: string;
  /** Subject pattern with `{placeholders}`, for documentation. */
  readonly subjectPattern: string;
  /** JSON Schema (draft 2020-12 compatible) of the whole envelope. */
  readonly schema: S;
  readonly example: Static<S>;
}
