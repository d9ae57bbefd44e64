import { workerTask } from '../../platform/worker-task.js';
import { learnLexicon, type LearnedLexicon, type LexiconSource } from './learn.js';

/** The lexicon's worker module: learning grows with the workspace's text, so it runs off the serving thread. */
export const learn = workerTask((sources: LexiconSource[]): LearnedLexicon => learnLexicon(sources));
