import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';

/** Removes JetStream streams a test created (e.g. the stream of its TENET_NAMESPACE), so runs leave none behind. */
export async function deleteStreams(servers: string, names: string[]): Promise<void> {
  const nc = await connect({ servers });
  try {
    const jsm = await jetstreamManager(nc);
    for (const name of names) await jsm.streams.delete(name).catch(() => undefined);
  } finally {
    await nc.close();
  }
}
