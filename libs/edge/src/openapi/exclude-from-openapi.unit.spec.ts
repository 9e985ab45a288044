import { Controller, Get } from '@nestjs/common';
import { ApiExcludeController, ApiExcludeEndpoint, DECORATORS } from '@nestjs/swagger';
import { ExcludedControllerFromOpenApi, ExcludedEndpointFromOpenApi } from './exclude-from-openapi.js';

@ExcludedControllerFromOpenApi()
@Controller('ours')
class Ours {
  @ExcludedEndpointFromOpenApi()
  @Get()
  handle(): string {
    return 'ok';
  }
}

@ApiExcludeController()
@Controller('theirs')
class Theirs {
  @ApiExcludeEndpoint()
  @Get()
  handle(): string {
    return 'ok';
  }
}

describe('ExcludedControllerFromOpenApi / ExcludedEndpointFromOpenApi', () => {
  it("set the same metadata as @nestjs/swagger's ApiExcludeController / ApiExcludeEndpoint", () => {
    expect(Reflect.getMetadata(DECORATORS.API_EXCLUDE_CONTROLLER, Ours)).toEqual(
      Reflect.getMetadata(DECORATORS.API_EXCLUDE_CONTROLLER, Theirs),
    );
    expect(Reflect.getMetadata(DECORATORS.API_EXCLUDE_ENDPOINT, Ours.prototype.handle)).toEqual(
      Reflect.getMetadata(DECORATORS.API_EXCLUDE_ENDPOINT, Theirs.prototype.handle),
    );
    expect(Reflect.getMetadata(DECORATORS.API_EXCLUDE_CONTROLLER, Ours)).toEqual([true]);
  });
});
