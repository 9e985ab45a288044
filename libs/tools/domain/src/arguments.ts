// One tool-argument validator for the matcher, the executor and the agent's tool definitions (ADR 0022).
export { checkArguments, describeProblems, type ArgumentCheck, type ArgumentProblem } from '@tenet/json-schema';
