import { startMcpToolServer, startOpenApiToolServer, startSdkToolServer, toolProtocolConformance } from '../testing/index.js';
import { outboundPolicyFromEnv } from '../outbound/outbound.js';
import { ToolServices } from './tool-services.js';

toolProtocolConformance('openapi', () => startOpenApiToolServer());
toolProtocolConformance('mcp', () => startMcpToolServer());
toolProtocolConformance('sdk (Parlant plugin protocol)', () => startSdkToolServer());

describe('openapi documents', () => {
  it('reads a YAML document and refuses one that is not OpenAPI 3, with TOOLS.INVALID_DOCUMENT', async () => {
    const server = await startOpenApiToolServer({ yaml: true });
    const services = new ToolServices(outboundPolicyFromEnv({ TENET_TOOL_ALLOWED_HOSTS: server.hostPort }));
    try {
      const { tools } = await services.describe(server.service);
      expect(tools.map((tool) => tool.name)).toContain('get_order');
      await expect(services.describe({ ...server.service, source: `${server.service.url}/orders/1` })).rejects.toMatchObject({
        code: 'TOOLS.INVALID_DOCUMENT',
      });
      await expect(services.describe({ ...server.service, source: `${server.service.url}/missing.json` })).rejects.toMatchObject({
        code: 'TOOLS.SERVICE_UNREACHABLE',
      });
    } finally {
      await services.close();
      await server.close();
    }
  });

  it('reports an unreachable service with TOOLS.SERVICE_UNREACHABLE', async () => {
    const server = await startSdkToolServer();
    await server.close();
    const services = new ToolServices(outboundPolicyFromEnv({ TENET_TOOL_ALLOWED_HOSTS: server.hostPort }));
    try {
      await expect(services.describe(server.service)).rejects.toMatchObject({ code: 'TOOLS.SERVICE_UNREACHABLE' });
    } finally {
      await services.close();
    }
  });
});
