import { InProcessMessageBus } from './in-process/in-process-message-bus.js';
import { withSubjectNamespace } from './namespaced-bus.js';

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

  it('gives each deployment its own durable consumer position on the shared stream', async () => {
    const shared = new InProcessMessageBus({ streams: [{ name: 'S', subjects: ['tenet.v1.>'] }] });
    const got: string[] = [];
    for (const ns of ['blue', 'green']) {
      await withSubjectNamespace(shared, ns).consume({ durable: 'metering', filterSubject: 'tenet.v1.x.>' }, async (m) => void got.push(`${ns} ${String(m.data)}`));
    }
    await shared.publish('tenet.v1.x.1', 'e1');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(got.sort()).toEqual(['blue e1', 'green e1']);
    await shared.close();
  });

  it('refuses a namespace that is not one subject token', () => {
    expect(() => withSubjectNamespace(new InProcessMessageBus(), 'a.b')).toThrow('namespace "a.b" must match');
  });
});
