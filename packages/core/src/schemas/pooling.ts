/**
 * Sentence pooling modes: how an encoder's token states become one vector. `cls` takes token 0
 * (sentence-transformers' `pooling_mode_cls_token`); `mean` averages the tokens the attention
 * mask keeps, sum(h * m) / max(sum(m), 1e-9) (`pooling_mode_mean_tokens`). The one declaration
 * of the modes: configs, the model-folder reader, the tfjs and ONNX encoders and the exporters
 * all take this type, and registries of pooling functions are keyed by it.
 */
import { z } from 'zod';

export const Pooling = z.enum(['cls', 'mean']);
export type Pooling = z.infer<typeof Pooling>;
