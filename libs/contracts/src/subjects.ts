/**
 * Subject grammar of Tenet's published integration events:
 *
 *   tenet.v<major>.<context>.<aggregate id>.<event name>
 *
 * The major version is part of the subject so that a breaking change is a new subject that old
 * consumers never see; additive changes keep the version. Consumers filter with NATS wildcards,
 * e.g. `tenet.v1.session.*.message_created` or `tenet.v1.>`.
 */
export const TENET_STREAM = 'TENET_V1';
export const SUBJECT_ROOT = 'tenet.v1';
export const ALL_V1_SUBJECTS = `${SUBJECT_ROOT}.>`;

const TOKEN = /^[A-Za-z0-9_-]+$/;

/** NATS subject tokens may not contain dots, spaces or wildcards; ids are checked before use. */
export function subjectToken(value: string, field: string): string {
  if (!TOKEN.test(value)) {
    throw new TypeError(`${field} "${value}" cannot be a subject token: it must match ${TOKEN.source}`);
  }
  return value;
}

export const subjectFor = (context: string, aggregateId: string, eventName: string): string =>
  `${SUBJECT_ROOT}.${subjectToken(context, 'context')}.${subjectToken(aggregateId, 'aggregate id')}.${subjectToken(eventName, 'event name')}`;
