import { InProcessMessageBus } from './in-process/in-process-message-bus.js';
import { namespacedStream, withSubjectNamespace } from './namespaced-bus.js';

describe('withSubjectNamespace', () => {
  it('keeps requests and notifications of two deployments on one bus apart, and hands handlers unprefixed subjects', async () => {
    const shared = new InProcessMessageBus({ streams: [{ name: 'S', subjects: ['tenet.v1.>'] }] });
    const blue = withSubjectNamespace(shared, 'blue');
    const green = withSubjectNamespace(shared, 'green');
    await blue.reply('tenet.rpc.v1.echo', 'svc', async (data: { n: number }) => ({ from: 'blue', n: data.n }));
    await green.reply('tenet.rpc.v1.echo', 'svc', async (data: { n: number }) => ({ from: 'green', n: data.n }));
    expect(await blue.request('tenet.rpc.v1.echo', { n: 1 })).toEqual({ from: 'blue', n: 1 });
    expect(await green.request('tenet.rpc.v1.echo', { n: 2 })).toEqual({ from: 'green', n: 2 });
    await expect(shared.request('tenet.rpc.v1.echo', { n: 3 }, { timeoutMs: 50 })).rejects.toThrow();

    const heard: string[] = [];
    await blue.listen('tenet.gateway.session.*.appended', (_data, subject) => heard.push(`blue ${subject}`));
    await green.listen('tenet.gateway.session.*.appended', (_data, subject) => heard.push(`green ${subject}`));
    await blue.notify('tenet.gateway.session.s1.appended', {});
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(heard).toEqual(['blue tenet.gateway.session.s1.appended']);
    await shared.close();
  });

  it('isolates durable events: each namespace publishes to and consumes from its own stream only', async () => {
    const base = { name: 'TENET_V1', subjects: ['tenet.v1.>'] };
    const shared = new InProcessMessageBus({ streams: [namespacedStream(base, 'blue'), namespacedStream(base, 'green')] });
    const got: string[] = [];
    for (const ns of ['blue', 'green']) {
      await withSubjectNamespace(shared, ns).consume(
        { durable: 'metering', filterSubject: 'tenet.v1.x.>' },
        async (m) => void got.push(`${ns} ${m.subject} ${String(m.data)}`),
      );
    }
    await withSubjectNamespace(shared, 'blue').publish('tenet.v1.x.1', 'e1');
    await withSubjectNamespace(shared, 'green').publish('tenet.v1.x.2', 'e2');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(got.sort()).toEqual(['blue tenet.v1.x.1 e1', 'green tenet.v1.x.2 e2']);
    await shared.close();
  });

  it('names the stream of a namespace after it and prefixes its subjects', () => {
    expect(namespacedStream({ name: 'TENET_V1', subjects: ['tenet.v1.>'], maxAgeMs: 5 }, 'blue')).toEqual({
      name: 'TENET_V1_blue',
      subjects: ['blue.tenet.v1.>'],
      maxAgeMs: 5,
    });
    expect(namespacedStream({ name: 'TENET_V1', subjects: ['tenet.v1.>'] }, undefined)).toEqual({
      name: 'TENET_V1',
      subjects: ['tenet.v1.>'],
    });
  });

  it('refuses a namespace that is not one subject token', () => {
    expect(() => withSubjectNamespace(new InProcessMessageBus(), 'a.b')).toThrow('namespace "a.b" must match');
  });
});
