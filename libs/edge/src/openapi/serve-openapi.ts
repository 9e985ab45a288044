import { Logger, Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import { Router, type NextFunction, type Request, type Response } from 'express';
import { getMetadataStorage } from '@tenet/platform-runtime/validation';
import { describeOperations } from './describe-operations.js';

/** What `SwaggerModule.setup('docs', …, { jsonDocumentUrl: 'openapi.json' })` answers: the UI, its files, JSON and YAML. */
const DOCS_PATH = /^\/(openapi\.json|docs-yaml|docs(\/.*)?)$/;

/**
 * The routes this serves, for listings of the application's routes (docs/security.md): they are not in the Express
 * router, because the document and its UI are mounted on the first request. `/docs/{*file}` is the UI's page and files.
 */
export const OPENAPI_ROUTES: readonly { method: 'GET'; path: string }[] = [
  { method: 'GET', path: '/docs' },
  { method: 'GET', path: '/docs-yaml' },
  { method: 'GET', path: '/docs/{*file}' },
  { method: 'GET', path: '/openapi.json' },
];

@Module({})
class OpenApiDocsModule {}

/**
 * The OpenAPI description at /openapi.json (and /docs-yaml) with the browsable UI at /docs, loaded on the first
 * request for one of them: @nestjs/swagger (with es-toolkit, about 530 modules) and the document it scans the
 * application for cost every HTTP process memory and start-up time, and most are never asked (ADR 0035).
 *
 * Swagger's own `SwaggerModule.setup` serves them, into a router of a second, never-listening Nest application made
 * then: routes added to the running application would sit behind Nest's 404 handler, mounted at its start.
 */
export function serveOpenApiOnFirstRequest(app: INestApplication, build: (app: INestApplication) => Promise<Router> = mountDocs): void {
  let docs: Promise<Router> | undefined;
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (!DOCS_PATH.test(req.path)) return next();
    // A build that failed is not kept: the request gets the error and the next request builds again, into a new
    // router, so a half-mounted one is never served.
    docs ??= build(app).catch((error: unknown) => {
      docs = undefined;
      throw error;
    });
    docs.then((router) => router(req, res, next), next);
  });
}

async function mountDocs(app: INestApplication): Promise<Router> {
  const router = Router();
  // The docs application's own start-up line follows this one; it is not the process restarting.
  new Logger('OpenApi').log('first request for the API description: building it and its /docs application');
  // class-validator-jsonschema loads the whole of class-validator (validator, libphonenumber-js): here, not at start.
  const [{ DocumentBuilder, SwaggerModule }, { validationMetadatasToSchemas }] = await Promise.all([
    import('@nestjs/swagger'),
    import('class-validator-jsonschema'),
  ]);
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Tenet')
      .setDescription("Parlant-compatible REST API of Tenet's session gateway")
      .setVersion('1')
      .build(),
  );
  // Request-body schemas come from the same class-validator rules that validate the requests, so the published
  // description cannot drift from what the gateway accepts (no second set of `@ApiProperty` decorators).
  const fromRules = validationMetadatasToSchemas({
    classValidatorMetadataStorage: getMetadataStorage(),
    refPointerPrefix: '#/components/schemas/',
  });
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ...(fromRules as NonNullable<typeof document.components>['schemas']) },
  };
  describeOperations(document);
  const docsApp = await NestFactory.create<NestExpressApplication>(OpenApiDocsModule, new ExpressAdapter(router));
  SwaggerModule.setup('docs', docsApp, document, { jsonDocumentUrl: 'openapi.json' });
  return router;
}
