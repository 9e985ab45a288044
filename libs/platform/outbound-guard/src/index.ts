export { blockedAddressOf, guardedLookup, isBlockedAddress } from './blocked-addresses.js';
