// Jest ignores testTimeout inside `projects` entries; each tier sets its default here instead.
import { jest } from '@jest/globals';

jest.setTimeout(60_000);
