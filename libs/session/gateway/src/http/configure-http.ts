import type { INestApplication } from '@nestjs/common';
import { edgeValidationPipe } from './validation.js';

/** HTTP conventions shared by every host that serves the gateway: Parlant's paths (no prefix), 422 validation. */
export function configureGatewayHttp(app: INestApplication): void {
  app.useGlobalPipes(edgeValidationPipe());
  app.enableCors();
}
