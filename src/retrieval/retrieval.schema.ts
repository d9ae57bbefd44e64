import * as v from 'valibot';
import { named } from '../platform/named-schema.js';
import { TopicSchema } from '../platform/topic-tag.js';
import { clientText, notBlank } from '../platform/validation.js';

const Topics = v.pipe(
  v.array(TopicSchema),
  v.transform((list) => [...new Set(list)]),
);

export const QueryBodySchema = named(
  'QueryRequest',
  v.strictObject({
    query: v.pipe(clientText({ min: 1, max: 2000 }), notBlank()),
    topics: v.optional(Topics, []),
    limit: v.optional(
      v.pipe(
        v.number(),
        v.integer('must be an integer from 1 to 20'),
        v.minValue(1, 'must be an integer from 1 to 20'),
        v.maxValue(20, 'must be an integer from 1 to 20'),
      ),
      5,
    ),
  }),
);

export type QueryBody = v.InferOutput<typeof QueryBodySchema>;

/** A search as retrieval runs it: the probe's body. */
export type SearchInput = QueryBody;

export const PassageSchema = named(
  'Passage',
  v.object({
    sourceId: v.string(),
    title: v.string(),
    text: v.string(),
    score: v.pipe(
      v.number(),
      v.minValue(0),
      v.maxValue(1),
      v.description(
        'How much of the question this passage holds: its BM25 score over the highest BM25 the question could give ' +
          '(every word of it under each stem the knowledge uses, those it never uses included, as often as saturation allows), so 1 is out of reach ' +
          'and a passage holding each word once scores about 0.45 (0.15 more for a passage of a routed topic, at most 1). ' +
          'Comparable across questions to the same agent. With an embeddings endpoint configured the words still decide: a passage ' +
          "holding the question's words keeps its score, the vectors order only passages of the same evidence, and a passage only " +
          "the vectors find scores under 0.023, after every passage holding the question's words. " +
          'Strictly decreasing down the list, 6 decimals: passages with the same evidence are ordered by what they are, whatever order ' +
          "their sources arrived in (the question's language first, then the title, then the text), and shown " +
          '0.000001 apart (past the sixth decimal, a millionth of the score above apart, never 0); only the same text twice shares a score.',
      ),
    ),
    topics: v.array(v.string()),
    lang: v.picklist(['es', 'en']),
    url: v.optional(v.string()),
  }),
);

export const QueryResultSchema = named(
  'QueryResult',
  v.object({
    passages: v.pipe(
      v.array(PassageSchema),
      v.description(
        'Best first. Empty when the agent has no ready knowledge, or when it cannot answer (a refusal): the question names a thing ' +
          'its knowledge never mentions (a program, a product, a word of no general language, or a name of several words no passage ' +
          'holds together) for more than about one subject word in six, an ordinary word it never uses counting half and a verb form a ' +
          'quarter, an everyday word nothing; or its best passage holds under 5% of the question. Words a question is put in count ' +
          'neither way: function words, greetings, courtesies and the name they address, chat shorthand, numbers; a link it cites ' +
          'and what a mail client adds ("Sent from my iPhone", a signature after "-- ", "Re: ") are not searched. A word mistyped by one ' +
          'slip of the keyboard ("hostnme") counts as the word of the knowledge it is one slip from. Answering is the default: the rule refuses at most a few percent of answerable questions on the corpora measured.',
      ),
    ),
    strategies: v.object({ topics: v.number(), vector: v.number() }),
  }),
);

/** A passage retrieval found; `score` is 0..1, best first. */
export type Passage = v.InferOutput<typeof PassageSchema>;

/** The passages and how many of them each strategy found (a passage found by both counts in both). */
export type QueryResult = v.InferOutput<typeof QueryResultSchema>;
