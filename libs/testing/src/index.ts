export { describeWithService, isCi, natsUrl, probeNats, probeRedis, probeService, redisUrl, type ServiceGate } from './services.js';
export { eventually } from './eventually.js';
export { deciderSpec, type Decider } from './decider-spec.js';
export { startOwnNats, startOwnRedis, type OwnServer } from './servers.js';
export { closesDuringRedisOutage } from './outages.js';
export { deleteRedisKeys, deleteStreams } from './streams.js';
export {
  childrenOf,
  descendantsOf,
  isAlive,
  killGroup,
  serviceProcess,
  runCommand,
  waitHealthy,
  type RunningCommand,
} from './processes.js';
export { inParallel } from './concurrency.js';
export { describeWithContainers } from './containers.js';
export { freePort, freePortRange } from './ports.js';
export { seededRandom } from './seeded-random.js';
export { fillDisk, mountTmpfs, unmountTmpfs } from './disks.js';
