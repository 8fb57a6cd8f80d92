import { defineFuzzSuite } from './suite.js';

// Shard 2 of 2 of the operations: two files, two workers, two servers (see suite.ts).
defineFuzzSuite(1, 2);
