/**
 * Nesting deeper than this is refused: every layer that touches a value
 * (this module, lib0's encoder and decoder, JSON on the way out) recurses, and
 * no editor's data comes near it.
 */
export const MAX_DEPTH = 100;
