export { MeteringModule } from './metering.module.js';
export { MeteringController, USAGE_EVENTS } from './metering.controller.js';
export { TOKEN_RECORDED, TokenRecords, tokenStreamId, type TokenRecord } from './token-records.js';
