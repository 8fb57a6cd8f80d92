/**
 * A setting the operator must fix: the server or CLI stops with its one-line
 * message. Its own module so that config.ts and the database layer it reads
 * defaults from do not import each other.
 */
export class ConfigError extends Error {}
