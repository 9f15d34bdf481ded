/**
 * The longest answer a tool may give, in characters (about 25,000 tokens):
 * more would crowd out an agent's context. A longer one is refused, telling
 * the agent how to ask for less.
 */
export const ANSWER_MAX_CHARS = 100_000;
