/**
 * What the renderer sets before any other module runs, for the page's Content-Security-Policy
 * (main/security.ts: no 'unsafe-eval'). zod compiles its object parsers with `new Function` when it
 * may, and finds out by trying one at the first parse: under the policy that try was refused and
 * reported as a violation on every load (the zod of the API schemas, main/api.ts). jitless says no
 * up front; its parsers are the same without the compiled fast path.
 */
import { z } from 'zod';

z.config({ jitless: true });
