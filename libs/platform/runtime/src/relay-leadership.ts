import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import type { EventLogRelayOptions } from '@tenet/event-store';
import { NatsLeaderLease, type MessageBus } from '@tenet/messaging';
import type { NatsConnection } from '@nats-io/transport-node';
import type { PlatformConfig } from './platform-config.js';

type RelayLeadership = NonNullable<EventLogRelayOptions['leadership']>;
type RelayWakeups = NonNullable<EventLogRelayOptions['wakeups']>;

/** The KV bucket holding every leader lease of Tenet processes on a NATS server. */
export const LEASE_BUCKET = 'TENET_LEASES';

/**
 * What one relay leadership is about: the relays that share an event log and a checkpoint name (and a subject
 * namespace). `log` names the log so that every process on it names it alike: `sqlite:<real path of the file>`
 * or `mongodb:<hosts>/<database>`. Processes on different logs (other data directories, the metering log, test
 * runs) get different keys and so a leader each.
 */
export function relayLeaseScope(options: { log: string; checkpointName: string; namespace?: string }): {
  key: string;
  kickSubject: string;
} {
  const digest = createHash('sha256')
    .update(JSON.stringify([options.namespace ?? '', options.checkpointName, options.log]))
    .digest('hex')
    .slice(0, 32);
  // The kick subject goes through the (namespaced) bus: `<namespace>.tenet.relay.<digest>.kick`, outside `tenet.v1.>`.
  return { key: `relay.${digest}`, kickSubject: `tenet.relay.${digest}.kick` };
}

/** Kicks from standbys to the leader as core-NATS notifications on the log's kick subject. */
export function busWakeups(bus: MessageBus, subject: string): RelayWakeups {
  return {
    send: () => bus.notify(subject, null),
    listen: (onWake) => bus.listen(subject, () => onWake()),
  };
}

/**
 * Distributed mode: the relay's leadership is a NATS KV lease (`TENET_LEASES`, one key per event log), and a
 * standby's appends kick the leader over core NATS.
 */
export async function openRelayLeadership(options: {
  connection: NatsConnection;
  bus: MessageBus;
  config: PlatformConfig;
  checkpointName: string;
  log: string;
  onError: (error: unknown) => void;
}): Promise<{ leadership: RelayLeadership; wakeups: RelayWakeups; key: string }> {
  const { key, kickSubject } = relayLeaseScope({
    log: options.log,
    checkpointName: options.checkpointName,
    ...(options.config.namespace ? { namespace: options.config.namespace } : {}),
  });
  const leadership = await NatsLeaderLease.open({
    connection: options.connection,
    bucket: LEASE_BUCKET,
    key,
    leaseMs: options.config.relayLeaseMs,
    holder: `${options.config.serviceName}@${hostname()}/${process.pid}`,
    about: `event-log relay "${options.checkpointName}" of ${options.log}${options.config.namespace ? ` (namespace ${options.config.namespace})` : ''}`,
    onError: options.onError,
  });
  return { leadership, wakeups: busWakeups(options.bus, kickSubject), key };
}

/** How processes name a MongoDB event log alike: hosts and database, without credentials or options. */
export function mongoLogName(mongoUrl: string, dbName: string): string {
  const url = new URL(mongoUrl);
  return `mongodb:${url.host}/${dbName}`;
}
