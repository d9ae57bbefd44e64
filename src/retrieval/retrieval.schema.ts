import * as v from 'valibot';
import { named } from '../platform/named-schema.js';
import { TopicSchema } from '../platform/topic-tag.js';
import { clientText } from '../platform/validation.js';

const Topics = v.pipe(
  v.array(TopicSchema),
  v.transform((list) => [...new Set(list)]),
);

export const QueryBodySchema = named('QueryRequest', v.strictObject({
  query: v.pipe(clientText({ min: 1, max: 2000 }), v.check((s) => s.trim().length > 0, 'must not be blank')),
  topics: v.optional(Topics, []),
  limit: v.optional(v.pipe(v.number(), v.integer('must be an integer from 1 to 20'), v.minValue(1, 'must be an integer from 1 to 20'), v.maxValue(20, 'must be an integer from 1 to 20')), 5),
}));

export type QueryBody = v.InferOutput<typeof QueryBodySchema>;

/** A search as retrieval runs it: the probe's body. */
export type SearchInput = QueryBody;

export const PassageSchema = named('Passage', v.object({
  sourceId: v.string(),
  title: v.string(),
  text: v.string(),
  score: v.pipe(
    v.number(),
    v.minValue(0),
    v.maxValue(1),
    v.description(
      'How much of the question this passage holds: its BM25 score over the highest BM25 the question could give ' +
        '(every word of it, those the knowledge never uses included, as often as saturation allows), so 1 is out of reach ' +
        'and a passage holding each word once scores about 0.45 (0.15 more for a passage of a routed topic, at most 1). ' +
        'Comparable across questions to the same agent; with an embeddings endpoint configured, the fused rank over its best. ' +
        'Strictly decreasing down the list, 6 decimals: passages with the same evidence are ordered by chunk and shown ' +
        '0.000001 apart; only the same text twice shares a score.',
    ),
  ),
  topics: v.array(v.string()),
  lang: v.picklist(['es', 'en']),
  url: v.optional(v.string()),
}));

export const QueryResultSchema = named('QueryResult', v.object({
  passages: v.array(PassageSchema),
  strategies: v.object({ topics: v.number(), vector: v.number() }),
}));

/** A passage retrieval found; `score` is 0..1, best first. */
export type Passage = v.InferOutput<typeof PassageSchema>;

/** The passages and how many of them each strategy found (a passage found by both counts in both). */
export type QueryResult = v.InferOutput<typeof QueryResultSchema>;
