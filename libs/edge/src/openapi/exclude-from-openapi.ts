import { SetMetadata } from '@nestjs/common';

/**
 * @nestjs/swagger's `@ApiExcludeController()` / `@ApiExcludeEndpoint()`, set as the same metadata (its exported
 * `DECORATORS` keys and values, checked in exclude-from-openapi.unit.spec.ts) without importing @nestjs/swagger: its
 * entry point loads the whole package with es-toolkit (about 530 modules), which only a request for the OpenAPI
 * document needs (ADR 0035).
 */
export const ExcludedControllerFromOpenApi = (): ClassDecorator => SetMetadata('swagger/apiExcludeController', [true]);
export const ExcludedEndpointFromOpenApi = (): MethodDecorator => SetMetadata('swagger/apiExcludeEndpoint', { disable: true });
