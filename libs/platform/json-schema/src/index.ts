export { compileUserPattern, re2RegExp, type CompiledPattern, type UserPattern } from './user-pattern.js';
export {
  checkArguments,
  compileToolSchema,
  describeProblems,
  dialectOf,
  toolSchemaProblem,
  type ArgumentCheck,
  type ArgumentProblem,
  type CompiledToolSchema,
  type JsonSchemaDialect,
} from './tool-schema.js';
