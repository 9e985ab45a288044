import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The demo shop's orders: a few fixed ones, so the demo answers the same way every time. */
const ORDERS: Record<string, { status: string; carrier?: string; estimated_delivery?: string }> = {
  '55555': { status: 'shipped', carrier: 'DHL', estimated_delivery: 'in 2 business days' },
  '12345': { status: 'processing', estimated_delivery: 'in 4-6 business days' },
  '24680': { status: 'delivered', carrier: 'UPS' },
};

const describeOrder = (id: string): Record<string, unknown> => {
  const order = ORDERS[id];
  if (!order)
    return { order_id: id, status: 'not_found', message: `I could not find an order with the number ${id}; could you check the number?` };
  const when = order.estimated_delivery ? `, expected ${order.estimated_delivery}` : '';
  const by = order.carrier ? ` with ${order.carrier}` : '';
  return { order_id: id, ...order, message: `Your order ${id} is ${order.status}${by}${when}` };
};

/** The OpenAPI document of the service: one operation, which Tenet registers as the tool `get_order_status`. */
const openApiDocument = (baseUrl: string): Record<string, unknown> => ({
  openapi: '3.0.3',
  info: { title: 'Acme order status (Tenet demo)', version: '1.0.0' },
  servers: [{ url: baseUrl }],
  paths: {
    '/orders/{order_id}': {
      get: {
        operationId: 'get_order_status',
        summary: "Look up an order's status, carrier and expected delivery by its order number",
        parameters: [
          {
            name: 'order_id',
            in: 'path',
            required: true,
            description: 'The order number, e.g. 55555',
            schema: { type: 'string', pattern: '^[0-9]{4,10}$' },
          },
        ],
        responses: { '200': { description: 'The order status', content: { 'application/json': { schema: { type: 'object' } } } } },
      },
    },
    '/customers/{customer_id}/orders': {
      get: {
        operationId: 'get_customer_orders',
        summary: "The customer's open orders (for a tool-backed context variable)",
        parameters: [{ name: 'customer_id', in: 'path', required: true, description: "The customer's id", schema: { type: 'string' } }],
        responses: { '200': { description: 'Open orders', content: { 'application/json': { schema: { type: 'object' } } } } },
      },
    },
  },
});

export interface DemoOrderService {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  /** `host:port`, for the tool executor's allow-list. */
  hostPort: string;
  /** The OpenAPI document's URL. */
  source: string;
  /** Calls served per Idempotency-Key (what the service saw; tests check exactly-once with it). */
  effects: Map<string, number>;
  close(): Promise<void>;
}

/**
 * The bundled example tool service of `npm start` (ADR 0010): an OpenAPI service on 127.0.0.1 that looks up the
 * demo shop's orders, so a new user asking "where is my order 55555" sees the agent call a tool. Plain node:http,
 * no framework: it stands for any team's own HTTP API.
 */
export async function startDemoOrderService(port = 0): Promise<DemoOrderService> {
  const effects = new Map<string, number>();
  let baseUrl = '';
  const send = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method === 'GET' && path === '/openapi.json') return send(res, 200, openApiDocument(baseUrl));
    const order = /^\/orders\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && order?.[1]) {
      const key = req.headers['idempotency-key'];
      if (typeof key === 'string') effects.set(key, (effects.get(key) ?? 0) + 1);
      return send(res, 200, describeOrder(decodeURIComponent(order[1])));
    }
    const customer = /^\/customers\/([^/]+)\/orders$/.exec(path);
    if (req.method === 'GET' && customer?.[1]) {
      const key = req.headers['idempotency-key'];
      if (typeof key === 'string') effects.set(key, (effects.get(key) ?? 0) + 1);
      return send(res, 200, { customer_id: decodeURIComponent(customer[1]), open_orders: ['55555', '12345'] });
    }
    send(res, 404, { detail: `no route ${req.method ?? ''} ${path}` });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  baseUrl = `http://127.0.0.1:${address.port}`;
  return {
    url: baseUrl,
    hostPort: `127.0.0.1:${address.port}`,
    source: `${baseUrl}/openapi.json`,
    effects,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
