/**
 * How much of a long list the provider and the CLI keep, list or hash at once: each bound has its
 * one home here. A leaf: it imports nothing.
 */

/** Rows a resource's outputs keep as examples (dropped recipients, image problems, refused records). */
export const SAMPLE_SIZE = 10;

/** Problems a read of a data file keeps for a resource's check; every problem is counted. */
export const MAX_KEPT_PROBLEMS = 20;

/** Problems printed per file (a campaign folder's check, `directmail scans import`); the rest are counted. */
export const MAX_PRINTED_PROBLEMS = 100;

/** Bytes of digest lines hashed at once: a million calls to update cost more than the hash. */
export const HASH_CHUNK_BYTES = 64 * 1024;
