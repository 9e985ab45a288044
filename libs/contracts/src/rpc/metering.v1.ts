import type { Static } from '@sinclair/typebox';
import { Type } from '../schema-builder.js';

/** Token spend of one agent over a time range, answered by the metering service (queue group `metering`). */
export const METERING_USAGE_SUBJECT = 'tenet.rpc.v1.metering.usage_summary';

export const UsageSummaryRequestV1 = Type.Object(
  {
    agent_id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
    /** ISO-8601, inclusive. */
    from: Type.Optional(Type.String({ format: 'date-time' })),
    /** ISO-8601, exclusive. */
    to: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);
export type UsageSummaryRequestV1 = Static<typeof UsageSummaryRequestV1>;
