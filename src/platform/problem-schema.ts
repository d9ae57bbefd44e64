import * as v from 'valibot';
import { ERROR_CODES, type ErrorCode } from './error-codes.js';
import { named } from './named-schema.js';

const CODES = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

/** The RFC 9457 problem document every failure is (API.md, Errors); `problem.ts` builds it. */
export const ProblemSchema = named(
  'Problem',
  v.object({
    type: v.pipe(v.string(), v.url(), v.description('The page of `code` in the error reference')),
    title: v.pipe(v.string(), v.description('Stable English summary of the code')),
    status: v.pipe(v.number(), v.integer()),
    detail: v.pipe(v.string(), v.description('This occurrence, in English or Spanish (`Accept-Language`); not a contract')),
    instance: v.pipe(v.string(), v.description('The path of the request')),
    code: v.pipe(v.picklist(CODES), v.description('What clients branch on')),
    requestId: v.pipe(v.string(), v.description('Equals the `x-request-id` header')),
    errors: v.optional(
      v.pipe(
        v.array(
          v.object({
            field: v.string(),
            reason: v.string(),
            suggestion: v.optional(v.pipe(v.string(), v.description('On `svc.project.slug_taken`: a free neighbouring slug'))),
          }),
        ),
        v.description('On validation failures: one entry per field, the first reason each'),
      ),
    ),
  }),
);
