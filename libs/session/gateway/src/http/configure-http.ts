import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { getMetadataStorage } from 'class-validator';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { describeOperations } from '../openapi/describe-operations.js';
import { DetailExceptionFilter } from './detail-exception.filter.js';
import { edgeValidationPipe } from './validation.js';

/**
 * HTTP conventions shared by every host that serves the gateway: Parlant's paths (no prefix), 422 validation,
 * and the OpenAPI description at /openapi.json with a browsable UI at /docs.
 *
 * Request-body schemas come from the same class-validator rules that validate the requests, so the published
 * description cannot drift from what the gateway accepts (no second set of `@ApiProperty` decorators).
 */
export function configureGatewayHttp(app: INestApplication): void {
  app.useGlobalPipes(edgeValidationPipe());
  app.useGlobalFilters(new DetailExceptionFilter());
  app.enableCors();
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder().setTitle('Tenet').setDescription("Parlant-compatible REST API of Tenet's session gateway").setVersion('1').build(),
  );
  const fromRules = validationMetadatasToSchemas({ classValidatorMetadataStorage: getMetadataStorage(), refPointerPrefix: '#/components/schemas/' });
  document.components = { ...document.components, schemas: { ...document.components?.schemas, ...(fromRules as NonNullable<typeof document.components>['schemas']) } };
  describeOperations(document);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json' });
}
