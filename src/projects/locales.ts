import * as v from 'valibot';
import { LANGUAGES } from '../text/language.js';

/** A language a site can serve, as a client names it. */
export const LocaleSchema = v.picklist(LANGUAGES, 'must be es or en');
