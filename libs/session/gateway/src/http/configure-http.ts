import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { edgeValidationPipe } from './validation.js';

/**
 * HTTP conventions shared by every host that serves the gateway: Parlant's paths (no prefix), 422 validation,
 * and the OpenAPI description at /openapi.json with a browsable UI at /docs.
 */
export function configureGatewayHttp(app: INestApplication): void {
  app.useGlobalPipes(edgeValidationPipe());
  app.enableCors();
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder().setTitle('Tenet').setDescription("Parlant-compatible REST API of Tenet's session gateway").setVersion('1').build(),
  );
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json' });
}
